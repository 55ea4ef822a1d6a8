//! One module per command: each parses its flags, runs the plugins of the
//! project's chain into one plan, records the result in PROJECT, and carries
//! the plan out.

pub mod alpha_generate;
pub mod alpha_update;
pub mod completion;
pub mod create_api;
pub mod create_webhook;
pub mod edit;
pub mod init;
mod replay;
pub mod version;

use crate::cli::ResourceArgs;
use crate::machinery::{Change, Plan};
use crate::plugins::{AfterWrite, Chain, Flags, Hook, Output};
use crate::project::{self, Project, ProjectFile, bookkeeping};
use crate::resource::Resource;
use crate::resource::naming;
use anyhow::Result;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Resolves `plan` against `dir`, then prints it (`dry_run`) or writes it.
/// Returns the files written (relative to `dir`), or `None` for a dry run.
pub fn carry_out(
    plan: &Plan,
    dir: &Path,
    force: bool,
    dry_run: bool,
) -> Result<Option<Vec<PathBuf>>> {
    let resolved = plan.resolve(dir, force)?;
    if dry_run {
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

/// The chain of the project, with the optional plugins `--plugins` adds;
/// refuses plugin flags for plugins the chain does not run.
fn project_chain(project: &ProjectFile, plugins: Option<&str>, flags: &Flags) -> Result<Chain> {
    let mut chain = Chain::from_layout(&project.layout)?;
    if let Some(spec) = plugins {
        chain = chain.with_extra(spec)?;
    }
    flags.check_chain(&chain)?;
    Ok(chain)
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
    chain
        .iter()
        .try_for_each(|plugin| plugin.after_write(hook, &ctx))
}

/// Checks the group, version, kind and plural given to a `create` command.
fn validate_resource(args: &ResourceArgs) -> Result<()> {
    naming::validate_group(&args.group)?;
    naming::validate_version(&args.version)?;
    naming::validate_kind(&args.kind)?;
    if let Some(plural) = &args.plural {
        naming::validate_plural(plural)?;
    }
    Ok(())
}
