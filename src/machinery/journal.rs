//! Writing a resolved plan so that no crash leaves a torn tree.
//!
//! Every new content is first written whole into a staging folder at the
//! project root, and only then renamed over its target; a rename replaces a
//! file whole. A small journal lists the files of the write:
//!
//! 1. Staging: the staging folder is made, every new content written into
//!    it, and the journal beside them. A crash now leaves the old tree and
//!    the staging folder.
//! 2. Commit: the journal is renamed from the staging folder to the project
//!    root. The new directories are made and the staged files renamed over
//!    their targets; the emptied staging folder is removed. A crash now
//!    leaves a tree that is part old, part new.
//! 3. The journal is removed: the new tree is complete.
//!
//! The next command that runs in the directory calls [`recover`] first: a
//! staging folder without a journal at the root is removed (the write is
//! undone: nothing outside the folder had changed), a journal at the root
//! is rolled forward (the remaining directories made and renames done).
//! Either way the tree is the old one or the new one again, and the user is
//! told which.
//!
//! So that this holds when the machine stops too (a power cut loses what
//! the operating system had not yet written out, in any order), each step
//! is flushed ([`super::durable`]) before the step that relies on it:
//!
//! - every staged file (data and mode), the journal's data and the staging
//!   folder's entries, before the journal is renamed to the root (else a
//!   roll-forward could find a staged file gone or empty);
//! - the root, after that rename, before anything else changes (the commit
//!   point);
//! - the new directories and renamed files in their directories, and the
//!   staging folder's removal, before the journal is removed; the root
//!   after, before the command reports success.
//!
//! Nothing needs flushing before staging starts: until the commit point
//! every change is inside the staging folder, which the next command
//! removes whole whatever the disk kept of it. The old files are never
//! changed before the commit point, so a roll-back needs no copy of them.
//!
//! A journal left by a build of kubebuilder-rs from before the staging
//! folder (temporary files beside their targets; a first record saying
//! `preparing`) is recovered the same way: rolled back while `preparing`,
//! rolled forward once `committing`.

use super::durable;
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The journal's name at the project root.
pub const JOURNAL: &str = ".kubebuilder-rs-journal";

/// The staging folder's name at the project root.
pub const STAGING: &str = ".kubebuilder-rs-staging";

/// The first line of the journal, before its state.
const HEADER: &str = "kubebuilder-rs write journal v1";

/// Where builds from before the staging folder wrote a journal record before
/// renaming it into place.
const OLD_RECORD_TEMP: &str = ".kubebuilder-rs-journal.kubebuilder-rs-new";

/// How far a write got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// New contents were being written (only by builds from before the
    /// staging folder: in a staged write, a journal at the root is always
    /// committed).
    Preparing,
    /// Every new content is on disk; renames are under way.
    Committing,
}

/// One file of a write: where it goes, and where its new content waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file, relative to the project root.
    pub target: PathBuf,
    /// Its new content's staged file, relative to the project root.
    pub temp: PathBuf,
}

impl Entry {
    /// The `n`-th file of a write, going to `target`.
    pub fn staged(target: &Path, n: usize) -> Self {
        Self {
            target: target.to_path_buf(),
            temp: Path::new(STAGING).join(n.to_string()),
        }
    }
}

/// The record of one write in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    state: State,
    /// Directories the write creates, parents first, relative to the root.
    pub dirs: Vec<PathBuf>,
    /// The files, in write order.
    pub entries: Vec<Entry>,
}

impl Journal {
    /// The journal of a write of `entries` that creates `dirs`.
    pub fn new(dirs: Vec<PathBuf>, entries: Vec<Entry>) -> Self {
        Self {
            state: State::Committing,
            dirs,
            entries,
        }
    }

    /// Makes the staging folder in `root`, new and empty, whatever was at
    /// its name removed first (a link planted there is never followed).
    pub fn open_staging(root: &Path) -> Result<()> {
        let staging = root.join(STAGING);
        discard(&staging);
        fs::create_dir(&staging)
            .with_context(|| format!("cannot create the staging folder {}", staging.display()))
    }

    /// Writes the journal into the staging folder, among `new`, the staged
    /// files it is flushed with before [`Journal::commit`].
    pub fn stage(&self, root: &Path, new: &mut durable::NewFiles) -> Result<()> {
        new.write(&staged_journal(root), self.to_text().as_bytes(), None)
            .context("cannot record the write journal")
    }

    /// The commit point: renames the staged journal, flushed with every
    /// staged file, to the root, and flushes that.
    pub fn commit(root: &Path) -> Result<()> {
        durable::rename_flushed(&staged_journal(root), &root.join(JOURNAL))
            .context("cannot record the write journal")
    }

    /// Makes the directories of the write that do not exist, parents first.
    pub fn create_dirs(&self, root: &Path) -> Result<()> {
        for dir in &self.dirs {
            let full = root.join(dir);
            if !full.is_dir() {
                fs::create_dir(&full)
                    .with_context(|| format!("cannot create directory {}", dir.display()))?;
            }
        }
        Ok(())
    }

    /// Removes the emptied staging folder of a committed write.
    pub fn close_staging(root: &Path) -> Result<()> {
        fs::remove_dir(root.join(STAGING)).context("cannot remove the staging folder")
    }

    /// Removes the journal and flushes the removal: the write is complete,
    /// or undone. The caller has flushed everything the write changed.
    pub fn finish(root: &Path) -> Result<()> {
        durable::remove(&root.join(JOURNAL)).context("cannot remove the write journal")
    }

    /// The directories whose entries the write changes: those holding its
    /// files, those holding the directories it creates, and the root
    /// (holding the staging folder).
    pub fn touched_dirs(&self, root: &Path) -> BTreeSet<PathBuf> {
        let files = self.entries.iter().map(|entry| &entry.target);
        let mut dirs: BTreeSet<PathBuf> = files
            .chain(&self.dirs)
            .map(|path| root.join(durable::parent(path)))
            .collect();
        dirs.insert(root.to_path_buf());
        dirs
    }

    /// The journal as text: a state line, then one line per directory and file.
    fn to_text(&self) -> String {
        let state = match self.state {
            State::Preparing => "preparing",
            State::Committing => "committing",
        };
        let mut text = format!("{HEADER} {state}\n");
        for dir in &self.dirs {
            text.push_str(&format!("dir\t{}\n", dir.display()));
        }
        for entry in &self.entries {
            text.push_str(&format!(
                "file\t{}\t{}\n",
                entry.target.display(),
                entry.temp.display()
            ));
        }
        text
    }

    /// Parses [`Journal::to_text`]'s output.
    fn parse(text: &str) -> Result<Self> {
        let mut lines = text.lines();
        let state = match lines.next().and_then(|l| l.strip_prefix(HEADER)) {
            Some(" preparing") => State::Preparing,
            Some(" committing") => State::Committing,
            _ => bail!("{JOURNAL} is not a write journal of this tool"),
        };
        let mut journal = Self {
            state,
            dirs: Vec::new(),
            entries: Vec::new(),
        };
        for line in lines {
            match line.split('\t').collect::<Vec<_>>().as_slice() {
                ["dir", dir] => journal.dirs.push(dir.into()),
                ["file", target, temp] => journal.entries.push(Entry {
                    target: target.into(),
                    temp: temp.into(),
                }),
                _ => bail!("{JOURNAL} has a line this tool does not understand: {line:?}"),
            }
        }
        Ok(journal)
    }

    /// Undoes a write that had not renamed every file, or that never
    /// reached its commit point: removes its staged (or temporary) files,
    /// the staging folder and the directories it created (when empty), and
    /// flushes the removals. The caller has put back the files renamed.
    pub fn roll_back(&self, root: &Path) {
        for entry in &self.entries {
            let _ = fs::remove_file(root.join(&entry.temp));
        }
        discard(&root.join(STAGING));
        for dir in self.dirs.iter().rev() {
            let _ = fs::remove_dir(root.join(dir));
        }
        let touched = self.touched_dirs(root);
        let _ = durable::sync_dirs(touched.iter().map(PathBuf::as_path).filter(|d| d.is_dir()));
    }

    /// Finishes a write past its commit point: makes its missing
    /// directories and renames every staged file still there over its
    /// target. Returns how many.
    fn roll_forward(&self, root: &Path) -> Result<usize> {
        self.create_dirs(root)?;
        let mut renamed = 0;
        for entry in &self.entries {
            let temp = root.join(&entry.temp);
            if temp.exists() {
                fs::rename(&temp, root.join(&entry.target))
                    .with_context(|| format!("cannot finish writing {}", entry.target.display()))?;
                // Where the file system lacks `renameat2`, a new file is put
                // in place as a second name of its staged file; when the run
                // stopped between the two steps, the rename above changes
                // nothing and the staged name stays.
                let _ = fs::remove_file(&temp);
                renamed += 1;
            }
        }
        discard(&root.join(STAGING));
        durable::sync_dirs(self.touched_dirs(root).iter().map(PathBuf::as_path))
            .context("cannot flush the finished write")?;
        Ok(renamed)
    }
}

/// Where the journal is written before the commit point.
fn staged_journal(root: &Path) -> PathBuf {
    root.join(STAGING).join("journal")
}

/// Removes whatever is at `path` (a folder with everything in it, a file,
/// a link without following it), if anything.
fn discard(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            let _ = fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Brings the tree in `root` back to a whole state after a command that was
/// interrupted while writing (killed, or its machine stopped), and says
/// what was done on standard error. Does nothing when no write was left
/// unfinished.
pub fn recover(root: &Path) -> Result<()> {
    let _ = fs::remove_file(root.join(OLD_RECORD_TEMP));
    let path = root.join(JOURNAL);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return undo_staging(root);
        }
        Err(e) => return Err(e).context(format!("cannot read {}", path.display())),
    };
    let journal = Journal::parse(&text)?;
    match journal.state {
        State::Preparing => {
            journal.roll_back(root);
            say_undone();
        }
        State::Committing => {
            let renamed = journal.roll_forward(root)?;
            eprintln!(
                "Note: an earlier kubebuilder-rs command was interrupted while writing; its last {renamed} of {} files were written now, so its changes are complete.",
                journal.entries.len()
            );
        }
    }
    Journal::finish(root)
}

/// Removes a staging folder left by a write that stopped before its
/// commit point, and flushes the removal.
fn undo_staging(root: &Path) -> Result<()> {
    let staging = root.join(STAGING);
    if fs::symlink_metadata(&staging).is_err() {
        return Ok(());
    }
    discard(&staging);
    durable::sync_dirs([root]).context("cannot flush the undone write")?;
    say_undone();
    Ok(())
}

/// Tells the user that an interrupted write was undone.
fn say_undone() {
    eprintln!(
        "Note: an earlier kubebuilder-rs command was interrupted before it changed any file; its partial output was removed, and the project is as it was before that command."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back_as_written() {
        let journal = Journal::new(
            vec!["api".into(), "api/v1".into()],
            vec![
                Entry::staged(Path::new("api/v1/types.txt"), 0),
                Entry::staged(Path::new("PROJECT"), 1),
            ],
        );
        assert_eq!(Journal::parse(&journal.to_text()).unwrap(), journal);
        assert_eq!(
            journal.entries[1].temp,
            Path::new(".kubebuilder-rs-staging/1")
        );
        assert!(Journal::parse("a journal of another tool\n").is_err());
    }

    /// Stages `journal`'s files (each content "new") and its record.
    fn stage(root: &Path, journal: &Journal) {
        Journal::open_staging(root).unwrap();
        let mut new = durable::NewFiles::default();
        for entry in &journal.entries {
            new.write(&root.join(&entry.temp), b"new", None).unwrap();
        }
        journal.stage(root, &mut new).unwrap();
        new.flush().unwrap();
    }

    #[test]
    fn a_staged_write_rolls_back_and_a_committed_one_forward() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "old a").unwrap();
        let entries = vec![
            Entry::staged(Path::new("a"), 0),
            Entry::staged(Path::new("new/b"), 1),
        ];
        let journal = Journal::new(vec!["new".into()], entries);

        stage(root, &journal);
        recover(root).unwrap();
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "old a");
        assert_eq!(fs::read_dir(root).unwrap().count(), 1, "only a is left");

        stage(root, &journal);
        Journal::commit(root).unwrap();
        recover(root).unwrap();
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "new");
        assert_eq!(fs::read_to_string(root.join("new/b")).unwrap(), "new");
        assert_eq!(fs::read_dir(root).unwrap().count(), 2, "a and new are left");
    }

    #[test]
    fn a_journal_of_an_older_build_is_recovered_by_its_state() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "old a").unwrap();
        fs::create_dir(root.join("new")).unwrap();
        let entries = vec![
            Entry {
                target: "a".into(),
                temp: ".a.kubebuilder-rs-new".into(),
            },
            Entry {
                target: "new/b".into(),
                temp: "new/.b.kubebuilder-rs-new".into(),
            },
        ];
        let mut journal = Journal::new(vec!["new".into()], entries);
        journal.state = State::Preparing;
        for entry in &journal.entries {
            fs::write(root.join(&entry.temp), "new").unwrap();
        }
        fs::write(root.join(JOURNAL), journal.to_text()).unwrap();
        fs::write(root.join(OLD_RECORD_TEMP), "a record cut short").unwrap();
        recover(root).unwrap();
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "old a");
        assert_eq!(fs::read_dir(root).unwrap().count(), 1, "only a is left");

        fs::create_dir(root.join("new")).unwrap();
        for entry in &journal.entries {
            fs::write(root.join(&entry.temp), "new").unwrap();
        }
        journal.state = State::Committing;
        fs::write(root.join(JOURNAL), journal.to_text()).unwrap();
        recover(root).unwrap();
        assert_eq!(fs::read_to_string(root.join("new/b")).unwrap(), "new");
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "new");
        assert_eq!(fs::read_dir(root).unwrap().count(), 2, "a and new are left");
    }
}
