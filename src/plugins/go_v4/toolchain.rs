//! The Go toolchain: finding it, checking its version, running it.

use anyhow::{Context as _, Result, bail};
use std::path::Path;
use std::process::Command;

pub use crate::tools::installed_go_version;

/// Fails when the installed Go is older than `required` (e.g. `1.26.0`).
/// A missing toolchain passes here; it is reported when Go is needed.
pub fn check_go_version(required: &str) -> Result<()> {
    let Some(installed) = installed_go_version()? else {
        return Ok(());
    };
    if version_key(&installed) < version_key(required) {
        bail!(
            "Go {installed} is too old: this project needs Go {required} or newer; install it from https://go.dev/dl or pass --skip-go-version-check"
        );
    }
    Ok(())
}

/// Numeric parts of a Go version (`1.26rc1` counts as `1.26.0`).
fn version_key(version: &str) -> Vec<u64> {
    version
        .split('.')
        .map(|part| {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().unwrap_or(0)
        })
        .chain(std::iter::repeat(0))
        .take(3)
        .collect()
}

/// Runs `go <args>` in `dir`, with its output going to the terminal.
pub fn run_go(dir: &Path, args: &[&str]) -> Result<()> {
    let status = Command::new("go")
        .args(args)
        .current_dir(dir)
        .status()
        .with_context(|| format!("cannot run `go {}`", args.join(" ")))?;
    if !status.success() {
        bail!(
            "`go {}` failed in {} ({status})",
            args.join(" "),
            dir.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::version_key;

    #[test]
    fn versions_compare_numerically() {
        assert!(version_key("1.9.3") < version_key("1.26.0"));
        assert!(version_key("1.26") == version_key("1.26.0"));
        assert!(version_key("1.26.8") > version_key("1.26.0"));
        assert!(version_key("1.27rc1") > version_key("1.26.8"));
    }
}
