//! File and directory operations that reach the disk before they return.
//!
//! A file's data and a directory's entries (the names created, renamed or
//! removed in it) sit in the operating system's cache until it writes them
//! out, in an order of its own. A step that relies on an earlier one — a
//! rename that relies on its file's data, a journal that says files are
//! complete — is only safe across a power cut once the earlier one is
//! flushed (`fsync`). [`super::journal`] says which step waits for which.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

/// Writes `contents` to a file made for it at `path`, with `mode` when
/// given, and flushes its data and mode. Whatever a crashed run left at
/// `path` is removed first, and a link planted there is never followed.
pub fn write_new(path: &Path, contents: &[u8], mode: Option<fs::Permissions>) -> io::Result<()> {
    let _ = fs::remove_file(path);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(contents)?;
    if let Some(mode) = mode {
        file.set_permissions(mode)?;
    }
    file.sync_all()
}

/// Writes `contents` over the file at `path`, in place, and flushes it.
pub fn overwrite(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

/// Records `contents` at `path` whole: written to `temp` beside it and
/// flushed, renamed over `path`, and the rename flushed.
pub fn replace(path: &Path, temp: &Path, contents: &[u8]) -> io::Result<()> {
    write_new(temp, contents, None)?;
    fs::rename(temp, path)?;
    sync_dir(parent(path))
}

/// Removes the file at `path` and flushes the removal.
pub fn remove(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    sync_dir(parent(path))
}

/// Creates the directory `dir` and the parents it lacks, each flushed in
/// its parent.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.exists()).collect();
    for created in missing.into_iter().rev() {
        fs::create_dir(created)?;
        sync_dir(parent(created))?;
    }
    Ok(())
}

/// Flushes the entries of each directory of `dirs`, once each.
pub fn sync_dirs<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> io::Result<()> {
    let dirs: BTreeSet<&Path> = dirs.into_iter().collect();
    dirs.into_iter().try_for_each(sync_dir)
}

/// Flushes the entries of the directory `dir`.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Flushes the entries of the directory `dir` (a directory cannot be
/// opened for that here: its entries go out with the files' metadata).
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// The directory holding `path` (`.` for a bare name).
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_and_create_dir_all_leave_what_they_say() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b/c");
        create_dir_all(&nested).unwrap();
        assert!(nested.is_dir());
        let target = nested.join("f");
        fs::write(nested.join(".f.new"), "left by a crash").unwrap();
        replace(&target, &nested.join(".f.new"), b"new").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert!(!nested.join(".f.new").exists());
        overwrite(&target, b"again").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "again");
        remove(&target).unwrap();
        assert!(!target.exists());
        assert_eq!(parent(Path::new("PROJECT")), Path::new("."));
    }
}
