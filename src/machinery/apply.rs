//! Writing a resolved plan to disk (all or nothing), or printing it.

use super::plan::{Action, Resolved, ResolvedFile};
use anyhow::{Context as _, Result};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// What [`Resolved::apply`] wrote.
#[derive(Debug, Default)]
pub struct ApplyReport {
    /// Files written, with what happened to each.
    pub written: Vec<(PathBuf, Action)>,
}

/// Undo information for one write, kept until the whole plan is written.
enum Undo {
    /// The file did not exist: remove it.
    Remove(PathBuf),
    /// The file existed with this content: put it back.
    Restore(PathBuf, Vec<u8>),
    /// The directory was created by the plan: remove it if empty.
    RemoveDir(PathBuf),
}

impl Resolved {
    /// The files whose content changes, in plan order.
    pub fn changed(&self) -> impl Iterator<Item = &ResolvedFile> {
        self.files.iter().filter(|f| f.is_changed())
    }

    /// Writes every changed file. If any write fails, every file written so
    /// far is restored and every directory created is removed, so the project
    /// is left as it was.
    pub fn apply(&self) -> Result<ApplyReport> {
        let mut undo = Vec::new();
        let mut report = ApplyReport::default();
        for file in self.changed() {
            if let Err(error) = write_file(&self.root, file, &mut undo) {
                roll_back(undo);
                return Err(error);
            }
            report.written.push((file.path.clone(), file.action()));
        }
        Ok(report)
    }

    /// The plan as text: one line per file with its action, followed by a
    /// unified diff for each existing file that changes.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for file in &self.files {
            let _ = writeln!(out, "{:<9} {}", file.action().label(), file.path.display());
        }
        for file in self.files.iter().filter(|f| f.action() == Action::Update) {
            out.push('\n');
            out.push_str(&unified_diff(file));
        }
        out
    }
}

/// A unified diff of one file's change, with `a/` and `b/` path prefixes.
fn unified_diff(file: &ResolvedFile) -> String {
    let before = file.before.as_deref().unwrap_or_default();
    let after = file.after.as_deref().unwrap_or_default();
    let path = file.path.display();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// Writes one file, recording how to undo it.
fn write_file(root: &Path, file: &ResolvedFile, undo: &mut Vec<Undo>) -> Result<()> {
    let full = root.join(&file.path);
    if let Some(parent) = full.parent() {
        create_dirs(parent, undo)?;
    }
    let contents = file.after.as_deref().unwrap_or_default();
    match file.before.as_deref() {
        Some(before) => undo.push(Undo::Restore(full.clone(), before.as_bytes().to_vec())),
        None => undo.push(Undo::Remove(full.clone())),
    }
    fs::write(&full, contents).with_context(|| format!("cannot write {}", file.path.display()))?;
    if file.before.is_none() && is_script(&file.path) {
        make_executable(&full)?;
    }
    Ok(())
}

/// Creates `dir` and its missing ancestors, recording each one created.
fn create_dirs(dir: &Path, undo: &mut Vec<Undo>) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dirs(parent, undo)?;
    }
    fs::create_dir(dir).with_context(|| format!("cannot create directory {}", dir.display()))?;
    undo.push(Undo::RemoveDir(dir.to_path_buf()));
    Ok(())
}

/// Undoes recorded writes, newest first. Errors are ignored: this already
/// runs on a failure path, and each step is independent.
fn roll_back(undo: Vec<Undo>) {
    for step in undo.into_iter().rev() {
        let _ = match step {
            Undo::Remove(path) => fs::remove_file(path),
            Undo::Restore(path, bytes) => fs::write(path, bytes),
            Undo::RemoveDir(path) => fs::remove_dir(path),
        };
    }
}

/// Shell scripts are generated executable.
fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "sh")
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::machinery::{Change, Plan};
    use std::fs;

    #[test]
    fn a_failing_write_rolls_back_everything_written_before_it() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("existing"), "keep me").unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Write {
            path: "existing".into(),
            contents: "changed".into(),
        });
        plan.push(Change::Create {
            path: "new/dir/file".into(),
            contents: "x".into(),
        });
        plan.push(Change::Create {
            path: "blocked/file".into(),
            contents: "x".into(),
        });
        let resolved = plan.resolve(dir.path(), false).unwrap();
        // Make the last write fail after the plan was checked.
        fs::write(dir.path().join("blocked"), "a file, not a directory").unwrap();
        assert!(resolved.apply().is_err());
        assert_eq!(
            fs::read_to_string(dir.path().join("existing")).unwrap(),
            "keep me"
        );
        assert!(!dir.path().join("new").exists());
    }

    #[test]
    fn describe_lists_actions_and_diffs_updates() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("main.go"),
            "a\n// +kubebuilder:scaffold:x\n",
        )
        .unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Insert {
            path: "main.go".into(),
            marker: "+kubebuilder:scaffold:x".into(),
            fragment: "b".into(),
            fallback: None,
        });
        plan.push(Change::Create {
            path: "new.go".into(),
            contents: "c\n".into(),
        });
        let text = plan.resolve(dir.path(), false).unwrap().describe();
        assert!(text.contains("update    main.go"), "{text}");
        assert!(text.contains("create    new.go"), "{text}");
        assert!(text.contains("+b\n"), "{text}");
    }
}
