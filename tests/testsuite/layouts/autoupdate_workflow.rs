//! The workflow autoupdate/v1-alpha writes is one GitHub Actions accepts:
//! actionlint (tests/testsuite/common/actionlint.rs, built from the Go module proxy
//! once) finds nothing in it for a go/v4 and a rust/v1-alpha project, and
//! rejects copies of it broken in the ways a template edit could break it.
//! A project kubebuilder v4.16.0 gave the plugin (its key, its own workflow)
//! is continued: kubebuilder-rs keeps that workflow on `edit`, and `alpha
//! generate` re-scaffolds the project with the key and this workflow.
//!
//! actionlint checks the workflow's syntax and keys, its `${{ }}`
//! expressions, the cron schedule and the permission scopes. It does not
//! check the inputs of actions pinned by commit id, as ours are, and it
//! checks `run:` scripts only when shellcheck is installed.
//!
//! Needs Go and the module proxy (the first time), so it is run by
//! `scripts/test-all`.

use crate::common;
use crate::common::actionlint::{ACTIONLINT_VERSION, actionlint, check_workflow};
use crate::common::kubebuilder::kubebuilder_binary;
use crate::common::{empty_project_dir, init_project, kb_ok, read, words};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

const WORKFLOW: &str = ".github/workflows/auto_update.yml";
const ENTRY: &str = "plugins:\n  autoupdate.kubebuilder.io/v1-alpha: {}\n";

/// Scaffolds a project named `name` (go/v4 when `init` is empty, else with
/// those `init` arguments), adds the plugin and returns the workflow's path.
fn workflow_of(name: &str, init: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir(name);
    if init.is_empty() {
        init_project(&dir, &[]);
    } else {
        kb_ok(&dir, init);
    }
    kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha"));
    (tmp, dir.join(WORKFLOW))
}

#[test]
#[ignore = "needs Go; run by scripts/test-all"]
fn the_workflow_passes_actionlint_for_both_layouts() {
    let started = Instant::now();
    let actionlint = actionlint();
    let layouts: [(&str, Vec<&str>); 2] = [
        ("go/v4", Vec::new()),
        (
            "rust/v1-alpha",
            words("init --plugins rust/v1-alpha --domain example.com"),
        ),
    ];
    for (layout, init) in layouts {
        let (_tmp, workflow) = workflow_of("guestbook", &init);
        let checked = Instant::now();
        if let Err(problems) = check_workflow(&actionlint, &workflow) {
            panic!("actionlint {ACTIONLINT_VERSION} rejects the {layout} workflow:\n{problems}");
        }
        eprintln!(
            "ok  actionlint on the {layout} workflow  ({:.2}s)",
            checked.elapsed().as_secs_f64()
        );
    }
    eprintln!(
        "ok  both workflows checked  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
}

#[test]
#[ignore = "needs Go; run by scripts/test-all"]
fn actionlint_rejects_broken_copies_of_the_workflow() {
    let actionlint = actionlint();
    let (tmp, workflow) = workflow_of("guestbook", &[]);
    let text = std::fs::read_to_string(&workflow).unwrap();
    // Each break, and what actionlint must say about it.
    let breaks = [
        ("issues: write", "issues: wrte", "[permissions]"),
        (
            "runs-on: ubuntu-latest",
            "runs_on: ubuntu-latest",
            "\"runs-on\" section is missing",
        ),
        ("\"0 0 * * 2\"", "\"0 0 * * 8\"", "invalid CRON format"),
        (
            "${{ secrets.GITHUB_TOKEN }}",
            "${{ secrets.GITHUB_TOKEN }",
            "[expression]",
        ),
        (
            "\npermissions: {}\n",
            "\npermissions: none\n",
            "[permissions]",
        ),
    ];
    let dir = tmp.path().join("broken/.github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    for (good, bad, said) in breaks {
        assert!(text.contains(good), "the workflow lacks {good:?}:\n{text}");
        let broken = dir.join("auto_update.yml");
        std::fs::write(&broken, text.replacen(good, bad, 1)).unwrap();
        match check_workflow(&actionlint, &broken) {
            Ok(out) => panic!("actionlint accepts {bad:?} in place of {good:?}: {out}"),
            Err(problems) => assert!(problems.contains(said), "{said:?} not in:\n{problems}"),
        }
    }
    // The intact copy passes from the same place.
    std::fs::write(dir.join("auto_update.yml"), &text).unwrap();
    let intact = check_workflow(&actionlint, &dir.join("auto_update.yml"));
    assert!(intact.is_ok(), "{intact:?}");
}

#[test]
#[ignore = "needs Go; run by scripts/test-all"]
fn a_kubebuilder_project_with_the_plugin_is_continued_with_this_workflow() {
    let started = Instant::now();
    let kubebuilder = kubebuilder_binary();
    let (tmp, dir) = empty_project_dir("captain");
    for args in [
        "init --domain example.com --repo example.com/captain --skip-go-version-check",
        "edit --plugins autoupdate.kubebuilder.io/v1-alpha",
    ] {
        let mut command = Command::new(&kubebuilder);
        command.args(words(args)).current_dir(&dir);
        common::output_ok(&mut command, &dir, "kubebuilder", &words(args));
    }
    let project = read(&dir, "PROJECT");
    assert!(project.contains(ENTRY), "{project}");
    let theirs = read(&dir, WORKFLOW);

    // kubebuilder-rs keeps kubebuilder's workflow unless told otherwise...
    let out = kb_ok(&dir, &words("edit --plugins autoupdate/v1-alpha"));
    assert!(out.contains("is kept"), "{out}");
    assert_eq!(read(&dir, WORKFLOW), theirs);

    // ...and re-scaffolds the project from its PROJECT with its own.
    let out_dir = tmp.path().join("regenerated");
    let output = common::kb(&dir)
        .args(["alpha", "generate", "--make=false", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert!(read(&out_dir, "PROJECT").contains(ENTRY));
    let ours = read(&out_dir, WORKFLOW);
    assert!(
        ours.contains("kubebuilder-rs alpha update --force --push"),
        "{ours}"
    );
    let checked = check_workflow(&actionlint(), &out_dir.join(WORKFLOW));
    assert!(checked.is_ok(), "{checked:?}");
    eprintln!(
        "ok  kubebuilder's project continued  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
}
