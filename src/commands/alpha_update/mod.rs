//! `kubebuilder-rs alpha update`: carries a project to the current scaffold
//! with a three-way merge, written as one new branch.
//!
//! Three trees are made outside the repository: the ancestor (the scaffold
//! the project was made from: `--from-binary`, the scaffold record
//! [`crate::machinery::pristine`], or the release `cliVersion` names), the
//! upgrade (the same PROJECT scaffolded by this build) and the original (the
//! branch's tree, read from git). They are merged in memory; the result is
//! written with git's plumbing as one new branch, after the layout's
//! post-steps ran in a temporary checkout. Every refusal comes before any
//! write, and the user's branch, index and work tree are never touched.

pub mod ancestor;
mod github;
mod kubebuilder;
pub(crate) mod record;
mod replays;
mod report;
#[cfg(test)]
mod test_scripts;
mod trees;
mod write;

use crate::cli::UpdateArgs;
use crate::machinery::git::{self, Git};
use crate::machinery::merge::{self, ConflictStyle, MergeOptions, MergeResult};
use crate::plugins::Plugin;
use crate::project::cli_version::{self, Origin};
use anyhow::{Context as _, Result, bail};
use std::path::{Path, PathBuf};

/// kubebuilder's refusal of the two flags together, word for word.
const SHOW_COMMITS_WITH_RESTORE: &str =
    "the --restore-path flag is not supported with --show-commits";

/// Runs `alpha update` in the repository holding `cwd`.
pub fn run(args: &UpdateArgs, cwd: &Path) -> Result<()> {
    if args.show_commits && !args.restore_path.is_empty() {
        bail!("{SHOW_COMMITS_WITH_RESTORE}; drop one of them");
    }
    check_restore_paths(&args.restore_path)?;
    let repo = Repository::open(cwd, &args.git_config)?;
    let _lock = crate::machinery::lock::ProjectLock::acquire(&repo.top)?;
    if args.open_gh_issue {
        github::check_available()?;
    }
    let update = Update::prepare(args, &repo)?;
    let trees = trees::Trees::build(args, &repo.git, &update, cwd)?;
    report::ancestor(&trees.ancestor_from);
    if trees.ancestor == trees.upgrade {
        println!(
            "The project on {} is already at the scaffold of kubebuilder-rs {}: nothing to update.",
            update.from_branch, update.to_label
        );
        return Ok(());
    }
    let chain = trees.plugins()?;
    let options = update.merge_options(&repo.git, &chain)?;
    let result = merge::merge_trees(&trees.ancestor, &trees.original, &trees.upgrade, &options);
    if args.dry_run {
        report::dry_run(&result, args.force);
        return Ok(());
    }
    let conflicts = result.conflicts();
    if !conflicts.is_empty() && !args.force {
        report::conflicts(&result);
        bail!(
            "{} file(s) conflict and nothing was written; change them on {} so the update merges, or pass --force to commit the conflict markers on a new branch",
            conflicts.len(),
            update.from_branch
        );
    }
    let written = write::write(args, &repo.git, &update, &trees, &result, &chain)?;
    report::written(&update, &result, &written);
    let mut failure = None;
    if args.push {
        failure = write::push(&repo.git, &update.output_branch).err();
    }
    if args.open_gh_issue
        && let Err(error) = github::open_issue(&repo.git, &update, !conflicts.is_empty())
    {
        failure.get_or_insert(error);
    }
    match failure {
        Some(error) => Err(error.context(format!(
            "the branch {} was written, but a later step failed",
            update.output_branch
        ))),
        None => Ok(()),
    }
}

/// Refuses a `--restore-path` outside the repository: absolute, or
/// climbing out with `..`.
fn check_restore_paths(paths: &[PathBuf]) -> Result<()> {
    for path in paths {
        let inside = path.components().all(|part| {
            matches!(
                part,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
        if !inside || path.as_os_str().is_empty() {
            bail!(
                "--restore-path {} is not a path inside the repository; give it from the repository's top level, e.g. --restore-path .github/workflows",
                path.display()
            );
        }
    }
    Ok(())
}

/// The git repository the update works in.
struct Repository {
    /// The work tree's top level, which must hold the project.
    top: PathBuf,
    git: Git,
}

impl Repository {
    /// The repository holding `cwd`, with the `--git-config` values `config`.
    fn open(cwd: &Path, config: &[String]) -> Result<Self> {
        let Some(top) = Git::toplevel(cwd) else {
            bail!(
                "{} is not in a git repository: alpha update writes its result as a new branch; run it in the project's repository (git init, then commit the project)",
                cwd.display()
            );
        };
        let git = Git::open(&top, git::effective_config(config))?;
        if !same_dir(&top, cwd) && cwd.join(crate::project::FILE_NAME).is_file() {
            bail!(
                "the project in {} is not at the top level of its git repository ({}); alpha update handles only projects at a repository's top level",
                cwd.display(),
                top.display()
            );
        }
        Ok(Self { top, git })
    }
}

/// Whether `a` and `b` are the same directory.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// What the update works from and where it writes, once checked.
pub(crate) struct Update {
    /// The branch holding the user's project.
    pub from_branch: String,
    /// Its tip.
    pub from_commit: String,
    /// Who made the project (PROJECT's cliVersion, or `--from-version`).
    pub origin: Origin,
    /// Whether `--from-version` named the origin.
    pub from_version_given: bool,
    /// The origin's label (`v4.16.0`, `0.1.0-<digest>`).
    pub from_label: String,
    /// This build's label.
    pub to_label: String,
    /// The branch to write.
    pub output_branch: String,
}

impl Update {
    /// Checks the repository and the flags; refuses, in one line, anything
    /// that would stop the update later.
    fn prepare(args: &UpdateArgs, repo: &Repository) -> Result<Self> {
        let git = &repo.git;
        let status = git.status()?;
        if !status.is_empty() {
            let first = status.lines().next().unwrap_or_default().trim();
            bail!(
                "the work tree has uncommitted changes ({first}{}); commit or stash them (untracked files included) and run alpha update again",
                if status.lines().count() > 1 {
                    ", …"
                } else {
                    ""
                }
            );
        }
        let from_branch = match &args.from_branch {
            Some(branch) => branch.clone(),
            None => git.current_branch().context(
                "HEAD is detached, so there is no current branch to update; pass --from-branch <branch>",
            )?,
        };
        let from_commit = git
            .rev_parse(&format!("refs/heads/{from_branch}^{{commit}}"))
            .with_context(|| {
                format!("--from-branch {from_branch}: no such local branch; name an existing branch (git branch --list)")
            })?;
        let project_text = project_on(git, &from_branch, &from_commit)?;
        let cli_version = crate::project::Project::parse(&project_text)
            .map_err(|e| anyhow::anyhow!("PROJECT on {from_branch} cannot be read ({e:#}); fix it on that branch and commit"))?
            .file
            .cli_version
            .unwrap_or_default();
        let origin = cli_version::parse(args.from_version.as_deref().unwrap_or(&cli_version));
        let from_label = origin.label();
        let to_label = cli_version::current_label();
        let output_branch = args
            .output_branch
            .clone()
            .unwrap_or_else(|| format!("kubebuilder-rs-update-from-{from_label}-to-{to_label}"));
        let update = Self {
            from_branch,
            from_commit,
            origin,
            from_version_given: args.from_version.is_some(),
            from_label,
            to_label,
            output_branch,
        };
        if !args.dry_run {
            update.check_output_branch(git)?;
            check_identity(git)?;
        }
        Ok(update)
    }

    /// Refuses an output branch name git rejects, or one that exists.
    fn check_output_branch(&self, git: &Git) -> Result<()> {
        let name = &self.output_branch;
        if !git.valid_branch_name(name) {
            bail!("--output-branch {name:?} is not a valid branch name; choose another");
        }
        if git.rev_parse(&format!("refs/heads/{name}")).is_some() {
            bail!(
                "the branch {name} exists already; delete it (git branch -D {name}) or pass --output-branch <new name>"
            );
        }
        Ok(())
    }

    /// The merge's options: labels, conflict style and what the plugins add.
    fn merge_options<'a>(
        &self,
        git: &Git,
        plugins: &'a [&'static dyn Plugin],
    ) -> Result<MergeOptions<'a>> {
        let style = git
            .run(&["config", "--get", "merge.conflictStyle"])
            .unwrap_or_default();
        let ancestor_label = match &self.origin {
            Origin::Kubebuilder(version) => format!("kubebuilder {version}"),
            _ => format!("kubebuilder-rs {}", self.from_label),
        };
        Ok(MergeOptions {
            style: match style.as_str() {
                "diff3" | "zdiff3" => ConflictStyle::Diff3,
                _ => ConflictStyle::Merge,
            },
            original_label: self.from_branch.clone(),
            ancestor_label,
            upgrade_label: format!("kubebuilder-rs {}", self.to_label),
            regenerated: plugins
                .iter()
                .filter_map(|plugin| plugin.update())
                .flat_map(|hook| hook.regenerated_files())
                .map(|glob| glob.to_string())
                .collect(),
            mergers: plugins
                .iter()
                .filter_map(|plugin| plugin.update())
                .flat_map(|hook| hook.file_mergers())
                .collect(),
            slash_comments: plugins
                .iter()
                .filter_map(|plugin| plugin.update())
                .flat_map(|hook| hook.slash_comments())
                .copied()
                .collect(),
            order_free: plugins
                .iter()
                .filter_map(|plugin| plugin.update())
                .flat_map(|hook| hook.order_free())
                .collect(),
        })
    }

    /// The commit message for a result with or without conflicts.
    pub(crate) fn message(&self, args: &UpdateArgs, conflicted: bool) -> String {
        let (from, to) = (&self.from_label, &self.to_label);
        if conflicted {
            args.conflict_message.clone().unwrap_or_else(|| {
                format!("chore(kubebuilder-rs): (:warning: manual conflict resolution required) update scaffold {from} -> {to}")
            })
        } else {
            args.merge_message
                .clone()
                .unwrap_or_else(|| format!("chore(kubebuilder-rs): update scaffold {from} -> {to}"))
        }
    }
}

/// The text of PROJECT on `branch` (at `commit`); refuses when it is
/// missing or not text.
fn project_on(git: &Git, branch: &str, commit: &str) -> Result<String> {
    let spec = format!("{commit}:{}", crate::project::FILE_NAME);
    if git.rev_parse(&spec).is_none() {
        bail!(
            "the branch {branch} has no PROJECT file at the top level of the repository; run alpha update on the branch of a kubebuilder-rs or kubebuilder project (--from-branch)"
        );
    }
    let bytes = git.run(&["cat-file", "blob", &spec])?;
    Ok(bytes)
}

/// Refuses when git has no identity to write the update's commit with.
fn check_identity(git: &Git) -> Result<()> {
    if !git.succeeds(&["var", "GIT_COMMITTER_IDENT"]) || !git.succeeds(&["var", "GIT_AUTHOR_IDENT"])
    {
        bail!(
            "git has no identity to commit the update with; set one (git config user.name <name>; git config user.email <email>) and run alpha update again"
        );
    }
    Ok(())
}

/// What a finished update wrote.
pub(crate) struct Written {
    /// The commit the output branch points at.
    pub commit: String,
    /// Each post-step with its outcome (`None`: it worked).
    pub steps: Vec<(String, Option<String>)>,
    /// Why post-steps did not run, when they did not.
    pub steps_skipped: Option<String>,
}

/// Paths conflicting in `result`, owned.
fn conflicted_paths(result: &MergeResult) -> Vec<PathBuf> {
    result
        .conflicts()
        .into_iter()
        .map(Path::to_path_buf)
        .collect()
}
