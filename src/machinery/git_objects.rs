//! git objects encoded, hashed, written and read in-process, without
//! running git. An object is `<kind> <size>\0<body>`, its id the SHA-1 of
//! that. The objects a command adds go into one pack
//! ([`super::git_packs`]); objects are read loose (a file under `objects/`,
//! its id's first two hex digits a folder, the other 38 its name, holding
//! the zlib-compressed object) or whole from a pack. Only the SHA-1 object
//! format.

use super::git_packs::{self, PackIndex, Packed, hex};
use super::tree::{MODE_EXECUTABLE, MODE_FILE, MODE_SYMLINK, Tree};
use anyhow::{Context as _, Result, bail};
use sha1::{Digest as _, Sha1};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// A repository's object folder (`objects/` of its common git directory).
#[derive(Debug, Clone)]
pub struct Objects {
    dir: PathBuf,
    /// Its packs' indexes, read when first needed; `None` when git must
    /// read them (see [`git_packs::indexes`]).
    packs: OnceCell<Option<Vec<PackIndex>>>,
}

impl Objects {
    /// The object folder `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            packs: OnceCell::new(),
        }
    }

    /// Where the loose object `id` lives.
    fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(&id[..2]).join(&id[2..])
    }

    /// The indexes of the packs; `None` when they are left to git.
    fn packs(&self) -> Result<Option<&[PackIndex]>> {
        if self.packs.get().is_none() {
            let _ = self.packs.set(git_packs::indexes(&self.dir)?);
        }
        Ok(self.packs.get().and_then(|packs| packs.as_deref()))
    }

    /// The kind and body of the object `id` when it is loose here, or whole
    /// in a pack; `None` when it is not (or git must read it: a delta, or
    /// packs git must read).
    pub fn read(&self, id: &str) -> Result<Option<(String, Vec<u8>)>> {
        let binary = id_bytes(id)?;
        let found = match fs::read(self.path_of(id)) {
            Ok(compressed) => {
                let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&compressed)
                    .map_err(|e| anyhow::anyhow!("the object {id} is corrupt: {e:?}"))?;
                decode(&raw).with_context(|| format!("the object {id} is corrupt"))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match self.read_packed(&binary)? {
                    Some(found) => found,
                    None => return Ok(None),
                }
            }
            Err(e) => return Err(e).context(format!("cannot read the object {id}")),
        };
        if object_id(&found.0, &found.1) != binary {
            bail!("the object {id} does not hash to its id");
        }
        Ok(Some(found))
    }

    /// The object `id` (20 bytes) from the first pack holding it whole.
    fn read_packed(&self, id: &[u8; 20]) -> Result<Option<(String, Vec<u8>)>> {
        for pack in self.packs()?.unwrap_or_default() {
            if pack.contains(id) {
                return pack.read_object(id);
            }
        }
        Ok(None)
    }

    /// A batch of objects to add here as one pack; `None` when git must
    /// write them (its packs are git's to read).
    pub fn batch(&self) -> Result<Option<NewObjects<'_>>> {
        Ok(self.packs()?.map(|packs| NewObjects {
            objects: self,
            packs,
            pending: Vec::new(),
            added: HashSet::new(),
        }))
    }
}

/// Objects being added to an object folder: those it does not hold yet,
/// written as one pack by [`NewObjects::write`].
pub struct NewObjects<'a> {
    objects: &'a Objects,
    packs: &'a [PackIndex],
    pending: Vec<(u8, [u8; 20], Vec<u8>)>,
    added: HashSet<[u8; 20]>,
}

impl NewObjects<'_> {
    /// Adds the object of `kind` (`blob`, `tree`, `commit`) holding `body`,
    /// unless the folder or this batch has it already; its id.
    pub fn add(&mut self, kind: &str, body: Vec<u8>) -> Result<String> {
        let id = object_id(kind, &body);
        if !self.added.contains(&id) && !self.stored(&id) {
            self.added.insert(id);
            self.pending.push((git_packs::type_number(kind)?, id, body));
        }
        Ok(hex(&id))
    }

    /// Adds every file of `tree` as a blob and every folder as a tree; the
    /// id of the top-level tree.
    pub fn add_tree(&mut self, tree: &Tree) -> Result<String> {
        let mut root = Folder::default();
        for (path, entry) in tree {
            let id = self.add("blob", entry.bytes.clone())?;
            root.insert(&names(path)?, mode_text(entry.mode)?, id);
        }
        root.add(self)
    }

    /// Whether the folder has the object `id`, packed or loose.
    fn stored(&self, id: &[u8; 20]) -> bool {
        self.packs.iter().any(|pack| pack.contains(id)) || self.objects.path_of(&hex(id)).exists()
    }

    /// Writes the objects added as one pack (nothing when none was new).
    pub fn write(self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let entries: Vec<Packed> = self
            .pending
            .iter()
            .map(|(number, id, body)| Packed {
                number: *number,
                id: *id,
                body,
            })
            .collect();
        git_packs::write(&self.objects.dir, &entries)
    }
}

/// The id of the blob holding `bytes`, as `git hash-object --no-filters`
/// gives it.
pub fn blob_id(bytes: &[u8]) -> String {
    hex(&object_id("blob", bytes))
}

/// The id of the object of `kind` holding `body`: the SHA-1 of
/// `<kind> <size>\0<body>`.
fn object_id(kind: &str, body: &[u8]) -> [u8; 20] {
    let mut hasher = Sha1::new();
    hasher.update(format!("{kind} {}\0", body.len()));
    hasher.update(body);
    hasher.finalize().into()
}

/// The 20 bytes of the hex object id `id`.
fn id_bytes(id: &str) -> Result<[u8; 20]> {
    let valid = id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit());
    if !valid {
        bail!("{id:?} is not an object id");
    }
    let mut bytes = [0u8; 20];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&id[2 * i..2 * i + 2], 16)?;
    }
    Ok(bytes)
}

/// The body of a commit of `tree` with `parents`, made by `who`
/// (`Name <email>`) at `when` (`<seconds> <±hhmm>`) as author and
/// committer, with `message` as it is.
pub fn commit_body(tree: &str, parents: &[&str], who: &str, when: &str, message: &str) -> Vec<u8> {
    let mut body = format!("tree {tree}\n");
    for parent in parents {
        body.push_str(&format!("parent {parent}\n"));
    }
    body.push_str(&format!(
        "author {who} {when}\ncommitter {who} {when}\n\n{message}"
    ));
    body.into_bytes()
}

/// The message of the commit `body` (after its header's blank line).
pub fn commit_message(body: &[u8]) -> Option<&str> {
    let at = body.windows(2).position(|pair| pair == b"\n\n")?;
    std::str::from_utf8(&body[at + 2..]).ok()
}

/// The kind and body of an encoded object, its size checked.
fn decode(raw: &[u8]) -> Option<(String, Vec<u8>)> {
    let nul = raw.iter().position(|b| *b == 0)?;
    let header = std::str::from_utf8(&raw[..nul]).ok()?;
    let (kind, size) = header.split_once(' ')?;
    let body = &raw[nul + 1..];
    (size.parse::<usize>().ok()? == body.len()).then(|| (kind.to_string(), body.to_vec()))
}

/// The SHA-1 of `raw`, in lowercase hex.
pub fn sha1_hex(raw: &[u8]) -> String {
    hex(&Sha1::digest(raw))
}

/// The mode git writes in a tree for a file of [`super::tree::Entry`]'s `mode`.
fn mode_text(mode: u32) -> Result<&'static str> {
    match mode {
        MODE_FILE => Ok("100644"),
        MODE_EXECUTABLE => Ok("100755"),
        MODE_SYMLINK => Ok("120000"),
        other => bail!("no git mode for {other:o}"),
    }
}

/// The names of a relative path, as bytes.
fn names(path: &Path) -> Result<Vec<Vec<u8>>> {
    path.components()
        .map(|component| match component {
            Component::Normal(name) => Ok(name_bytes(name)),
            _ => bail!("{} is not a plain relative path", path.display()),
        })
        .collect()
}

/// A file name's bytes.
#[cfg(unix)]
fn name_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt as _;
    name.as_bytes().to_vec()
}

/// A file name's bytes (UTF-8).
#[cfg(not(unix))]
fn name_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

/// A folder of a tree being written: its files and sub-folders by name.
#[derive(Debug, Default)]
struct Folder {
    files: BTreeMap<Vec<u8>, (&'static str, String)>,
    folders: BTreeMap<Vec<u8>, Folder>,
}

impl Folder {
    /// Puts the file with `mode` and blob `id` at the path `names`.
    fn insert(&mut self, names: &[Vec<u8>], mode: &'static str, id: String) {
        match names {
            [name] => {
                self.files.insert(name.clone(), (mode, id));
            }
            [folder, rest @ ..] => self
                .folders
                .entry(folder.clone())
                .or_default()
                .insert(rest, mode, id),
            [] => {}
        }
    }

    /// Adds the sub-folders, then this folder, as tree objects; its id.
    /// Entries are in git's order: by name, a folder's name compared as if
    /// it ended in `/`.
    fn add(&self, objects: &mut NewObjects) -> Result<String> {
        let mut entries: Vec<(Vec<u8>, &str, String)> = Vec::new();
        for (name, folder) in &self.folders {
            let mut key = name.clone();
            key.push(b'/');
            entries.push((key, "40000", folder.add(objects)?));
        }
        for (name, (mode, id)) in &self.files {
            entries.push((name.clone(), mode, id.clone()));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut body = Vec::new();
        for (key, mode, id) in entries {
            let name = key.strip_suffix(b"/").unwrap_or(&key);
            body.extend_from_slice(mode.as_bytes());
            body.push(b' ');
            body.extend_from_slice(name);
            body.push(0);
            body.extend(id_bytes(&id)?);
        }
        objects.add("tree", body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machinery::tree::Entry;
    use std::process::Command;

    /// Runs `git args` in `dir`; its output, trimmed.
    fn git(dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// A tree with the orders git's sorting cares about (`a.b` before the
    /// folder `a`, which sorts as `a/`, before `a0`), nesting, modes.
    fn sample() -> Tree {
        let file = |text: &str, mode| Entry {
            bytes: text.as_bytes().to_vec(),
            mode,
        };
        [
            ("a.b", file("dot\n", MODE_FILE)),
            ("a/x", file("in a\n", MODE_FILE)),
            ("a/deep/y.sh", file("#!/bin/sh\n", MODE_EXECUTABLE)),
            ("a0", file("", MODE_FILE)),
            ("link", file("a/x", MODE_SYMLINK)),
            ("PROJECT", file("layout: x\n", MODE_FILE)),
        ]
        .into_iter()
        .map(|(path, entry)| (PathBuf::from(path), entry))
        .collect()
    }

    /// The files of `dir` below `.git/objects/`, as relative paths.
    fn object_files(repo: &Path) -> Vec<String> {
        let objects = repo.join(".git/objects");
        let mut found = Vec::new();
        let mut folders = vec![objects.clone()];
        while let Some(folder) = folders.pop() {
            for entry in fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    let relative = path.strip_prefix(&objects).unwrap();
                    found.push(relative.display().to_string());
                }
            }
        }
        found.sort();
        found
    }

    /// The packs of `repo`: each one's objects, as `git verify-pack -v`
    /// (which checks the pack against its index) lists them.
    fn packs_of(repo: &Path) -> Vec<Vec<String>> {
        object_files(repo)
            .iter()
            .filter(|path| path.ends_with(".idx"))
            .map(|idx| {
                let path = repo.join(".git/objects").join(idx);
                git(repo, &["verify-pack", "-v", path.to_str().unwrap()])
                    .lines()
                    .filter(|line| line.len() > 41 && line.as_bytes()[40] == b' ')
                    .map(|line| line[..40].to_string())
                    .collect()
            })
            .collect()
    }

    /// Adds `tree` and a commit of it, as a record does; (tree, commit).
    fn add_commit(
        objects: &Objects,
        tree: &Tree,
        body_of: impl Fn(&str) -> Vec<u8>,
    ) -> (String, String) {
        let mut batch = objects.batch().unwrap().expect("packs read here");
        let tree_id = batch.add_tree(tree).unwrap();
        let commit = batch.add("commit", body_of(&tree_id)).unwrap();
        batch.write().unwrap();
        (tree_id, commit)
    }

    fn commit_of(tree: &str) -> Vec<u8> {
        commit_body(
            tree,
            &[],
            "A U <a@b>",
            "1700000000 +0130",
            "Title\n\nKey: v\n",
        )
    }

    #[test]
    fn trees_blobs_and_commits_are_those_git_writes_in_one_pack() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let before = object_files(repo.path());
        let objects = Objects::new(repo.path().join(".git/objects"));
        let (ours, commit) = add_commit(&objects, &sample(), commit_of);
        let added: Vec<String> = object_files(repo.path())
            .into_iter()
            .filter(|path| !before.contains(path))
            .collect();
        assert_eq!(
            added.len(),
            2,
            "one pack and its index, no loose object: {added:?}"
        );
        let packs = packs_of(repo.path());
        // Six blobs, the trees of the top, a/ and a/deep/, the commit.
        assert_eq!(packs.iter().map(Vec::len).collect::<Vec<_>>(), [10]);
        assert!(packs[0].contains(&commit) && packs[0].contains(&ours));

        let work = tempfile::tempdir().unwrap();
        crate::machinery::tree::write_dir(&sample(), work.path()).unwrap();
        let index = work.path().join("../kbrs-test-index");
        let with_index = |args: &[&str]| {
            let output = Command::new("git")
                .arg(format!("--work-tree={}", work.path().display()))
                .args(args)
                .current_dir(repo.path())
                .env("GIT_INDEX_FILE", &index)
                .output()
                .unwrap();
            assert!(output.status.success());
            String::from_utf8_lossy(&output.stdout).trim().to_string()
        };
        with_index(&["add", "-A", "-f", "."]);
        let theirs = with_index(&["write-tree"]);
        let _ = fs::remove_file(&index);
        assert_eq!(ours, theirs);
        let project = work.path().join("PROJECT");
        assert_eq!(
            blob_id(b"layout: x\n"),
            git(repo.path(), &["hash-object", project.to_str().unwrap()])
        );
        assert_eq!(git(repo.path(), &["cat-file", "-t", &commit]), "commit");
        git(repo.path(), &["fsck", "--strict", "--no-dangling"]);

        // Read back from the pack by a new reader.
        let objects = Objects::new(repo.path().join(".git/objects"));
        let (kind, read) = objects.read(&commit).unwrap().unwrap();
        assert_eq!((kind.as_str(), read), ("commit", commit_of(&ours)));
        assert_eq!(commit_message(&commit_of(&ours)), Some("Title\n\nKey: v\n"));
        assert_eq!(objects.read(&ours).unwrap().unwrap().0, "tree");
        assert!(objects.read(&"0".repeat(40)).unwrap().is_none());
        assert!(objects.read("xyz").is_err(), "not an object id");
    }

    #[test]
    fn a_batch_adds_only_the_objects_the_repository_lacks() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let objects = Objects::new(repo.path().join(".git/objects"));
        add_commit(&objects, &sample(), commit_of);
        let again = Objects::new(repo.path().join(".git/objects"));
        add_commit(&again, &sample(), commit_of);
        assert_eq!(packs_of(repo.path()).len(), 1, "nothing new: no pack");

        // One file changed in a/deep, one loose blob git already has.
        let mut changed = sample();
        changed.get_mut(Path::new("a/deep/y.sh")).unwrap().bytes = b"#!/bin/sh\nexit 0\n".to_vec();
        changed.insert(
            PathBuf::from("known"),
            Entry {
                bytes: b"git has me\n".to_vec(),
                mode: MODE_FILE,
            },
        );
        let known = repo.path().join("known");
        fs::write(&known, b"git has me\n").unwrap();
        git(repo.path(), &["hash-object", "-w", known.to_str().unwrap()]);
        let objects = Objects::new(repo.path().join(".git/objects"));
        let (tree, commit) = add_commit(&objects, &changed, commit_of);
        let mut sizes: Vec<usize> = packs_of(repo.path()).iter().map(Vec::len).collect();
        sizes.sort();
        // The new blob, the trees of the top, a/ and a/deep/, the commit.
        assert_eq!(sizes, [5, 10]);
        assert_eq!(
            git(repo.path(), &["rev-parse", &format!("{commit}^{{tree}}")]),
            tree
        );
        git(repo.path(), &["fsck", "--strict", "--no-dangling"]);
    }

    #[test]
    fn an_object_git_stored_as_a_delta_is_left_to_git() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let long: String = (0..2000).map(|n| format!("line {n}\n")).collect();
        let mut ids = Vec::new();
        for (name, text) in [("a", long.clone()), ("b", format!("{long}one more\n"))] {
            let path = repo.path().join(name);
            fs::write(&path, text).unwrap();
            ids.push(git(
                repo.path(),
                &["hash-object", "-w", path.to_str().unwrap()],
            ));
        }
        git(repo.path(), &["add", "a", "b"]);
        git(
            repo.path(),
            &[
                "-c",
                "user.name=U",
                "-c",
                "user.email=u@h",
                "commit",
                "-q",
                "-m",
                "two",
            ],
        );
        git(repo.path(), &["repack", "-a", "-d", "-f", "-q"]);
        let deltas = git(
            repo.path(),
            &[
                "cat-file",
                "--batch-check=%(objectname) %(deltabase)",
                "--batch-all-objects",
            ],
        );
        let delta = deltas
            .lines()
            .filter(|line| ids.iter().any(|id| line.starts_with(id.as_str())))
            .find(|line| !line.ends_with(&"0".repeat(40)))
            .map(|line| line[..40].to_string())
            .expect("git stored one blob as a delta of the other");
        let whole = ids.iter().find(|id| **id != delta).unwrap();
        let objects = Objects::new(repo.path().join(".git/objects"));
        assert!(objects.read(&delta).unwrap().is_none());
        assert_eq!(objects.read(whole).unwrap().unwrap().0, "blob");
        let mut batch = objects.batch().unwrap().unwrap();
        let text = fs::read(repo.path().join("b")).unwrap();
        batch.add("blob", text).unwrap();
        assert!(batch.pending.is_empty(), "a packed delta is there already");

        // An index this module does not read: git reads the repository.
        let junk = repo.path().join(".git/objects/pack/pack-junk.idx");
        fs::write(&junk, b"not an index").unwrap();
        fs::write(junk.with_extension("pack"), b"PACK").unwrap();
        let objects = Objects::new(repo.path().join(".git/objects"));
        assert!(objects.batch().unwrap().is_none());
        assert!(objects.read(whole).unwrap().is_none());
    }
}
