//! One command at a time per project.
//!
//! Every command that reads PROJECT and writes files holds an exclusive
//! lock on the project directory from start to end (post-steps included),
//! so two commands started at once run one after the other: the second
//! waits, saying so, and then sees everything the first wrote. Nothing is
//! lost and no file is written twice over. The lock is the operating
//! system's (`flock` on the directory), so it is released whenever the
//! process ends, even when killed, and leaves no file behind.

use anyhow::{Context as _, Result};
use std::fs::File;
use std::path::Path;

/// A held lock on a project directory; released when dropped.
#[derive(Debug)]
pub struct ProjectLock {
    /// The open directory the lock is held on.
    _dir: File,
}

impl ProjectLock {
    /// Locks `dir`, waiting (with a message on standard error) while another
    /// command holds it.
    pub fn acquire(dir: &Path) -> Result<Self> {
        let file = File::open(dir)
            .with_context(|| format!("cannot open the project directory {}", dir.display()))?;
        if !try_lock(&file)? {
            eprintln!(
                "Waiting for another kubebuilder-rs command in {} to finish…",
                dir.display()
            );
            lock(&file)?;
        }
        Ok(Self { _dir: file })
    }
}

/// Takes the lock if it is free; `false` when another process holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this function's caller keeps open.
    let done = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if done {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        _ => Err(error).context("cannot lock the project directory"),
    }
}

/// Waits for the lock and takes it.
#[cfg(unix)]
fn lock(file: &File) -> Result<()> {
    use std::os::unix::io::AsRawFd;
    loop {
        // SAFETY: as in `try_lock`.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error).context("cannot lock the project directory");
        }
    }
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> Result<bool> {
    Ok(true)
}

#[cfg(not(unix))]
fn lock(_file: &File) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_waits() {
        let dir = tempfile::tempdir().unwrap();
        let first = ProjectLock::acquire(dir.path()).unwrap();
        let other = File::open(dir.path()).unwrap();
        assert!(!try_lock(&other).unwrap(), "the directory is locked");
        drop(first);
        assert!(try_lock(&other).unwrap(), "the lock is released on drop");
    }
}
