//! kubebuilder itself, for the tests that compare with it or continue its
//! projects: the release they use, built once from the Go module proxy and
//! cached beside the other tools.

use super::{shared_tools_bin, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The kubebuilder release whose projects kubebuilder-rs continues.
pub const KUBEBUILDER_VERSION: &str = "v4.15.0";

/// The Go module kubebuilder is built from.
pub const KUBEBUILDER_MODULE: &str = "sigs.k8s.io/kubebuilder/v4";

/// The kubebuilder binary, built from the module proxy the first time and
/// cached with the other tools afterwards. `go install …@v4.15.0` does not
/// work (the proxy lists no versions for the module), so the module is
/// downloaded and built in its own directory.
pub fn kubebuilder_binary() -> PathBuf {
    let bin = shared_tools_bin().join(format!("kubebuilder-{KUBEBUILDER_VERSION}"));
    if bin.is_file() {
        eprintln!("ok  kubebuilder {KUBEBUILDER_VERSION} from the cache");
        return bin;
    }
    let started = Instant::now();
    let scratch = tempfile::tempdir().expect("temp dir");
    let module = format!("{KUBEBUILDER_MODULE}@{KUBEBUILDER_VERSION}");
    let json = go_ok(scratch.path(), &["mod", "download", "-json", &module]);
    let dir = json_string(&json, "Dir").expect("`go mod download -json` names no Dir");
    let partial = bin.with_extension("partial");
    go_ok(
        Path::new(&dir),
        &["build", "-o", partial.to_str().unwrap(), "."],
    );
    std::fs::rename(&partial, &bin).expect("cache the kubebuilder binary");
    eprintln!(
        "ok  built kubebuilder {KUBEBUILDER_VERSION}  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    bin
}

/// Runs `go args` in `dir` (with `GOFLAGS=-mod=mod`) and returns its output;
/// panics on failure.
pub fn go_ok(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("go")
        .args(args)
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run go");
    assert!(
        output.status.success(),
        "go {args:?} failed: {}",
        stderr(&output)
    );
    stdout(&output)
}

/// The string value of `"key": "…"` in `go … -json` output.
pub fn json_string(json: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\": \"");
    json.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(&pattern)?;
        Some(rest.rsplit_once('"')?.0.replace("\\\\", "\\"))
    })
}
