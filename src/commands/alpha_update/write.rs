//! Writing the merged project as one new branch, with git's plumbing only:
//! a private index, objects, one new ref. The post-steps run in a temporary
//! checkout of that index, never in the user's work tree.

use super::trees::Trees;
use super::{Update, Written};
use crate::cli::UpdateArgs;
use crate::machinery::git::{Git, TempIndex};
use crate::machinery::merge::MergeResult;
use crate::machinery::pristine;
use crate::machinery::steps::Progress;
use crate::machinery::tree::Tree;
use crate::plugins::Plugin;
use anyhow::{Context as _, Result};
use std::path::PathBuf;

/// Writes the result of the merge as the branch `update.output_branch`, and
/// records the scaffold of its PROJECT; what was done.
pub(crate) fn write(
    args: &UpdateArgs,
    git: &Git,
    update: &Update,
    trees: &Trees,
    result: &MergeResult,
    plugins: &[&'static dyn Plugin],
) -> Result<Written> {
    let index = git.temp_index()?;
    index.read_tree(&update.from_commit)?;
    let changed: Tree = result
        .tree
        .iter()
        .filter(|(path, entry)| trees.original.get(*path) != Some(*entry))
        .map(|(path, entry)| (path.clone(), entry.clone()))
        .collect();
    let removed: Vec<PathBuf> = trees
        .original
        .keys()
        .filter(|path| !result.tree.contains_key(*path))
        .cloned()
        .collect();
    index.apply(&changed, &removed)?;
    let conflicted = super::conflicted_paths(result);
    let (steps, steps_skipped) = if args.post_steps {
        post_steps(&index, plugins, &conflicted)?
    } else {
        (Vec::new(), Some("--post-steps=false".to_string()))
    };
    for path in &args.restore_path {
        index.remove_under(path)?;
        index.restore_from(&update.from_commit, path)?;
    }
    let tree = index.write_tree()?;
    let message = update.message(args, !conflicted.is_empty());
    let commit = if args.show_commits {
        history(git, update, trees, &tree, &message)?
    } else {
        git.commit_tree(&tree, &[&update.from_commit], &message)?
    };
    git.create_branch(&update.output_branch, &commit)?;
    super::record::record_commit(git, &commit);
    Ok(Written {
        commit,
        steps,
        steps_skipped,
    })
}

/// The post-steps of every plugin, run in a temporary checkout of `index`,
/// whose files then replace the index's (the checkout's `.gitignore`
/// honoured). Each step's outcome; never fails for a failed step.
#[allow(clippy::type_complexity)]
fn post_steps(
    index: &TempIndex,
    plugins: &[&'static dyn Plugin],
    conflicted: &[PathBuf],
) -> Result<(Vec<(String, Option<String>)>, Option<String>)> {
    let checkout = tempfile::tempdir().context("cannot create a temporary directory")?;
    let dir = checkout.path();
    let steps: Vec<_> = plugins
        .iter()
        .filter_map(|plugin| plugin.update())
        .flat_map(|hook| hook.steps(dir, conflicted))
        .collect();
    if steps.is_empty() {
        return Ok((Vec::new(), None));
    }
    index.check_out(dir)?;
    let progress = Progress::new();
    let outcomes = steps
        .iter()
        .map(|step| {
            let failed = progress
                .run(dir, step)
                .err()
                .map(|error| last_line(&format!("{error:#}")));
            (step.name.clone(), failed)
        })
        .collect();
    index.add_all(dir, false)?;
    Ok((outcomes, None))
}

/// The last non-empty line of `text` (a failed step's error).
fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// `--show-commits`: the ancestor's tree (no parent), the upgrade's on top
/// of it, then the merge of the user's branch and the upgrade: its commit.
fn history(
    git: &Git,
    update: &Update,
    trees: &Trees,
    merged: &str,
    message: &str,
) -> Result<String> {
    let (from, to) = (&update.from_label, &update.to_label);
    let ancestor_tree = tree_object(git, &trees.ancestor)?;
    let ancestor = git.commit_tree(
        &ancestor_tree,
        &[],
        &format!("kubebuilder-rs: the scaffold the project was made from ({from})"),
    )?;
    let upgrade_tree = tree_object(git, &trees.upgrade)?;
    let upgrade = git.commit_tree(
        &upgrade_tree,
        &[&ancestor],
        &format!("kubebuilder-rs: the scaffold of {to}"),
    )?;
    git.commit_tree(merged, &[&update.from_commit, &upgrade], message)
}

/// `tree` written as a git tree object; its id.
fn tree_object(git: &Git, tree: &Tree) -> Result<String> {
    let index = git.temp_index()?;
    index.apply(tree, &[])?;
    index.write_tree()
}

/// `--push`: the output branch to origin (its upstream set), then the
/// scaffold record (a failure there only warns).
pub(crate) fn push(git: &Git, branch: &str) -> Result<()> {
    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    git.push("origin", &[&refspec])
        .with_context(|| format!("cannot push {branch} to origin"))?;
    println!("Pushed {branch} to origin");
    if git.rev_parse(pristine::REF).is_some() {
        let record = format!("{0}:{0}", pristine::REF);
        if let Err(error) = git.push("origin", &[&record]) {
            eprintln!(
                "Warning: cannot push the scaffold record {} to origin: {error:#}",
                pristine::REF
            );
        }
    }
    Ok(())
}
