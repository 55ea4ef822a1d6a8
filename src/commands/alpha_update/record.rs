//! Keeping the scaffold record (see [`crate::machinery::pristine`]) after
//! the commands that change what the project's scaffold is: the scaffold
//! of the new PROJECT, made by this build in a temporary directory, is
//! appended to the record. Only for a project at the top level of a git
//! work tree; a failure only warns.

use super::trees::{INPUT_FILES, write_input};
use crate::machinery::git::Git;
use crate::machinery::pristine;
use crate::machinery::repository::{self, Found, Repository};
use crate::machinery::tree::{self, Tree};
use crate::project::cli_version;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// After a successful scaffolding command in `dir`: records the scaffold
/// of its PROJECT when `dir` is the top level of a git work tree. No git
/// process runs outside a work tree, or below its top level; the record
/// is written in-process where that writes what git would (see
/// [`crate::machinery::repository`]), else by git.
pub fn record_project(dir: &Path) {
    if !dir.join(crate::project::FILE_NAME).is_file() {
        return;
    }
    match repository::discover(dir) {
        Found::Outside | Found::Below => {}
        Found::TopLevel(repository) => warn_on_failure(record_here(&repository, dir)),
        Found::AskGit => record_with_git(dir),
    }
}

/// [`record_project`] for a repository this process writes; by git when
/// the record turns out to need it.
fn record_here(repository: &Repository, dir: &Path) -> Result<()> {
    let path = Path::new(crate::project::FILE_NAME);
    let project = std::fs::read(dir.join(path))?;
    let blob = pristine::blob_of(repository, path, &project)?;
    match pristine::is_latest_here(repository, &blob)? {
        Some(true) => return Ok(()),
        Some(false) => {}
        None => {
            record_with_git(dir);
            return Ok(());
        }
    }
    let work = scratch_dir()?;
    let scaffold = scaffold_of(&input_files(dir), work.path())?;
    let tree = tree::read_dir(&scaffold, &[])?;
    if pristine::record_here(repository, &tree, &blob, &cli_version::current())?.is_none() {
        record_with_git(dir);
    }
    Ok(())
}

/// [`record_project`] by git's plumbing: for a repository the environment
/// names, or one this process does not write.
fn record_with_git(dir: &Path) {
    let Some(top) = Git::toplevel(dir) else {
        return;
    };
    if !super::same_dir(&top, dir) {
        return;
    }
    let recorded = Git::open(&top, Vec::new()).and_then(|git| {
        let blob = git.hash_file(Path::new(crate::project::FILE_NAME))?;
        record(&git, &input_files(dir), &blob)
    });
    warn_on_failure(recorded);
}

/// The files of the project in `dir` its scaffold is made from.
fn input_files(dir: &Path) -> Tree {
    INPUT_FILES
        .iter()
        .filter_map(|path| {
            let bytes = std::fs::read(dir.join(path)).ok()?;
            Some((Path::new(path).to_path_buf(), tree::Entry::file(bytes)))
        })
        .collect()
}

/// After `alpha update` wrote `commit`: records the scaffold of its PROJECT.
pub(crate) fn record_commit(git: &Git, commit: &str) {
    let recorded = (|| {
        let blob = git
            .rev_parse(&format!("{commit}:{}", crate::project::FILE_NAME))
            .context("the update has no PROJECT")?;
        let input: Tree = git
            .read_tree(commit)?
            .into_iter()
            .filter(|(path, _)| INPUT_FILES.iter().any(|p| path == Path::new(p)))
            .collect();
        record(git, &input, &blob)
    })();
    warn_on_failure(recorded);
}

/// Scaffolds the project whose input files are `input` and records it as
/// that of the PROJECT blob `blob`, unless the newest record is of it.
fn record(git: &Git, input: &Tree, blob: &str) -> Result<()> {
    if pristine::is_latest(git, blob)? {
        return Ok(());
    }
    let work = scratch_dir()?;
    let scaffold = scaffold_of(input, work.path())?;
    pristine::record(git, &scaffold, blob, &cli_version::current())?;
    Ok(())
}

/// A new temporary directory for a re-scaffold: in memory (`/dev/shm`)
/// where there is one and `TMPDIR` chooses no other place, since creating
/// a hundred files where others were just deleted costs a disk file system
/// (ext4) a search of its inode tables; else in the temporary directory.
fn scratch_dir() -> Result<tempfile::TempDir> {
    let memory = Path::new("/dev/shm");
    let in_memory = (std::env::var_os("TMPDIR").is_none() && memory.is_dir())
        .then(|| tempfile::tempdir_in(memory).ok())
        .flatten();
    match in_memory {
        Some(dir) => Ok(dir),
        None => tempfile::tempdir().context("cannot create a temporary directory"),
    }
}

/// Scaffolds, in the empty directory `work`, the project whose input files
/// are `input`; the folder holding the scaffold.
fn scaffold_of(input: &Tree, work: &Path) -> Result<PathBuf> {
    let input_dir = work.join("input");
    write_input(input, &input_dir)?;
    let scaffold = work.join("scaffold");
    std::fs::create_dir(&scaffold)?;
    crate::commands::alpha_generate::scaffold_project(&input_dir, &scaffold)?;
    Ok(scaffold)
}

/// Says on standard error that the record could not be kept.
fn warn_on_failure(recorded: Result<()>) {
    if let Err(error) = recorded {
        eprintln!(
            "Warning: the scaffold record {} was not updated ({error:#}); alpha update will need --from-binary for this state of the project",
            pristine::REF
        );
    }
}
