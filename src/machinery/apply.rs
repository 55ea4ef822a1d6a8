//! Writing a resolved plan to disk (all or nothing), or printing it.

use super::durable;
use super::journal::{Entry, Journal, STAGING};
use super::plan::{Action, Resolved, ResolvedFile};
use super::tree::{Entry as TreeEntry, MODE_EXECUTABLE, MODE_FILE, Tree};
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// What [`Resolved::apply`] wrote.
#[derive(Debug, Default)]
pub struct ApplyReport {
    /// Files written, with what happened to each.
    pub written: Vec<(PathBuf, Action)>,
}

impl Resolved {
    /// The files whose content changes, in plan order.
    pub fn changed(&self) -> impl Iterator<Item = &ResolvedFile> {
        self.files.iter().filter(|f| f.is_changed())
    }

    /// Writes every changed file, each whole: its new content goes into a
    /// staging folder first and is then renamed over it, under a journal (see
    /// [`super::journal`]). If a write fails, everything is put back as it
    /// was; if the process dies, the next command finishes or undoes the
    /// write.
    pub fn apply(&self) -> Result<ApplyReport> {
        let changed: Vec<&ResolvedFile> = self.changed().collect();
        if changed.is_empty() {
            return Ok(ApplyReport::default());
        }
        let new_root = !self.root.exists();
        if new_root {
            durable::create_dir_all(&self.root)
                .with_context(|| format!("cannot create directory {}", self.root.display()))?;
        }
        let result = self.write_all(&changed);
        if result.is_err() && new_root {
            let _ = fs::remove_dir(&self.root);
        }
        result
    }

    /// Writes every changed file straight in place, with the mode
    /// [`Resolved::apply`] gives it, but without its journal and flushes:
    /// for a private scratch directory that nothing reads after a crash
    /// (the staging of a re-scaffold), where they would only cost time.
    pub fn apply_scratch(&self) -> Result<()> {
        for file in self.changed() {
            let full = self.root.join(&file.path);
            fs::create_dir_all(durable::parent(&full))?;
            let mode = mode_for(&full, &file.path);
            let contents = file.after.as_deref().unwrap_or_default();
            fs::write(&full, contents)
                .with_context(|| format!("cannot write {}", full.display()))?;
            if let Some(mode) = mode {
                fs::set_permissions(&full, mode)?;
            }
        }
        Ok(())
    }

    /// Carries out a plan resolved with [`super::Plan::resolve_in_memory`]
    /// on `tree`: each changed file keeps its mode, and a new one gets the
    /// mode [`Resolved::apply`] would give it.
    pub fn apply_in_memory(&self, tree: &mut Tree) {
        for file in self.changed() {
            let bytes = file.after.clone().unwrap_or_default().into_bytes();
            let mode = match tree.get(&file.path) {
                Some(entry) => entry.mode,
                None if is_script(&file.path) => MODE_EXECUTABLE,
                None => MODE_FILE,
            };
            tree.insert(file.path.clone(), TreeEntry { bytes, mode });
        }
    }

    /// [`Resolved::apply`] in a root that exists.
    fn write_all(&self, changed: &[&ResolvedFile]) -> Result<ApplyReport> {
        let root = &self.root;
        let journal = Journal::new(
            missing_dirs(root, changed),
            changed
                .iter()
                .enumerate()
                .map(|(n, f)| Entry::staged(&link_target(root, &f.path), n))
                .collect(),
        );
        let touched = journal.touched_dirs(root);
        let committed = stage(root, &journal, changed).and_then(|mut new| {
            journal.stage(root, &mut new)?;
            new.flush_with_dirs([root.join(STAGING).as_path(), root])
                .context("cannot flush the written files")?;
            Journal::commit(root)
        });
        if let Err(error) = committed {
            journal.roll_back(root);
            return Err(error);
        }
        let mut report = ApplyReport::default();
        if let Err(error) = self.put_all_in_place(&journal, changed, &mut report) {
            undo_renames(root, &changed[..report.written.len()]);
            journal.roll_back(root);
            let _ = Journal::finish(root);
            return Err(error);
        }
        Journal::close_staging(root)?;
        flush_dirs(&touched)?;
        Journal::finish(root)?;
        Ok(report)
    }

    /// Past the commit point: makes the journal's directories and puts
    /// every staged file in place, each added to `report` once there.
    fn put_all_in_place(
        &self,
        journal: &Journal,
        changed: &[&ResolvedFile],
        report: &mut ApplyReport,
    ) -> Result<()> {
        let root = &self.root;
        journal.create_dirs(root)?;
        for (entry, file) in journal.entries.iter().zip(changed) {
            put_in_place(
                &root.join(&entry.temp),
                &root.join(&entry.target),
                file.before.is_none(),
            )
            .with_context(|| format!("cannot write {}", file.path.display()))?;
            report.written.push((file.path.clone(), file.action()));
        }
        Ok(())
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

/// The directories the plan's files need that do not exist yet, relative
/// to `root`, parents first.
fn missing_dirs(root: &Path, files: &[&ResolvedFile]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for file in files {
        let mut missing: Vec<PathBuf> = file
            .path
            .ancestors()
            .skip(1)
            .filter(|dir| !dir.as_os_str().is_empty() && !root.join(dir).is_dir())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        for dir in missing {
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// Where a write of `path` lands: the file itself, or, when it is a symbolic
/// link, the file it leads to (inside the project, as planning checked), so
/// that the link stays a link. Relative to `root`.
fn link_target(root: &Path, path: &Path) -> PathBuf {
    let full = root.join(path);
    let is_link = fs::symlink_metadata(&full).is_ok_and(|m| m.file_type().is_symlink());
    let resolved = is_link
        .then(|| Some((fs::canonicalize(&full).ok()?, fs::canonicalize(root).ok()?)))
        .flatten();
    match resolved {
        Some((target, root)) => target
            .strip_prefix(root)
            .map_or_else(|_| path.to_path_buf(), Path::to_path_buf),
        None => path.to_path_buf(),
    }
}

/// Makes the staging folder and writes every new content into it, with the
/// mode the file will have; the files, unflushed.
fn stage(root: &Path, journal: &Journal, files: &[&ResolvedFile]) -> Result<durable::NewFiles> {
    Journal::open_staging(root)?;
    let mut new = durable::NewFiles::default();
    for (entry, file) in journal.entries.iter().zip(files) {
        let contents = file.after.as_deref().unwrap_or_default();
        let mode = mode_for(&root.join(&file.path), &file.path);
        new.write(&root.join(&entry.temp), contents.as_bytes(), mode)
            .with_context(|| format!("cannot write {}", file.path.display()))?;
    }
    Ok(new)
}

/// Flushes the entries of the directories a write changes (see
/// [`Journal::touched_dirs`]).
fn flush_dirs(dirs: &BTreeSet<PathBuf>) -> Result<()> {
    durable::sync_dirs(dirs.iter().map(PathBuf::as_path)).context("cannot flush the written files")
}

/// Moves a prepared `temp` file to `target`. A `new` file is only
/// created, never put over one that appeared since the plan was resolved
/// (another process, or a link planted meanwhile): that is an error, and
/// what appeared stays as it is.
fn put_in_place(temp: &Path, target: &Path, new: bool) -> Result<()> {
    if !new {
        return Ok(fs::rename(temp, target)?);
    }
    match durable::rename_new(temp, target) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = fs::remove_file(temp);
            bail!(
                "{} appeared while this command ran; it was left as it is",
                target.display()
            )
        }
        done => Ok(done?),
    }
}

/// The mode the new content of `path` gets: that of the file it replaces
/// (`existing`), executable for a new shell script, else the default.
fn mode_for(existing: &Path, path: &Path) -> Option<fs::Permissions> {
    match fs::metadata(existing) {
        Ok(meta) => Some(meta.permissions()),
        Err(_) if is_script(path) => durable::mode(0o755),
        Err(_) => None,
    }
}

/// Puts back the files already renamed into place, newest first: their old
/// content (flushed), or no file (the removal flushed by the roll-back that
/// follows). Errors are ignored: this already runs on a failure path, and
/// each step is independent.
fn undo_renames(root: &Path, done: &[&ResolvedFile]) {
    for file in done.iter().rev() {
        let full = root.join(&file.path);
        let _ = match &file.before {
            Some(before) => durable::overwrite(&full, before.as_bytes()),
            None => fs::remove_file(&full),
        };
    }
}

/// Shell scripts are generated executable.
fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "sh")
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
    fn a_new_file_that_appears_before_the_write_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Create {
            path: "PROJECT".into(),
            contents: "new".into(),
        });
        let resolved = plan.resolve(dir.path(), false).unwrap();
        // Another process creates the file after the plan was checked.
        fs::write(dir.path().join("PROJECT"), "theirs").unwrap();
        let err = resolved.apply().unwrap_err();
        assert!(format!("{err:#}").contains("appeared"), "{err:#}");
        assert_eq!(
            fs::read_to_string(dir.path().join("PROJECT")).unwrap(),
            "theirs"
        );
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_staging_folder_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("0");
        fs::write(&victim, "theirs").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(super::STAGING)).unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Create {
            path: "Makefile".into(),
            contents: "ours".into(),
        });
        plan.resolve(dir.path(), false).unwrap().apply().unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "theirs");
        assert_eq!(
            fs::read_to_string(dir.path().join("Makefile")).unwrap(),
            "ours"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_file_linked_inside_the_project_is_written_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("real")).unwrap();
        fs::write(dir.path().join("real/PROJECT"), "old").unwrap();
        std::os::unix::fs::symlink("real/PROJECT", dir.path().join("PROJECT")).unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Write {
            path: "PROJECT".into(),
            contents: "new".into(),
        });
        plan.resolve(dir.path(), false).unwrap().apply().unwrap();
        assert!(
            fs::symlink_metadata(dir.path().join("PROJECT"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("real/PROJECT")).unwrap(),
            "new"
        );
    }

    #[test]
    fn describe_lists_actions_and_diffs_updates() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("main.txt"),
            "a\n// +kubebuilder:scaffold:x\n",
        )
        .unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Insert {
            path: "main.txt".into(),
            marker: "+kubebuilder:scaffold:x".into(),
            fragment: "b".into(),
            fallback: None,
        });
        plan.push(Change::Create {
            path: "new.txt".into(),
            contents: "c\n".into(),
        });
        let text = plan.resolve(dir.path(), false).unwrap().describe();
        assert!(text.contains("update    main.txt"), "{text}");
        assert!(text.contains("create    new.txt"), "{text}");
        assert!(text.contains("+b\n"), "{text}");
    }
}
