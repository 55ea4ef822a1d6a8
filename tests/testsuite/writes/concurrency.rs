//! Two or three commands started at the same moment in one project: each
//! that reports success has all of its changes in the tree, because the
//! second waits for the first (see src/machinery/lock.rs).

use crate::common::{copy_tree, empty_project_dir, init_project, kb_ok, stderr, words};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// How many times each race is run.
const ROUNDS: usize = 20;

/// A project with one API, to copy for every round.
fn base_project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("fleet");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain --make=false"),
    );
    (tmp, dir)
}

/// Starts kubebuilder-rs `args` in `dir` without waiting for it.
fn start(dir: &Path, args: &str) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("kubebuilder-rs"))
        .current_dir(dir)
        .args(words(args))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts every command of `commands` at once in a copy of `base`, waits
/// for all, and returns the copy; every command must succeed.
fn race(base: &Path, round: usize, name: &str, commands: &[&str]) -> PathBuf {
    let dir = base.with_file_name(format!("{name}-{round}"));
    copy_tree(base, &dir);
    let children: Vec<Child> = commands.iter().map(|args| start(&dir, args)).collect();
    for (child, args) in children.into_iter().zip(commands) {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{args} failed: {}",
            stderr(&output)
        );
    }
    dir
}

/// Whether `path` in `dir` holds `needle`.
fn holds(dir: &Path, path: &str, needle: &str) -> bool {
    std::fs::read_to_string(dir.join(path)).is_ok_and(|text| text.contains(needle))
}

#[test]
fn two_create_api_at_once_lose_nothing() {
    let (_tmp, base) = base_project();
    let mut lost = 0;
    for round in 0..ROUNDS {
        let dir = race(
            &base,
            round,
            "apis",
            &[
                "create api --group crew --version v1 --kind Admiral --make=false",
                "create api --group crew --version v1 --kind Navigator --make=false",
            ],
        );
        for kind in ["Admiral", "Navigator"] {
            let complete = holds(&dir, "PROJECT", &format!("kind: {kind}"))
                && holds(&dir, "cmd/main.go", &format!("controller.{kind}Reconciler"))
                && holds(&dir, "config/crd/kustomization.yaml", &kind.to_lowercase());
            lost += usize::from(!complete);
        }
    }
    println!("lost updates in {ROUNDS} concurrent create api pairs: {lost}");
    assert_eq!(lost, 0);
}

#[test]
fn mixed_commands_at_once_lose_nothing() {
    let (_tmp, base) = base_project();
    for round in 0..ROUNDS {
        let dir = race(
            &base,
            round,
            "mixed",
            &[
                "create api --group crew --version v1 --kind Admiral --make=false",
                "create webhook --group crew --version v1 --kind Captain --defaulting --make=false",
                "edit --license none",
            ],
        );
        assert!(
            holds(&dir, "PROJECT", "kind: Admiral"),
            "round {round}: api lost"
        );
        assert!(
            holds(&dir, "PROJECT", "defaulting: true"),
            "round {round}: webhook lost"
        );
        assert!(
            holds(&dir, "cmd/main.go", "AdmiralReconciler")
                && holds(&dir, "cmd/main.go", "SetupCaptainWebhookWithManager"),
            "round {round}: cmd/main.go lost an edit"
        );
        let header = std::fs::read_to_string(dir.join("hack/boilerplate.go.txt")).unwrap();
        assert_eq!(header, "", "round {round}: license edit lost");
    }
}

#[test]
fn a_waiting_command_says_so() {
    let (_tmp, dir) = base_project();
    // Hold the project's lock the way a running command does, then start one.
    let lock = kubebuilder_rs::machinery::lock::ProjectLock::acquire(&dir).unwrap();
    let child = start(
        &dir,
        "create api --group crew --version v1 --kind Admiral --make=false",
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        !holds(&dir, "PROJECT", "Admiral"),
        "the command did not wait"
    );
    drop(lock);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("Waiting for another kubebuilder-rs command"));
    assert!(holds(&dir, "PROJECT", "kind: Admiral"));
}
