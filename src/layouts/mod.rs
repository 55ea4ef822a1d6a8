//! Layouts: the project kinds the tool can scaffold.
//!
//! A layout is a folder of templates under `scaffolds/` plus a small module
//! here that implements [`Layout`]. Adding one means adding its folder, its
//! module, and one line in [`LAYOUTS`]; no other layout changes.

pub mod go_v4;

use crate::machinery::Plan;
use crate::project::ProjectFile;
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// Everything `init` needs to know, after the flags were checked.
#[derive(Debug, Clone)]
pub struct InitOptions {
    /// The directory being initialised.
    pub dir: PathBuf,
    /// Domain of the API groups.
    pub domain: String,
    /// Module path given with `--repo`, if any.
    pub repo: Option<String>,
    /// Project name (a DNS-1123 label).
    pub project_name: String,
    /// Copyright owner for license headers.
    pub owner: Option<String>,
    /// License header for source files.
    pub license: License,
    /// Organise APIs by group.
    pub multigroup: bool,
    /// The manager watches only its own namespaces.
    pub namespaced: bool,
    /// Skip the check of the toolchain's version.
    pub skip_toolchain_check: bool,
    /// Download dependencies after writing the files.
    pub fetch_deps: bool,
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

/// What `create api` was asked to scaffold, after the flags were checked.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// API group without the domain, e.g. `crew`.
    pub group: String,
    /// API version, e.g. `v1`.
    pub version: String,
    /// Kind, e.g. `FirstMate`.
    pub kind: String,
    /// Plural given with `--plural`.
    pub plural: Option<String>,
    /// Scaffold the API type.
    pub resource: bool,
    /// Scaffold a controller.
    pub controller: bool,
    /// The type is namespace-scoped.
    pub namespaced: bool,
    /// Name of the controller, given with `--controller-name`.
    pub controller_name: Option<String>,
    /// Generate server-side-apply configurations.
    pub ssa: bool,
    /// The type lives in another Go module.
    pub external: Option<ExternalApi>,
    /// Re-scaffold over existing files.
    pub force: bool,
}

/// What `create webhook` was asked to scaffold, after the flags were checked.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// API group without the domain.
    pub group: String,
    /// API version; the hub of a conversion webhook.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural given with `--plural`.
    pub plural: Option<String>,
    /// A defaulting (mutating) webhook.
    pub defaulting: bool,
    /// A validating webhook.
    pub validation: bool,
    /// A conversion webhook.
    pub conversion: bool,
    /// Versions converted to and from the hub.
    pub spokes: Vec<String>,
    /// Custom path of the defaulting webhook.
    pub defaulting_path: Option<String>,
    /// Custom path of the validating webhook.
    pub validation_path: Option<String>,
    /// The type lives in another Go module.
    pub external: Option<ExternalApi>,
    /// Scaffold again what exists.
    pub force: bool,
}

/// What `edit` was asked to change, after the flags were checked. `None`
/// leaves a setting as it is.
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
}

/// The outcome of planning `edit`: file changes, and what to tell the user.
#[derive(Debug, Default)]
pub struct EditPlan {
    /// File changes (the PROJECT file is planned by the caller).
    pub plan: Plan,
    /// Messages printed after the plan is carried out, one paragraph each.
    pub notes: Vec<String>,
}

/// A type from another module, for `--external-api-*`.
#[derive(Debug, Clone)]
pub struct ExternalApi {
    /// Import path of the package holding the type.
    pub path: String,
    /// Domain of the type's group.
    pub domain: String,
    /// Module (with an optional `@version`) to add to the project.
    pub module: String,
}

/// A kind of project the tool can scaffold.
pub trait Layout: Sync {
    /// The plugin key recorded in PROJECT's `layout` list, e.g. `go.kubebuilder.io/v4`.
    fn key(&self) -> &'static str;

    /// The short name accepted by `--plugins`, e.g. `go/v4`.
    fn short_name(&self) -> &'static str;

    /// Checks the environment and fills in defaults before anything is planned
    /// (for go/v4: the Go version, and the module path from an existing go.mod).
    /// Returns the project's repository (module path).
    fn prepare_init(&self, options: &InitOptions) -> Result<String>;

    /// Plans every file `init` writes (the PROJECT file is planned by the caller).
    fn plan_init(&self, options: &InitOptions, project: &ProjectFile) -> Result<Plan>;

    /// Runs after the files are written, e.g. to download dependencies.
    fn finish_init(&self, dir: &Path, options: &InitOptions) -> Result<()>;

    /// Text printed after a successful `init`, pointing at the next steps.
    fn next_steps_after_init(&self) -> &'static str;

    /// Checks a `create api` request against the project and the layout's
    /// rules (for go/v4: built-in Kubernetes types), plans every file change,
    /// and records the resource in `project`.
    fn plan_create_api(
        &self,
        dir: &Path,
        project: &mut ProjectFile,
        request: &ApiRequest,
    ) -> Result<Plan>;

    /// Runs after `create api` wrote its files (with `--make`): code
    /// generation, formatting, dependency updates. `written` lists the files
    /// the command wrote (relative to `dir`), so only what they need is done.
    fn finish_create_api(
        &self,
        dir: &Path,
        request: &ApiRequest,
        written: &[PathBuf],
    ) -> Result<()>;

    /// Checks a `create webhook` request, plans every file change, and
    /// records the webhooks in `project`.
    fn plan_create_webhook(
        &self,
        dir: &Path,
        project: &mut ProjectFile,
        request: &WebhookRequest,
    ) -> Result<Plan>;

    /// Runs after `create webhook` wrote its files (with `--make`); `written`
    /// as for [`Layout::finish_create_api`].
    fn finish_create_webhook(
        &self,
        dir: &Path,
        request: &WebhookRequest,
        written: &[PathBuf],
    ) -> Result<()>;

    /// The license header of the project at `dir` as it stands, which
    /// `alpha generate` keeps; `None` when the project records none.
    fn current_license(&self, dir: &Path) -> Option<License>;

    /// Runs after `alpha generate` wrote a whole project (with `--make`):
    /// what the post-steps of every `create` command together would do.
    /// `written` lists every file, relative to `dir`.
    fn finish_generate(&self, dir: &Path, project: &ProjectFile, written: &[PathBuf])
    -> Result<()>;

    /// Checks an `edit` request against the project, records the new
    /// settings in `project` and plans the file changes they need.
    fn plan_edit(
        &self,
        dir: &Path,
        project: &mut ProjectFile,
        request: &EditRequest,
    ) -> Result<EditPlan>;
}

/// Every layout, the default first.
pub static LAYOUTS: &[&dyn Layout] = &[&go_v4::GoV4];

/// Finds the layout named by `--plugins` (short name or plugin key). Only one
/// layout plugin may be given.
pub fn find(plugins: &str) -> Result<&'static dyn Layout> {
    let names: Vec<&str> = plugins
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let [name] = names.as_slice() else {
        bail!(
            "invalid --plugins {plugins:?}: give exactly one layout plugin; {}",
            allowed()
        );
    };
    LAYOUTS
        .iter()
        .copied()
        .find(|layout| layout.short_name() == *name || layout.key() == *name)
        .ok_or_else(|| anyhow::anyhow!("unknown plugin {name:?}; {}", allowed()))
}

/// Finds the layout recorded in a PROJECT file's `layout` list.
pub fn from_project(project: &ProjectFile) -> Result<&'static dyn Layout> {
    project
        .layout
        .iter()
        .find_map(|key| LAYOUTS.iter().copied().find(|l| l.key() == key))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "PROJECT has layout {:?}, which this tool does not know; {}",
                project.layout,
                allowed()
            )
        })
}

/// The list of known layouts, for error messages.
fn allowed() -> String {
    let names: Vec<String> = LAYOUTS
        .iter()
        .map(|l| format!("{} ({})", l.short_name(), l.key()))
        .collect();
    format!("known layouts: {}", names.join(", "))
}
