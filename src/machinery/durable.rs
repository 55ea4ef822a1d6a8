//! File and directory operations flushed to the disk.
//!
//! A file's data and a directory's entries (the names created, renamed or
//! removed in it) sit in the operating system's cache until it writes them
//! out, in an order of its own. A step that relies on an earlier one — a
//! rename that relies on its file's data, a journal that says files are
//! complete — is only safe across a power cut once the earlier one is
//! flushed (`fsync`). [`super::journal`] says which step waits for which.
//!
//! A step flushes many files and directories at once: on Linux one
//! `syncfs(2)` of their file system does it (see [`flush_all`]), a single
//! system call where one `fsync` a file took a call, a wait and, to overlap
//! the waits, a thread each.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

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
    /// given: a new file, so that a file or link already at `path` is an
    /// error, never written through.
    pub fn write(
        &mut self,
        path: &Path,
        contents: &[u8],
        mode: Option<fs::Permissions>,
    ) -> io::Result<()> {
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

    /// Flushes, as one step, the data and mode of every file written and
    /// the entries of each directory of `dirs`.
    pub fn flush_with_dirs<'a>(self, dirs: impl IntoIterator<Item = &'a Path>) -> io::Result<()> {
        let mut open = self.unflushed;
        for dir in dirs.into_iter().collect::<BTreeSet<_>>() {
            open.extend(open_dir(dir)?);
        }
        flush_all(open)
    }
}

/// The permissions `bits` (`0o755`, …) for a new file; `None` where files
/// have no such mode (they keep the one they are made with).
#[cfg(unix)]
pub fn mode(bits: u32) -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(fs::Permissions::from_mode(bits))
}

/// The permissions `bits` for a new file: none here (files keep the mode
/// they are made with).
#[cfg(not(unix))]
pub fn mode(_bits: u32) -> Option<fs::Permissions> {
    None
}

/// Writes `contents` over the file at `path`, in place, and flushes it.
pub fn overwrite(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

/// Renames `temp`, whose data is flushed, over `path`, and flushes the
/// rename.
pub fn rename_flushed(temp: &Path, path: &Path) -> io::Result<()> {
    fs::rename(temp, path)?;
    sync_dir(parent(path))
}

/// Gives the file `from` the name `to` only where nothing has that name: an
/// `AlreadyExists` error otherwise, and `to` stays as it is. One
/// `renameat2(RENAME_NOREPLACE)` on Linux; where the file system lacks it,
/// `to` is first made a second name of the file (a link, which never
/// replaces), then `from` removed.
pub fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    match rename_no_replace(from, to) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => link_then_unlink(from, to),
        Ok(()) => Ok(()),
    }
}

/// `renameat2(2)` with `RENAME_NOREPLACE`.
#[cfg(target_os = "linux")]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt as _;
    let c = |path: &Path| {
        std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both names are NUL-terminated strings alive for the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// No `renameat2` here: always the link and unlink of [`rename_new`].
#[cfg(not(target_os = "linux"))]
fn rename_no_replace(_from: &Path, _to: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// [`rename_new`] as two steps: `to` linked to `from`'s file, then `from`
/// removed. On a file system without links either, the name `to` is
/// checked free, then `from` renamed.
fn link_then_unlink(from: &Path, to: &Path) -> io::Result<()> {
    match fs::hard_link(from, to) {
        Ok(()) => fs::remove_file(from),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if fs::symlink_metadata(to).is_err() => fs::rename(from, to),
        Err(e) => Err(e),
    }
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
    NewFiles::default().flush_with_dirs(dirs)
}

/// The directory `dir`, opened to flush its entries.
#[cfg(unix)]
fn open_dir(dir: &Path) -> io::Result<Option<fs::File>> {
    fs::File::open(dir).map(Some)
}

/// Nothing to open: a directory cannot be opened to flush it here (its
/// entries go out with the files' metadata).
#[cfg(not(unix))]
fn open_dir(_dir: &Path) -> io::Result<Option<fs::File>> {
    Ok(None)
}

/// Flushes the entries of the directory `dir`.
fn sync_dir(dir: &Path) -> io::Result<()> {
    sync_dirs([dir])
}

/// Flushes every one of `files` (files and directories, open), so that
/// their data, metadata and entries survive a power cut once it returns.
///
/// One of them is flushed with `fsync`. More are flushed with one
/// `syncfs(2)` per file system they are on, where the kernel reports the
/// write-back errors of that file system (Linux 5.8 and later; see
/// [`syncfs_reports_errors`]); elsewhere, with an `fsync` each.
fn flush_all(files: Vec<fs::File>) -> io::Result<()> {
    if files.len() < 2 || !syncfs_reports_errors() {
        return files.iter().try_for_each(fs::File::sync_all);
    }
    one_per_file_system(&files)?
        .into_iter()
        .try_for_each(sync_file_system)
}

/// One of `files` on each file system they are on.
#[cfg(target_os = "linux")]
fn one_per_file_system(files: &[fs::File]) -> io::Result<Vec<&fs::File>> {
    use std::os::unix::fs::MetadataExt as _;
    let mut devices = BTreeSet::new();
    let mut chosen = Vec::new();
    for file in files {
        if devices.insert(file.metadata()?.dev()) {
            chosen.push(file);
        }
    }
    Ok(chosen)
}

/// Flushes everything written to the file system holding `file`:
/// `syncfs(2)` writes out every dirty inode and page of that file system,
/// and waits for its journal to commit and the disk's cache to be flushed
/// (what `fsync` does for one file); it fails when a write-back error
/// happened on that file system since `file` was opened.
#[cfg(target_os = "linux")]
fn sync_file_system(file: &fs::File) -> io::Result<()> {
    use std::os::fd::AsRawFd as _;
    // SAFETY: the descriptor is open for the call's duration.
    if unsafe { libc::syncfs(file.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether `syncfs(2)` reports write-back errors, so that it may stand for
/// an `fsync` of each file: Linux from 5.8 on (before, it returned
/// success whatever happened). Read once per process.
#[cfg(target_os = "linux")]
fn syncfs_reports_errors() -> bool {
    static REPORTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REPORTS.get_or_init(|| {
        fs::read_to_string("/proc/sys/kernel/osrelease")
            .is_ok_and(|release| kernel_at_least(&release, (5, 8)))
    })
}

/// Whether the kernel `release` (`6.18.44-…`) is `at_least` (major, minor).
#[cfg(target_os = "linux")]
fn kernel_at_least(release: &str, at_least: (u32, u32)) -> bool {
    let mut numbers = release
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let major = numbers.next().unwrap_or(0);
    let minor = numbers.next().unwrap_or(0);
    (major, minor) >= at_least
}

/// No `syncfs` here: every file is flushed on its own.
#[cfg(not(target_os = "linux"))]
fn syncfs_reports_errors() -> bool {
    false
}

/// Never called where [`syncfs_reports_errors`] is false.
#[cfg(not(target_os = "linux"))]
fn one_per_file_system(files: &[fs::File]) -> io::Result<Vec<&fs::File>> {
    Ok(files.iter().collect())
}

/// Never called where [`syncfs_reports_errors`] is false.
#[cfg(not(target_os = "linux"))]
fn sync_file_system(file: &fs::File) -> io::Result<()> {
    file.sync_all()
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
    fn rename_flushed_and_create_dir_all_leave_what_they_say() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b/c");
        create_dir_all(&nested).unwrap();
        assert!(nested.is_dir());
        let target = nested.join("f");
        fs::write(&target, "old").unwrap();
        fs::write(nested.join(".f.new"), "new").unwrap();
        rename_flushed(&nested.join(".f.new"), &target).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        overwrite(&target, b"again").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "again");
        remove(&target).unwrap();
        assert!(!target.exists());
        assert_eq!(parent(Path::new("PROJECT")), Path::new("."));
    }

    #[test]
    fn a_new_name_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("staged"), dir.path().join("target"));
        fs::write(&from, "new").unwrap();
        fs::write(&to, "theirs").unwrap();
        let refused = rename_new(&from, &to).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_to_string(&to).unwrap(), "theirs");
        fs::remove_file(&to).unwrap();
        rename_new(&from, &to).unwrap();
        assert_eq!(fs::read_to_string(&to).unwrap(), "new");
        assert!(!from.exists());
        fs::write(&from, "again").unwrap();
        fs::remove_file(&to).unwrap();
        link_then_unlink(&from, &to).unwrap();
        assert_eq!(fs::read_to_string(&to).unwrap(), "again");
        assert!(!from.exists());
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

    #[cfg(target_os = "linux")]
    #[test]
    fn kernel_releases_compare_by_major_then_minor() {
        assert!(kernel_at_least("6.18.44-fc-v857\n", (5, 8)));
        assert!(kernel_at_least("5.8.0", (5, 8)));
        assert!(!kernel_at_least("5.4.0-150-generic", (5, 8)));
        assert!(!kernel_at_least("4.19.0", (5, 8)));
        assert!(!kernel_at_least("", (5, 8)));
    }
}
