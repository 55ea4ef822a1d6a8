//! A command killed at any of its write, rename, renameat2, unlink and
//! rmdir system calls (a new file is put in place with `renameat2`, which never
//! replaces a file) leaves the old tree or the new one, at the latest once the next command has run in the directory (see
//! src/machinery/journal.rs).
//!
//! Each run kills `create webhook` with SIGKILL at the K-th call of one of
//! those, by strace's fault injection, then runs a harmless command
//! (`edit --plugins go/v4`), and compares the tree with the tree before and
//! the tree a whole run produces. Needs strace, so it is ignored by a plain
//! `cargo test` and run by `scripts/test-all`, which installs it.

use crate::common::kill_points::{Line, kill_everywhere};
use crate::common::{empty_project_dir, init_project, kb, kb_ok, words};
use std::path::Path;

/// The command that gets killed.
const COMMAND: &str = "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --make=false";

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn a_kill_at_any_write_rename_or_removal_leaves_the_old_or_the_new_tree() {
    let (_tmp, base) = empty_project_dir("ship");
    init_project(&base, &[]);
    kb_ok(
        &base,
        &words("create api --group crew --version v1 --kind Captain --make=false"),
    );
    let line = Line {
        args: words(COMMAND),
        env: &[],
    };
    let next = |dir: &Path| {
        kb(dir)
            .args(words("edit --plugins go/v4"))
            .output()
            .unwrap()
    };
    kill_everywhere(
        &base,
        &line,
        &["write", "rename", "renameat2", "unlink", "rmdir"],
        next,
    )
    .assert_whole();
}
