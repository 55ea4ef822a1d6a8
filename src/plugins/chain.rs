//! Plugin chains: what `--plugins` and PROJECT's `layout` name.
//!
//! A chain is a comma-separated list of plugin keys, in full
//! (`kustomize.common.kubebuilder.io/v2`) or short (`kustomize/v2`) form; a
//! bundle key (`go.kubebuilder.io/v4`, short `go/v4`) stands for several
//! plugins. PROJECT's `layout` records each item of the chain by its full
//! key, bundles as bundles, as kubebuilder does; a bundle marked
//! `recorded_expanded` (`rust/v1-alpha`) by its plugins' keys.

use super::{Layout, ManifestsLayout, PLUGINS, Plugin, Role};
use crate::project::ProjectFile;
use anyhow::{Result, bail};

/// A key that stands for several plugins, run in the order listed.
#[derive(Debug)]
pub struct Bundle {
    /// The key recorded in PROJECT.
    pub key: &'static str,
    /// The short form `--plugins` accepts.
    pub short_name: &'static str,
    /// The keys of its plugins.
    pub plugins: &'static [&'static str],
    /// PROJECT's `layout` records its plugins' keys rather than its own.
    pub recorded_expanded: bool,
    /// Older layout keys PROJECT files may record that this bundle
    /// re-creates (see [`current_layout_key`]).
    pub replaces: &'static [&'static str],
}

/// The key a re-scaffold (`alpha generate`, the ancestor of `alpha
/// update`) runs for PROJECT's layout key `key`: the key of the bundle
/// that replaces it, else `key` itself.
pub fn current_layout_key(key: &str) -> &str {
    super::BUNDLES
        .iter()
        .find(|bundle| bundle.replaces.contains(&key))
        .map_or(key, |bundle| bundle.key)
}

/// The chain `init` runs without `--plugins`.
pub const DEFAULT_CHAIN: &str = "go/v4";

/// A resolved chain of plugins.
#[derive(Clone)]
pub struct Chain {
    /// The chain's items by key, as PROJECT's `layout` records them (not
    /// to be confused with [`Chain::layout`], its language layout).
    pub keys: Vec<String>,
    /// Every plugin, bundles expanded, in the order they run.
    pub plugins: Vec<&'static dyn Plugin>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain").field("keys", &self.keys).finish()
    }
}

impl Chain {
    /// The chain named by a `--plugins` value. Refuses unknown keys, a
    /// plugin named twice, and two plugins of the same layout role.
    pub fn parse(spec: &str) -> Result<Self> {
        let names: Vec<&str> = spec
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if names.is_empty() {
            bail!("--plugins {spec:?} names no plugin; {}", known());
        }
        let mut chain = Self {
            keys: Vec::new(),
            plugins: Vec::new(),
        };
        for name in names {
            chain.push(name)?;
        }
        Ok(chain)
    }

    /// The chain PROJECT's `layout` records.
    pub fn from_layout(layout: &[String]) -> Result<Self> {
        if layout.is_empty() {
            bail!(
                "PROJECT has no `layout`, so its plugins are unknown; {}",
                known()
            );
        }
        Self::parse(&layout.join(",")).map_err(|e| anyhow::anyhow!("PROJECT's layout: {e}"))
    }

    /// The chain of an existing project: its `layout`, then the plugins
    /// recorded under its `plugins:` that stay in the chain (see
    /// [`Plugin::stays_in_chain`]).
    pub fn of_project(project: &ProjectFile) -> Result<Self> {
        let mut chain = Self::from_layout(&project.layout)?;
        let staying = project
            .plugins
            .keys()
            .filter_map(|key| super::by_key(key.as_str()?))
            .filter(|plugin| plugin.stays_in_chain() && !chain.contains(plugin.key()));
        for plugin in staying.collect::<Vec<_>>() {
            chain.plugins.push(plugin);
        }
        Ok(chain)
    }

    /// The keys PROJECT's `layout` records for this chain: its items but
    /// those that stay in the chain through PROJECT's `plugins:`.
    pub fn layout_keys(&self) -> Vec<String> {
        self.keys
            .iter()
            .filter(|key| !super::by_key(key).is_some_and(|p| p.stays_in_chain()))
            .cloned()
            .collect()
    }

    /// Whether cert-manager gives the webhook server its certificate: no
    /// plugin of the chain supplies it.
    pub fn cert_manager_for_webhooks(&self) -> bool {
        !self.iter().any(|p| p.supplies_webhook_certificates())
    }

    /// Adds the plugins named by a later command's `--plugins` that are not
    /// in the chain already (a plugin of the chain may be named again).
    /// Only optional plugins can be added to an existing project.
    pub fn with_extra(mut self, spec: &str) -> Result<Self> {
        let extra = Self::parse(spec)?;
        for plugin in extra.plugins {
            if self.contains(plugin.key()) {
                continue;
            }
            if plugin.role() != Role::Optional {
                bail!(
                    "--plugins {}: the project's layout is {}, and its layout plugins cannot be changed after init; optional plugins: {}",
                    display_name(plugin),
                    self.keys.join(","),
                    names_of_role(Role::Optional)
                );
            }
            self.plugins.push(plugin);
        }
        Ok(self)
    }

    /// Whether the chain runs the plugin with `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.plugins.iter().any(|p| p.key() == key)
    }

    /// The plugins the chain runs, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'static dyn Plugin> + '_ {
        self.plugins.iter().copied()
    }

    /// The chain's language layout, if it has one.
    pub fn layout(&self) -> Option<&'static dyn Layout> {
        self.iter().find_map(|plugin| plugin.layout())
    }

    /// The chain's manifests plugin, if it has one.
    pub fn manifests_layout(&self) -> Option<&'static dyn ManifestsLayout> {
        self.iter().find_map(|plugin| plugin.manifests_layout())
    }

    /// Adds the plugin or bundle `name` at the end of the chain.
    fn push(&mut self, name: &str) -> Result<()> {
        let (keys, plugins) = resolve(name)?;
        for plugin in &plugins {
            if self.contains(plugin.key()) {
                bail!(
                    "--plugins names {} twice ({name} and an earlier item both include it; go/v4 is base.go.kubebuilder.io/v4 with kustomize/v2); {}",
                    plugin.key(),
                    known()
                );
            }
            if plugin.role() != Role::Optional
                && let Some(other) = self.iter().find(|p| p.role() == plugin.role())
            {
                bail!(
                    "--plugins cannot hold both {} and {}: a project has one {}; {}",
                    other.key(),
                    plugin.key(),
                    role_name(plugin.role()),
                    known()
                );
            }
        }
        self.keys.extend(keys.iter().map(|key| key.to_string()));
        self.plugins.extend(plugins);
        Ok(())
    }
}

/// The keys PROJECT's `layout` records for a bundle or plugin named in full
/// or short form, and its plugins.
fn resolve(name: &str) -> Result<(Vec<&'static str>, Vec<&'static dyn Plugin>)> {
    if let Some(bundle) = super::BUNDLES
        .iter()
        .find(|b| b.key == name || b.short_name == name)
    {
        let plugins = bundle
            .plugins
            .iter()
            .filter_map(|key| super::by_key(key))
            .collect();
        let keys = if bundle.recorded_expanded {
            bundle.plugins.to_vec()
        } else {
            vec![bundle.key]
        };
        return Ok((keys, plugins));
    }
    if let Some(plugin) = PLUGINS
        .iter()
        .copied()
        .find(|p| p.key() == name || p.short_name() == Some(name))
    {
        return Ok((vec![plugin.key()], vec![plugin]));
    }
    let found = external_item(name)?.expect("not built in");
    let plugin = super::external::plugin::chain_plugin(found);
    Ok((vec![plugin.key()], vec![plugin]))
}

/// Whether `name` names a built-in plugin or bundle, in full or short form.
fn is_built_in(name: &str) -> bool {
    super::BUNDLES
        .iter()
        .any(|b| b.key == name || b.short_name == name)
        || PLUGINS
            .iter()
            .any(|p| p.key() == name || p.short_name() == Some(name))
}

/// The external plugin a chain item names (see [`super::external`]), or
/// `None` when it names a built-in one. Only then are external plugins
/// looked up. Refuses a name that is neither.
pub fn external_item(name: &str) -> Result<Option<&'static super::external::External>> {
    if is_built_in(name) {
        return Ok(None);
    }
    super::external::discover::find(name)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{e}; {}", known()))
}

/// `short (key)`, or the key alone.
fn display_name(plugin: &dyn Plugin) -> String {
    match plugin.short_name() {
        Some(short) => format!("{short} ({})", plugin.key()),
        None => plugin.key().to_string(),
    }
}

/// What a role is called in messages.
fn role_name(role: Role) -> &'static str {
    match role {
        Role::Language => "language layout",
        Role::Manifests => "manifests layout",
        Role::Optional => "optional plugin",
    }
}

/// The plugins of `role`, for messages.
fn names_of_role(role: Role) -> String {
    let names: Vec<String> = PLUGINS
        .iter()
        .filter(|p| p.role() == role)
        .map(|p| display_name(*p))
        .collect();
    names.join(", ")
}

/// Every accepted name, for messages.
pub fn known() -> String {
    let mut names: Vec<String> = super::BUNDLES
        .iter()
        .map(|b| format!("{} ({})", b.short_name, b.key))
        .collect();
    names.extend(PLUGINS.iter().map(|p| display_name(*p)));
    format!("known plugins: {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(chain: &Chain) -> Vec<&'static str> {
        chain.iter().map(|p| p.key()).collect()
    }

    #[test]
    fn the_go_bundle_expands_and_is_recorded_as_one_key() {
        for spec in ["go/v4", "go.kubebuilder.io/v4"] {
            let chain = Chain::parse(spec).unwrap();
            assert_eq!(chain.keys, ["go.kubebuilder.io/v4"]);
            assert_eq!(
                keys(&chain),
                [
                    "base.go.kubebuilder.io/v4",
                    "kustomize.common.kubebuilder.io/v2"
                ]
            );
        }
    }

    #[test]
    fn the_rust_bundle_is_recorded_by_its_plugins_keys() {
        for spec in ["rust/v1-alpha", "rust.kubebuilder-rs.io/v1-alpha"] {
            let chain = Chain::parse(spec).unwrap();
            let expected = [
                "base.rust.kubebuilder-rs.io/v1-alpha",
                "kustomize.common.kubebuilder.io/v2",
            ];
            assert_eq!(chain.keys, expected);
            assert_eq!(keys(&chain), expected);
            assert!(Chain::from_layout(&chain.keys).is_ok());
        }
        let err = Chain::parse("rust/v1-alpha,go/v4").unwrap_err().to_string();
        assert!(err.contains("twice") || err.contains("both"), "{err}");
    }

    #[test]
    fn plugins_are_recorded_by_full_key_in_the_given_order() {
        let chain = Chain::parse("base.go.kubebuilder.io/v4, kustomize/v2").unwrap();
        assert_eq!(
            chain.keys,
            [
                "base.go.kubebuilder.io/v4",
                "kustomize.common.kubebuilder.io/v2"
            ]
        );
        let chain = Chain::parse("kustomize/v2").unwrap();
        assert_eq!(chain.keys, ["kustomize.common.kubebuilder.io/v2"]);
    }

    #[test]
    fn old_go_layouts_are_re_created_as_go_v4_and_other_keys_stay() {
        for old in [
            "go.kubebuilder.io/v2",
            "go.kubebuilder.io/v3",
            "go.kubebuilder.io/v3-alpha",
            "go.kubebuilder.io/v4-alpha",
        ] {
            assert_eq!(current_layout_key(old), "go.kubebuilder.io/v4", "{old}");
        }
        for kept in [
            "go.kubebuilder.io/v4",
            "kustomize.common.kubebuilder.io/v2",
            "rust.kubebuilder-rs.io/v1-alpha",
            "acme/v1",
        ] {
            assert_eq!(current_layout_key(kept), kept);
        }
    }

    #[test]
    fn unknown_and_clashing_chains_are_refused() {
        let err = Chain::parse("go/v3").unwrap_err().to_string();
        assert!(
            err.contains("\"go/v3\"") && err.contains("kustomize/v2"),
            "{err}"
        );
        let err = Chain::parse("go/v4,kustomize/v2").unwrap_err().to_string();
        assert!(err.contains("twice"), "{err}");
        assert!(Chain::parse(" , ").is_err());
    }

    #[test]
    fn later_commands_may_add_optional_plugins_only() {
        let chain = Chain::parse("go/v4").unwrap();
        let more = chain.clone().with_extra("go/v4,grafana/v1-alpha").unwrap();
        assert!(more.contains("grafana.kubebuilder.io/v1-alpha"));
        assert_eq!(more.keys, ["go.kubebuilder.io/v4"]);
        let chain = Chain::parse("kustomize/v2").unwrap();
        let err = chain.with_extra("base.go.kubebuilder.io/v4").unwrap_err();
        assert!(err.to_string().contains("cannot be changed"), "{err}");
    }
}
