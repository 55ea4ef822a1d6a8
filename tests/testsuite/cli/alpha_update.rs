//! `alpha update` without any toolchain: rust/v1-alpha projects in git
//! repositories, post-steps off. An "old version" of the tool is a
//! `--from-binary` stub that runs this binary's `alpha generate` and then
//! changes one scaffolded line back, so the ancestor differs from the
//! upgrade by exactly that line.

use crate::common;
use crate::common::{empty_project_dir, kb, snapshot_tree, stderr, stdout};
use std::path::{Path, PathBuf};

/// The line the stub's scaffold has where today's has [`NEW_LINE`].
const OLD_LINE: &str = "IMG ?= controller:old";
/// The Makefile line of today's scaffold the stub changes.
const NEW_LINE: &str = "IMG ?= controller:latest";
/// A Makefile target of the user's own.
const USER_TARGET: &str = "\nhello: ## The user's own target.\n\techo hello\n";

/// Runs `git args` in `dir`; its standard output, trimmed. Panics on failure.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        stderr(&output)
    );
    stdout(&output).trim().to_string()
}

/// A rust/v1-alpha project made in a new git repository (branch `main`,
/// an identity of its own), committed.
fn project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("captain");
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["config", "user.name", "Update Tester"]);
    git(&dir, &["config", "user.email", "tester@example.com"]);
    let output = kb(&dir)
        .args([
            "init",
            "--plugins",
            "rust/v1-alpha",
            "--domain",
            "example.com",
        ])
        .output()
        .expect("run init");
    assert!(output.status.success(), "init: {}", stderr(&output));
    commit_all(&dir, "project");
    (tmp, dir)
}

/// Commits everything in `dir`.
fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// Replaces `from` with `to` in the file `path` of `dir` (it must hold it).
fn replace(dir: &Path, path: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(dir.join(path)).unwrap();
    assert!(text.contains(from), "{path} lacks {from:?}");
    std::fs::write(dir.join(path), text.replacen(from, to, 1)).unwrap();
}

/// A project as the "old version" made it: today's with [`OLD_LINE`].
fn old_project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = project();
    replace(&dir, "Makefile", NEW_LINE, OLD_LINE);
    commit_all(&dir, "the project as the old version made it");
    (tmp, dir)
}

/// The stub "old version" (in `tmp`): this binary's `alpha generate`, then
/// today's line changed back to [`OLD_LINE`].
fn stub(tmp: &Path) -> PathBuf {
    let real = assert_cmd::cargo::cargo_bin("kubebuilder-rs");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = version ]; then exec '{real}' version; fi\nfor last; do :; done\n'{real}' \"$@\" >/dev/null || exit 1\nsed -i 's/^{NEW_LINE}$/{OLD_LINE}/' \"$last/Makefile\"\n",
        real = real.display()
    );
    let path = tmp.join("old-kubebuilder-rs");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `alpha update --post-steps=false --from-binary <stub> args` in `dir`.
fn update(dir: &Path, stub: &Path, args: &[&str]) -> std::process::Output {
    kb(dir)
        .args(["alpha", "update", "--post-steps=false", "--from-binary"])
        .arg(stub)
        .args(args)
        .output()
        .expect("run alpha update")
}

/// As [`update`], which must succeed; its standard output.
fn update_ok(dir: &Path, stub: &Path, args: &[&str]) -> String {
    let output = update(dir, stub, args);
    assert!(
        output.status.success(),
        "alpha update {args:?} failed: {}{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

/// The local branches.
fn branches(dir: &Path) -> Vec<String> {
    git(
        dir,
        &["for-each-ref", "--format=%(refname:short)", "refs/heads"],
    )
    .lines()
    .map(str::to_string)
    .collect()
}

/// The one branch besides `main`.
fn output_branch(dir: &Path) -> String {
    let others: Vec<String> = branches(dir).into_iter().filter(|b| b != "main").collect();
    assert_eq!(others.len(), 1, "one new branch expected: {others:?}");
    others[0].clone()
}

/// The file `path` on `rev`.
fn show(dir: &Path, rev: &str, path: &str) -> String {
    git(dir, &["show", &format!("{rev}:{path}")])
}

/// Everything in the repository's directory, `.git` included, byte for byte.
fn whole(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    snapshot_tree(dir)
}

#[test]
fn a_clean_merge_keeps_the_user_edit_and_lands_the_scaffold_change() {
    let (tmp, dir) = old_project();
    let mut makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    makefile.push_str(USER_TARGET);
    std::fs::write(dir.join("Makefile"), &makefile).unwrap();
    commit_all(&dir, "user target");
    let tip = git(&dir, &["rev-parse", "main"]);
    let work_tree: Vec<_> = whole(&dir)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".git"))
        .collect();

    let out = update_ok(&dir, &stub(tmp.path()), &[]);

    let branch = output_branch(&dir);
    assert!(
        branch.starts_with("kubebuilder-rs-update-from-"),
        "{branch}"
    );
    assert!(out.contains(&branch) && out.contains("1 merged"), "{out}");
    let merged = show(&dir, &branch, "Makefile");
    assert!(
        merged.contains(NEW_LINE),
        "scaffold change missing:\n{merged}"
    );
    assert!(!merged.contains(OLD_LINE), "{merged}");
    assert!(
        merged.contains(USER_TARGET.trim()),
        "user edit lost:\n{merged}"
    );
    let parents = git(&dir, &["rev-list", "--parents", "-n1", &branch]);
    assert_eq!(parents.split(' ').nth(1), Some(tip.as_str()));
    assert_eq!(parents.split(' ').count(), 2, "one parent: {parents}");
    assert_eq!(git(&dir, &["rev-parse", "main"]), tip, "main moved");
    assert_eq!(git(&dir, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
    let after: Vec<_> = whole(&dir)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".git"))
        .collect();
    assert!(after == work_tree, "the work tree changed");
}

#[test]
fn a_conflict_without_force_is_listed_and_writes_nothing() {
    let (tmp, dir) = old_project();
    replace(&dir, "Makefile", OLD_LINE, "IMG ?= controller:mine");
    commit_all(&dir, "user image");
    let stub = stub(tmp.path());
    let before = whole(&dir);

    let output = update(&dir, &stub, &[]);

    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("Makefile"), "{message}");
    assert!(message.contains("--force"), "{message}");
    assert!(whole(&dir) == before, "the repository changed");
    assert_eq!(branches(&dir), ["main"]);
}

#[test]
fn with_force_one_commit_holds_the_markers() {
    let (tmp, dir) = old_project();
    replace(&dir, "Makefile", OLD_LINE, "IMG ?= controller:mine");
    commit_all(&dir, "user image");
    let tip = git(&dir, &["rev-parse", "main"]);

    let out = update_ok(&dir, &stub(tmp.path()), &["--force"]);

    let branch = output_branch(&dir);
    assert!(out.contains("Makefile"), "{out}");
    assert_eq!(git(&dir, &["rev-parse", &format!("{branch}^")]), tip);
    assert_eq!(
        git(&dir, &["rev-list", "--count", &format!("main..{branch}")]),
        "1"
    );
    let merged = show(&dir, &branch, "Makefile");
    assert!(
        merged.contains("<<<<<<< main\nIMG ?= controller:mine\n=======\n"),
        "{merged}"
    );
    assert!(
        merged.contains(&format!("{NEW_LINE}\n>>>>>>> kubebuilder-rs ")),
        "{merged}"
    );
    assert!(!merged.contains("|||||||"), "{merged}");
    assert_eq!(git(&dir, &["rev-parse", "main"]), tip);
    let message = git(&dir, &["log", "-1", "--format=%s", &branch]);
    assert!(
        message.contains("manual conflict resolution required"),
        "{message}"
    );
}

#[test]
fn the_diff3_style_adds_the_ancestor() {
    let (tmp, dir) = old_project();
    replace(&dir, "Makefile", OLD_LINE, "IMG ?= controller:mine");
    commit_all(&dir, "user image");

    update_ok(
        &dir,
        &stub(tmp.path()),
        &["--force", "--git-config", "merge.conflictStyle=diff3"],
    );

    let merged = show(&dir, &output_branch(&dir), "Makefile");
    assert!(merged.contains("|||||||"), "{merged}");
    assert!(merged.contains(&format!("{OLD_LINE}\n=======")), "{merged}");
}

#[test]
fn the_defaults_override_the_repository_style_unless_disabled() {
    let (tmp, dir) = old_project();
    replace(&dir, "Makefile", OLD_LINE, "IMG ?= controller:mine");
    commit_all(&dir, "user image");
    git(&dir, &["config", "merge.conflictStyle", "diff3"]);
    let stub = stub(tmp.path());

    update_ok(&dir, &stub, &["--force", "--output-branch", "defaults"]);
    update_ok(
        &dir,
        &stub,
        &[
            "--force",
            "--output-branch",
            "own",
            "--git-config",
            "disable",
        ],
    );

    assert!(!show(&dir, "defaults", "Makefile").contains("|||||||"));
    assert!(show(&dir, "own", "Makefile").contains("|||||||"));
}

#[test]
fn a_dry_run_leaves_the_repository_byte_identical() {
    let (tmp, dir) = old_project();
    let mut makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    makefile.push_str(USER_TARGET);
    std::fs::write(dir.join("Makefile"), &makefile).unwrap();
    commit_all(&dir, "user target");
    let stub = stub(tmp.path());
    let before = whole(&dir);
    let objects = git(&dir, &["count-objects", "-v"]);

    let out = update_ok(&dir, &stub, &["--dry-run"]);

    assert!(out.contains("merged       Makefile"), "{out}");
    assert!(out.contains("unchanged    PROJECT"), "{out}");
    assert!(out.contains("dry run: nothing was written"), "{out}");
    assert_eq!(git(&dir, &["count-objects", "-v"]), objects);
    assert!(whole(&dir) == before, "the repository changed");
    assert_eq!(branches(&dir), ["main"]);
}

#[test]
fn a_project_already_at_this_scaffold_is_current() {
    let (_tmp, dir) = project();
    let before = whole(&dir);

    let output = kb(&dir).args(["alpha", "update"]).output().unwrap();

    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("nothing to update"),
        "{}",
        stdout(&output)
    );
    assert!(whole(&dir) == before, "the repository changed");
}

#[test]
fn show_commits_keeps_the_scaffold_history() {
    let (tmp, dir) = old_project();
    let tip = git(&dir, &["rev-parse", "main"]);

    update_ok(&dir, &stub(tmp.path()), &["--show-commits"]);

    let branch = output_branch(&dir);
    let merge = git(&dir, &["rev-list", "--parents", "-n1", &branch]);
    let merge: Vec<&str> = merge.split(' ').collect();
    assert_eq!(merge.len(), 3, "a merge commit: {merge:?}");
    assert_eq!(merge[1], tip);
    let upgrade = git(&dir, &["rev-list", "--parents", "-n1", merge[2]]);
    let upgrade: Vec<&str> = upgrade.split(' ').collect();
    assert_eq!(upgrade.len(), 2, "the upgrade has the ancestor as parent");
    let ancestor = git(&dir, &["rev-list", "--parents", "-n1", upgrade[1]]);
    assert_eq!(ancestor.split(' ').count(), 1, "the ancestor has no parent");
    assert!(show(&dir, upgrade[1], "Makefile").contains(OLD_LINE));
    assert!(show(&dir, upgrade[0], "Makefile").contains(NEW_LINE));
    assert!(show(&dir, &branch, "Makefile").contains(NEW_LINE));
}

#[test]
fn restore_path_keeps_the_branch_version() {
    let (tmp, dir) = old_project();

    update_ok(&dir, &stub(tmp.path()), &["--restore-path", "Makefile"]);

    let branch = output_branch(&dir);
    assert_eq!(
        show(&dir, &branch, "Makefile"),
        show(&dir, "main", "Makefile")
    );
    assert!(show(&dir, &branch, "Makefile").contains(OLD_LINE));
}

#[test]
fn push_sends_the_branch_and_the_record_to_origin() {
    let (tmp, dir) = old_project();
    let origin = tmp.path().join("origin.git");
    git(
        tmp.path(),
        &["init", "-q", "--bare", origin.to_str().unwrap()],
    );
    git(&dir, &["remote", "add", "origin", origin.to_str().unwrap()]);

    update_ok(&dir, &stub(tmp.path()), &["--push"]);

    let branch = output_branch(&dir);
    let pushed = git(&origin, &["rev-parse", &format!("refs/heads/{branch}")]);
    assert_eq!(pushed, git(&dir, &["rev-parse", &branch]));
    let record = git(&origin, &["rev-parse", "refs/kubebuilder-rs/pristine"]);
    assert_eq!(
        record,
        git(&dir, &["rev-parse", "refs/kubebuilder-rs/pristine"])
    );
    assert_eq!(git(&dir, &["symbolic-ref", "HEAD"]), "refs/heads/main");
}

#[test]
fn open_gh_issue_asks_gh_with_a_compare_link() {
    let (tmp, dir) = old_project();
    let bin = tmp.path().join("fake-bin");
    std::fs::create_dir(&bin).unwrap();
    let log = tmp.path().join("gh.log");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{log}'\ncase \"$1 $2\" in\n  'repo view') echo https://github.com/acme/captain ;;\n  'issue create') echo https://github.com/acme/captain/issues/7 ;;\nesac\n",
        log = log.display()
    );
    std::fs::write(bin.join("gh"), script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());

    let output = kb(&dir)
        .args([
            "alpha",
            "update",
            "--post-steps=false",
            "--open-gh-issue",
            "--from-binary",
        ])
        .arg(stub(tmp.path()))
        .env("PATH", path)
        .output()
        .unwrap();

    assert!(output.status.success(), "{}", stderr(&output));
    let branch = output_branch(&dir);
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(calls.contains("--version"), "{calls}");
    assert!(calls.contains("issue list --state open"), "{calls}");
    let create = &calls[calls
        .find("issue create --title Scaffold update ready:")
        .unwrap_or_else(|| panic!("no issue created:\n{calls}"))..];
    let link = format!("https://github.com/acme/captain/compare/main...{branch}?expand=1");
    assert!(create.contains(&link), "{create}");
    assert!(stdout(&output).contains("issues/7"), "{}", stdout(&output));
}

/// Runs `alpha update args` in `cwd` with `env`; expects a one-line
/// refusal holding every needle, and `watched` (`.git` included) unchanged.
fn assert_update_refused(
    cwd: &Path,
    watched: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    needles: &[&str],
) {
    let before = whole(watched);
    let mut command = kb(cwd);
    command
        .args(["alpha", "update", "--post-steps=false"])
        .args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    common::assert_one_line_refusal(&output, args, needles);
    assert!(whole(watched) == before, "files changed for {args:?}");
}

#[test]
fn refusals_say_what_is_wrong_and_change_nothing() {
    let (tmp, dir) = old_project();
    let stub = stub(tmp.path());
    let stub = stub.to_str().unwrap();
    let refuse = |args: &[&str], needles: &[&str]| {
        assert_update_refused(&dir, &dir, args, &[], needles);
    };
    refuse(
        &["--show-commits", "--restore-path", "Makefile"],
        &["the --restore-path flag is not supported with --show-commits"],
    );
    refuse(
        &["--from-branch", "nope", "--from-binary", stub],
        &["--from-branch nope"],
    );
    git(&dir, &["branch", "taken"]);
    refuse(
        &["--output-branch", "taken", "--from-binary", stub],
        &["taken exists already", "--output-branch"],
    );
    refuse(
        &["--output-branch", "bad..name", "--from-binary", stub],
        &["bad..name"],
    );

    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    refuse(
        &["--from-binary", stub],
        &["uncommitted changes", "notes.txt"],
    );
    std::fs::remove_file(dir.join("notes.txt")).unwrap();
    replace(&dir, "Makefile", OLD_LINE, "IMG ?= controller:dirty");
    refuse(&["--from-binary", stub], &["uncommitted changes"]);
    git(&dir, &["checkout", "-q", "Makefile"]);

    let git_only = tmp.path().join("git-only");
    std::fs::create_dir(&git_only).unwrap();
    let git_path = which("git");
    std::os::unix::fs::symlink(git_path, git_only.join("git")).unwrap();
    assert_update_refused(
        &dir,
        &dir,
        &["--open-gh-issue", "--from-binary", stub],
        &[("PATH", git_only.to_str().unwrap())],
        &["--open-gh-issue", "gh"],
    );

    git(&dir, &["checkout", "-q", "--detach"]);
    refuse(&["--from-binary", stub], &["detached", "--from-branch"]);
    git(&dir, &["checkout", "-q", "main"]);

    git(&dir, &["checkout", "-q", "-b", "no-project"]);
    git(&dir, &["rm", "-q", "PROJECT"]);
    git(&dir, &["commit", "-q", "-m", "no PROJECT"]);
    git(&dir, &["checkout", "-q", "-b", "bad-project", "main"]);
    std::fs::write(dir.join("PROJECT"), "layout: [").unwrap();
    commit_all(&dir, "broken PROJECT");
    git(&dir, &["checkout", "-q", "main"]);
    refuse(
        &["--from-branch", "no-project"],
        &["no-project has no PROJECT"],
    );
    refuse(
        &["--from-branch", "bad-project"],
        &["PROJECT on bad-project cannot be read"],
    );

    for (version, needles) in [
        ("0.1.0", &["--from-binary"][..]),
        ("4.6.0", &["v4.7.0"][..]),
    ] {
        let text = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
        let line = text.lines().find(|l| l.starts_with("cliVersion:")).unwrap();
        std::fs::write(
            dir.join("PROJECT"),
            text.replace(line, &format!("cliVersion: {version}")),
        )
        .unwrap();
        commit_all(&dir, "another cliVersion");
        refuse(&[], needles);
    }
}

#[test]
fn refusals_outside_a_repository_or_below_its_top_level() {
    let (_tmp, dir) = empty_project_dir("loose");
    let output = kb(&dir)
        .args([
            "init",
            "--plugins",
            "rust/v1-alpha",
            "--domain",
            "example.com",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!dir.join(".git").exists(), "init made a repository");
    assert_update_refused(&dir, &dir, &[], &[], &["not in a git repository"]);

    let (tmp, outer) = empty_project_dir("outer");
    git(&outer, &["init", "-q", "-b", "main"]);
    let inner = outer.join("captain");
    std::fs::create_dir(&inner).unwrap();
    let output = kb(&inner)
        .args([
            "init",
            "--plugins",
            "rust/v1-alpha",
            "--domain",
            "example.com",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        git(&outer, &["for-each-ref"]).is_empty(),
        "a project below the top level was recorded"
    );
    git(&outer, &["add", "-A"]);
    git(
        &outer,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "-m",
            "p",
        ],
    );
    assert_update_refused(&inner, tmp.path(), &[], &[], &["not at the top level"]);
}

/// The program `name` on PATH.
fn which(name: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{name} not on PATH"))
}

/// The record's commits, newest first: (commit, Project-Blob trailer).
fn records(dir: &Path) -> Vec<(String, String)> {
    git(
        dir,
        &[
            "log",
            "--format=%H %(trailers:key=Project-Blob,valueonly,separator=)",
            "refs/kubebuilder-rs/pristine",
        ],
    )
    .lines()
    .map(|line| {
        let (commit, blob) = line.split_once(' ').unwrap();
        (commit.to_string(), blob.trim().to_string())
    })
    .collect()
}

#[test]
fn scaffolding_commands_record_their_scaffold() {
    let (_tmp, dir) = project();
    let after_init = records(&dir);
    assert_eq!(after_init.len(), 1);
    assert_eq!(after_init[0].1, git(&dir, &["hash-object", "PROJECT"]));
    let recorded = git(&dir, &["rev-parse", "refs/kubebuilder-rs/pristine^{tree}"]);
    assert_eq!(
        recorded,
        git(&dir, &["rev-parse", "HEAD^{tree}"]),
        "the record is the scaffold"
    );

    let api = [
        "create",
        "api",
        "--group",
        "crew",
        "--version",
        "v1",
        "--kind",
        "Captain",
    ];
    let flags = ["--resource", "--controller"];
    let output = kb(&dir)
        .args(api)
        .args(flags)
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(records(&dir), after_init, "a dry run recorded");

    let output = kb(&dir).args(api).args(flags).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let after_api = records(&dir);
    assert_eq!(after_api.len(), 2);
    assert_eq!(after_api[0].1, git(&dir, &["hash-object", "PROJECT"]));
    assert_eq!(
        git(&dir, &["rev-parse", "refs/kubebuilder-rs/pristine^"]),
        after_init[0].0
    );
    assert_eq!(git(&dir, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(branches(&dir), ["main"]);
}

#[test]
fn the_record_is_the_ancestor_without_from_binary() {
    let (tmp, dir) = project();
    // The record as an older build would have written it: the old line.
    let index = tmp.path().join("index");
    let with_index = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
            .env("GIT_INDEX_FILE", &index)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output).trim().to_string()
    };
    with_index(&["read-tree", "refs/kubebuilder-rs/pristine"]);
    let old = show(&dir, "refs/kubebuilder-rs/pristine", "Makefile").replace(NEW_LINE, OLD_LINE);
    let old_file = tmp.path().join("Makefile.old");
    std::fs::write(&old_file, format!("{old}\n")).unwrap();
    let blob = git(&dir, &["hash-object", "-w", old_file.to_str().unwrap()]);
    with_index(&[
        "update-index",
        "--cacheinfo",
        &format!("100644,{blob},Makefile"),
    ]);
    let tree = with_index(&["write-tree"]);
    let message = git(
        &dir,
        &["log", "-1", "--format=%B", "refs/kubebuilder-rs/pristine"],
    );
    let commit = git(&dir, &["commit-tree", &tree, "-m", &message]);
    git(
        &dir,
        &["update-ref", "refs/kubebuilder-rs/pristine", &commit],
    );
    replace(&dir, "Makefile", NEW_LINE, OLD_LINE);
    commit_all(&dir, "as the older build made it");
    let mut makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    makefile.push_str(USER_TARGET);
    std::fs::write(dir.join("Makefile"), makefile).unwrap();
    commit_all(&dir, "user target");

    let output = kb(&dir)
        .args(["alpha", "update", "--post-steps=false"])
        .output()
        .unwrap();

    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("scaffold record"),
        "{}",
        stdout(&output)
    );
    let merged = show(&dir, &output_branch(&dir), "Makefile");
    assert!(
        merged.contains(NEW_LINE) && merged.contains(USER_TARGET.trim()),
        "{merged}"
    );
}
