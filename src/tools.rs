//! The tool cache: binaries kubebuilder-rs installs for itself, outside any
//! project. Its directory is `$KUBEBUILDER_RS_CACHE`, else
//! `$XDG_CACHE_HOME/kubebuilder-rs`, else `~/.cache/kubebuilder-rs`; the
//! binaries live in its `tools-bin/` (or `$KUBEBUILDER_RS_TOOLS_BIN`), which
//! generated projects may also use as their Makefile's `LOCALBIN`.

use anyhow::{Context as _, Result, bail};
use std::path::PathBuf;
use std::process::Command;

/// The Go module kubebuilder is built from.
pub const KUBEBUILDER_MODULE: &str = "sigs.k8s.io/kubebuilder/v4";

/// The cache directory (not created).
pub fn cache_dir() -> Result<PathBuf> {
    if let Some(cache) = std::env::var_os("KUBEBUILDER_RS_CACHE").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(cache));
    }
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(base) => PathBuf::from(base),
        None => std::env::var_os("HOME")
            .filter(|v| !v.is_empty())
            .map(|home| PathBuf::from(home).join(".cache"))
            .context("no cache directory: HOME is not set; set KUBEBUILDER_RS_CACHE")?,
    };
    Ok(base.join("kubebuilder-rs"))
}

/// The directory of cached binaries, created when missing:
/// `$KUBEBUILDER_RS_TOOLS_BIN`, else the cache's `tools-bin/`.
pub fn tools_bin() -> Result<PathBuf> {
    let dir = match std::env::var_os("KUBEBUILDER_RS_TOOLS_BIN").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => cache_dir()?.join("tools-bin"),
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the tool cache {}", dir.display()))?;
    Ok(dir)
}

/// The binary of kubebuilder `version` (`v4.16.0`): `tools-bin/kubebuilder-<version>`,
/// installed from the Go module proxy the first time (`go install` into a
/// temporary `GOBIN`, without the user's `GOFLAGS`, then copied and renamed
/// so a concurrent run never sees half a binary). A `go install` build
/// stamps the release, so the binary reports and writes it as kubebuilder's
/// release build does.
pub fn kubebuilder_release(version: &str) -> Result<PathBuf> {
    let bin = tools_bin()?.join(format!("kubebuilder-{version}"));
    if bin.is_file() {
        return Ok(bin);
    }
    eprintln!(
        "Installing kubebuilder {version} from the Go module proxy into {}",
        bin.display()
    );
    let gobin = tempfile::tempdir().context("cannot create a temporary directory")?;
    let module = format!("{KUBEBUILDER_MODULE}@{version}");
    let output = Command::new("go")
        .args(["install", &module])
        .current_dir(gobin.path())
        .env("GOBIN", gobin.path())
        .env_remove("GOFLAGS")
        .output()
        .map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => anyhow::anyhow!(
                "installing kubebuilder {version} needs Go; install Go or pass --from-binary"
            ),
            _ => anyhow::anyhow!("cannot run go install {module}: {err}"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        bail!(
            "go install {module} failed: {}; check the version and GOPROXY, or pass --from-binary",
            last.trim()
        );
    }
    let partial = bin.with_file_name(format!(
        "kubebuilder-{version}.partial-{}",
        std::process::id()
    ));
    std::fs::copy(gobin.path().join("kubebuilder"), &partial)
        .and_then(|_| std::fs::rename(&partial, &bin))
        .with_context(|| format!("cannot cache kubebuilder {version} as {}", bin.display()))?;
    Ok(bin)
}

/// The version of the `go` on PATH (`1.26.8`), or `None` when there is none.
pub fn installed_go_version() -> Result<Option<String>> {
    let output = match Command::new("go").args(["env", "GOVERSION"]).output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).context("cannot run `go env GOVERSION`"),
    };
    if !output.status.success() {
        bail!(
            "`go env GOVERSION` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(Some(text.trim().trim_start_matches("go").to_string()))
}
