//! A file tree held in memory: what `alpha update` reads from a directory or
//! a git commit, merges, and writes back. Paths are relative, with `/`
//! separators, and never hold `.git`.

use anyhow::{Context as _, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// git's mode of a plain file.
pub const MODE_FILE: u32 = 0o100644;
/// git's mode of an executable file.
pub const MODE_EXECUTABLE: u32 = 0o100755;
/// git's mode of a symbolic link (its bytes are the link's target).
pub const MODE_SYMLINK: u32 = 0o120000;

/// One file of a tree: its bytes and git's mode for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file's contents (for a symbolic link: its target).
    pub bytes: Vec<u8>,
    /// [`MODE_FILE`], [`MODE_EXECUTABLE`] or [`MODE_SYMLINK`].
    pub mode: u32,
}

impl Entry {
    /// A plain file holding `bytes`.
    pub fn file(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
            mode: MODE_FILE,
        }
    }
}

/// Files by relative path.
pub type Tree = BTreeMap<PathBuf, Entry>;

/// Every file below `root` but `.git` and the top-level entries named in
/// `skip`, with its mode as git would record it.
pub fn read_dir(root: &Path, skip: &[&str]) -> Result<Tree> {
    let mut tree = Tree::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let listing = fs::read_dir(root.join(&folder))
            .with_context(|| format!("cannot list {}", root.join(&folder).display()))?;
        for item in listing {
            let item = item?;
            let relative = folder.join(item.file_name());
            let top_level = folder.as_os_str().is_empty();
            let name = item.file_name();
            if name == ".git" || (top_level && skip.iter().any(|s| name == *s)) {
                continue;
            }
            let kind = item.file_type()?;
            if kind.is_dir() {
                folders.push(relative);
            } else if kind.is_symlink() {
                let target = fs::read_link(item.path())?;
                let bytes = target.to_string_lossy().into_owned().into_bytes();
                tree.insert(
                    relative,
                    Entry {
                        bytes,
                        mode: MODE_SYMLINK,
                    },
                );
            } else {
                let bytes = fs::read(item.path())
                    .with_context(|| format!("cannot read {}", item.path().display()))?;
                tree.insert(
                    relative,
                    Entry {
                        bytes,
                        mode: mode_of(&item.path())?,
                    },
                );
            }
        }
    }
    Ok(tree)
}

/// Writes every file of `tree` below `root` (folders made as needed).
pub fn write_dir(tree: &Tree, root: &Path) -> Result<()> {
    for (path, entry) in tree {
        let target = root.join(path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        if entry.mode == MODE_SYMLINK {
            let link = String::from_utf8_lossy(&entry.bytes).into_owned();
            std::os::unix::fs::symlink(link, &target)?;
            continue;
        }
        fs::write(&target, &entry.bytes)
            .with_context(|| format!("cannot write {}", target.display()))?;
        if entry.mode == MODE_EXECUTABLE {
            use std::os::unix::fs::PermissionsExt as _;
            fs::set_permissions(&target, fs::Permissions::from_mode(0o755))?;
        }
    }
    Ok(())
}

/// git's mode for the regular file at `path`.
fn mode_of(path: &Path) -> Result<u32> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = fs::metadata(path)?.permissions().mode() & 0o111 != 0;
    Ok(if executable {
        MODE_EXECUTABLE
    } else {
        MODE_FILE
    })
}
