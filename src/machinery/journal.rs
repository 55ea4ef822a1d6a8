//! Writing a resolved plan so that no crash leaves a torn tree.
//!
//! Every file is first written beside its target, under a temporary name,
//! and only then renamed over it; a rename replaces a file whole. A small
//! journal at the project root lists the files of the plan and says how far
//! the write got:
//!
//! 1. `preparing`: the journal is written, then every new content beside its
//!    target. A crash now leaves the old tree plus temporary files.
//! 2. `committing`: every new content is complete on disk; the journal says
//!    so, then the temporary files are renamed over their targets. A crash
//!    now leaves a tree that is part old, part new.
//! 3. The journal is removed: the new tree is complete.
//!
//! The next command that runs in the directory calls [`recover`] first: a
//! `preparing` journal is rolled back (temporary files and new directories
//! removed), a `committing` one rolled forward (the remaining renames done).
//! Either way the tree is the old one or the new one again, and the user is
//! told which.
//!
//! So that this holds when the machine stops too (a power cut loses what
//! the operating system had not yet written out, in any order), each step
//! is flushed ([`super::durable`]) before the step that relies on it:
//!
//! - the journal's first record: created in place (no record exists after
//!   [`recover`]), its data and its name in the project root flushed as one
//!   step before anything else changes. A crash before that step ends may
//!   leave the record missing, empty or cut short; nothing it lists was
//!   made yet, so [`recover`] rolls back what it can read of it;
//! - the second record: its data flushed before it is renamed over the
//!   first, then the project root, before anything else changes;
//! - the new directories and every temporary file (data and mode), then
//!   the directories holding them, before the journal says `committing`
//!   (else a roll-forward could find a temporary file gone or empty);
//! - the directories of the renamed files before the journal is removed
//!   (the commit point), and the root after, before the command reports
//!   success.
//!
//! Recovery flushes its renames or removals the same way before it removes
//! the journal. The old files are never changed before `committing`, so a
//! roll-back needs no copy of them.

use super::durable;
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The journal's name at the project root.
pub const JOURNAL: &str = ".kubebuilder-rs-journal";

/// The first line of every record of the journal, before its state.
const HEADER: &str = "kubebuilder-rs write journal v1";

/// What a temporary file's name ends in.
const TEMP_SUFFIX: &str = ".kubebuilder-rs-new";

/// How far a write got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// New contents are being written beside their targets.
    Preparing,
    /// Every new content is on disk; renames are under way.
    Committing,
}

/// One file of a write: where it goes, and where its new content waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file, relative to the project root.
    pub target: PathBuf,
    /// Its new content's temporary file, relative to the project root.
    pub temp: PathBuf,
}

impl Entry {
    /// The entry for `target`, with its temporary file in the same directory.
    pub fn new(target: &Path) -> Self {
        let name = target.file_name().unwrap_or_default().to_string_lossy();
        let temp = target.with_file_name(format!(".{name}{TEMP_SUFFIX}"));
        Self {
            target: target.to_path_buf(),
            temp,
        }
    }
}

/// The record of one write in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    state: State,
    /// Directories the write created, parents first, relative to the root.
    pub dirs: Vec<PathBuf>,
    /// The files, in write order.
    pub entries: Vec<Entry>,
}

impl Journal {
    /// A journal for a write that is starting.
    pub fn preparing(dirs: Vec<PathBuf>, entries: Vec<Entry>) -> Self {
        Self {
            state: State::Preparing,
            dirs,
            entries,
        }
    }

    /// Records the journal's first record in `root`, where no record is
    /// (see [`recover`]): created in place and flushed, its data and its
    /// name, as one step.
    pub fn begin(&self, root: &Path) -> Result<()> {
        durable::create_flushed(&root.join(JOURNAL), self.to_text().as_bytes())
            .context("cannot record the write journal")
    }

    /// Writes, into `new`, the record saying that every new content is
    /// complete, beside the journal: flushed with those contents, it is
    /// then put in place by [`Journal::commit_staged`].
    pub fn stage_commit(&self, root: &Path, new: &mut durable::NewFiles) -> Result<()> {
        let committing = Self {
            state: State::Committing,
            ..self.clone()
        };
        new.write(&temp_of(root), committing.to_text().as_bytes(), None)
            .context("cannot record the write journal")
    }

    /// Marks every new content as complete on disk: puts the record
    /// [`Journal::stage_commit`] wrote, flushed since, in place, and
    /// flushes that.
    pub fn commit_staged(&mut self, root: &Path) -> Result<()> {
        self.state = State::Committing;
        durable::rename_flushed(&temp_of(root), &root.join(JOURNAL))
            .context("cannot record the write journal")
    }

    /// Removes the journal and flushes the removal: the write is complete,
    /// or undone. The caller has flushed everything the write changed.
    pub fn finish(root: &Path) -> Result<()> {
        durable::remove(&root.join(JOURNAL)).context("cannot remove the write journal")
    }

    /// The directories whose entries the write changes: those holding its
    /// files, and those holding the directories it creates.
    pub fn touched_dirs(&self, root: &Path) -> BTreeSet<PathBuf> {
        let files = self.entries.iter().map(|entry| &entry.target);
        files
            .chain(&self.dirs)
            .map(|path| root.join(durable::parent(path)))
            .collect()
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

    /// Parses [`Journal::to_text`]'s output. A first record cut short by a
    /// crash (empty, or its last line incomplete; zeros where its data was
    /// never written) reads as the lines it has whole: nothing it lists was
    /// made before it was complete on disk.
    fn parse(text: &str) -> Result<Self> {
        let text = text.trim_end_matches('\0');
        let mut journal = Self::preparing(Vec::new(), Vec::new());
        if format!("{HEADER} preparing\n").starts_with(text) {
            return Ok(journal);
        }
        let mut lines = text.split_inclusive('\n');
        journal.state = match lines.next().and_then(|l| l.strip_prefix(HEADER)) {
            Some(" preparing\n") => State::Preparing,
            Some(" committing\n") => State::Committing,
            _ => bail!("{JOURNAL} is not a write journal of this tool"),
        };
        for line in lines {
            let Some(line) = line.strip_suffix('\n') else {
                if journal.state == State::Preparing {
                    break;
                }
                bail!("{JOURNAL} ends in an incomplete line: {line:?}");
            };
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

    /// Undoes a write that had not reached `committing`: removes its
    /// temporary files and the directories it created (when empty), and
    /// flushes the removals.
    pub fn roll_back(&self, root: &Path) {
        let _ = fs::remove_file(temp_of(root));
        for entry in &self.entries {
            let _ = fs::remove_file(root.join(&entry.temp));
        }
        for dir in self.dirs.iter().rev() {
            let _ = fs::remove_dir(root.join(dir));
        }
        let mut touched = self.touched_dirs(root);
        touched.insert(root.to_path_buf());
        let _ = durable::sync_dirs(touched.iter().map(PathBuf::as_path).filter(|d| d.is_dir()));
    }

    /// Finishes a write that had reached `committing`: renames every
    /// temporary file still there over its target. Returns how many.
    fn roll_forward(&self, root: &Path) -> Result<usize> {
        let mut renamed = 0;
        for entry in &self.entries {
            let temp = root.join(&entry.temp);
            if temp.exists() {
                fs::rename(&temp, root.join(&entry.target))
                    .with_context(|| format!("cannot finish writing {}", entry.target.display()))?;
                // A new file is put in place as a second name of its
                // temporary file; when the run stopped between the two steps,
                // the rename above changes nothing and the temporary name stays.
                let _ = fs::remove_file(&temp);
                renamed += 1;
            }
        }
        durable::sync_dirs(self.touched_dirs(root).iter().map(PathBuf::as_path))
            .context("cannot flush the finished write")?;
        Ok(renamed)
    }
}

/// Where the journal's next record is written before it is put in place.
fn temp_of(root: &Path) -> PathBuf {
    root.join(format!("{JOURNAL}{TEMP_SUFFIX}"))
}

/// Brings the tree in `root` back to a whole state after a command that was
/// interrupted while writing (killed, or its machine stopped), and says
/// what was done on standard error. Does nothing when no write was left
/// unfinished.
pub fn recover(root: &Path) -> Result<()> {
    let _ = fs::remove_file(temp_of(root));
    let path = root.join(JOURNAL);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).context(format!("cannot read {}", path.display())),
    };
    let journal = Journal::parse(&text)?;
    match journal.state {
        State::Preparing => {
            journal.roll_back(root);
            eprintln!(
                "Note: an earlier kubebuilder-rs command was interrupted before it changed any file; its partial output was removed, and the project is as it was before that command."
            );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back_as_written() {
        let mut journal = Journal::preparing(
            vec!["api".into(), "api/v1".into()],
            vec![
                Entry::new(Path::new("api/v1/types.txt")),
                Entry::new(Path::new("PROJECT")),
            ],
        );
        journal.state = State::Committing;
        assert_eq!(Journal::parse(&journal.to_text()).unwrap(), journal);
        assert_eq!(
            journal.entries[0].temp,
            Path::new("api/v1/.types.txt.kubebuilder-rs-new")
        );
    }

    #[test]
    fn a_first_record_cut_short_reads_as_the_lines_it_has_whole() {
        let journal = Journal::preparing(
            vec!["api".into()],
            vec![
                Entry::new(Path::new("api/types.txt")),
                Entry::new(Path::new("PROJECT")),
            ],
        );
        let text = journal.to_text();
        for cut in 0..=text.len() {
            let read = Journal::parse(&text[..cut]).unwrap();
            assert_eq!(read.state, State::Preparing, "cut at {cut}");
            let whole_lines = text[..cut].matches('\n').count().saturating_sub(1);
            let (dirs, files) = (whole_lines.min(1), whole_lines.saturating_sub(1));
            assert_eq!(read.dirs, journal.dirs[..dirs], "cut at {cut}");
            assert_eq!(read.entries, journal.entries[..files], "cut at {cut}");
        }
        let zeros = format!("{}\0\0\0", &text[..20]);
        assert_eq!(Journal::parse(&zeros).unwrap().entries, []);
        assert!(Journal::parse("\0\0\0").is_ok());

        let committing = Journal {
            state: State::Committing,
            ..journal
        };
        let text = committing.to_text();
        assert!(Journal::parse(&text[..text.len() - 1]).is_err());
        assert!(Journal::parse("a journal of another tool\n").is_err());

        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("PROJECT"), "kept").unwrap();
        fs::write(dir.path().join(JOURNAL), "").unwrap();
        recover(dir.path()).unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        assert_eq!(
            fs::read_to_string(dir.path().join("PROJECT")).unwrap(),
            "kept"
        );
    }

    #[test]
    fn preparing_rolls_back_and_committing_rolls_forward() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "old a").unwrap();
        fs::create_dir(root.join("new")).unwrap();
        let entries = vec![Entry::new(Path::new("a")), Entry::new(Path::new("new/b"))];
        for entry in &entries {
            fs::write(root.join(&entry.temp), "new").unwrap();
        }
        let mut journal = Journal::preparing(vec!["new".into()], entries);
        journal.begin(root).unwrap();
        recover(root).unwrap();
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "old a");
        assert!(!root.join("new").exists() && !root.join(JOURNAL).exists());
        assert_eq!(fs::read_dir(root).unwrap().count(), 1);

        fs::create_dir(root.join("new")).unwrap();
        for entry in &journal.entries {
            fs::write(root.join(&entry.temp), "new").unwrap();
        }
        let mut staged = durable::NewFiles::default();
        journal.stage_commit(root, &mut staged).unwrap();
        staged.flush().unwrap();
        journal.commit_staged(root).unwrap();
        fs::rename(root.join(&journal.entries[0].temp), root.join("a")).unwrap();
        recover(root).unwrap();
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "new");
        assert_eq!(fs::read_to_string(root.join("new/b")).unwrap(), "new");
        assert!(!root.join(JOURNAL).exists());
    }
}
