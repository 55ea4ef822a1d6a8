//! Checkpoints of a replay: what each step of the last replay changed,
//! under a key that stands for everything the files after that step
//! depend on, so that the next replay of a sequence that starts the same
//! way skips the steps it shares and starts from their files.
//!
//! A step's key is chained: the hash of the previous step's key and the
//! step's own text (the first step chains from a salt the caller gives,
//! which stands for what every step depends on). Two sequences have the
//! same files after step `n` when they have the same key there.
//!
//! Kept in one file, each step followed by the checksum of its bytes: a
//! command that replays only its last steps cuts the file after the steps
//! it keeps and appends its own, instead of writing every step again. It is
//! a cache: a missing file or one of another format is read as no
//! checkpoint at all, a step whose bytes do not match its checksum (a write
//! cut short, or two commands writing at once) as the end of the file; it
//! is never flushed.

use super::git_objects::sha1_hex;
use super::tree::{Entry, Tree};
use anyhow::{Context as _, Result};
use std::fs;
use std::io::{Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

/// The first line of the file: its format.
const MAGIC: &[u8] = b"kubebuilder-rs replay checkpoints 2\n";

/// What one step changed: a file put (made or replaced) or removed.
type Change = (PathBuf, Option<Entry>);

/// One step of the last replay.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Checkpoint {
    /// The step's chained key.
    key: String,
    /// The files it put or removed, by path.
    changes: Vec<Change>,
}

/// The steps of the last replay, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoints {
    steps: Vec<Checkpoint>,
    /// Where each of the first steps ends in the file they were read from:
    /// saving writes only the steps after them.
    in_file: Vec<u64>,
}

/// The chained keys of a sequence of steps whose texts are `steps`,
/// starting from `salt`.
pub fn chain_keys<'a>(salt: &str, steps: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut previous = sha1_hex(salt.as_bytes());
    steps
        .into_iter()
        .map(|text| {
            previous = sha1_hex(format!("{previous}\n{text}").as_bytes());
            previous.clone()
        })
        .collect()
}

impl Checkpoints {
    /// The checkpoints kept in the file at `path`; none when it is
    /// missing, of another format or torn.
    pub fn load(path: &Path) -> Self {
        fs::read(path)
            .ok()
            .and_then(|bytes| Self::decode(&bytes))
            .unwrap_or_default()
    }

    /// Keeps the checkpoints in the file at `path` (its folder made if
    /// need be; the file readable by its owner only): the file is cut after
    /// the steps it already holds, and the others are appended. Not
    /// flushed: a cache.
    pub fn save(&self, path: &Path) -> Result<()> {
        let kept = self.in_file.len();
        let (start, mut bytes) = match self.in_file.last() {
            Some(&end) => (end, Vec::new()),
            None => (0, MAGIC.to_vec()),
        };
        for step in &self.steps[kept..] {
            match step.encode() {
                Some(step) => bytes.extend(step),
                None => break,
            }
        }
        let folder = path.parent().context("a checkpoint file has a folder")?;
        fs::create_dir_all(folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        file.set_len(start)?;
        file.seek(SeekFrom::Start(start))?;
        file.write_all(&bytes)
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// How many of the sequence's first steps, whose keys are `keys`, the
    /// checkpoints share, and the files after the last of them (the empty
    /// tree when none). Forgets the checkpoints after those.
    pub fn resume(&mut self, keys: &[String]) -> (usize, Tree) {
        let shared = self
            .steps
            .iter()
            .zip(keys)
            .take_while(|(step, key)| &step.key == *key)
            .count();
        self.steps.truncate(shared);
        self.in_file.truncate(shared);
        let mut files = Tree::new();
        for step in &self.steps {
            apply(&mut files, &step.changes);
        }
        (shared, files)
    }

    /// Adds the step of `key` that turned the files `before` into `after`.
    pub fn push(&mut self, key: String, before: &Tree, after: &Tree) {
        self.steps.push(Checkpoint {
            key,
            changes: changes(before, after),
        });
    }

    /// The checkpoints of the file's `bytes`: the steps up to the first
    /// that is cut short or does not match its checksum; `None` unless the
    /// format is this module's.
    fn decode(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader {
            rest: bytes.strip_prefix(MAGIC)?,
        };
        let mut checkpoints = Self::default();
        while let Some(step) = reader.step() {
            checkpoints.steps.push(step);
            checkpoints
                .in_file
                .push((bytes.len() - reader.rest.len()) as u64);
        }
        Some(checkpoints)
    }
}

impl Checkpoint {
    /// The step's bytes in the file, its checksum line last; `None` when a
    /// path cannot be written on a line (not UTF-8, or holding a newline).
    fn encode(&self) -> Option<Vec<u8>> {
        let mut out = format!("step {} {}\n", self.key, self.changes.len()).into_bytes();
        for (path, entry) in &self.changes {
            let path = path.to_str().filter(|p| !p.contains('\n'))?;
            match entry {
                Some(entry) => {
                    let line = format!("put {:o} {} {path}\n", entry.mode, entry.bytes.len());
                    out.extend(line.bytes());
                    out.extend(&entry.bytes);
                }
                None => out.extend(format!("del {path}\n").bytes()),
            }
        }
        let checksum = sha1_hex(&out);
        out.extend(format!("sum {checksum}\n").bytes());
        Some(out)
    }
}

/// Reads the file's lines and the bytes between them.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// The next step, when it is whole and matches its checksum.
    fn step(&mut self) -> Option<Checkpoint> {
        let start = self.rest;
        let line = self.line()?;
        let mut words = line.strip_prefix("step ")?.split(' ');
        let key = words.next()?.to_string();
        let count: usize = words.next()?.parse().ok()?;
        let changes = (0..count)
            .map(|_| self.change())
            .collect::<Option<Vec<_>>>()?;
        let body = &start[..start.len() - self.rest.len()];
        let checksum = self.line()?.strip_prefix("sum ")?;
        (checksum == sha1_hex(body)).then_some(Checkpoint { key, changes })
    }

    /// The next line, without its newline.
    fn line(&mut self) -> Option<&'a str> {
        let end = self.rest.iter().position(|b| *b == b'\n')?;
        let line = std::str::from_utf8(&self.rest[..end]).ok()?;
        self.rest = &self.rest[end + 1..];
        Some(line)
    }

    /// The next `len` bytes.
    fn bytes(&mut self, len: usize) -> Option<Vec<u8>> {
        if len > self.rest.len() {
            return None;
        }
        let (bytes, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(bytes.to_vec())
    }

    /// The next change: a `put` line and its bytes, or a `del` line.
    fn change(&mut self) -> Option<Change> {
        let line = self.line()?;
        if let Some(path) = line.strip_prefix("del ") {
            return Some((PathBuf::from(path), None));
        }
        let mut words = line.strip_prefix("put ")?.splitn(3, ' ');
        let mode = u32::from_str_radix(words.next()?, 8).ok()?;
        let len: usize = words.next()?.parse().ok()?;
        let path = PathBuf::from(words.next()?);
        let bytes = self.bytes(len)?;
        Some((path, Some(Entry { bytes, mode })))
    }
}

/// What turns `before` into `after`: the files added or different, and
/// those gone.
fn changes(before: &Tree, after: &Tree) -> Vec<Change> {
    let put = after
        .iter()
        .filter(|(path, entry)| before.get(*path) != Some(*entry))
        .map(|(path, entry)| (path.clone(), Some(entry.clone())));
    let gone = before
        .keys()
        .filter(|path| !after.contains_key(*path))
        .map(|path| (path.clone(), None));
    put.chain(gone).collect()
}

/// Applies `changes` to `files`.
fn apply(files: &mut Tree, changes: &[Change]) {
    for (path, entry) in changes {
        match entry {
            Some(entry) => files.insert(path.clone(), entry.clone()),
            None => files.remove(path),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machinery::tree::MODE_EXECUTABLE;

    fn tree(files: &[(&str, &str)]) -> Tree {
        files
            .iter()
            .map(|(path, text)| (PathBuf::from(path), Entry::file(text.as_bytes())))
            .collect()
    }

    /// Three steps: a file made, one changed and one made executable,
    /// one removed.
    fn three_steps(keys: &[String]) -> (Checkpoints, Vec<Tree>) {
        let mut states = vec![Tree::new(), tree(&[("a", "1"), ("b/c d", "x\ny")])];
        let mut second = tree(&[("a", "2"), ("b/c d", "x\ny")]);
        second.insert(
            "run".into(),
            Entry {
                bytes: b"#!/bin/sh\n".to_vec(),
                mode: MODE_EXECUTABLE,
            },
        );
        states.push(second.clone());
        second.remove(Path::new("a"));
        states.push(second);
        let mut checkpoints = Checkpoints::default();
        for (i, key) in keys.iter().enumerate() {
            checkpoints.push(key.clone(), &states[i], &states[i + 1]);
        }
        (checkpoints, states)
    }

    #[test]
    fn keys_chain_so_a_changed_step_changes_every_later_key() {
        let one = chain_keys("salt", ["a", "b", "c"]);
        let two = chain_keys("salt", ["a", "B", "c"]);
        let salted = chain_keys("pepper", ["a", "b", "c"]);
        assert_eq!(one[0], two[0]);
        assert_ne!(one[1], two[1]);
        assert_ne!(one[2], two[2]);
        assert!(one.iter().zip(&salted).all(|(a, b)| a != b));
        assert_eq!(one, chain_keys("salt", ["a", "b", "c"]));
    }

    #[test]
    fn a_sequence_resumes_after_the_steps_it_shares() {
        let keys = chain_keys("s", ["1", "2", "3"]);
        let (mut checkpoints, states) = three_steps(&keys);
        let other = chain_keys("s", ["1", "2", "other"]);
        let (shared, files) = checkpoints.resume(&other);
        assert_eq!(shared, 2);
        assert_eq!(files, states[2]);
        assert_eq!(checkpoints.steps.len(), 2);

        let (mut all, states) = three_steps(&keys);
        assert_eq!(all.resume(&keys), (3, states[3].clone()));
        let (mut none, _) = three_steps(&keys);
        assert_eq!(none.resume(&chain_keys("t", ["1"])), (0, Tree::new()));
    }

    #[test]
    fn the_file_reads_back_the_whole_steps_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/checkpoints");
        let keys = chain_keys("s", ["1", "2", "3"]);
        let (checkpoints, _) = three_steps(&keys);
        checkpoints.save(&path).unwrap();
        let read = Checkpoints::load(&path);
        assert_eq!(read.steps, checkpoints.steps);
        let bytes = fs::read(&path).unwrap();
        assert_eq!(read.in_file.last(), Some(&(bytes.len() as u64)));

        let ends: Vec<usize> = read.in_file.iter().map(|&end| end as usize).collect();
        for cut in [
            1,
            MAGIC.len(),
            ends[0] - 1,
            ends[0],
            ends[1] + 7,
            bytes.len() - 1,
        ] {
            fs::write(&path, &bytes[..cut]).unwrap();
            let whole = ends.iter().filter(|&&end| end <= cut).count();
            assert_eq!(
                Checkpoints::load(&path).steps,
                checkpoints.steps[..whole],
                "cut at {cut}"
            );
        }
        let mut flipped = bytes.clone();
        flipped[ends[0] + 10] ^= 1;
        fs::write(&path, flipped).unwrap();
        assert_eq!(Checkpoints::load(&path).steps, checkpoints.steps[..1]);
        fs::write(&path, b"kubebuilder-rs replay checkpoints 1\n").unwrap();
        assert_eq!(Checkpoints::load(&path), Checkpoints::default());
        assert_eq!(
            Checkpoints::load(&dir.path().join("missing")),
            Checkpoints::default()
        );
    }

    #[test]
    fn saving_after_a_resume_writes_only_the_steps_after_those_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoints");
        let keys = chain_keys("s", ["1", "2", "3"]);
        let (checkpoints, states) = three_steps(&keys);
        checkpoints.save(&path).unwrap();

        let mut read = Checkpoints::load(&path);
        let other = chain_keys("s", ["1", "2", "other"]);
        assert_eq!(read.resume(&other).0, 2);
        // Were the kept steps written again, the file would show this.
        read.steps[0].changes.clear();
        read.push(other[2].clone(), &states[2], &tree(&[("z", "other")]));
        read.save(&path).unwrap();

        let again = Checkpoints::load(&path);
        assert_eq!(again.steps[..2], checkpoints.steps[..2]);
        assert_eq!(again.steps[2].key, other[2]);
        let mut resumed = again.clone();
        assert_eq!(resumed.resume(&other), (3, tree(&[("z", "other")])));

        Checkpoints::default().save(&path).unwrap();
        assert_eq!(fs::read(&path).unwrap(), MAGIC);
    }

    #[test]
    fn a_path_that_cannot_be_a_line_ends_what_is_kept() {
        let mut checkpoints = Checkpoints::default();
        checkpoints.push("k".into(), &Tree::new(), &tree(&[("a", "x")]));
        checkpoints.push("l".into(), &Tree::new(), &tree(&[("a\nb", "x")]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoints");
        checkpoints.save(&path).unwrap();
        assert_eq!(Checkpoints::load(&path).steps, checkpoints.steps[..1]);
    }
}
