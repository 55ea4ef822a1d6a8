//! autoupdate/v1-alpha through the CLI: the workflow `edit --plugins` writes
//! for a go/v4 and a rust/v1-alpha project, the PROJECT entry, the refusal
//! without cliVersion, what re-running keeps and rewrites, `--dry-run`, and
//! `alpha generate` keeping both. Checking the workflow with actionlint is
//! tests/testsuite/layouts/autoupdate_workflow.rs.

use crate::common;
use crate::common::{
    assert_refused, empty_project_dir, init_project, kb_ok, read, snapshot_tree, stderr, words,
};
use std::path::{Path, PathBuf};

const WORKFLOW: &str = ".github/workflows/auto_update.yml";
const ENTRY: &str = "plugins:\n  autoupdate.kubebuilder.io/v1-alpha: {}\n";

/// A go/v4 project without its dependencies.
fn go_project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    (tmp, dir)
}

/// A rust/v1-alpha project.
fn rust_project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com"),
    );
    (tmp, dir)
}

/// Adds the plugin to the project in `dir` and returns the workflow.
fn add_plugin(dir: &Path) -> String {
    kb_ok(dir, &words("edit --plugins autoupdate/v1-alpha"));
    read(dir, WORKFLOW)
}

/// Checks what every workflow the plugin writes must hold, whatever the layout.
fn assert_common_workflow(text: &str) {
    common::assert_holds(
        WORKFLOW,
        text,
        &[
            "\nname: Auto Update\n",
            "\non:\n  workflow_dispatch:\n  schedule:\n",
            "- cron: \"0 0 * * 2\"\n",
            "\npermissions: {}\n",
            "\nconcurrency:\n  group: ${{ github.workflow }}\n  cancel-in-progress: false\n",
            "\nenv:\n",
            "  KUBEBUILDER_RS_SOURCE: \"--git https://",
            "    runs-on: ubuntu-latest\n",
            "    permissions:\n",
            "      contents: write\n",
            "      issues: write\n",
            "          fetch-depth: 0\n",
            "          persist-credentials: false\n",
            "run: gh auth setup-git\n",
            "git fetch --no-tags origin 'refs/kubebuilder-rs/*:refs/kubebuilder-rs/*'",
            "git config --global user.name",
            "git config --global user.email",
            "cargo install --locked $KUBEBUILDER_RS_SOURCE kubebuilder-rs\n",
            "run: kubebuilder-rs alpha update --force --push --restore-path .github/workflows --open-gh-issue\n",
            "git push origin 'refs/kubebuilder-rs/*:refs/kubebuilder-rs/*'",
            "GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n",
        ],
    );
    // Least privilege: nothing at the top, two scopes in the job, and the
    // token given only to the steps that talk to GitHub.
    assert_eq!(text.matches("permissions:").count(), 2, "{text}");
    assert!(!text.contains("write-all") && !text.contains("read-all"));
    let install = step(text, "Install kubebuilder-rs");
    assert!(!install.contains("GH_TOKEN"), "{install}");
    // Every action is pinned by a full commit id, its version in a comment.
    let uses: Vec<&str> = text.lines().filter(|l| l.contains("uses: ")).collect();
    assert!(!uses.is_empty());
    for line in uses {
        let (_, pin) = line.split_once('@').expect("uses names a version");
        let (sha, comment) = pin.split_once(" # v").expect("version comment");
        assert!(
            sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit()),
            "not pinned by commit: {line}"
        );
        assert!(comment.starts_with(|c: char| c.is_ascii_digit()), "{line}");
    }
    // The source is set in one place and only read after it.
    assert_eq!(text.matches("KUBEBUILDER_RS_SOURCE:").count(), 1);
}

/// The text of the step named `name`, up to the next step.
fn step<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text
        .find(&format!("- name: {name}"))
        .unwrap_or_else(|| panic!("no step {name}:\n{text}"));
    let rest = &text[start + 2..];
    let end = rest.find("\n      - name: ").unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn a_go_project_gets_the_workflow_with_go_and_the_plugin_entry() {
    let (_tmp, dir) = go_project();
    let out = kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha"));
    assert!(out.contains(WORKFLOW), "{out}");
    assert!(
        out.contains("git push origin 'refs/kubebuilder-rs/*"),
        "{out}"
    );
    let text = read(&dir, WORKFLOW);
    assert_common_workflow(&text);
    let go = step(&text, "Set up Go");
    assert!(go.contains("uses: actions/setup-go@"), "{go}");
    assert!(go.contains("go-version-file: go.mod"), "{go}");
    assert!(step(&text, "Set up Rust").contains("rustup default stable"));
    let project = read(&dir, "PROJECT");
    assert!(project.contains(ENTRY), "{project}");
}

#[test]
fn a_rust_project_gets_the_workflow_without_go() {
    let (_tmp, dir) = rust_project();
    let text = add_plugin(&dir);
    assert_common_workflow(&text);
    assert!(!text.contains("setup-go"), "{text}");
    let rust = step(&text, "Set up Rust");
    assert!(rust.contains("--component rustfmt"), "{rust}");
    let project = read(&dir, "PROJECT");
    assert!(project.contains(ENTRY), "{project}");
}

#[test]
fn the_plugin_is_named_by_kubebuilders_key_too() {
    let (_tmp, dir) = go_project();
    kb_ok(
        &dir,
        &words("edit --plugins autoupdate.kubebuilder.io/v1-alpha"),
    );
    assert!(read(&dir, "PROJECT").contains(ENTRY));
    assert!(dir.join(WORKFLOW).is_file());
}

#[test]
fn a_project_without_cli_version_is_refused_with_nothing_written() {
    let (_tmp, dir) = go_project();
    let project = read(&dir, "PROJECT");
    let without: String = project
        .lines()
        .filter(|line| !line.starts_with("cliVersion:"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(without, project);
    std::fs::write(dir.join("PROJECT"), &without).unwrap();
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins autoupdate/v1-alpha"),
        &["PROJECT has no cliVersion", "add `cliVersion:"],
    );
    // An empty value says no more.
    std::fs::write(dir.join("PROJECT"), format!("cliVersion: \"\"\n{without}")).unwrap();
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins autoupdate/v1-alpha"),
        &["PROJECT has no cliVersion"],
    );
    assert!(!dir.join(WORKFLOW).exists());
}

#[test]
fn dry_run_writes_nothing() {
    let (_tmp, dir) = go_project();
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha --dry-run"));
    assert!(out.contains(WORKFLOW), "{out}");
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn re_running_keeps_an_edited_workflow_unless_forced() {
    let (_tmp, dir) = go_project();
    let scaffolded = add_plugin(&dir);

    // The same workflow again: nothing changes.
    let before = snapshot_tree(&dir);
    kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha"));
    assert_eq!(snapshot_tree(&dir), before);

    // The user's edit is kept, and the way to rewrite it is named.
    let edited = scaffolded.replace("\"0 0 * * 2\"", "\"30 5 * * 1\"");
    std::fs::write(dir.join(WORKFLOW), &edited).unwrap();
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha"));
    assert!(out.contains("is kept") && out.contains("--force"), "{out}");
    assert_eq!(snapshot_tree(&dir), before);

    // --force rewrites it; a deleted workflow comes back without it.
    kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha --force"));
    assert_eq!(read(&dir, WORKFLOW), scaffolded);
    std::fs::remove_file(dir.join(WORKFLOW)).unwrap();
    kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha"));
    assert_eq!(read(&dir, WORKFLOW), scaffolded);
}

#[test]
fn alpha_generate_keeps_the_workflow_and_the_entry_in_both_layouts() {
    for (name, (tmp, dir)) in [("go/v4", go_project()), ("rust/v1-alpha", rust_project())] {
        let workflow = add_plugin(&dir);
        let out_dir = tmp.path().join("regenerated");
        let output = common::kb(&dir)
            .args(["alpha", "generate", "--make=false", "--output-dir"])
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        assert_eq!(read(&out_dir, WORKFLOW), workflow, "{name}");
        let project = read(&out_dir, "PROJECT");
        assert!(project.contains(ENTRY), "{name}: {project}");
    }
}

#[test]
fn alpha_generate_in_place_keeps_the_workflow() {
    let (_tmp, dir) = go_project();
    let workflow = add_plugin(&dir);
    kb_ok(&dir, &["alpha", "generate", "--make=false"]);
    assert_eq!(read(&dir, WORKFLOW), workflow);
    assert!(read(&dir, "PROJECT").contains(ENTRY));
}
