//! Plugins: each scaffolds one part of a project, and every command runs
//! the plugins of the project's chain in order.
//!
//! A plugin is a folder of templates under `scaffolds/<short name>/` and a
//! module here implementing [`Plugin`]: its key and role, and one hook per
//! command it takes part in ([`InitHook`], [`CreateApiHook`],
//! [`CreateWebhookHook`], [`EditHook`], [`UpdateHook`]), each with its own
//! typed flags, adding file changes to the command's one [`Output`]. The
//! command resolves the whole plan against the disk and writes it once, so
//! a plugin never writes files itself. A language layout also answers
//! [`Layout`], and the manifests plugin [`ManifestsLayout`]: what other
//! plugins and the commands ask of them, so that none names another plugin.
//! Adding a plugin adds its folders and one line in [`PLUGINS`]; no other
//! plugin and no command changes (see docs/adding-a-plugin.md).

/// Inside `impl Plugin for X`: the accessors of the hooks `X` implements
/// itself, e.g. `joins!(init: InitHook, edit: EditHook)` for a plugin that
/// takes part in `init` and `edit`.
macro_rules! joins {
    ($($accessor:ident: $hook:ident),* $(,)?) => {
        $(
            fn $accessor(&self) -> Option<&dyn $crate::plugins::$hook> {
                Some(self)
            }
        )*
    };
}

pub mod autoupdate_v1alpha;
pub mod chain;
pub mod deploy_image_v1alpha;
pub mod external;
pub mod flags;
pub mod go_v4;
pub mod grafana_v1alpha;
pub mod helm_v2alpha;
pub mod kustomize_v2;
pub mod rust_v1alpha;
#[cfg(test)]
mod toy_v1;
pub mod webhook_certs_v1alpha;

pub use chain::{Bundle, Chain};
pub use flags::{Flags, Given};

use crate::machinery::merge::{FileMerger, OrderFree, SlashComments};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::steps::Step;
use crate::machinery::{Change, Context, Plan, Rewrite, Source, Templates};
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
    &webhook_certs_v1alpha::WebhookCerts,
    #[cfg(test)]
    &toy_v1::Toy,
];

/// Keys that stand for several plugins.
pub static BUNDLES: &[Bundle] = &[
    Bundle {
        key: "go.kubebuilder.io/v4",
        short_name: "go/v4",
        plugins: &[go_v4::KEY, kustomize_v2::KEY],
        recorded_expanded: false,
        // kubebuilder's Go layouts before go/v4, which PROJECT files of
        // kubebuilder v2 and v3 record.
        replaces: &[
            "go.kubebuilder.io/v2",
            "go.kubebuilder.io/v3",
            "go.kubebuilder.io/v3-alpha",
            "go.kubebuilder.io/v4-alpha",
        ],
    },
    Bundle {
        key: "rust.kubebuilder-rs.io/v1-alpha",
        short_name: "rust/v1-alpha",
        plugins: &[rust_v1alpha::KEY, kustomize_v2::KEY],
        recorded_expanded: true,
        replaces: &[],
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

impl Hook {
    /// Every hook, in the order a project meets them.
    pub const ALL: [Hook; 4] = [Hook::Init, Hook::CreateApi, Hook::CreateWebhook, Hook::Edit];

    /// The command, as typed.
    pub fn command(self) -> &'static str {
        match self {
            Hook::Init => "init",
            Hook::CreateApi => "create api",
            Hook::CreateWebhook => "create webhook",
            Hook::Edit => "edit",
        }
    }

    /// The command's words: its subcommand path on the command line.
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Hook::Init => &["init"],
            Hook::CreateApi => &["create", "api"],
            Hook::CreateWebhook => &["create", "webhook"],
            Hook::Edit => &["edit"],
        }
    }
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
    files: Source,
    path: &str,
    contents: String,
    note: String,
    out: &mut Output,
) -> Result<()> {
    if read_if_present(files, Path::new(path))?.as_deref() == Some(contents.as_str()) {
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
#[derive(Clone)]
pub struct InitContext<'a> {
    /// The plugins the command runs.
    pub chain: &'a Chain,
    /// The project, as the command reads it.
    pub files: Source<'a>,
    /// Copyright owner for license headers.
    pub owner: Option<&'a str>,
    /// License header for source files.
    pub license: &'a License,
    /// The values of the plugins' own flags.
    pub flags: &'a Flags,
}

/// What every plugin gets for `create api`.
#[derive(Clone)]
pub struct ApiContext<'a> {
    /// The plugins the command runs.
    pub chain: &'a Chain,
    /// The project, as the command reads it.
    pub files: Source<'a>,
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
#[derive(Clone)]
pub struct WebhookContext<'a> {
    /// The plugins the command runs.
    pub chain: &'a Chain,
    /// The project, as the command reads it.
    pub files: Source<'a>,
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
pub struct EditSettings {
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
    /// `--dry-run`: plan only; run no command that writes files.
    pub dry_run: bool,
}

/// What every plugin gets for `edit`.
#[derive(Clone)]
pub struct EditContext<'a> {
    /// The plugins the command runs.
    pub chain: &'a Chain,
    /// The project, as the command reads it.
    pub files: Source<'a>,
    /// PROJECT as it was before this command.
    pub project: &'a ProjectFile,
    /// The settings to change.
    pub settings: &'a EditSettings,
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
    /// Sections to record under PROJECT's `plugins:`, by plugin key (see
    /// [`Output::record`]).
    pub configs: Vec<(&'static str, serde_norway::Value)>,
}

impl Output {
    /// Records `section` as the plugin `key`'s section under PROJECT's
    /// `plugins:` (read back with [`ProjectFile::plugin_section`]).
    pub fn record<T: serde::Serialize>(&mut self, key: &'static str, section: &T) -> Result<()> {
        let value = serde_norway::to_value(section)
            .map_err(|e| anyhow::anyhow!("cannot encode the PROJECT section of {key}: {e}"))?;
        self.configs.push((key, value));
        Ok(())
    }
}

/// One plugin: its identity, and the commands it takes part in. A plugin
/// implements the hook trait of each command it joins and returns itself
/// from that command's accessor; the commands run the hooks of the chain's
/// plugins in order and skip a plugin that has none for them.
pub trait Plugin: Sync {
    /// The key recorded in PROJECT, e.g. `kustomize.common.kubebuilder.io/v2`.
    fn key(&self) -> &'static str;

    /// The short form `--plugins` accepts besides the key, e.g. `kustomize/v2`.
    fn short_name(&self) -> Option<&'static str> {
        None
    }

    /// What part of a project it scaffolds.
    fn role(&self) -> Role;

    /// Its part in `init`.
    fn init(&self) -> Option<&dyn InitHook> {
        None
    }

    /// Its part in `create api`.
    fn create_api(&self) -> Option<&dyn CreateApiHook> {
        None
    }

    /// Its part in `create webhook`.
    fn create_webhook(&self) -> Option<&dyn CreateWebhookHook> {
        None
    }

    /// Its part in `edit`: settings, or the plugin being added to a project.
    fn edit(&self) -> Option<&dyn EditHook> {
        None
    }

    /// A language layout's answers to what other plugins and the commands
    /// ask of the project's language (only plugins of [`Role::Language`]).
    fn layout(&self) -> Option<&dyn Layout> {
        None
    }

    /// The deployment manifests' answers to what other plugins ask of them
    /// (only plugins of [`Role::Manifests`]).
    fn manifests_layout(&self) -> Option<&dyn ManifestsLayout> {
        None
    }

    /// Its part in `alpha update`: post-steps, regenerated files, mergers.
    fn update(&self) -> Option<&dyn UpdateHook> {
        None
    }

    /// Whether it gives the webhook server its certificate, so that the
    /// manifests leave cert-manager out (see [`Chain::cert_manager_for_webhooks`]).
    fn supplies_webhook_certificates(&self) -> bool {
        false
    }

    /// Whether, once added to a project, it takes part in every later
    /// command: an optional plugin recorded under PROJECT's `plugins:` (not
    /// its `layout`, which kubebuilder must be able to resolve) that
    /// [`Chain::of_project`] puts back in the chain.
    fn stays_in_chain(&self) -> bool {
        false
    }
}

/// A plugin's part in `init`.
pub trait InitHook: Sync {
    /// Its own flags on `init` (shown in `init --help`), made from its typed
    /// options with [`flags::args_of`] and read back with [`Flags::get`].
    fn args(&self) -> Vec<clap::Arg> {
        Vec::new()
    }

    /// Before anything is planned: checks the environment and fills in
    /// PROJECT keys it owns (go/v4: the Go version, `repo`).
    fn prepare(&self, _ctx: &InitContext, _project: &mut ProjectFile) -> Result<()> {
        Ok(())
    }

    /// Plans its files; `project` is the new PROJECT.
    fn plan(&self, ctx: &InitContext, project: &ProjectFile, out: &mut Output) -> Result<()>;

    /// After the files were written: toolchain steps such as downloads.
    fn after_write(&self, _ctx: &AfterWrite) -> Result<()> {
        Ok(())
    }

    /// Text printed after a successful `init`, pointing at the next steps.
    fn next_steps(&self) -> Option<&'static str> {
        None
    }

    /// For `alpha generate`: its typed options that make `init` re-create
    /// `project` (go/v4: `repo` from PROJECT's), or `None` for the defaults.
    fn replay_options(
        &self,
        _project: &ProjectFile,
        _settings: &ReplaySettings,
    ) -> Result<Option<Given>> {
        Ok(None)
    }
}

/// A plugin's part in `create api`.
pub trait CreateApiHook: Sync {
    /// Its own flags on `create api` (see [`InitHook::args`]).
    fn args(&self) -> Vec<clap::Arg> {
        Vec::new()
    }

    /// Before the request is checked: gives the resource what this plugin
    /// decides (go/v4: its package path, an external type from
    /// `--external-api-*`).
    fn shape_resource(
        &self,
        _project: &ProjectFile,
        _flags: &Flags,
        _resource: &mut Resource,
    ) -> Result<()> {
        Ok(())
    }

    /// Once the core flags are read, before the request is checked: adds
    /// what this plugin's flags ask of the API (go/v4: `--ssa`).
    fn shape_options(&self, _flags: &Flags, _options: &mut ApiOptions) -> Result<()> {
        Ok(())
    }

    /// Whether it always scaffolds the API type together with its
    /// controller, so that neither is asked for at a terminal
    /// (deploy-image/v1-alpha).
    fn scaffolds_api_and_controller(&self) -> bool {
        false
    }

    /// Plans its changes.
    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()>;

    /// After the files were written: toolchain steps such as code generation.
    fn after_write(&self, _ctx: &AfterWrite) -> Result<()> {
        Ok(())
    }

    /// For `alpha generate`, from an optional plugin whose PROJECT section
    /// records the resources it scaffolded: its typed options as `create
    /// api` took them for `entry`, or `None` when it did not scaffold it.
    /// `alpha generate` then creates that resource with this plugin added
    /// to the chain, rather than replaying it with `edit --plugins`.
    fn replay_options(
        &self,
        _project: &ProjectFile,
        _entry: &ResourceEntry,
    ) -> Result<Option<Given>> {
        Ok(None)
    }
}

/// A plugin's part in `create webhook`.
pub trait CreateWebhookHook: Sync {
    /// Its own flags on `create webhook` (see [`InitHook::args`]).
    fn args(&self) -> Vec<clap::Arg> {
        Vec::new()
    }

    /// The option of this plugin that picks, by domain, one of several
    /// PROJECT entries of the same kind (go/v4: `--external-api-domain`).
    fn domain_option(&self, _flags: &Flags) -> Result<Option<DomainOption>> {
        Ok(None)
    }

    /// Before the request is checked: gives the resource what this plugin
    /// decides (see [`CreateApiHook::shape_resource`]).
    fn shape_resource(
        &self,
        _project: &ProjectFile,
        _flags: &Flags,
        _resource: &mut Resource,
    ) -> Result<()> {
        Ok(())
    }

    /// Plans its changes.
    fn plan(&self, ctx: &WebhookContext, out: &mut Output) -> Result<()>;

    /// After the files were written: toolchain steps such as formatting.
    fn after_write(&self, _ctx: &AfterWrite) -> Result<()> {
        Ok(())
    }
}

/// A plugin's part in `edit`. An optional plugin with this hook is re-created
/// by `alpha generate` with `edit --plugins <key>`, its PROJECT section
/// recorded beforehand so that it finds its settings.
pub trait EditHook: Sync {
    /// Its own flags on `edit` (see [`InitHook::args`]).
    fn args(&self) -> Vec<clap::Arg> {
        Vec::new()
    }

    /// Plans its changes for the settings asked for, or for this plugin
    /// being added to the project.
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()>;

    /// For `alpha generate`, in a freshly scaffolded tree where files the
    /// toolchain builds do not exist yet: plans what [`EditHook::plan`]
    /// would, leaving out what needs those files.
    fn plan_replay(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        self.plan(ctx, out)
    }

    /// The files of this plugin that must change to switch the manager to
    /// `namespaced` (see [`Rewrite`]).
    fn namespace_rewrites(
        &self,
        _files: Source,
        _project: &ProjectFile,
        _namespaced: bool,
    ) -> Result<Vec<Rewrite>> {
        Ok(Vec::new())
    }

    /// Files it writes once for the user to edit: `alpha generate` carries
    /// the project's copies into the new scaffold before the plugin runs
    /// again, so what is made from them is made from the user's version.
    fn user_files(&self) -> &'static [&'static str] {
        &[]
    }

    /// For `alpha generate --make`, once the project is built and before
    /// the plugin is replayed again: builds what its files are made from
    /// (helm/v2-alpha: the kustomize output). Not to be confused with
    /// [`Layout::after_generate`], the layout's post-steps.
    fn build_replay_inputs(&self, _dir: &Path, _project: &ProjectFile) -> Result<()> {
        Ok(())
    }
}

/// The toolchain a language layout's projects are built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolchain {
    /// Go (`go build`, `go install`).
    Go,
    /// Rust's cargo.
    Cargo,
}

/// What optional plugins and the commands ask of a language layout, so that
/// none of them names a layout: found through the chain with
/// [`Chain::layout`].
pub trait Layout: Sync {
    /// The layout's name as `version` prints it, e.g. `go/v4`.
    fn name(&self) -> &'static str;

    /// The project's language, which names the folder of an optional
    /// plugin's templates for it (deploy-image/v1-alpha's
    /// `create-api/<language>`): `go`, `rust`.
    fn language(&self) -> &'static str;

    /// The toolchain that builds the project, for an optional plugin that
    /// sets it up (a CI workflow) or builds with it (helm from source);
    /// `None` when it is none of those.
    fn toolchain(&self) -> Option<Toolchain>;

    /// The versions of what the layout scaffolds, as `version` prints them:
    /// what, and its version.
    fn versions(&self) -> Vec<(&'static str, String)>;

    /// The variables this layout's `create api` templates get for the API
    /// of `ctx`, and the values of their paths' braced segments, for an
    /// optional plugin that fills in the same files.
    fn api_template_context(&self, ctx: &ApiContext) -> Result<ApiTemplateContext>;

    /// Regenerates the manifests the project's code defines (CRDs, RBAC)
    /// after files were written: `make manifests` with the layout's
    /// toolchain.
    fn make_manifests(&self, dir: &Path) -> Result<()>;

    /// The license header of the project `files`, which `alpha generate`
    /// keeps; `None` when the project has no boilerplate file.
    fn current_license(&self, files: Source) -> Option<License>;

    /// Whether the manager this layout scaffolded in the project `files`
    /// takes the command-line flag `--<name>`. A project made before a flag
    /// existed keeps a manager without it, which would exit if config/
    /// passed it.
    fn manager_takes_flag(&self, files: Source, name: &str) -> Result<bool>;

    /// Whether the manager this layout scaffolds exports the metric `name`
    /// (as a query names it, `_bucket` of a histogram included). A dashboard
    /// leaves out the panels that read what the manager cannot feed.
    fn manager_exports_metric(&self, _name: &str) -> bool {
        true
    }

    /// The folder of the project's webhook code, relative to its root.
    fn webhook_dir(&self) -> &'static str;

    /// The license header the layout puts atop a new source file of the
    /// project `files`, with its trailing blank line (empty without one).
    fn source_header(&self, files: Source) -> String;

    /// Plans `libraries` (of the layout's language) into the dependencies
    /// of the project `files`, for code an optional plugin adds; on top
    /// of what `plan` already holds for the dependency file. A layout whose
    /// toolchain finds the libraries from the code itself (Go's `go mod
    /// tidy`), or has none, plans nothing: the default.
    fn plan_libraries(
        &self,
        _files: Source,
        _libraries: &[Library],
        _plan: &mut Plan,
    ) -> Result<()> {
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
}

/// A library that code an optional plugin adds needs (see
/// [`Layout::plan_libraries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Library {
    /// Its name in the language's package registry.
    pub name: String,
    /// The version required when the project does not depend on it yet.
    pub version: String,
    /// Optional features it must be built with.
    pub features: Vec<String>,
}

/// What optional plugins ask of the plugin that writes the deployment
/// manifests, so that none of them edits its files by hand.
pub trait ManifestsLayout: Sync {
    /// Plans the variable `name` with `value` into the manager's
    /// environment in the project `files`; `by` names the plugin that
    /// asks, for the refusal when the manager's manifest is missing.
    fn plan_manager_env(
        &self,
        files: Source,
        name: &str,
        value: &str,
        by: &str,
        out: &mut Output,
    ) -> Result<()>;
}

/// A plugin's part in `alpha update`.
pub trait UpdateHook: Sync {
    /// The toolchain steps that bring the merged project in `dir` to a
    /// consistent state (code generation, formatting, a check build),
    /// leaving out those the files in `conflicted` would break.
    fn steps(&self, dir: &Path, conflicted: &[PathBuf]) -> Vec<Step>;

    /// Globs of the files its toolchain regenerates, which the merge keeps
    /// as the user has them.
    fn regenerated_files(&self) -> &'static [&'static str] {
        &[]
    }

    /// Mergers of its own for files of a known structure.
    fn file_mergers(&self) -> Vec<&'static dyn FileMerger> {
        Vec::new()
    }

    /// This layout's source files whose comments are `//` lines, for the
    /// merge's rule on changes made only in comments.
    fn slash_comments(&self) -> &'static [SlashComments] {
        &[]
    }

    /// Rules for this layout's source files where insertions of the user
    /// and the scaffold at one place commute (imports, registrations).
    fn order_free(&self) -> Vec<&'static dyn OrderFree> {
        Vec::new()
    }
}

/// A layout's `create api` template variables (see
/// [`Layout::api_template_context`]).
pub struct ApiTemplateContext {
    /// The templates' variables.
    pub context: Context,
    /// The values of the braced segments of the templates' paths.
    pub vars: Vec<(&'static str, String)>,
}

impl ApiTemplateContext {
    /// The path segment values, as [`crate::machinery::TemplateFile::output_with`] takes them.
    pub fn path_vars(&self) -> Vec<(&str, &str)> {
        crate::machinery::path_vars(&self.vars)
    }

    /// The value of the path segment `name` (empty when there is none).
    pub fn var(&self, name: &str) -> &str {
        self.vars
            .iter()
            .find(|(k, _)| *k == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// What `alpha generate` was asked for that reaches the replayed `init`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplaySettings {
    /// Do not check the installed toolchain's version.
    pub skip_toolchain_check: bool,
}

/// A `create webhook` option that picks a PROJECT entry by domain (see
/// [`CreateWebhookHook::domain_option`]).
#[derive(Debug, Clone)]
pub struct DomainOption {
    /// The option as the user spells it, for messages
    /// (`--external-api-domain`).
    pub name: &'static str,
    /// The domain given, if any.
    pub value: Option<String>,
    /// The plugin's options also describe a new type, so that a domain no
    /// entry has names a new resource rather than a mistake.
    pub describes_new_type: bool,
}

/// Whether the manager of the project `files` takes `--<name>`, as the
/// chain's language layout tells; without one (a kustomize/v2-only project,
/// whose manager is the user's own), true, as kubebuilder assumes.
pub fn manager_takes_flag(chain: &Chain, files: Source, name: &str) -> Result<bool> {
    match chain.layout() {
        Some(layout) => layout.manager_takes_flag(files, name),
        None => Ok(true),
    }
}

/// Whether the manager of a project with the plugins `layout` exports the
/// metric `name`, as its language layout tells; without one, true.
pub fn manager_exports_metric(layout: &[String], name: &str) -> bool {
    Chain::from_layout(layout)
        .ok()
        .and_then(|chain| chain.layout())
        .is_none_or(|layout| layout.manager_exports_metric(name))
}

/// Whether the manager source file `path` of `files` holds one of
/// `spellings` of a flag's definition. A missing file counts as holding it:
/// the manager then lives elsewhere, and config/ passes the flag as
/// kubebuilder's does.
pub(crate) fn source_defines_flag(files: Source, path: &str, spellings: &[&str]) -> Result<bool> {
    Ok(read_if_present(files, Path::new(path))?
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
    fn every_template_folder_has_its_fragments() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scaffolds");
        let mut folders = 0;
        for plugin in std::fs::read_dir(&root).unwrap() {
            let plugin = plugin.unwrap().path();
            for version in std::fs::read_dir(&plugin).unwrap() {
                let version = version.unwrap().path();
                if !version.is_dir() {
                    continue;
                }
                let dir = version.strip_prefix(&root).unwrap().to_str().unwrap();
                folders += 1;
                for command in ["init", "create-api", "create-webhook", "edit"] {
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
            }
        }
        assert!(folders >= 7, "{folders} template folders");
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
        let dir = Source::Dir(tmp.path());
        let chain = |spec: &str| Chain::parse(spec).unwrap();
        // No manager source: kubebuilder's assumption, the flag is there.
        assert!(manager_takes_flag(&chain("go/v4"), dir, "webhook-port").unwrap());
        assert!(manager_takes_flag(&chain("kustomize/v2"), dir, "webhook-port").unwrap());

        std::fs::create_dir_all(tmp.path().join("cmd")).unwrap();
        let main = tmp.path().join("cmd/main.go");
        std::fs::write(
            &main,
            "flag.StringVar(&path, \"webhook-cert-path\", \"\", \"\")\n",
        )
        .unwrap();
        assert!(!manager_takes_flag(&chain("go/v4"), dir, "webhook-port").unwrap());
        std::fs::write(&main, "flag.IntVar(&port, \"webhook-port\", 9443, \"\")\n").unwrap();
        assert!(manager_takes_flag(&chain("go/v4"), dir, "webhook-port").unwrap());

        std::fs::create_dir_all(tmp.path().join("src/manager")).unwrap();
        let flags = tmp.path().join("src/manager/flags.rs");
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
