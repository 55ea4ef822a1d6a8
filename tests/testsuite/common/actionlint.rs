//! actionlint, the GitHub Actions workflow checker, for the tests that check
//! the workflows kubebuilder-rs writes: installed once from the Go module
//! proxy and cached beside the other tools.
//!
//! actionlint runs shellcheck on `run:` scripts only when shellcheck is on
//! PATH; without it, it still checks the workflow's syntax, keys, `${{ }}`
//! expressions, cron schedules, permission scopes and the inputs of the
//! actions it knows.

use super::{shared_tools_bin, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The Go module actionlint's command is built from.
pub const ACTIONLINT_PACKAGE: &str = "github.com/rhysd/actionlint/cmd/actionlint";

/// The actionlint release the tests use.
pub const ACTIONLINT_VERSION: &str = "v1.7.12";

/// The actionlint binary, installed from the module proxy the first time
/// (`go install` into a temporary GOBIN) and cached with the other tools
/// afterwards.
pub fn actionlint() -> PathBuf {
    let bin = shared_tools_bin().join(format!("actionlint-{ACTIONLINT_VERSION}"));
    if bin.is_file() {
        eprintln!("ok  actionlint {ACTIONLINT_VERSION} from the cache");
        return bin;
    }
    let started = Instant::now();
    let gobin = tempfile::tempdir().expect("temp dir");
    let target = format!("{ACTIONLINT_PACKAGE}@{ACTIONLINT_VERSION}");
    let output = Command::new("go")
        .args(["install", &target])
        .current_dir(gobin.path())
        .env("GOBIN", gobin.path())
        .env_remove("GOFLAGS")
        .output()
        .expect("run go install");
    assert!(
        output.status.success(),
        "go install {target} failed: {}",
        stderr(&output)
    );
    // Copied, then renamed: a concurrent run never sees a partial binary.
    let partial = bin.with_extension("partial");
    std::fs::copy(gobin.path().join("actionlint"), &partial).expect("copy actionlint");
    std::fs::rename(&partial, &bin).expect("cache the actionlint binary");
    eprintln!(
        "ok  installed actionlint {ACTIONLINT_VERSION}  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    bin
}

/// What the actionlint binary `actionlint` (see [`actionlint()`]) says about
/// the workflow file `workflow`: `Ok` with its output when it finds nothing,
/// `Err` with the problems it lists otherwise. Panics when actionlint cannot
/// run at all (exit codes other than 0 and 1).
pub fn check_workflow(actionlint: &Path, workflow: &Path) -> Result<String, String> {
    let output = Command::new(actionlint)
        .arg("-no-color")
        .arg(workflow)
        .output()
        .expect("run actionlint");
    let text = format!("{}{}", stdout(&output), stderr(&output));
    match output.status.code() {
        Some(0) => Ok(text),
        Some(1) => Err(text),
        _ => panic!("actionlint could not check {}: {text}", workflow.display()),
    }
}
