//! What `alpha update` prints: the label of every file (`--dry-run`), the
//! conflicts with what to do about them, and the summary of a written
//! update with how to review it.

use super::ancestor::Source;
use super::trees::AncestorFrom;
use super::{Update, Written};
use crate::machinery::merge::{MergeResult, ORDER_FREE_NOTE, Outcome};
use std::collections::BTreeMap;

/// `--dry-run`: every file of the two scaffolds with its label.
pub(super) fn dry_run(result: &MergeResult, force: bool) {
    for (path, file) in &result.files {
        match &file.note {
            Some(note) => println!("{:<12} {} ({note})", file.outcome.label(), path.display()),
            None => println!("{:<12} {}", file.outcome.label(), path.display()),
        }
    }
    println!("{}", counts(result));
    if !result.conflicts().is_empty() && !force {
        println!(
            "The update would stop at the conflicts: resolve them on the branch first, or pass --force to commit the markers."
        );
    }
    println!("dry run: nothing was written");
}

/// The conflicting files, each with why, and what to do.
pub(super) fn conflicts(result: &MergeResult) {
    eprintln!("Conflicts:");
    for (path, file) in result
        .files
        .iter()
        .filter(|(_, file)| file.outcome == Outcome::Conflict)
    {
        match &file.note {
            Some(note) => eprintln!("  {} ({note})", path.display()),
            None => eprintln!("  {}", path.display()),
        }
    }
}

/// How many files got each label, e.g. `3 updated, 1 merged`.
fn counts(result: &MergeResult) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for file in result.files.values() {
        *counts.entry(file.outcome.label()).or_default() += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(label, count)| format!("{count} {label}"))
        .collect();
    format!("Files: {}", parts.join(", "))
}

/// The files where both sides added at one place and both were kept.
fn order_free(result: &MergeResult) {
    let paths: Vec<_> = result
        .files
        .iter()
        .filter(|(_, file)| file.note.as_deref() == Some(ORDER_FREE_NOTE))
        .map(|(path, _)| path.display().to_string())
        .collect();
    if !paths.is_empty() {
        println!(
            "Added at one place by both, both kept (the scaffold's lines first): {}",
            paths.join(", ")
        );
    }
}

/// The summary of a written update.
pub(super) fn written(update: &Update, result: &MergeResult, written: &Written) {
    let branch = &update.output_branch;
    println!(
        "Wrote the branch {branch} ({}): {} updated from {} to {}",
        &written.commit[..12.min(written.commit.len())],
        update.from_branch,
        update.from_label,
        update.to_label
    );
    println!("{}", counts(result));
    order_free(result);
    let conflicts = result.conflicts();
    if !conflicts.is_empty() {
        println!("Committed with conflict markers (--force); resolve them on {branch}:");
        for path in conflicts {
            println!("  {}", path.display());
        }
    }
    match &written.steps_skipped {
        Some(why) => {
            println!("Post-steps not run ({why})");
            let stale = result
                .files
                .values()
                .filter(|file| file.outcome == Outcome::Regenerated)
                .count();
            if stale > 0 {
                println!(
                    "{stale} generated file(s) are as on {}: run the project's code generation (make manifests, make generate) on {branch}",
                    update.from_branch
                );
            }
        }
        None => {
            for (step, failure) in &written.steps {
                match failure {
                    None => println!("  ok      {step}"),
                    Some(error) => println!("  failed  {step}: {error}"),
                }
            }
        }
    }
    println!(
        "Review it with `git diff {}..{branch}`, then `git switch {branch}` to work on it.",
        update.from_branch
    );
}

/// Where the ancestor came from.
pub(super) fn ancestor(from: &AncestorFrom) {
    match from {
        AncestorFrom::Produced(Source::Binary(path)) => {
            println!("Ancestor: made by --from-binary {}", path.display())
        }
        AncestorFrom::Produced(Source::KubebuilderRelease(version)) => {
            println!("Ancestor: made by kubebuilder {version}")
        }
        AncestorFrom::Record(commit) => println!(
            "Ancestor: the scaffold record {} ({})",
            crate::machinery::pristine::REF,
            &commit[..12.min(commit.len())]
        ),
        AncestorFrom::ThisBuild => {
            println!("Ancestor: this build's scaffold (PROJECT's cliVersion names it)")
        }
    }
}
