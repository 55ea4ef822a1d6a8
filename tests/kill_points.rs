//! A command killed at any of its write, rename, linkat and unlink system
//! calls (a new file is put in place as a second name of its temporary
//! file, whose first name is then removed) leaves the old tree or the new
//! one, at the latest once the next command has run in the directory (see
//! src/machinery/journal.rs).
//!
//! Each run kills `create webhook` with SIGKILL at the K-th call of one of
//! those, by strace's fault injection, then runs a harmless command
//! (`edit --plugins go/v4`), and compares the tree with the tree before and
//! the tree a whole run produces. Needs strace, so it is ignored by a plain
//! `cargo test` and run by `scripts/test-all`, which installs it.

mod common;

use common::{copy_tree, empty_project_dir, init_project, kb, kb_ok, snapshot_tree, words};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that gets killed.
const COMMAND: &str = "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --make=false";

/// Runs [`COMMAND`] in `dir` under strace, killed at the `when`-th call of
/// `syscall` (or never, for `when == 0`); returns whether it was killed.
fn run_killed(dir: &Path, syscall: &str, when: usize) -> bool {
    let mut strace = Command::new("strace");
    strace.args(["-f", "-qq", "-o", "/dev/null", "-e"]);
    strace.arg(format!("trace={syscall}"));
    if when > 0 {
        strace
            .arg("-e")
            .arg(format!("inject={syscall}:signal=KILL:when={when}"));
    }
    let output = strace
        .arg(assert_cmd::cargo::cargo_bin("kubebuilder-rs"))
        .args(words(COMMAND))
        .current_dir(dir)
        .output()
        .expect("strace runs (apt-get install strace)");
    !output.status.success()
}

/// How many calls of `syscall` a whole run of [`COMMAND`] makes.
fn count_calls(base: &Path, syscall: &str) -> usize {
    let dir = base.with_file_name(format!("count-{syscall}"));
    copy_tree(base, &dir);
    let log = dir.with_file_name(format!("count-{syscall}.log"));
    let status = Command::new("strace")
        .args(["-f", "-qq", "-o"])
        .arg(&log)
        .arg("-e")
        .arg(format!("trace={syscall}"))
        .arg(assert_cmd::cargo::cargo_bin("kubebuilder-rs"))
        .args(words(COMMAND))
        .current_dir(&dir)
        .status()
        .expect("strace runs (apt-get install strace)");
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    text.lines()
        .filter(|l| l.contains(&format!("{syscall}(")))
        .count()
}

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn a_kill_at_any_write_rename_link_or_unlink_leaves_the_old_or_the_new_tree() {
    let (_tmp, base) = empty_project_dir("ship");
    init_project(&base, &[]);
    kb_ok(
        &base,
        &words("create api --group crew --version v1 --kind Captain --make=false"),
    );
    let old = snapshot_tree(&base);
    let whole = base.with_file_name("whole");
    copy_tree(&base, &whole);
    assert!(!run_killed(&whole, "write", 0), "an unkilled run fails");
    let new = snapshot_tree(&whole);
    assert_ne!(old, new);

    let (mut points, mut torn, mut killed) = (0, Vec::new(), 0);
    let (mut as_old, mut as_new) = (0, 0);
    for syscall in ["write", "rename", "linkat", "unlink"] {
        let calls = count_calls(&base, syscall);
        assert!(calls > 3, "{syscall}: only {calls} calls");
        for when in 1..=calls {
            let dir = base.with_file_name(format!("{syscall}-{when}"));
            copy_tree(&base, &dir);
            killed += usize::from(run_killed(&dir, syscall, when));
            let next = kb(&dir)
                .args(words("edit --plugins go/v4"))
                .output()
                .unwrap();
            let tree: BTreeMap<PathBuf, Vec<u8>> = snapshot_tree(&dir);
            points += 1;
            if !next.status.success() {
                torn.push(format!("{syscall} #{when} (the next command failed)"));
            } else if tree == old {
                as_old += 1;
            } else if tree == new {
                as_new += 1;
            } else {
                torn.push(format!("{syscall} #{when}"));
            }
        }
    }
    println!(
        "kill points: {points} ({killed} killed), old tree {as_old}, new tree {as_new}, torn {}",
        torn.len()
    );
    assert!(torn.is_empty(), "torn trees after kills at: {torn:?}");
    assert!(
        as_old > 0 && as_new > 0,
        "kills landed before and after the commit point"
    );
}
