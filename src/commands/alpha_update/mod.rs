//! `kubebuilder-rs alpha update`: carries a project to the current scaffold
//! with a three-way merge, written as one new branch.

pub mod ancestor;

use crate::cli::UpdateArgs;
use anyhow::Result;
use std::path::Path;

/// Runs `alpha update` in the repository holding `cwd`.
pub fn run(_args: &UpdateArgs, _cwd: &Path) -> Result<()> {
    todo!("alpha update")
}
