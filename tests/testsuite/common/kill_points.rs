//! Kill points: a kubebuilder-rs command killed with SIGKILL at the K-th
//! call of a system call (strace's fault injection), for every K, must leave
//! the tree it started from or the tree a whole run writes, at the latest
//! once the next command has run in the directory (the journal's recovery,
//! src/machinery/journal.rs). Needs strace.

use super::{copy_tree, snapshot_tree};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A kubebuilder-rs command line: its arguments and the environment it
/// needs besides the test's own.
pub struct Line<'a> {
    /// The arguments, the subcommand first.
    pub args: Vec<&'a str>,
    /// Variables set for it.
    pub env: &'a [(&'a str, PathBuf)],
}

/// What the kills left.
#[derive(Debug, Default)]
pub struct Tally {
    /// The tree a whole run writes.
    pub new: BTreeMap<PathBuf, Vec<u8>>,
    /// How many runs were started.
    pub points: usize,
    /// How many of them were killed.
    pub killed: usize,
    /// Runs that left the tree as it was.
    pub as_old: usize,
    /// Runs that left the whole run's tree.
    pub as_new: usize,
    /// Runs that left anything else, by kill point.
    pub torn: Vec<String>,
}

impl Tally {
    /// Asserts that no kill tore the tree and that kills landed on both sides
    /// of the commit point.
    pub fn assert_whole(&self) {
        println!(
            "kill points: {} ({} killed), old tree {}, new tree {}, torn {}",
            self.points,
            self.killed,
            self.as_old,
            self.as_new,
            self.torn.len()
        );
        assert!(
            self.torn.is_empty(),
            "torn trees after kills at: {:?}",
            self.torn
        );
        assert!(
            self.as_old > 0 && self.as_new > 0,
            "kills landed before and after the commit point"
        );
    }
}

/// Runs `line` in copies of the project `base`, killed at every call of
/// each of `syscalls`, then `next` in the same copy, and tallies the trees
/// left. Copies go beside `base`.
pub fn kill_everywhere(
    base: &Path,
    line: &Line,
    syscalls: &[&str],
    next: impl Fn(&Path) -> Output,
) -> Tally {
    let old = snapshot_tree(base);
    let whole = base.with_file_name("whole");
    copy_tree(base, &whole);
    let output = under_strace(&whole, line, "write", 0, &base.with_file_name("whole.log"));
    assert!(output.status.success(), "an unkilled run fails: {output:?}");
    let mut tally = Tally {
        new: snapshot_tree(&whole),
        ..Tally::default()
    };
    assert_ne!(old, tally.new, "the command changes nothing");
    for syscall in syscalls {
        let calls = count_calls(base, line, syscall);
        assert!(calls > 0, "{syscall}: never called");
        for when in 1..=calls {
            let dir = base.with_file_name(format!("{syscall}-{when}"));
            copy_tree(base, &dir);
            let log = base.with_file_name("killed.log");
            let killed = !under_strace(&dir, line, syscall, when, &log)
                .status
                .success();
            tally.killed += usize::from(killed);
            tally.points += 1;
            let next = next(&dir);
            let tree = snapshot_tree(&dir);
            if !next.status.success() {
                tally
                    .torn
                    .push(format!("{syscall} #{when} (the next command failed)"));
            } else if tree == old {
                tally.as_old += 1;
            } else if tree == tally.new {
                tally.as_new += 1;
            } else {
                tally.torn.push(format!("{syscall} #{when}"));
            }
        }
    }
    tally
}

/// How many calls of `syscall` a whole run of `line` in a copy of `base` makes.
fn count_calls(base: &Path, line: &Line, syscall: &str) -> usize {
    let dir = base.with_file_name(format!("count-{syscall}"));
    copy_tree(base, &dir);
    let log = base.with_file_name(format!("count-{syscall}.log"));
    let output = under_strace(&dir, line, syscall, 0, &log);
    assert!(output.status.success(), "{output:?}");
    let call = format!("{syscall}(");
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(&call))
        .count()
}

/// Runs `line` in `dir` under strace, tracing `syscall` into `log`, killed at
/// its `when`-th call (never, for 0).
fn under_strace(dir: &Path, line: &Line, syscall: &str, when: usize, log: &Path) -> Output {
    let mut strace = Command::new("strace");
    strace
        .args(["-f", "-qq", "-o"])
        .arg(log)
        .arg("-e")
        .arg(format!("trace={syscall}"));
    if when > 0 {
        strace
            .arg("-e")
            .arg(format!("inject={syscall}:signal=KILL:when={when}"));
    }
    strace
        .arg(assert_cmd::cargo::cargo_bin("kubebuilder-rs"))
        .args(&line.args)
        .envs(line.env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .output()
        .expect("strace runs (apt-get install strace)")
}
