//! Where the ancestor of `alpha update` comes from: the scaffold a project
//! was made from, produced into a directory outside the repository.

use anyhow::Result;
use std::path::{Path, PathBuf};

/// A way to produce the ancestor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--from-binary`: a kubebuilder or kubebuilder-rs executable.
    Binary(PathBuf),
    /// A kubebuilder release (`v4.16.0`), installed from the Go module proxy
    /// into the tool cache when missing.
    KubebuilderRelease(String),
}

/// Writes into the empty directory `out` the scaffold `source` makes of the
/// project whose PROJECT file (and the user files the scaffold keeps, such
/// as `hack/boilerplate.go.txt`) are in `input`.
pub fn produce(_source: &Source, _input: &Path, _out: &Path) -> Result<()> {
    todo!("ancestor production")
}
