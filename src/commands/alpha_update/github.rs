//! `--open-gh-issue`: a GitHub issue about the update, opened with `gh`,
//! unless an open issue with the same title exists.

use super::Update;
use crate::machinery::git::Git;
use anyhow::{Context as _, Result, bail};
use std::process::{Command, Stdio};

/// Refuses when `gh` cannot be run.
pub(super) fn check_available() -> Result<()> {
    let works = Command::new("gh")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !works {
        bail!(
            "--open-gh-issue needs the GitHub CLI `gh` on PATH; install it (https://cli.github.com) or drop --open-gh-issue"
        );
    }
    Ok(())
}

/// Runs `gh args` in the repository; its standard output, trimmed.
fn gh(git: &Git, args: &[&str]) -> Result<String> {
    let output = Command::new("gh")
        .args(args)
        .current_dir(git.dir())
        .stdin(Stdio::null())
        .output()
        .context("cannot run gh")?;
    if !output.status.success() {
        bail!(
            "gh {} failed: {}",
            args.first().copied().unwrap_or_default(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Opens the issue of `update` (its wording says whether it `conflicted`).
pub(super) fn open_issue(git: &Git, update: &Update, conflicted: bool) -> Result<()> {
    let title = format!(
        "Scaffold update ready: {} -> kubebuilder-rs {}",
        update.from_label, update.to_label
    );
    let open = gh(
        git,
        &[
            "issue",
            "list",
            "--state",
            "open",
            "--search",
            &format!("{title} in:title"),
            "--json",
            "title",
            "--jq",
            ".[].title",
        ],
    )?;
    if open.lines().any(|line| line.trim() == title) {
        println!("An open issue titled {title:?} exists already; no new issue");
        return Ok(());
    }
    let url = gh(git, &["repo", "view", "--json", "url", "--jq", ".url"])?;
    let compare = format!(
        "{url}/compare/{}...{}?expand=1",
        update.from_branch, update.output_branch
    );
    let body = issue_body(update, &compare, conflicted);
    let created = gh(
        git,
        &["issue", "create", "--title", &title, "--body", &body],
    )?;
    println!("Opened the issue {created}");
    Ok(())
}

/// The issue's text.
fn issue_body(update: &Update, compare: &str, conflicted: bool) -> String {
    let branch = &update.output_branch;
    let mut body = format!(
        "`kubebuilder-rs alpha update` carried `{}` from the scaffold of {} to that of kubebuilder-rs {} on the branch `{branch}`.\n\nReview the change: {compare}\n",
        update.from_branch, update.from_label, update.to_label
    );
    if conflicted {
        body.push_str(&format!(
            "\n**Some files conflict.** The branch holds git conflict markers (`<<<<<<<`); check it out (`git switch {branch}`), resolve them, run the project's `make manifests generate fmt` (Go) or `make manifests` (Rust), and commit.\n"
        ));
    } else {
        body.push_str("\nThe merge was clean. Check that the project builds and its tests pass, then open a pull request from the branch.\n");
    }
    body
}
