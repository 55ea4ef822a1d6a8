//! Operations: what `init`, `create api`, `create webhook` and `edit` do,
//! each given one typed request: the resolved plugin chain, the command's
//! own options and the plugins' typed options ([`Flags`]). The commands
//! ([`crate::commands`]) turn a command line into a request and make one
//! call here; `alpha generate` and `alpha update` turn PROJECT into the
//! same requests ([`replay`]).
//!
//! An operation runs every plugin of the chain into one plan, records the
//! result in PROJECT, carries the plan out (or describes it, for a dry
//! run), prints what it wrote and the plugins' notes, and runs their
//! post-steps.

pub mod create_api;
pub mod create_webhook;
pub mod edit;
pub mod init;
pub mod replay;

use crate::machinery::{Change, Plan};
use crate::plugins::{AfterWrite, Chain, Flags, Hook, Output};
use crate::project::{self, Project, bookkeeping};
use crate::resource::Resource;
use anyhow::Result;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// How an operation carries out its plan (`--force`, `--dry-run`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Write {
    /// Overwrite files that exist.
    pub force: bool,
    /// Print the plan and write nothing.
    pub dry_run: bool,
}

/// The API a `create` request works on.
#[derive(Debug, Clone)]
pub enum ResourceSpec {
    /// Named on the command line.
    Named(ResourceName),
    /// An entry of the PROJECT being re-created (a replay).
    Recorded(Box<project::ResourceEntry>),
}

impl ResourceSpec {
    /// `group/version Kind`, as [`Resource::gvk`] writes it.
    pub fn gvk(&self) -> String {
        let (group, version, kind) = match self {
            Self::Named(name) => (name.group.as_str(), &name.version, &name.kind),
            Self::Recorded(entry) => (
                entry.group.as_deref().unwrap_or_default(),
                &entry.version,
                &entry.kind,
            ),
        };
        format!("{group}/{version} {kind}")
    }
}

/// An API as the command line names it, its names checked.
#[derive(Debug, Clone)]
pub struct ResourceName {
    /// API group without the domain.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural, when the computed one is wrong.
    pub plural: Option<String>,
    /// `create api`'s scope (`create webhook` takes the recorded one).
    pub namespaced: bool,
}

/// Resolves `plan` against `dir`, then prints it (`dry_run`) or writes it
/// and lists what it wrote. Returns the files written (relative to `dir`),
/// or `None` for a dry run.
fn carry_out(plan: &Plan, dir: &Path, write: Write) -> Result<Option<Vec<PathBuf>>> {
    let resolved = plan.resolve(dir, write.force)?;
    if write.dry_run {
        print!("{}", resolved.describe());
        println!("(dry run: nothing was written)");
        return Ok(None);
    }
    let report = resolved.apply()?;
    let mut out = std::io::stdout().lock();
    for (path, action) in &report.written {
        writeln!(out, "{:<9} {}", action.label(), path.display())?;
    }
    Ok(Some(
        report.written.into_iter().map(|(path, _)| path).collect(),
    ))
}

/// Records the plugins' sections in PROJECT and plans its new content at
/// the end of `out.plan` (as a new file when `create`). A new PROJECT gets
/// this build's `cliVersion`; later commands keep the one that made the
/// project, as kubebuilder does.
fn plan_project_file(project: &mut Project, out: &mut Output, create: bool) -> Result<()> {
    for (key, config) in out.configs.drain(..) {
        bookkeeping::record_plugin(&mut project.file, key, config);
    }
    if create {
        project.file.cli_version = Some(project::cli_version::current());
    }
    let path = project::FILE_NAME.into();
    let contents = project.render()?;
    out.plan.push(if create {
        Change::Create { path, contents }
    } else {
        Change::Write { path, contents }
    });
    Ok(())
}

/// Runs every plugin's post-steps after `hook`'s command wrote `written`.
fn after_write(
    chain: &Chain,
    hook: Hook,
    dir: &Path,
    flags: &Flags,
    written: &[PathBuf],
    resource: Option<&Resource>,
) -> Result<()> {
    let ctx = AfterWrite {
        chain,
        dir,
        flags,
        written,
        resource,
    };
    for plugin in chain.iter() {
        match hook {
            Hook::Init => plugin.init().map(|h| h.after_write(&ctx)),
            Hook::CreateApi => plugin.create_api().map(|h| h.after_write(&ctx)),
            Hook::CreateWebhook => plugin.create_webhook().map(|h| h.after_write(&ctx)),
            Hook::Edit => None,
        }
        .transpose()?;
    }
    Ok(())
}
