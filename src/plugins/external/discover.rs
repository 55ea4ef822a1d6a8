//! Where external plugins live, and which executable a plugin key names.
//!
//! As kubebuilder v4.16.0: one root directory, `$EXTERNAL_PLUGINS_PATH`
//! (which must exist), else `$XDG_CONFIG_HOME/kubebuilder/plugins`, else
//! `~/.config/kubebuilder/plugins` (macOS: `~/Library/Application
//! Support/kubebuilder/plugins`). Under it, the plugin `<name>/<version>` is
//! the executable `<root>/<name>/<version>/<name>`, or `<name>.<ext>`.
//!
//! Unlike kubebuilder, the root is read only when a command names a plugin
//! that is not built in, and only that plugin's folder is looked at: an odd
//! file elsewhere under the root troubles no command.

use anyhow::{Result, bail};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The environment variable naming the plugins' root directory.
pub const PATH_VAR: &str = "EXTERNAL_PLUGINS_PATH";

/// An external plugin found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// Its name, the first folder under the root.
    pub name: String,
    /// Its version, the folder under its name (`v1`, `v2-alpha`).
    pub version: String,
    /// `<name>/<version>`, as `--plugins` and PROJECT's `layout` name it.
    pub key: String,
    /// The executable.
    pub path: PathBuf,
}

/// The directory plugins are looked up in, and what chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The directory.
    pub path: PathBuf,
    /// What chose it, for messages (`$EXTERNAL_PLUGINS_PATH`, ...).
    pub source: &'static str,
}

/// The root this process looks up plugins in.
pub fn root() -> Result<Root> {
    root_from(
        |name| std::env::var_os(name).filter(|value| !value.is_empty()),
        std::env::home_dir(),
        cfg!(target_os = "macos"),
    )
}

/// The root chosen from the environment variables `env` gives, the home
/// directory `home`, and whether the host is macOS. A `$EXTERNAL_PLUGINS_PATH`
/// that does not exist is refused.
pub fn root_from(
    env: impl Fn(&str) -> Option<OsString>,
    home: Option<PathBuf>,
    macos: bool,
) -> Result<Root> {
    if let Some(path) = env(PATH_VAR) {
        let path = PathBuf::from(path);
        if !path.exists() {
            bail!(
                "${PATH_VAR} is {}, which does not exist: point it at the directory holding the external plugins, or unset it",
                path.display()
            );
        }
        return Ok(Root {
            path,
            source: "$EXTERNAL_PLUGINS_PATH",
        });
    }
    let below = Path::new("kubebuilder").join("plugins");
    if let Some(config) = env("XDG_CONFIG_HOME") {
        return Ok(Root {
            path: PathBuf::from(config).join(below),
            source: "$XDG_CONFIG_HOME",
        });
    }
    let Some(home) = home else {
        bail!("no home directory to look for external plugins in: set {PATH_VAR}");
    };
    let config = if macos {
        Path::new("Library").join("Application Support")
    } else {
        PathBuf::from(".config")
    };
    Ok(Root {
        path: home.join(config).join(below),
        source: "the home directory",
    })
}

/// The plugins found so far, kept for the process (a chain names a plugin
/// on several occasions: the command line, PROJECT, the help).
static FOUND: Mutex<Vec<&'static External>> = Mutex::new(Vec::new());

/// The external plugin `name` (`<name>/<version>`, or `<name>` when it has
/// one version only), looked up once per process.
pub fn find(name: &str) -> Result<&'static External> {
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(plugin) = found.iter().find(|p| p.key == name || p.name == name) {
        return Ok(plugin);
    }
    let plugin: &'static External = Box::leak(Box::new(find_in(&root()?, name)?));
    found.push(plugin);
    Ok(plugin)
}

/// The external plugin `name` under `root`.
pub fn find_in(root: &Root, name: &str) -> Result<External> {
    let (plugin, version) = match name.split_once('/') {
        Some((plugin, version)) => (plugin, Some(version)),
        None => (name, None),
    };
    let not_found = || not_found(root, name, plugin, version);
    if !is_plugin_name(plugin) || version.is_some_and(|v| !is_version(v)) {
        return Err(not_found());
    }
    let version = match version {
        Some(version) => version.to_string(),
        None => only_version(root, plugin).ok_or_else(not_found)??,
    };
    let dir = root.path.join(plugin).join(&version);
    let Some(path) = executable_in(&dir, plugin) else {
        return Err(not_found());
    };
    check_executable(&path)?;
    Ok(External {
        key: format!("{plugin}/{version}"),
        name: plugin.to_string(),
        version,
        path,
    })
}

/// The one version folder of `plugin`; `None` when it has none, an error
/// when it has several.
fn only_version(root: &Root, plugin: &str) -> Option<Result<String>> {
    let entries = std::fs::read_dir(root.path.join(plugin)).ok()?;
    let mut versions: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|version| is_version(version))
        .collect();
    versions.sort();
    match versions.as_slice() {
        [] => None,
        [only] => Some(Ok(only.clone())),
        several => Some(Err(anyhow::anyhow!(
            "the external plugin {plugin} has the versions {}: name one, e.g. --plugins {plugin}/{}",
            several.join(", "),
            several[0]
        ))),
    }
}

/// The file in `dir` named `plugin`, or `plugin.<ext>`, as kubebuilder
/// matches it (by the part of the file name before its first dot).
fn executable_in(dir: &Path, plugin: &str) -> Option<PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|file| file == plugin || file.split('.').next() == Some(plugin))
        .collect();
    names.sort();
    names.first().map(|file| dir.join(file))
}

/// Refuses a plugin file that is not an executable file.
fn check_executable(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("cannot read the external plugin {}: {e}", path.display()))?;
    if !meta.is_file() || !is_executable(&meta) {
        bail!(
            "the external plugin {} is not an executable file: make it one (chmod +x)",
            path.display()
        );
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

/// The error for a plugin that is neither built in nor found under `root`.
fn not_found(root: &Root, name: &str, plugin: &str, version: Option<&str>) -> anyhow::Error {
    let shown = root.path.display();
    let version = version.unwrap_or("<version>");
    anyhow::anyhow!(
        "unknown plugin {name:?}: not built in, and no external plugin {shown}/{plugin}/{version}/{plugin}[.<ext>] (the root {shown} comes from {}; set {PATH_VAR} to look elsewhere)",
        root.source
    )
}

/// Whether `name` can be a plugin's name: a DNS-1123 subdomain, as
/// kubebuilder requires (and so a single path component).
fn is_plugin_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// Whether `version` is a plugin version: `v<number>`, maybe `-alpha` or `-beta`.
fn is_version(version: &str) -> bool {
    let Some(rest) = version.strip_prefix('v') else {
        return false;
    };
    let number = rest
        .strip_suffix("-alpha")
        .or_else(|| rest.strip_suffix("-beta"))
        .unwrap_or(rest);
    !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn the_root_follows_kubebuilders_order() {
        let tmp = tempfile::tempdir().unwrap();
        let given = tmp.path().to_str().unwrap();
        let home = Some(PathBuf::from("/home/u"));
        let root = root_from(
            env(&[(PATH_VAR, given), ("XDG_CONFIG_HOME", "/x")]),
            None,
            false,
        );
        assert_eq!(root.unwrap().path, tmp.path());
        let root = root_from(env(&[("XDG_CONFIG_HOME", "/x")]), home.clone(), false).unwrap();
        assert_eq!(root.path, Path::new("/x/kubebuilder/plugins"));
        let root = root_from(env(&[]), home.clone(), false).unwrap();
        assert_eq!(root.path, Path::new("/home/u/.config/kubebuilder/plugins"));
        let root = root_from(env(&[]), home, true).unwrap();
        assert_eq!(
            root.path,
            Path::new("/home/u/Library/Application Support/kubebuilder/plugins")
        );
        let missing = tmp.path().join("missing");
        let err = root_from(env(&[(PATH_VAR, missing.to_str().unwrap())]), None, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(PATH_VAR) && err.contains("does not exist"),
            "{err}"
        );
    }

    fn plugin_file(root: &Path, relative: &str, mode: u32) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }

    #[test]
    fn a_key_names_the_executable_under_name_and_version() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Root {
            path: tmp.path().to_path_buf(),
            source: "a test",
        };
        plugin_file(tmp.path(), "acme.io/v2/acme.io", 0o755);
        plugin_file(tmp.path(), "acme/v1/acme.py", 0o755);
        plugin_file(tmp.path(), "plain/v1/plain", 0o644);
        plugin_file(tmp.path(), "twice/v1/twice", 0o755);
        plugin_file(tmp.path(), "twice/v2/twice", 0o755);
        let found = find_in(&root, "acme.io/v2").unwrap();
        assert_eq!(found.key, "acme.io/v2");
        assert!(found.path.ends_with("acme.io/v2/acme.io"));
        assert_eq!(find_in(&root, "acme.io").unwrap(), found);
        let with_extension = find_in(&root, "acme/v1").unwrap();
        assert!(with_extension.path.ends_with("acme/v1/acme.py"));
        let err = find_in(&root, "plain/v1").unwrap_err().to_string();
        assert!(err.contains("not an executable"), "{err}");
        let err = find_in(&root, "twice").unwrap_err().to_string();
        assert!(err.contains("v1, v2"), "{err}");
        for name in ["acme.io/v3", "nothere/v1", "../x/v1", "acme.io/../v2"] {
            let err = find_in(&root, name).unwrap_err().to_string();
            assert!(
                err.contains("unknown plugin") && err.contains(tmp.path().to_str().unwrap()),
                "{err}"
            );
        }
    }
}
