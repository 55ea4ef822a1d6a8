//! `kubebuilder-rs alpha generate`: re-scaffold a project from its PROJECT file.

use crate::cli::GenerateArgs;
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `alpha generate` from `dir`.
pub fn run(_args: &GenerateArgs, dir: &Path) -> Result<()> {
    bail!("alpha generate is not available yet in {}", dir.display())
}
