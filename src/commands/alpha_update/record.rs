//! Keeping the scaffold record (see [`crate::machinery::pristine`]) after
//! the commands that change what the project's scaffold is: the scaffold
//! of the new PROJECT, made by this build in memory, is appended to the
//! record. Only for a project at the top level of a git
//! work tree; a failure only warns.

use super::trees::INPUT_FILES;
use crate::commands::alpha_generate::{scaffold_tree, scaffold_tree_from};
use crate::machinery::checkpoints::Checkpoints;
use crate::machinery::git::Git;
use crate::machinery::pristine;
use crate::machinery::repository::{self, Found, Repository};
use crate::machinery::tree::{self, Tree};
use crate::project::cli_version;
use anyhow::{Context as _, Result};
use std::path::Path;

/// The file, in the repository, holding the checkpoints of the last
/// record's replay (see [`crate::machinery::checkpoints`]).
const CHECKPOINTS: &str = "record-checkpoints";

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
    let kept = repository.own_file(CHECKPOINTS);
    let mut checkpoints = Checkpoints::load(&kept);
    let tree = scaffold_tree_from(&input_files(dir), &mut checkpoints)?;
    if pristine::record_here(repository, &tree, &blob, &cli_version::current())?.is_none() {
        record_with_git(dir);
    }
    checkpoints.save(&kept)
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
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    tree::write_dir(&scaffold_tree(input)?, work.path())?;
    pristine::record(git, work.path(), blob, &cli_version::current())?;
    Ok(())
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
