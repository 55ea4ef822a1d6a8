//! git objects encoded, hashed, written and read in-process, without
//! running git: each object a loose file under `objects/` (its id's first
//! two hex digits a folder, the other 38 its name), holding the
//! zlib-compressed `<kind> <size>\0<body>`, its id the SHA-1 of that. Only
//! the SHA-1 object format; objects in packs are not read here.

use super::tree::{MODE_EXECUTABLE, MODE_FILE, MODE_SYMLINK, Tree};
use anyhow::{Context as _, Result, bail};
use sha1::{Digest as _, Sha1};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

/// A repository's object folder (`objects/` of its common git directory).
#[derive(Debug, Clone)]
pub struct Objects {
    dir: PathBuf,
}

impl Objects {
    /// The object folder `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Where the loose object `id` lives.
    fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(&id[..2]).join(&id[2..])
    }

    /// Writes the object of `kind` (`blob`, `tree`, `commit`) holding
    /// `body`, unless it is there already; its id. The file appears whole
    /// (written under a temporary name, then linked into place), read-only
    /// as git makes its objects.
    pub fn write(&self, kind: &str, body: &[u8]) -> Result<String> {
        let raw = encode(kind, body);
        let id = sha1_hex(&raw);
        let path = self.path_of(&id);
        if path.exists() {
            return Ok(id);
        }
        let folder = path.parent().context("an object path has a folder")?;
        fs::create_dir_all(folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
        let mut temp = tempfile::Builder::new()
            .prefix("tmp_obj_")
            .tempfile_in(folder)
            .with_context(|| format!("cannot write an object in {}", folder.display()))?;
        temp.write_all(&miniz_oxide::deflate::compress_to_vec_zlib(&raw, 1))?;
        read_only(temp.as_file())?;
        match temp.persist_noclobber(&path) {
            Ok(_) => Ok(id),
            // Written meanwhile by someone else: the same bytes, by its id.
            Err(_) if path.exists() => Ok(id),
            Err(error) => Err(error.error).context(format!("cannot write {}", path.display())),
        }
    }

    /// The kind and body of the object `id` when it is loose here; `None`
    /// when it is not (it may be in a pack).
    pub fn read(&self, id: &str) -> Result<Option<(String, Vec<u8>)>> {
        if id.len() != 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("{id:?} is not an object id");
        }
        let compressed = match fs::read(self.path_of(id)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).context(format!("cannot read the object {id}")),
        };
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&compressed)
            .map_err(|e| anyhow::anyhow!("the object {id} is corrupt: {e:?}"))?;
        let (kind, body) = decode(&raw).with_context(|| format!("the object {id} is corrupt"))?;
        if sha1_hex(&raw) != id {
            bail!("the object {id} does not hash to its id");
        }
        Ok(Some((kind, body)))
    }

    /// Writes every file of `tree` as a blob and every folder as a tree;
    /// the id of the top-level tree.
    pub fn write_tree(&self, tree: &Tree) -> Result<String> {
        let mut root = Folder::default();
        for (path, entry) in tree {
            let id = self.write("blob", &entry.bytes)?;
            root.insert(&names(path)?, mode_text(entry.mode)?, id);
        }
        root.write(self)
    }
}

/// The id of the blob holding `bytes`, as `git hash-object --no-filters`
/// gives it.
pub fn blob_id(bytes: &[u8]) -> String {
    sha1_hex(&encode("blob", bytes))
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

/// `<kind> <size>\0<body>`: what an object's id is the hash of.
fn encode(kind: &str, body: &[u8]) -> Vec<u8> {
    let mut raw = format!("{kind} {}\0", body.len()).into_bytes();
    raw.extend_from_slice(body);
    raw
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
    Sha1::digest(raw)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
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

/// Makes an object file read-only, as git does.
#[cfg(unix)]
fn read_only(file: &fs::File) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    Ok(file.set_permissions(fs::Permissions::from_mode(0o444))?)
}

/// Makes an object file read-only, as git does.
#[cfg(not(unix))]
fn read_only(file: &fs::File) -> Result<()> {
    let mut permissions = file.metadata()?.permissions();
    permissions.set_readonly(true);
    Ok(file.set_permissions(permissions)?)
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

    /// Writes the sub-folders, then this folder, as tree objects; its id.
    /// Entries are in git's order: by name, a folder's name compared as if
    /// it ended in `/`.
    fn write(&self, objects: &Objects) -> Result<String> {
        let mut entries: Vec<(Vec<u8>, &str, String)> = Vec::new();
        for (name, folder) in &self.folders {
            let mut key = name.clone();
            key.push(b'/');
            entries.push((key, "40000", folder.write(objects)?));
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
            body.extend(hex_bytes(&id));
        }
        objects.write("tree", &body)
    }
}

/// The 20 bytes of a hex object id.
fn hex_bytes(id: &str) -> Vec<u8> {
    (0..id.len() / 2)
        .map(|i| u8::from_str_radix(&id[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
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

    #[test]
    fn trees_blobs_and_commits_are_those_git_writes() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q"]);
        let objects = Objects::new(repo.path().join(".git/objects"));
        let ours = objects.write_tree(&sample()).unwrap();

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

        let body = commit_body(
            &ours,
            &[],
            "A U <a@b>",
            "1700000000 +0130",
            "Title\n\nKey: v\n",
        );
        let commit = objects.write("commit", &body).unwrap();
        assert_eq!(git(repo.path(), &["cat-file", "-t", &commit]), "commit");
        git(repo.path(), &["fsck", "--strict", "--no-dangling"]);
        let (kind, read) = objects.read(&commit).unwrap().unwrap();
        assert_eq!(
            (kind.as_str(), read.as_slice()),
            ("commit", body.as_slice())
        );
        assert_eq!(commit_message(&read), Some("Title\n\nKey: v\n"));
        assert!(objects.read(&"0".repeat(40)).unwrap().is_none());
        assert_eq!(objects.write("commit", &body).unwrap(), commit, "again");
    }
}
