//! Where a command reads the project it plans against: its directory on
//! disk, or a tree of files in memory (the re-scaffold the scaffold record
//! is made of, which never touches the disk).
//!
//! Planning reads the project only through a [`Source`]; paths are relative
//! to the project's root. Writing stays with [`super::Resolved`].

use super::tree::{MODE_SYMLINK, Tree};
use std::io::{Error, ErrorKind, Result};
use std::ops::Bound;
use std::path::{Path, PathBuf};

/// The project a plan is made against.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The project's directory.
    Dir(&'a Path),
    /// Files in memory, by relative path.
    Memory(&'a Tree),
}

/// What a path of a [`Source`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link (on disk: to nothing, or outside what it can follow).
    Link,
}

impl<'a> Source<'a> {
    /// The directory, when the project is on disk.
    pub fn dir(self) -> Option<&'a Path> {
        match self {
            Source::Dir(dir) => Some(dir),
            Source::Memory(_) => None,
        }
    }

    /// The bytes of the file at `path`; [`ErrorKind::NotFound`] when there
    /// is none.
    pub fn read(self, path: impl AsRef<Path>) -> Result<Vec<u8>> {
        let path = path.as_ref();
        match self {
            Source::Dir(dir) => std::fs::read(dir.join(path)),
            Source::Memory(tree) => match tree.get(path) {
                Some(entry) if entry.mode != MODE_SYMLINK => Ok(entry.bytes.clone()),
                Some(_) => Err(Error::other("a symbolic link in memory is not followed")),
                None if self.is_folder(path) => Err(Error::other("is a directory")),
                None => Err(Error::from(ErrorKind::NotFound)),
            },
        }
    }

    /// The text of the file at `path`, which must be UTF-8.
    pub fn read_to_string(self, path: impl AsRef<Path>) -> Result<String> {
        String::from_utf8(self.read(path)?)
            .map_err(|_| Error::new(ErrorKind::InvalidData, "not a UTF-8 text file"))
    }

    /// What is at `path`, following links on disk; `None` when nothing is.
    pub fn kind(self, path: impl AsRef<Path>) -> Option<Kind> {
        let path = path.as_ref();
        match self {
            Source::Dir(dir) => {
                let full = dir.join(path);
                match std::fs::metadata(&full) {
                    Ok(meta) if meta.is_dir() => Some(Kind::Folder),
                    Ok(_) => Some(Kind::File),
                    Err(_) => std::fs::symlink_metadata(&full).ok().map(|_| Kind::Link),
                }
            }
            Source::Memory(tree) => match tree.get(path) {
                Some(entry) if entry.mode == MODE_SYMLINK => Some(Kind::Link),
                Some(_) => Some(Kind::File),
                None => self.is_folder(path).then_some(Kind::Folder),
            },
        }
    }

    /// Whether `path` is a file.
    pub fn is_file(self, path: impl AsRef<Path>) -> bool {
        self.kind(path) == Some(Kind::File)
    }

    /// Whether `path` is a file or a folder (as `Path::exists` on disk).
    pub fn exists(self, path: impl AsRef<Path>) -> bool {
        matches!(self.kind(path), Some(kind) if kind != Kind::Link)
    }

    /// Whether `path` is a folder.
    pub fn is_dir(self, path: impl AsRef<Path>) -> bool {
        self.kind(path) == Some(Kind::Folder)
    }

    /// The names in the folder `path`, each with whether it is a folder;
    /// [`ErrorKind::NotFound`] when there is no such folder.
    pub fn list(self, path: impl AsRef<Path>) -> Result<Vec<(String, bool)>> {
        let path = path.as_ref();
        match self {
            Source::Dir(dir) => std::fs::read_dir(dir.join(path))?
                .map(|item| {
                    let item = item?;
                    let name = item.file_name().to_string_lossy().into_owned();
                    Ok((name, item.path().is_dir()))
                })
                .collect(),
            Source::Memory(tree) => {
                let mut names: Vec<(String, bool)> = Vec::new();
                for below in tree.keys().filter_map(|key| key.strip_prefix(path).ok()) {
                    let mut parts = below.components();
                    let Some(first) = parts.next() else { continue };
                    let name = first.as_os_str().to_string_lossy().into_owned();
                    let folder = parts.next().is_some();
                    if !names.iter().any(|(n, _)| *n == name) {
                        names.push((name, folder));
                    }
                }
                if names.is_empty() {
                    return Err(Error::from(ErrorKind::NotFound));
                }
                Ok(names)
            }
        }
    }

    /// `path` as it is shown in messages: below the directory on disk, as
    /// it is in memory.
    pub fn shown(self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref();
        match self {
            Source::Dir(dir) => dir.join(path),
            Source::Memory(_) => path.to_path_buf(),
        }
    }

    /// Whether some file is below the folder `path`.
    fn is_folder(self, path: &Path) -> bool {
        match self {
            Source::Dir(dir) => dir.join(path).is_dir(),
            // Paths sort by component, so what is below a folder comes
            // right after it.
            Source::Memory(tree) => tree
                .range::<Path, _>((Bound::Excluded(path), Bound::Unbounded))
                .next()
                .is_some_and(|(key, _)| key.starts_with(path)),
        }
    }
}
