//! The git side of the `alpha update` slow tests: a project in a git
//! repository, the user's edits applied to it as small text patches, the
//! update run and timed, and the checks on what it wrote — the user's branch
//! untouched, the output branch holding every line the user wrote.

use super::{snapshot_tree, stderr, stdout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `git args` in `dir` and returns its standard output; panics with its
/// error output on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        output.status.success(),
        "git {} failed in {}: {}",
        args.join(" "),
        dir.display(),
        stderr(&output)
    );
    stdout(&output)
}

/// Makes `dir` a git repository on branch `main`, with an identity of its own.
pub fn init_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Update Tester"]);
    git(dir, &["config", "user.email", "tester@example.com"]);
}

/// Commits everything in the work tree.
pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--no-verify", "-m", message]);
}

/// One change a user makes to a project.
pub enum Edit {
    /// Replaces the one occurrence of `anchor` in `path` with `with`; the
    /// user's lines are those of `with` that `anchor` lacks.
    Replace {
        path: &'static str,
        anchor: &'static str,
        with: &'static str,
    },
    /// Adds `text` at the end of `path`.
    Append {
        path: &'static str,
        text: &'static str,
    },
    /// A new file of the user's own.
    Create {
        path: &'static str,
        text: &'static str,
    },
}

impl Edit {
    fn path(&self) -> &'static str {
        match self {
            Edit::Replace { path, .. } | Edit::Append { path, .. } | Edit::Create { path, .. } => {
                path
            }
        }
    }

    /// The lines the user wrote (blank lines left out).
    fn user_lines(&self) -> Vec<&'static str> {
        let lines: Vec<&'static str> = match self {
            Edit::Replace { anchor, with, .. } => {
                let before: Vec<&str> = anchor.lines().collect();
                with.lines().filter(|l| !before.contains(l)).collect()
            }
            Edit::Append { text, .. } | Edit::Create { text, .. } => text.lines().collect(),
        };
        lines.into_iter().filter(|l| !l.trim().is_empty()).collect()
    }
}

/// Applies `edits` to the project in `dir`; panics when an anchor is not
/// found exactly once (the scaffold changed: choose another anchor).
pub fn apply(dir: &Path, edits: &[Edit]) {
    for edit in edits {
        let file = dir.join(edit.path());
        match edit {
            Edit::Replace { anchor, with, .. } => {
                let text = read_text(&file);
                assert_eq!(
                    text.matches(anchor).count(),
                    1,
                    "{} must hold {anchor:?} exactly once:\n{text}",
                    edit.path()
                );
                std::fs::write(&file, text.replacen(anchor, with, 1)).unwrap();
            }
            Edit::Append { text, .. } => {
                let mut old = read_text(&file);
                old.push_str(text);
                std::fs::write(&file, old).unwrap();
            }
            Edit::Create { text, .. } => {
                assert!(!file.exists(), "{} exists already", edit.path());
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, text).unwrap();
            }
        }
    }
}

fn read_text(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// A line with its runs of white space made single spaces (gofmt may align
/// a struct's tags differently after the merge).
fn normalized(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The user's lines of `edits` that the project in `dir` lacks, as
/// `path: line`, and the user's own files that differ.
pub fn missing_user_code(dir: &Path, edits: &[Edit]) -> Vec<String> {
    let mut missing = Vec::new();
    for edit in edits {
        let text = std::fs::read_to_string(dir.join(edit.path())).unwrap_or_default();
        if let Edit::Create { path, text: own } = edit {
            if &text != own {
                missing.push(format!("{path}: the user's own file differs"));
            }
            continue;
        }
        let lines: Vec<String> = text.lines().map(normalized).collect();
        for line in edit.user_lines() {
            if !lines.contains(&normalized(line)) {
                missing.push(format!("{}: {line}", edit.path()));
            }
        }
    }
    missing
}

/// Checks that the project in `dir` still holds every line of `edits`, and
/// every file of the user's own byte for byte; and that the check has
/// teeth: the project in `without`, the same without the user's commit,
/// lacks every edit.
pub fn assert_user_code_kept(dir: &Path, without: &Path, edits: &[Edit]) {
    let missing = missing_user_code(dir, edits);
    assert!(
        missing.is_empty(),
        "the update lost the user's code:\n{}",
        missing.join("\n")
    );
    let lacking = missing_user_code(without, edits);
    for edit in edits {
        assert!(
            lacking
                .iter()
                .any(|line| line.starts_with(&format!("{}: ", edit.path()))),
            "{} without the user's commit passes the check",
            edit.path()
        );
    }
}

/// What the update must leave as it was in the user's repository: the
/// checked-out branch and its tip, every branch but new ones, the index
/// entries and the work tree.
#[derive(Debug, PartialEq, Eq)]
pub struct UserState {
    head: String,
    tip: String,
    branches: BTreeMap<String, String>,
    index: String,
    work_tree: BTreeMap<PathBuf, Vec<u8>>,
}

impl UserState {
    /// The state of the repository in `dir` now.
    pub fn of(dir: &Path) -> Self {
        let work_tree = snapshot_tree(dir)
            .into_iter()
            .filter(|(path, _)| !path.starts_with(".git"))
            .collect();
        Self {
            head: git(dir, &["symbolic-ref", "HEAD"]),
            tip: git(dir, &["rev-parse", "HEAD"]),
            branches: branches(dir),
            index: git(dir, &["ls-files", "--stage"]),
            work_tree,
        }
    }

    /// Panics unless the repository in `dir` is as it was, apart from the
    /// branches named in `new`.
    pub fn assert_kept(&self, dir: &Path, new: &[String]) {
        let mut now = Self::of(dir);
        now.branches.retain(|name, _| !new.contains(name));
        assert_eq!(now.head, self.head, "the checked-out branch changed");
        assert_eq!(now.tip, self.tip, "the user's branch moved");
        assert_eq!(now.branches, self.branches, "branches changed");
        assert_eq!(now.index, self.index, "the index changed");
        assert!(now.work_tree == self.work_tree, "the work tree changed");
        let status = git(dir, &["status", "--porcelain"]);
        assert!(status.is_empty(), "the work tree is not clean:\n{status}");
    }
}

/// Every local branch with its commit.
pub fn branches(dir: &Path) -> BTreeMap<String, String> {
    git(
        dir,
        &[
            "for-each-ref",
            "--format=%(refname:short) %(objectname)",
            "refs/heads",
        ],
    )
    .lines()
    .filter_map(|line| line.split_once(' '))
    .map(|(name, oid)| (name.to_string(), oid.to_string()))
    .collect()
}

/// What an `alpha update` run gave.
pub struct Updated {
    /// The branch it wrote.
    pub branch: String,
    pub took: Duration,
}

/// Runs `binary alpha update args` in `dir` with the shared tools, checks it
/// worked, left the user's repository as it was and wrote exactly one new
/// branch (whose name starts with `branch_prefix`), one commit on top of
/// the user's branch.
pub fn update(dir: &Path, binary: &Path, args: &[&str], branch_prefix: &str) -> Updated {
    let before = UserState::of(dir);
    let started = Instant::now();
    let mut command = Command::new(binary);
    command
        .args(["alpha", "update"])
        .args(args)
        .current_dir(dir)
        .env("LOCALBIN", super::shared_tools_bin())
        .stdin(std::process::Stdio::null());
    let output = super::rust_project::sharing_the_build_dir(&mut command)
        .output()
        .expect("run alpha update");
    let took = started.elapsed();
    let text = format!("{}{}", stdout(&output), stderr(&output));
    assert!(
        output.status.success(),
        "alpha update {} failed in {}:\n{text}",
        args.join(" "),
        dir.display()
    );
    eprintln!(
        "ok  kubebuilder-rs alpha update {}  ({:.1}s)",
        args.join(" "),
        took.as_secs_f64()
    );
    for line in text.lines() {
        eprintln!("    | {line}");
    }
    let new: Vec<String> = branches(dir)
        .into_keys()
        .filter(|name| !before.branches.contains_key(name))
        .collect();
    assert_eq!(
        new.len(),
        1,
        "one new branch expected, got {new:?}:\n{text}"
    );
    let branch = new[0].clone();
    assert!(
        branch.starts_with(branch_prefix),
        "the output branch {branch} does not start with {branch_prefix}"
    );
    before.assert_kept(dir, &new);
    let parent = git(dir, &["rev-parse", &format!("{branch}^")]);
    assert_eq!(
        parent, before.tip,
        "the update is not one commit on the user's branch"
    );
    Updated { branch, took }
}

/// Checks out `branch` of the repository in `dir` into a new work tree of
/// that repository at `into`.
pub fn check_out(dir: &Path, branch: &str, into: &Path) {
    git(
        dir,
        &["worktree", "add", "-q", into.to_str().unwrap(), branch],
    );
}

/// Panics when a tracked file of the project in `dir` holds a conflict
/// marker.
pub fn assert_no_conflict_markers(dir: &Path) {
    let output = Command::new("git")
        .args(["grep", "-n", "-E", "^(<<<<<<<|>>>>>>>)( |$)"])
        .current_dir(dir)
        .output()
        .expect("run git grep");
    // git grep exits 1 when nothing matches.
    assert_eq!(
        output.status.code(),
        Some(1),
        "conflict markers left:\n{}{}",
        stdout(&output),
        stderr(&output)
    );
}

/// A Go file of the user's own in a go/v4 project of `example.com/fleet`:
/// a rule the user's validating webhook calls.
pub const CAPTAIN_RULES: Edit = Edit::Create {
    path: "internal/webhook/v1/captain_rules.go",
    text: "package v1

import (
\t\"fmt\"

\tcrewv1 \"example.com/fleet/api/v1\"
)

// maxShips is the largest fleet a captain may command.
const maxShips = 12

// validateShips refuses a captain with more ships than the fleet has.
func validateShips(captain *crewv1.Captain) error {
\tif captain.Spec.Ships > maxShips {
\t\treturn fmt.Errorf(\"a captain commands at most %d ships, not %d\", maxShips, captain.Spec.Ships)
\t}
\treturn nil
}
",
};
