//! helm for the slow tests: a release built from the Go module proxy once
//! into the shared tools directory.

use super::shared_tools_bin;
use std::path::PathBuf;
use std::process::Command;

/// The shared tools directory's helm of `version` (`v3.22.0`), built with
/// Go when missing.
pub fn helm_release(version: &str) -> PathBuf {
    let binary = shared_tools_bin().join(format!("helm-{version}"));
    if binary.is_file() {
        return binary;
    }
    eprintln!("    building helm {version} from the module proxy");
    let scratch = tempfile::tempdir().unwrap();
    let status = Command::new("go")
        .args(["install", &format!("helm.sh/helm/v3/cmd/helm@{version}")])
        .env("GOBIN", scratch.path())
        .current_dir(scratch.path())
        .status()
        .expect("go starts");
    assert!(status.success(), "building helm {version} failed");
    std::fs::rename(scratch.path().join("helm"), &binary).unwrap();
    binary
}
