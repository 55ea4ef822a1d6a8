//! The universe: the project's files as a plugin sees them, and the files
//! it returns, turned into changes of the command's plan.
//!
//! The universe sent is the project as it will be once the earlier plugins
//! of the chain have run: the files on disk (not `.git`) with the plan so
//! far applied. Files the plugin returns that are new or differ from what
//! was sent join the same plan as every built-in plugin's changes, so
//! `--dry-run`, the journal and rollback hold for them. PROJECT is the
//! command's to write: a plugin's version of it is dropped, as kubebuilder
//! drops it (it saves its own PROJECT after the plugins ran).

use crate::machinery::{Change, Plan};
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// File paths (relative, `/`-separated) and their contents.
pub type Universe = BTreeMap<String, String>;

/// Folders never sent: git's data.
const LEFT_OUT: &[&str] = &[".git"];

/// The project in `dir` as it will be after `plan`: every file below `dir`
/// (a file that is not UTF-8 text as its lossy text, as Go's encoder sends
/// it), with the plan's changes applied.
pub fn gather(dir: &Path, plan: &Plan) -> Result<Universe> {
    let mut universe = Universe::new();
    if dir.is_dir() {
        walk(dir, Path::new(""), &mut universe)?;
    }
    // Conflicts are the final resolve's to report; here the plan's outcome counts.
    let resolved = plan.resolve(dir, true)?;
    for file in resolved.files {
        let path = slash_path(&file.path);
        match file.after {
            Some(text) => universe.insert(path, text),
            None => universe.remove(&path),
        };
    }
    Ok(universe)
}

/// Adds the files below `root/relative` to `universe`.
fn walk(root: &Path, relative: &Path, universe: &mut Universe) -> Result<()> {
    let dir = root.join(relative);
    let entries =
        std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if LEFT_OUT.iter().any(|left| name == *left) {
            continue;
        }
        let path = relative.join(&name);
        let full = root.join(&path);
        // Links are read through, but a linked directory is not walked.
        if entry.file_type()?.is_dir() {
            walk(root, &path, universe)?;
        } else if full.is_file() {
            let bytes =
                std::fs::read(&full).with_context(|| format!("cannot read {}", full.display()))?;
            universe.insert(
                slash_path(&path),
                String::from_utf8_lossy(&bytes).into_owned(),
            );
        }
    }
    Ok(())
}

/// `path` with `/` between its parts, as the protocol names files.
fn slash_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Adds to `plan` a write of every file of `returned` (the universe the
/// plugin `key` answered for the project in `dir`) that is new or differs
/// from `sent`, PROJECT excepted. Refuses, before adding anything, a path
/// that is absolute or leaves the project, by `..` or through a link.
pub fn into_plan(
    key: &str,
    dir: &Path,
    sent: &Universe,
    returned: Universe,
    plan: &mut Plan,
) -> Result<()> {
    let mut changes = Vec::new();
    for (name, contents) in returned {
        let path = checked_path(key, &name)?;
        check_no_link_on_the_way(key, dir, &name, &path)?;
        if path == Path::new(crate::project::FILE_NAME) || sent.get(&name) == Some(&contents) {
            continue;
        }
        changes.push(Change::Write { path, contents });
    }
    changes.into_iter().for_each(|change| plan.push(change));
    Ok(())
}

/// The relative path a returned file name stands for; refuses one that is
/// empty, absolute or climbs out of the project with `..`.
fn checked_path(key: &str, name: &str) -> Result<PathBuf> {
    let path = Path::new(name);
    let mut clean = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir => bail!(
                "the external plugin {key} returned the file {name:?}, which leaves the project (..); a plugin may only write inside the project"
            ),
            Component::RootDir | Component::Prefix(_) => bail!(
                "the external plugin {key} returned the file {name:?}, whose path is absolute; a plugin returns paths relative to the project"
            ),
        }
    }
    if clean.as_os_str().is_empty() {
        bail!("the external plugin {key} returned a file with no name ({name:?})");
    }
    Ok(clean)
}

/// Refuses a returned file whose path passes through a symbolic link in the
/// project: writing there could land outside it.
fn check_no_link_on_the_way(key: &str, dir: &Path, name: &str, path: &Path) -> Result<()> {
    let mut on_the_way = dir.to_path_buf();
    for part in path.parent().into_iter().flat_map(Path::components) {
        on_the_way.push(part);
        if on_the_way.is_symlink() {
            bail!(
                "the external plugin {key} returned the file {name:?}, whose folder {} is a link; a plugin may only write inside the project",
                on_the_way
                    .strip_prefix(dir)
                    .unwrap_or(&on_the_way)
                    .display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_universe_is_the_disk_with_the_plan_applied_without_git() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".git/HEAD"), "ref").unwrap();
        std::fs::create_dir_all(dir.join("config")).unwrap();
        std::fs::write(dir.join("config/a.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.join("bin"), [0xff, 0xfe]).unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Append {
            path: "config/a.yaml".into(),
            text: "b: 2\n".into(),
        });
        plan.push(Change::Create {
            path: "new.txt".into(),
            contents: "new\n".into(),
        });
        let universe = gather(dir, &plan).unwrap();
        let paths: Vec<&str> = universe.keys().map(String::as_str).collect();
        assert_eq!(paths, ["bin", "config/a.yaml", "new.txt"]);
        assert_eq!(universe["config/a.yaml"], "a: 1\nb: 2\n");
        assert_eq!(universe["bin"], "\u{fffd}\u{fffd}");
    }

    #[test]
    fn only_new_or_changed_files_join_the_plan_and_project_is_dropped() {
        let sent: Universe = [("a", "same"), ("b", "old"), ("PROJECT", "p")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into();
        let returned: Universe = [
            ("a", "same"),
            ("b", "new"),
            ("./docs/c.md", "c"),
            ("PROJECT", "mine"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
        let mut plan = Plan::new();
        into_plan(
            "acme/v1",
            Path::new("/nonexistent"),
            &sent,
            returned,
            &mut plan,
        )
        .unwrap();
        let written: Vec<String> = plan
            .changes()
            .iter()
            .map(|c| c.path().display().to_string())
            .collect();
        assert_eq!(written, ["docs/c.md", "b"]);
    }

    #[test]
    fn paths_outside_the_project_are_refused_and_nothing_is_planned() {
        for (name, needle) in [
            ("/etc/passwd", "absolute"),
            ("docs/../../x", "leaves the project"),
            ("", "no name"),
        ] {
            let returned: Universe = [("a.txt", "a"), (name, "x")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into();
            let mut plan = Plan::new();
            let err = into_plan(
                "acme/v1",
                Path::new("/nonexistent"),
                &Universe::new(),
                returned,
                &mut plan,
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains(needle), "{name}: {err}");
            assert!(plan.changes().is_empty());
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_path_through_a_link_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join("docs")).unwrap();
        let returned: Universe = [("docs/api.md".to_string(), "x".to_string())].into();
        let mut plan = Plan::new();
        let err = into_plan("acme/v1", tmp.path(), &Universe::new(), returned, &mut plan)
            .unwrap_err()
            .to_string();
        assert!(err.contains("whose folder docs is a link"), "{err}");
        assert!(plan.changes().is_empty());
    }
}
