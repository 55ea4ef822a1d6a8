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

use super::git::Git;
use anyhow::Result;
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
    let message = format!(
        "Scaffold of PROJECT by {cli_version}, untouched (read by alpha update)\n\n{TRAILER}: {blob}\n"
    );
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
