//! File and directory operations flushed to the disk.
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

/// How many flushes are in flight at once. A file system commits the
/// flushes that wait together in one go, so a write of many files takes
/// about half the time it takes flushing one file after the other.
const FLUSHES_AT_ONCE: usize = 8;

/// How many written files are held open, waiting for their flush, at most.
const HELD_OPEN: usize = 64;

/// New files, each written whole, then flushed together by
/// [`NewFiles::flush`] (every [`HELD_OPEN`] files, and at the end).
#[derive(Debug, Default)]
pub struct NewFiles {
    /// The files written and not yet flushed.
    unflushed: Vec<fs::File>,
}

impl NewFiles {
    /// Writes `contents` to a file made for it at `path`, with `mode` when
    /// given. Whatever a crashed run left at `path` is removed first, and a
    /// link planted there is never followed.
    pub fn write(
        &mut self,
        path: &Path,
        contents: &[u8],
        mode: Option<fs::Permissions>,
    ) -> io::Result<()> {
        let _ = fs::remove_file(path);
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        file.write_all(contents)?;
        if let Some(mode) = mode {
            file.set_permissions(mode)?;
        }
        self.unflushed.push(file);
        if self.unflushed.len() >= HELD_OPEN {
            flush_all(std::mem::take(&mut self.unflushed))?;
        }
        Ok(())
    }

    /// Flushes the data and mode of every file written.
    pub fn flush(self) -> io::Result<()> {
        flush_all(self.unflushed)
    }
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
    let mut new = NewFiles::default();
    new.write(temp, contents, None)?;
    new.flush()?;
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
#[cfg(unix)]
pub fn sync_dirs<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> io::Result<()> {
    let dirs: BTreeSet<&Path> = dirs.into_iter().collect();
    let mut open = Vec::with_capacity(dirs.len().min(HELD_OPEN));
    for dir in dirs {
        open.push(fs::File::open(dir)?);
        if open.len() >= HELD_OPEN {
            flush_all(std::mem::take(&mut open))?;
        }
    }
    flush_all(open)
}

/// Flushes the entries of each directory of `dirs` (a directory cannot be
/// opened for that here: its entries go out with the files' metadata).
#[cfg(not(unix))]
pub fn sync_dirs<'a>(_dirs: impl IntoIterator<Item = &'a Path>) -> io::Result<()> {
    Ok(())
}

/// Flushes the entries of the directory `dir`.
fn sync_dir(dir: &Path) -> io::Result<()> {
    sync_dirs([dir])
}

/// Flushes every one of `files`, [`FLUSHES_AT_ONCE`] at a time.
fn flush_all(files: Vec<fs::File>) -> io::Result<()> {
    if files.len() < 2 {
        return files.iter().try_for_each(fs::File::sync_all);
    }
    let share = files.len().div_ceil(FLUSHES_AT_ONCE);
    std::thread::scope(|scope| {
        let flushers: Vec<_> = files
            .chunks(share)
            .map(|chunk| scope.spawn(|| chunk.iter().try_for_each(fs::File::sync_all)))
            .collect();
        // Every flusher is waited for at the end of the scope, failed or not.
        flushers.into_iter().try_for_each(|flusher| {
            flusher
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a flush panicked")))
        })
    })
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

    #[cfg(unix)]
    #[test]
    fn new_files_are_written_whole_with_their_mode_however_many() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let mut new = NewFiles::default();
        let count = HELD_OPEN + 6;
        for n in 0..count {
            let mode = (n % 2 == 0).then(|| fs::Permissions::from_mode(0o755));
            new.write(
                &dir.path().join(n.to_string()),
                n.to_string().as_bytes(),
                mode,
            )
            .unwrap();
        }
        assert!(new.unflushed.len() < HELD_OPEN, "flushed on the way");
        new.flush().unwrap();
        for n in 0..count {
            let path = dir.path().join(n.to_string());
            assert_eq!(fs::read_to_string(&path).unwrap(), n.to_string());
            let executable = fs::metadata(&path).unwrap().permissions().mode() & 0o111 != 0;
            assert_eq!(executable, n % 2 == 0, "{n}");
        }
        sync_dirs([dir.path(), dir.path()]).unwrap();
    }
}
