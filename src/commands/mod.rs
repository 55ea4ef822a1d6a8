//! One module per command: each turns parsed flags into a plan and carries it out.

pub mod alpha_generate;
pub mod completion;
pub mod create_api;
pub mod create_webhook;
pub mod edit;
pub mod init;
mod replay;
pub mod version;

use crate::cli::ResourceArgs;
use crate::machinery::Plan;
use crate::naming;
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
