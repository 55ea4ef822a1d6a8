//! Kubernetes built-in types. Which groups typed on the command line count as
//! built-in follows kubebuilder's own list; the packages of k8s.io/api and
//! their kinds come from `core-types.toml` beside this file (embedded at
//! build time).

use anyhow::{Result, bail};
use std::sync::OnceLock;

/// The groups kubebuilder v4.16 treats as built-in when a command creates no
/// API type, as typed on the command line, each with the domain that
/// completes its API group (empty: the group is the API group as typed).
const KUBEBUILDER_GROUPS: &[(&str, &str)] = &[
    ("admission", "k8s.io"),
    ("admissionregistration", "k8s.io"),
    ("apps", ""),
    ("auditregistration", "k8s.io"),
    ("apiextensions", "k8s.io"),
    ("authentication", "k8s.io"),
    ("authorization", "k8s.io"),
    ("autoscaling", ""),
    ("batch", ""),
    ("certificates", "k8s.io"),
    ("coordination", "k8s.io"),
    ("core", ""),
    ("events", "k8s.io"),
    ("extensions", ""),
    ("imagepolicy", "k8s.io"),
    ("networking", "k8s.io"),
    ("node", "k8s.io"),
    ("metrics", "k8s.io"),
    ("policy", ""),
    ("rbac.authorization", "k8s.io"),
    ("scheduling", "k8s.io"),
    ("setting", "k8s.io"),
    ("storage", "k8s.io"),
];

/// A built-in API group as typed on the command line (`apps`, `core`,
/// `rbac.authorization`).
#[derive(Debug, Clone)]
pub struct CoreGroup {
    /// The API group name (`apps`, `rbac.authorization.k8s.io`; empty for core).
    pub api_group: String,
    /// The domain PROJECT records for it (`k8s.io`; empty for `apps`, `core`).
    pub domain: String,
    /// The group's package in the Kubernetes API sources (`apps`, `core`,
    /// `rbac`): `k8s.io/api/<package>` for Go.
    pub package: String,
}

/// The built-in group typed as `group`, if kubebuilder counts it as one.
pub fn core_group(group: &str) -> Option<CoreGroup> {
    let (_, domain) = KUBEBUILDER_GROUPS.iter().find(|(name, _)| *name == group)?;
    let api_group = match (group, *domain) {
        ("core", _) => String::new(),
        (_, "") => group.to_string(),
        (_, domain) => format!("{group}.{domain}"),
    };
    // A group k8s.io/api has no package for keeps its name, as kubebuilder's
    // import path does; the kind check then refuses it.
    let package = table()
        .iter()
        .find(|(_, entry)| entry.get("group").and_then(|g| g.as_str()) == Some(api_group.as_str()))
        .map_or_else(|| group.to_string(), |(package, _)| package.to_string());
    Some(CoreGroup {
        api_group,
        domain: domain.to_string(),
        package,
    })
}

/// The built-in group a PROJECT entry marked `core: true` names: one of
/// kubebuilder's, or a package of k8s.io/api by its name (as earlier
/// kubebuilder-rs releases recorded `rbac`, `discovery`).
pub fn recorded_core_group(group: &str) -> CoreGroup {
    core_group(group).unwrap_or_else(|| CoreGroup {
        api_group: table()
            .get(group)
            .and_then(|entry| entry.get("group"))
            .and_then(|g| g.as_str())
            .unwrap_or(group)
            .to_string(),
        domain: String::new(),
        package: group.to_string(),
    })
}

/// Checks that k8s.io/api has `kind` at `version` of the built-in `group`
/// (as typed: `apps`, `rbac.authorization`).
pub fn check_core_kind(group: &str, core: &CoreGroup, version: &str, kind: &str) -> Result<()> {
    let Some(package) = table().get(&core.package) else {
        bail!(
            "{group} is a built-in group in kubebuilder's list, but k8s.io/api has no package for it; create your own API {group}/{version} {kind} first (`create api --resource`), or pass --external-api-path for a type of another module"
        );
    };
    let kinds: Vec<String> = package
        .get(version)
        .and_then(|item| item.as_array())
        .map(|array| {
            array
                .iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if kinds.is_empty() {
        bail!(
            "{group}/{version} is not a version of the built-in group {group:?} in k8s.io/api; use a version it has, or create your own API {group}/{version} {kind} first (`create api --resource`)"
        );
    }
    if !kinds.iter().any(|k| k == kind) {
        bail!(
            "{kind} is not a kind of the built-in group {group}/{version}; it has: {}",
            kinds.join(", ")
        );
    }
    Ok(())
}

/// The parsed table, parsed once per process.
fn table() -> &'static toml_edit::Table {
    static TABLE: OnceLock<toml_edit::Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("core-types.toml")
            .parse::<toml_edit::DocumentMut>()
            .expect("src/resource/core-types.toml is valid TOML")
            .as_table()
            .clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `kind` at `group`/`version` as typed on the command line.
    fn check(group: &str, version: &str, kind: &str) -> Result<()> {
        check_core_kind(group, &core_group(group).unwrap(), version, kind)
    }

    #[test]
    fn known_and_unknown_core_kinds() {
        assert!(check("apps", "v1", "Deployment").is_ok());
        assert!(check("core", "v1", "Pod").is_ok());
        let err = check("apps", "v1", "Deploymint").unwrap_err().to_string();
        assert!(
            err.contains("Deploymint") && err.contains("Deployment"),
            "{err}"
        );
        assert!(check("apps", "v9", "Deployment").is_err());
        assert_eq!(core_group("core").unwrap().api_group, "");
        assert!(core_group("crew").is_none());
    }

    #[test]
    fn the_groups_are_kubebuilders() {
        let rbac = core_group("rbac.authorization").unwrap();
        assert_eq!(rbac.api_group, "rbac.authorization.k8s.io");
        assert_eq!(
            (rbac.domain.as_str(), rbac.package.as_str()),
            ("k8s.io", "rbac")
        );
        assert!(check("rbac.authorization", "v1", "Role").is_ok());
        assert!(check("extensions", "v1beta1", "Ingress").is_ok());
        assert!(check("authentication", "v1", "TokenReview").is_ok());
        let batch = core_group("batch").unwrap();
        assert_eq!(
            (batch.api_group.as_str(), batch.domain.as_str()),
            ("batch", "")
        );
        // Ours once, not kubebuilder's: a project's own group now.
        for group in ["rbac", "discovery", "flowcontrol", "resource"] {
            assert!(core_group(group).is_none(), "{group}");
        }
        // kubebuilder's, without a package in k8s.io/api: refused by the kind check.
        let err = check("metrics", "v1beta1", "PodMetrics")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("metrics") && err.contains("no package"),
            "{err}"
        );
    }

    #[test]
    fn recorded_groups_of_earlier_releases_are_still_found() {
        let rbac = recorded_core_group("rbac");
        assert_eq!(rbac.api_group, "rbac.authorization.k8s.io");
        assert!(check_core_kind("rbac", &rbac, "v1", "Role").is_ok());
        assert_eq!(recorded_core_group("apps").package, "apps");
    }

    #[test]
    fn the_table_follows_k8s_io_api_v0_37() {
        assert!(check("scheduling", "v1alpha3", "CompositePodGroup").is_ok());
        assert!(check("scheduling", "v1beta1", "Workload").is_ok());
        assert!(check("scheduling", "v1alpha2", "PodGroup").is_err());
        assert!(check("certificates", "v1", "PodCertificateRequest").is_ok());
        let resource = recorded_core_group("resource");
        assert!(check_core_kind("resource", &resource, "v1", "DeviceTaintRule").is_ok());
        // Groups new in v0.37 stay free for a project's own API.
        assert!(core_group("lifecycle").is_none());
        assert!(core_group("storagemigration").is_none());
    }
}
