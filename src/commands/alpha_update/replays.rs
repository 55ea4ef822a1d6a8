//! Kubebuilder's replays, kept for the next `alpha update` of the same
//! project.
//!
//! A replay is seconds of kubebuilder, `go mod tidy` and `make generate`,
//! and users run it twice in a row (`alpha update --dry-run`, then `alpha
//! update`). What a replay writes depends only on the kubebuilder binary,
//! the commands it runs, the files it copies from the project (the license
//! header, Grafana's custom-metrics config), the Go toolchain and the
//! kubebuilder-rs build that runs it (its scaffold digest, which covers its
//! code), so the cache's key is made of those; anything else (the user's
//! own edits) never reaches the replay. Each replay is one file below
//! `$KUBEBUILDER_RS_CACHE/replays/` (see [`crate::tools::cache_dir`]),
//! outside every repository: written to a temporary name and renamed, and
//! ending in the digest of everything before it, so a torn or edited file
//! is a miss, never a wrong ancestor. The [`KEPT`] most recently used
//! are kept.

use crate::machinery::tree::{self, Entry, Tree};
use anyhow::{Context as _, Result, bail};
use sha1::{Digest as _, Sha1};
use std::path::{Path, PathBuf};

/// How many replays the cache keeps; the least recently used go first.
const KEPT: usize = 20;
/// The first line of a cached replay (its format's version).
const HEADER: &[u8] = b"kubebuilder-rs replay 1\n";
/// What comes before the digest on a cached replay's last line.
const TRAILER: &[u8] = b"digest ";

/// The identity of one replay: a hex digest of everything its output
/// depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key(String);

impl Key {
    /// The key of a replay by the binary whose bytes digest to
    /// `binary_digest`, described by `parts` (commands, copied files'
    /// digests, the toolchain's version), in order.
    pub(super) fn new(binary_digest: &str, parts: &[String]) -> Self {
        let mut hasher = Sha1::new();
        hasher.update(HEADER);
        hasher.update(binary_digest.as_bytes());
        for part in parts {
            hasher.update(part.len().to_le_bytes());
            hasher.update(part.as_bytes());
        }
        Self(hex(&hasher.finalize()))
    }
}

/// The hex sha1 of the file at `path` (a binary, a copied file).
pub(super) fn file_digest(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hex(&Sha1::digest(&bytes)))
}

/// Writes the replay cached under `key` into the empty directory `out`;
/// `false` when there is none (or only a damaged one, which is dropped).
pub(super) fn load(key: &Key, out: &Path) -> Result<bool> {
    let Ok(path) = entry_path(key) else {
        return Ok(false);
    };
    let Ok(bytes) = std::fs::read(&path) else {
        return Ok(false);
    };
    let Ok(replay) = decode(&bytes) else {
        let _ = std::fs::remove_file(&path);
        return Ok(false);
    };
    tree::write_dir(&replay, out)?;
    let _ = std::fs::File::options()
        .append(true)
        .open(&path)
        .and_then(|file| file.set_modified(std::time::SystemTime::now()));
    Ok(true)
}

/// Keeps the replay written in `out` under `key`, then drops the least
/// recently used past [`KEPT`]. Best effort: a cache that cannot be
/// written only costs the next update a replay.
pub(super) fn store(key: &Key, out: &Path) {
    let _ = try_store(key, out);
}

fn try_store(key: &Key, out: &Path) -> Result<()> {
    let path = entry_path(key)?;
    let dir = path.parent().context("the replay cache has no folder")?;
    std::fs::create_dir_all(dir)?;
    let bytes = encode(&tree::read_dir(out, &[])?);
    let partial = dir.join(format!("{}.partial-{}", key.0, std::process::id()));
    std::fs::write(&partial, bytes)?;
    std::fs::rename(&partial, &path)?;
    prune(dir, KEPT)
}

/// The cache file of `key`.
fn entry_path(key: &Key) -> Result<PathBuf> {
    Ok(crate::tools::cache_dir()?.join("replays").join(&key.0))
}

/// Removes all but the `kept` most recently used replays in `dir`.
fn prune(dir: &Path, kept: usize) -> Result<()> {
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(|item| {
            let item = item.ok()?;
            let modified = item.metadata().ok()?.modified().ok()?;
            Some((modified, item.path()))
        })
        .collect();
    entries.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    for (_, path) in entries.into_iter().skip(kept) {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// A tree as one file: [`HEADER`], then per file a line `<mode> <length>
/// <path>` and its bytes, then [`TRAILER`] and the digest of all before.
fn encode(replay: &Tree) -> Vec<u8> {
    let mut bytes = HEADER.to_vec();
    for (path, entry) in replay {
        let line = format!(
            "{:o} {} {}\n",
            entry.mode,
            entry.bytes.len(),
            path.display()
        );
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(&entry.bytes);
    }
    let digest = hex(&Sha1::digest(&bytes));
    bytes.extend_from_slice(TRAILER);
    bytes.extend_from_slice(digest.as_bytes());
    bytes.push(b'\n');
    bytes
}

/// The tree [`encode`] wrote, refused when its digest does not match.
fn decode(bytes: &[u8]) -> Result<Tree> {
    let body_end = bytes
        .strip_suffix(b"\n")
        .and_then(|rest| rest.len().checked_sub(40 + TRAILER.len()))
        .context("no digest")?;
    let (body, trailer) = bytes.split_at(body_end);
    if trailer[..TRAILER.len()] != *TRAILER
        || trailer[TRAILER.len()..trailer.len() - 1] != *hex(&Sha1::digest(body)).as_bytes()
    {
        bail!("the digest does not match");
    }
    let mut rest = body.strip_prefix(HEADER).context("not a replay")?;
    let mut replay = Tree::new();
    while !rest.is_empty() {
        let newline = rest.iter().position(|&b| b == b'\n').context("torn")?;
        let line = std::str::from_utf8(&rest[..newline])?;
        let mut words = line.splitn(3, ' ');
        let (Some(mode), Some(len), Some(path)) = (words.next(), words.next(), words.next()) else {
            bail!("a damaged entry");
        };
        let (mode, len) = (u32::from_str_radix(mode, 8)?, len.parse::<usize>()?);
        let start = newline + 1;
        let file = rest.get(start..start + len).context("torn")?;
        replay.insert(
            PathBuf::from(path),
            Entry {
                bytes: file.to_vec(),
                mode,
            },
        );
        rest = &rest[start + len..];
    }
    Ok(replay)
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Tree {
        let mut replay = Tree::new();
        replay.insert("Makefile".into(), Entry::file("all:\n\ttrue\n"));
        replay.insert("cmd/main.go".into(), Entry::file("package main\n"));
        replay.insert(
            "bin/run".into(),
            Entry {
                bytes: b"#!/bin/sh\n".to_vec(),
                mode: tree::MODE_EXECUTABLE,
            },
        );
        replay.insert("empty".into(), Entry::file(""));
        replay
    }

    #[test]
    fn a_replay_reads_back_as_written() {
        assert_eq!(decode(&encode(&sample())).unwrap(), sample());
    }

    #[test]
    fn a_torn_or_edited_replay_is_refused() {
        let bytes = encode(&sample());
        assert!(decode(&bytes[..bytes.len() - 10]).is_err());
        assert!(decode(&bytes[..bytes.len() / 2]).is_err());
        let mut edited = bytes.clone();
        let at = edited.windows(4).position(|w| w == b"main").unwrap();
        edited[at] = b'M';
        assert!(decode(&edited).is_err());
        assert!(decode(b"").is_err());
    }

    #[test]
    fn keys_differ_with_any_part() {
        let key = |digest: &str, parts: &[&str]| {
            Key::new(
                digest,
                &parts.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            )
        };
        let base = key("b1", &["init --domain a", "go1.26"]);
        assert_eq!(base, key("b1", &["init --domain a", "go1.26"]));
        assert_ne!(base, key("b2", &["init --domain a", "go1.26"]));
        assert_ne!(base, key("b1", &["init --domain b", "go1.26"]));
        assert_ne!(base, key("b1", &["init --domain a", "go1.25"]));
        assert_ne!(base, key("b1", &["init --domain ", "ago1.26"]));
    }

    #[test]
    fn pruning_keeps_the_most_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        for (age, name) in [(3, "old"), (2, "middle"), (1, "new")] {
            let path = dir.path().join(name);
            std::fs::write(&path, name).unwrap();
            let file = std::fs::File::options().append(true).open(&path).unwrap();
            file.set_modified(now - std::time::Duration::from_secs(age * 60))
                .unwrap();
        }
        prune(dir.path(), 2).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|item| item.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["middle", "new"]);
    }
}
