//! Plugins: each scaffolds one part of a project, and every command runs
//! the plugins of the project's chain in order.
//!
//! A plugin is a folder of templates under `scaffolds/<short name>/` and a
//! module here implementing [`Plugin`]: its key, its flags per command, and
//! hooks that add file changes to the command's one [`Output`]. The command
//! resolves the whole plan against the disk and writes it once, so a plugin
//! never writes files itself. Adding a plugin adds its folders and one line
//! in [`PLUGINS`]; no other plugin and no command changes.

pub mod autoupdate_v1alpha;
pub mod chain;
pub mod deploy_image_v1alpha;
pub mod flags;
pub mod go_v4;
pub mod grafana_v1alpha;
pub mod helm_v2alpha;
pub mod kustomize_v2;
pub mod rust_v1alpha;

pub use chain::{Bundle, Chain};
pub use flags::Flags;

use crate::machinery::merge::{FileMerger, SlashComments};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::steps::Step;
use crate::machinery::{Change, Context, Plan, Rewrite, Templates};
use crate::project::bookkeeping::{ApiOptions, WebhookOptions};
use crate::project::{ProjectFile, ResourceEntry};
use crate::resource::Resource;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Every plugin, in the order a chain runs them: a language layout first,
/// then `config/`, then optional plugins.
pub static PLUGINS: &[&dyn Plugin] = &[
    &go_v4::GoBase,
    &rust_v1alpha::RustBase,
    &kustomize_v2::Kustomize,
    &grafana_v1alpha::Grafana,
    &helm_v2alpha::Helm,
    &deploy_image_v1alpha::DeployImage,
    &autoupdate_v1alpha::AutoUpdate,
];

/// Keys that stand for several plugins.
pub static BUNDLES: &[Bundle] = &[
    Bundle {
        key: "go.kubebuilder.io/v4",
        short_name: "go/v4",
        plugins: &[go_v4::KEY, kustomize_v2::KEY],
        recorded_expanded: false,
    },
    Bundle {
        key: "rust.kubebuilder-rs.io/v1-alpha",
        short_name: "rust/v1-alpha",
        plugins: &[rust_v1alpha::KEY, kustomize_v2::KEY],
        recorded_expanded: true,
    },
];

/// What part of a project a plugin scaffolds; a chain holds at most one
/// plugin of each of the first two roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The project's language and build: sources, Makefile, Dockerfile.
    Language,
    /// The deployment manifests under `config/`.
    Manifests,
    /// An addition a project may take or leave (dashboards, charts).
    Optional,
}

/// The commands a plugin can hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// `init`.
    Init,
    /// `create api`.
    CreateApi,
    /// `create webhook`.
    CreateWebhook,
    /// `edit`.
    Edit,
}

/// The license header written at the top of generated source files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum License {
    /// The Apache 2.0 notice.
    Apache2,
    /// No header.
    None,
    /// A header read from a file given with `--license-file`.
    Custom(String),
}

impl License {
    /// The text of a project's boilerplate file: the Apache 2.0 notice
    /// rendered from `licenses/apache2.txt.jinja` of `templates` with `year`
    /// and `owner`, a custom header as given, or nothing.
    pub fn boilerplate(
        &self,
        templates: &Templates,
        year: &str,
        owner: Option<&str>,
    ) -> Result<String> {
        match self {
            License::None => Ok(String::new()),
            License::Custom(text) => Ok(text.clone()),
            License::Apache2 => {
                let mut context = Context::new();
                context.insert("year", year);
                context.insert("owner", owner.unwrap_or_default());
                templates.render("licenses/apache2.txt.jinja", &context)
            }
        }
    }
}

/// For `edit --license`/`--owner`: plans the boilerplate file at `path` to
/// hold `contents`, with `note` saying what the change reaches; when it
/// already does, plans nothing and says so.
pub fn plan_boilerplate_edit(
    dir: &Path,
    path: &str,
    contents: String,
    note: String,
    out: &mut Output,
) -> Result<()> {
    if read_if_present(dir, Path::new(path))?.as_deref() == Some(contents.as_str()) {
        out.notes
            .push(format!("{path} already holds that license header."));
        return Ok(());
    }
    out.plan.push(Change::Write {
        path: path.into(),
        contents,
    });
    out.notes.push(note);
    Ok(())
}

/// What every plugin gets for `init`.
#[derive(Debug, Clone)]
pub struct InitContext<'a> {
    /// The directory being initialised.
    pub dir: &'a Path,
    /// Copyright owner for license headers.
    pub owner: Option<&'a str>,
    /// License header for source files.
    pub license: &'a License,
    /// The values of the plugins' own flags.
    pub flags: &'a Flags,
}

/// What every plugin gets for `create api`.
#[derive(Debug, Clone)]
pub struct ApiContext<'a> {
    /// The project root.
    pub dir: &'a Path,
    /// PROJECT as it was before this command.
    pub project: &'a ProjectFile,
    /// The resource.
    pub resource: &'a Resource,
    /// What to scaffold for it.
    pub options: &'a ApiOptions,
    /// The values of the plugins' own flags.
    pub flags: &'a Flags,
}

/// What every plugin gets for `create webhook`.
#[derive(Debug, Clone)]
pub struct WebhookContext<'a> {
    /// The project root.
    pub dir: &'a Path,
    /// PROJECT as it was before this command.
    pub project: &'a ProjectFile,
    /// The resource; its version is the hub of a conversion.
    pub resource: &'a Resource,
    /// Which webhooks to scaffold.
    pub options: &'a WebhookOptions,
    /// The values of the plugins' own flags.
    pub flags: &'a Flags,
    /// Whether the project's manager takes `--webhook-port` (see
    /// [`manager_takes_flag`]); config/ passes it only then.
    pub manager_webhook_port: bool,
}

/// What `edit` changes in a project's settings; `None` leaves one as it is.
#[derive(Debug, Clone, Default)]
pub struct EditRequest {
    /// Organise later APIs by group (`Some(false)`: by version only).
    pub multigroup: Option<bool>,
    /// Limit the manager to its own namespaces (`Some(false)`: cluster-wide).
    pub namespaced: Option<bool>,
    /// A new license header for generated source files.
    pub license: Option<License>,
    /// Copyright owner named in the new license header.
    pub owner: Option<String>,
    /// Rewrite the scaffolded files a setting depends on.
    pub force: bool,
    /// Run by `alpha generate` in a freshly scaffolded tree, where files the
    /// toolchain builds (such as the kustomize output) do not exist yet.
    pub regenerating: bool,
    /// `--dry-run`: plan only; run no command that writes files.
    pub dry_run: bool,
}

/// What every plugin gets for `edit`.
#[derive(Debug, Clone)]
pub struct EditContext<'a> {
    /// The project root.
    pub dir: &'a Path,
    /// PROJECT as it was before this command.
    pub project: &'a ProjectFile,
    /// The settings to change.
    pub request: &'a EditRequest,
    /// The values of the plugins' own flags.
    pub flags: &'a Flags,
}

/// What every plugin gets once a command's files are written.
#[derive(Debug, Clone)]
pub struct AfterWrite<'a> {
    /// The plugins the command ran.
    pub chain: &'a Chain,
    /// The project root.
    pub dir: &'a Path,
    /// The values of the plugins' own flags.
    pub flags: &'a Flags,
    /// The files written, relative to `dir`.
    pub written: &'a [PathBuf],
    /// The resource of a `create` command.
    pub resource: Option<&'a Resource>,
}

/// What the plugins of a command produce together.
#[derive(Debug, Default)]
pub struct Output {
    /// File changes; PROJECT is planned by the command.
    pub plan: Plan,
    /// Messages printed after the plan is carried out, one paragraph each.
    pub notes: Vec<String>,
    /// Sections to record under PROJECT's `plugins:`, by plugin key.
    pub configs: Vec<(&'static str, serde_norway::Value)>,
}

/// One plugin. Every hook but the key and role has a default that does
/// nothing, so a plugin implements only the commands it takes part in.
pub trait Plugin: Sync {
    /// The key recorded in PROJECT, e.g. `kustomize.common.kubebuilder.io/v2`.
    fn key(&self) -> &'static str;

    /// The short form `--plugins` accepts besides the key, e.g. `kustomize/v2`.
    fn short_name(&self) -> Option<&'static str> {
        None
    }

    /// The folder of its templates under `scaffolds/`.
    fn template_dir(&self) -> &'static str;

    /// What part of a project it scaffolds.
    fn role(&self) -> Role;

    /// Its own flags on `hook`'s command (shown in that command's `--help`).
    fn flags(&self, _hook: Hook) -> Vec<clap::Arg> {
        Vec::new()
    }

    /// Before anything is planned for `init`: checks the environment and
    /// fills in PROJECT keys it owns (go/v4: the Go version, `repo`).
    fn prepare_init(&self, _ctx: &InitContext, _project: &mut ProjectFile) -> Result<()> {
        Ok(())
    }

    /// Plans its files for `init`; `project` is the new PROJECT.
    fn init(&self, _ctx: &InitContext, _project: &ProjectFile, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    /// Before `create api` or `create webhook` checks the request: gives the
    /// resource what this plugin decides (go/v4: its package path, an
    /// external type from `--external-api-*`).
    fn shape_resource(
        &self,
        _hook: Hook,
        _project: &ProjectFile,
        _flags: &Flags,
        _resource: &mut Resource,
    ) -> Result<()> {
        Ok(())
    }

    /// Whether `create api` with this plugin always scaffolds the API type
    /// and its controller, so that neither is asked for at a terminal.
    fn scaffolds_api_and_controller(&self) -> bool {
        false
    }

    /// Plans its changes for `create api`.
    fn create_api(&self, _ctx: &ApiContext, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    /// Plans its changes for `create webhook`.
    fn create_webhook(&self, _ctx: &WebhookContext, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    /// Whether the manager this language layout scaffolded in the project at
    /// `dir` takes the command-line flag `--<name>`; `None` from a plugin
    /// that writes no manager. A project made before a flag existed keeps a
    /// manager without it, which would exit if config/ passed it.
    fn manager_takes_flag(&self, _dir: &Path, _name: &str) -> Result<Option<bool>> {
        Ok(None)
    }

    /// Whether the manager this language layout scaffolds exports the
    /// metric `name` (as a query names it, `_bucket` of a histogram
    /// included); `None` from a plugin that writes no manager. A dashboard
    /// leaves out the panels that read what the manager cannot feed.
    fn manager_exports_metric(&self, _name: &str) -> Option<bool> {
        None
    }

    /// Plans its changes for `edit` (settings, or this plugin being added).
    fn edit(&self, _ctx: &EditContext, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    /// The files of this plugin that must change to switch the manager to
    /// `namespaced` (see [`Rewrite`]).
    fn namespace_rewrites(
        &self,
        _dir: &Path,
        _project: &ProjectFile,
        _namespaced: bool,
    ) -> Result<Vec<Rewrite>> {
        Ok(Vec::new())
    }

    /// After the files of `hook`'s command were written: toolchain steps
    /// such as code generation or downloads.
    fn after_write(&self, _hook: Hook, _ctx: &AfterWrite) -> Result<()> {
        Ok(())
    }

    /// After `alpha generate` wrote a whole project (with `--make`): what the
    /// post-steps of every command together would do.
    fn after_generate(
        &self,
        _dir: &Path,
        _project: &ProjectFile,
        _written: &[PathBuf],
    ) -> Result<()> {
        Ok(())
    }

    /// For `alpha generate`: the flags this plugin's `create api` took for
    /// the resource `entry`, as the plugin's PROJECT section records them;
    /// `None` when it did not scaffold that resource. `alpha generate` then
    /// creates the resource with this plugin added to the chain.
    fn recorded_api_flags(
        &self,
        _project: &ProjectFile,
        _entry: &ResourceEntry,
    ) -> Result<Option<Vec<(&'static str, String)>>> {
        Ok(None)
    }

    /// For `alpha generate`: whether its PROJECT section is re-created by
    /// `edit --plugins <key>` (false for a plugin whose section records what
    /// `create api` gave it, see [`Plugin::recorded_api_flags`]).
    fn replayed_by_edit(&self) -> bool {
        true
    }

    /// The license header of the project at `dir`, which `alpha generate`
    /// keeps; `None` when this plugin records none.
    fn current_license(&self, _dir: &Path) -> Option<License> {
        None
    }

    /// For `alpha update`: the toolchain steps that bring the merged project
    /// in `dir` to a consistent state (code generation, formatting, a check
    /// build), leaving out those the files in `conflicted` would break.
    fn update_steps(&self, _dir: &Path, _conflicted: &[PathBuf]) -> Vec<Step> {
        Vec::new()
    }

    /// For `alpha update`: globs of the files this plugin's toolchain
    /// regenerates, which the merge keeps as the user has them.
    fn regenerated_files(&self) -> &'static [&'static str] {
        &[]
    }

    /// For `alpha update`: mergers of its own for files of a known structure.
    fn file_mergers(&self) -> Vec<&'static dyn FileMerger> {
        Vec::new()
    }

    /// For `alpha update`: this layout's source files whose comments are
    /// `//` lines, for the merge's rule on changes made only in comments.
    fn slash_comments(&self) -> &'static [SlashComments] {
        &[]
    }

    /// Text printed after a successful `hook` command, pointing at the next steps.
    fn next_steps(&self, _hook: Hook) -> Option<&'static str> {
        None
    }
}

/// Whether the manager of the project at `dir` takes `--<name>`, as the
/// chain's language layout tells; without one (a kustomize/v2-only project,
/// whose manager is the user's own), true, as kubebuilder assumes.
pub fn manager_takes_flag(chain: &Chain, dir: &Path, name: &str) -> Result<bool> {
    for plugin in chain.iter() {
        if let Some(takes) = plugin.manager_takes_flag(dir, name)? {
            return Ok(takes);
        }
    }
    Ok(true)
}

/// Whether the manager of a project with the plugins `layout` exports the
/// metric `name`, as its language layout tells; without one that knows (a
/// go/v4 manager exports what controller-runtime and the Go runtime
/// register), true.
pub fn manager_exports_metric(layout: &[String], name: &str) -> bool {
    layout
        .iter()
        .filter_map(|key| by_key(key))
        .find_map(|plugin| plugin.manager_exports_metric(name))
        .unwrap_or(true)
}

/// Whether the manager source file `path` in `dir` holds one of
/// `spellings` of a flag's definition. A missing file counts as holding it:
/// the manager then lives elsewhere, and config/ passes the flag as
/// kubebuilder's does.
pub(crate) fn source_defines_flag(dir: &Path, path: &str, spellings: &[&str]) -> Result<bool> {
    Ok(read_if_present(dir, Path::new(path))?
        .is_none_or(|text| spellings.iter().any(|spelling| text.contains(spelling))))
}

/// The plugin with `key`, if there is one.
pub fn by_key(key: &str) -> Option<&'static dyn Plugin> {
    PLUGINS.iter().copied().find(|p| p.key() == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machinery::{Fragments, embedded_text};

    #[test]
    fn every_plugin_has_its_templates_and_its_fragments_exist() {
        for plugin in PLUGINS {
            let dir = plugin.template_dir();
            let mut commands = 0;
            for command in ["init", "create-api", "create-webhook", "edit"] {
                if crate::machinery::Templates::load(dir, &[command]).is_ok() {
                    commands += 1;
                }
                if embedded_text(&format!("{dir}/{command}/fragments.toml")).is_none() {
                    continue;
                }
                let fragments = Fragments::load(dir, command).unwrap();
                for (name, fragment) in fragments.all() {
                    assert!(
                        embedded_text(&format!("{dir}/{name}")).is_some(),
                        "{dir}/{command}/fragments.toml names {name}, which does not exist"
                    );
                    assert!(!fragment.file.is_empty());
                }
            }
            assert!(commands > 0, "{} has no template folder", plugin.key());
        }
    }

    #[test]
    fn keys_and_short_names_are_unique() {
        let mut names: Vec<&str> = PLUGINS
            .iter()
            .flat_map(|p| [Some(p.key()), p.short_name()])
            .flatten()
            .chain(BUNDLES.iter().flat_map(|b| [b.key, b.short_name]))
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }

    #[test]
    fn a_layout_tells_whether_its_manager_defines_a_flag() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let chain = |spec: &str| Chain::parse(spec).unwrap();
        // No manager source: kubebuilder's assumption, the flag is there.
        assert!(manager_takes_flag(&chain("go/v4"), dir, "webhook-port").unwrap());
        assert!(manager_takes_flag(&chain("kustomize/v2"), dir, "webhook-port").unwrap());

        std::fs::create_dir_all(dir.join("cmd")).unwrap();
        let main = dir.join("cmd/main.go");
        std::fs::write(
            &main,
            "flag.StringVar(&path, \"webhook-cert-path\", \"\", \"\")\n",
        )
        .unwrap();
        assert!(!manager_takes_flag(&chain("go/v4"), dir, "webhook-port").unwrap());
        std::fs::write(&main, "flag.IntVar(&port, \"webhook-port\", 9443, \"\")\n").unwrap();
        assert!(manager_takes_flag(&chain("go/v4"), dir, "webhook-port").unwrap());

        std::fs::create_dir_all(dir.join("src/manager")).unwrap();
        let flags = dir.join("src/manager/flags.rs");
        std::fs::write(&flags, "    pub webhook_cert_path: String,\n").unwrap();
        assert!(!manager_takes_flag(&chain("rust/v1-alpha"), dir, "webhook-port").unwrap());
        std::fs::write(&flags, "    pub webhook_port: i32,\n").unwrap();
        assert!(manager_takes_flag(&chain("rust/v1-alpha"), dir, "webhook-port").unwrap());
    }

    #[test]
    fn a_layout_tells_which_metrics_its_manager_exports() {
        let layout = |spec: &str| -> Vec<String> {
            let chain = Chain::parse(spec).unwrap();
            chain.iter().map(|p| p.key().to_string()).collect()
        };
        let (go, rust) = (layout("go/v4"), layout("rust/v1-alpha"));
        assert!(manager_exports_metric(&go, "go_goroutines"));
        assert!(!manager_exports_metric(&rust, "go_goroutines"));
        for name in [
            "workqueue_depth",
            "controller_runtime_reconcile_time_seconds_bucket",
        ] {
            assert!(manager_exports_metric(&rust, name), "{name}");
        }
        // A project without a language layout: kubebuilder's assumption.
        assert!(manager_exports_metric(
            &layout("kustomize/v2"),
            "go_goroutines"
        ));
    }
}
