//! kubebuilder itself, for the tests that compare with it or continue its
//! projects: the release kubebuilder-rs follows (and the one before it),
//! installed once from the Go module proxy and cached beside the other tools.

use super::{shared_tools_bin, stderr};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The Go module kubebuilder is built from.
pub const KUBEBUILDER_MODULE: &str = "sigs.k8s.io/kubebuilder/v4";

/// The release before the reference: its projects name their webhook types
/// `<Kind>CustomDefaulter` and `<Kind>CustomValidator`, and kubebuilder-rs
/// still continues them.
pub const PREVIOUS_KUBEBUILDER_VERSION: &str = "v4.15.0";

/// The kubebuilder release kubebuilder-rs follows: the `kubebuilder` key of
/// `scaffolds/go/v4/versions.toml`, which `scripts/check-versions` reads too.
pub fn reference_version() -> String {
    let text = include_str!("../../scaffolds/go/v4/versions.toml");
    let doc: toml_edit::DocumentMut = text.parse().expect("versions.toml is TOML");
    doc.get("kubebuilder")
        .and_then(|item| item.as_str())
        .expect("versions.toml has a string `kubebuilder`")
        .to_string()
}

/// The reference release's binary (see [`kubebuilder_release`]).
pub fn kubebuilder_binary() -> PathBuf {
    kubebuilder_release(&reference_version())
}

/// The binary of kubebuilder `version`, installed from the module proxy the
/// first time (`go install`, which stamps the version it prints and writes
/// as PROJECT's `cliVersion`) and cached with the other tools afterwards.
pub fn kubebuilder_release(version: &str) -> PathBuf {
    let bin = shared_tools_bin().join(format!("kubebuilder-{version}"));
    if bin.is_file() {
        eprintln!("ok  kubebuilder {version} from the cache");
        return bin;
    }
    let started = Instant::now();
    let gobin = tempfile::tempdir().expect("temp dir");
    let output = Command::new("go")
        .args(["install", &format!("{KUBEBUILDER_MODULE}@{version}")])
        .current_dir(gobin.path())
        .env("GOBIN", gobin.path())
        .env_remove("GOFLAGS")
        .output()
        .expect("run go install");
    assert!(
        output.status.success(),
        "go install {KUBEBUILDER_MODULE}@{version} failed: {}",
        stderr(&output)
    );
    // Copied, then renamed: a concurrent run never sees a partial binary.
    let partial = bin.with_extension("partial");
    std::fs::copy(gobin.path().join("kubebuilder"), &partial).expect("copy kubebuilder");
    std::fs::rename(&partial, &bin).expect("cache the kubebuilder binary");
    eprintln!(
        "ok  installed kubebuilder {version}  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    bin
}
