//! One module per command: each turns parsed flags into a plan and carries it out.

pub mod completion;
pub mod create_api;
pub mod create_webhook;
pub mod init;
pub mod version;

use crate::machinery::Plan;
use anyhow::Result;
use std::path::Path;

/// Resolves `plan` against `dir`, then prints it (`dry_run`) or writes it.
/// Returns whether files were written.
pub fn carry_out(plan: &Plan, dir: &Path, force: bool, dry_run: bool) -> Result<bool> {
    let resolved = plan.resolve(dir, force)?;
    if dry_run {
        print!("{}", resolved.describe());
        println!("(dry run: nothing was written)");
        return Ok(false);
    }
    let report = resolved.apply()?;
    for (path, action) in &report.written {
        println!("{:<9} {}", action.label(), path.display());
    }
    Ok(true)
}
