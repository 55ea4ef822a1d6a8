//! The scaffold record: what the scaffolding commands generated, untouched,
//! kept in the project's own git object store so that `alpha update` can
//! use it as the ancestor without any old binary.
//!
//! The record is the ref [`REF`], a chain of commits, one per successful
//! scaffolding command. Each commit's tree is the scaffold of the project's
//! PROJECT file as it stood after the command, and its message ends with a
//! trailer [`TRAILER`]` : <blob id of that PROJECT file>`. `alpha update`
//! looks the chain up, newest first, by the blob id of the PROJECT file on
//! the branch it updates. Writing it uses only objects and that one ref: no
//! index, work tree or branch of the user's is touched.
//!
//! A record is written in-process ([`record_here`], through
//! [`super::repository`] and [`super::git_objects`]) where that gives what
//! git would write, else with git's plumbing ([`record`]).

use super::git::Git;
use super::git_objects::{self, commit_body, commit_message};
use super::repository::Repository;
use super::tree::Tree;
use anyhow::{Result, bail};
use std::path::Path;

/// The ref holding the chain of records.
pub const REF: &str = "refs/kubebuilder-rs/pristine";

/// The trailer naming the PROJECT blob a record is the scaffold of.
pub const TRAILER: &str = "Project-Blob";

/// The identity record commits are made with (they are the tool's, not the
/// user's; and a repository without `user.name` can still be recorded).
const IDENTITY: (&str, &str) = ("kubebuilder-rs", "kubebuilder-rs@localhost");

/// Every record of the chain, newest first: (commit, PROJECT blob id).
fn records(git: &Git) -> Result<Vec<(String, String)>> {
    if git.rev_parse(REF).is_none() {
        return Ok(Vec::new());
    }
    let format = format!("--format=%H %(trailers:key={TRAILER},valueonly,separator=%x2C)");
    let listing = git.run(&["log", "--first-parent", &format, REF])?;
    Ok(listing
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(commit, blob)| (commit.to_string(), blob.trim().to_string()))
        .collect())
}

/// Whether the newest record is already that of the PROJECT blob `blob`
/// (the command left PROJECT as it was: nothing new to record).
pub fn is_latest(git: &Git, blob: &str) -> Result<bool> {
    Ok(records(git)?.first().is_some_and(|(_, b)| b == blob))
}

/// Appends a record: the files of the directory `scaffold` (all of them,
/// whatever its `.gitignore` says), as the scaffold of the PROJECT blob
/// `blob`, made by the kubebuilder-rs `cli_version`. Its commit id.
pub fn record(git: &Git, scaffold: &Path, blob: &str, cli_version: &str) -> Result<String> {
    let index = git.temp_index()?;
    index.add_all(scaffold, true)?;
    let tree = index.write_tree()?;
    let tip = git.rev_parse(REF);
    let message = message(cli_version, blob);
    let mut args = vec!["commit-tree".to_string(), tree, "-m".to_string(), message];
    if let Some(tip) = &tip {
        args.extend(["-p".to_string(), tip.clone()]);
    }
    let mut command = git.command(&args);
    for who in ["AUTHOR", "COMMITTER"] {
        command
            .env(format!("GIT_{who}_NAME"), IDENTITY.0)
            .env(format!("GIT_{who}_EMAIL"), IDENTITY.1);
    }
    let output = command.output()?;
    if !output.status.success() {
        anyhow::bail!(
            "git commit-tree failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let commit = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let old = tip.unwrap_or_default();
    git.run(&[
        "update-ref",
        "-m",
        "kubebuilder-rs: scaffold record",
        REF,
        &commit,
        &old,
    ])?;
    Ok(commit)
}

/// The newest record of the PROJECT blob `blob`: its commit, whose tree is
/// the scaffold that PROJECT was made with.
pub fn lookup(git: &Git, blob: &str) -> Result<Option<String>> {
    Ok(records(git)?
        .into_iter()
        .find(|(_, b)| b == blob)
        .map(|(commit, _)| commit))
}

/// The message of the record of the PROJECT blob `blob`, made by the
/// kubebuilder-rs `cli_version`.
fn message(cli_version: &str, blob: &str) -> String {
    format!(
        "Scaffold of PROJECT by {cli_version}, untouched (read by alpha update)\n\n{TRAILER}: {blob}\n"
    )
}

/// The values of the [`TRAILER`] lines of a commit `message`'s last
/// paragraph, joined by commas (as `git log`'s `%(trailers:key=…)` gives
/// them).
fn trailer_of(message: &str) -> String {
    let last = message.trim_end().rsplit("\n\n").next().unwrap_or_default();
    last.lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(key, _)| key.trim().eq_ignore_ascii_case(TRAILER))
        .map(|(_, value)| value.trim())
        .collect::<Vec<_>>()
        .join(",")
}

/// [`is_latest`], read in-process; `None` when git must read it (the
/// newest record is stored as a delta, or the packs are git's to read:
/// see [`super::git_objects::Objects::read`]).
pub fn is_latest_here(repository: &Repository, blob: &str) -> Result<Option<bool>> {
    let Some(tip) = repository.read_ref(REF)? else {
        return Ok(Some(false));
    };
    let Some((kind, body)) = repository.objects().read(&tip)? else {
        return Ok(None);
    };
    if kind != "commit" {
        bail!("{REF} points at a {kind}, not a commit");
    }
    Ok(Some(
        trailer_of(commit_message(&body).unwrap_or_default()) == blob,
    ))
}

/// [`record`], written in-process: the files of `scaffold` as blobs and
/// trees and the commit, those the repository lacks as one pack, and the
/// ref moved from its tip to the commit, as git's plumbing writes them;
/// the commit id. `None` when git must write it (the ref has a reflog,
/// which git appends to; packs git must read).
pub fn record_here(
    repository: &Repository,
    scaffold: &Tree,
    blob: &str,
    cli_version: &str,
) -> Result<Option<String>> {
    if repository.has_reflog(REF) {
        return Ok(None);
    }
    let objects = repository.objects();
    let Some(mut batch) = objects.batch()? else {
        return Ok(None);
    };
    let tip = repository.read_ref(REF)?;
    let tree = batch.add_tree(scaffold)?;
    let parents: Vec<&str> = tip.iter().map(String::as_str).collect();
    let who = format!("{} <{}>", IDENTITY.0, IDENTITY.1);
    let when = super::clock::git_now();
    let body = commit_body(&tree, &parents, &who, &when, &message(cli_version, blob));
    let commit = batch.add("commit", body)?;
    batch.write()?;
    repository.update_ref(REF, &commit, tip.as_deref())?;
    Ok(Some(commit))
}

/// The blob id git gives the file at `path` (relative to the top level),
/// whose bytes are `bytes`: hashed here, unless git's filters may apply to
/// it (then by `git hash-object`).
pub fn blob_of(repository: &Repository, path: &Path, bytes: &[u8]) -> Result<String> {
    if repository.may_filter(path, bytes) {
        return Git::open(repository.top(), Vec::new())?.hash_file(path);
    }
    Ok(git_objects::blob_id(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trailer_is_read_from_the_last_paragraph() {
        let blob = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(trailer_of(&message("0.1.0-x", blob)), blob);
        assert_eq!(trailer_of("Title\n\nProject-Blob: a\nOther: b\n"), "a");
        assert_eq!(trailer_of("Project-Blob: a\n\nbody\n"), "");
        assert_eq!(trailer_of("T\n\nproject-blob: a\nProject-Blob: b\n"), "a,b");
    }
}
