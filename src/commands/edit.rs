//! `kubebuilder-rs edit`: change the settings of an existing project.

use crate::cli::EditArgs;
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `edit` in `dir`.
pub fn run(_args: &EditArgs, dir: &Path) -> Result<()> {
    bail!("edit is not available yet in {}", dir.display())
}
