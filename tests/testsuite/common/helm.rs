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
    // Copied next to its place, then renamed: the scratch directory may be
    // on another file system (a TMPDIR in memory), and a concurrent run
    // never sees a partial binary.
    let partial = binary.with_extension("partial");
    std::fs::copy(scratch.path().join("helm"), &partial).expect("copy helm");
    std::fs::rename(&partial, &binary).expect("cache the helm binary");
    binary
}

/// The shared tools directory's helm of the newest helm.sh/helm/v3 release
/// on the module proxy, built with Go when missing.
pub fn newest_helm_release() -> PathBuf {
    let scratch = tempfile::tempdir().unwrap();
    let output = Command::new("go")
        .args(["list", "-m", "-versions", "helm.sh/helm/v3"])
        .current_dir(scratch.path())
        .output()
        .expect("go starts");
    assert!(
        output.status.success(),
        "go list -m -versions helm.sh/helm/v3 failed"
    );
    let versions = String::from_utf8_lossy(&output.stdout).into_owned();
    let version = versions
        .split_whitespace()
        .skip(1)
        .filter(|v| !v.contains('-'))
        .last()
        .expect("a helm release")
        .to_string();
    helm_release(&version)
}
