//! What every command does with a PROJECT file, Makefile or scaffolded
//! file that is not a plain file of the project: commands that do not need
//! PROJECT ignore it; the others, and init, refuse on one line and write
//! nothing, in the project or through a link outside it.

use crate::common;
use crate::common::{
    assert_refused, empty_project_dir, init_project, kb, kb_ok, read, snapshot_tree,
};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

/// A `create api` that needs PROJECT (no post-steps).
const CREATE_API: [&str; 9] = [
    "create",
    "api",
    "--group",
    "crew",
    "--version",
    "v1",
    "--kind",
    "Captain",
    "--make=false",
];

/// The commands that never read PROJECT.
const WITHOUT_PROJECT: [&[&str]; 6] = [
    &["--help"],
    &["help"],
    &["help", "create", "api"],
    &["create", "api", "--help"],
    &["version"],
    &["completion", "bash"],
];

/// `init` without dependency download or Go check.
const INIT: [&str; 7] = [
    "init",
    "--domain",
    "example.com",
    "--repo",
    "example.com/guestbook",
    "--fetch-deps=false",
    "--skip-go-version-check",
];

/// Runs `args` in `dir` and expects a one-line refusal holding `needle`.
/// (For trees that hold a link to nothing, which [`snapshot_tree`] cannot read.)
fn assert_fails(dir: &Path, args: &[&str], needle: &str) {
    let output = kb(dir).args(args).output().expect("run kubebuilder-rs");
    let message = common::stderr(&output);
    assert!(!output.status.success(), "{args:?} succeeded");
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(message.contains(needle), "{needle:?} not in: {message}");
}

#[test]
fn help_version_and_completion_work_whatever_project_holds() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    fs::write(dir.join("PROJECT"), ": : not yaml [").unwrap();
    for args in WITHOUT_PROJECT {
        kb_ok(&dir, args);
    }
    assert_refused(&dir, &CREATE_API, &[], &["PROJECT"]);
    fs::remove_file(dir.join("PROJECT")).unwrap();
    fs::create_dir(dir.join("PROJECT")).unwrap();
    for args in WITHOUT_PROJECT {
        kb_ok(&dir, args);
    }
}

#[test]
fn a_project_file_that_is_a_directory_or_a_dangling_link_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    fs::create_dir(dir.join("PROJECT")).unwrap();
    assert_refused(&dir, &CREATE_API, &[], &["PROJECT is a directory"]);
    assert_refused(&dir, &["edit", "--multigroup"], &[], &["is a directory"]);
    assert_refused(&dir, &INIT, &[], &["PROJECT is a directory"]);
    fs::remove_dir(dir.join("PROJECT")).unwrap();
    symlink(dir.join("missing.yaml"), dir.join("PROJECT")).unwrap();
    assert_fails(&dir, &CREATE_API, "symbolic link to a missing file");
    assert_fails(&dir, &INIT, "PROJECT is a symbolic link");
    let entries: Vec<_> = fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(
        fs::symlink_metadata(dir.join("PROJECT"))
            .unwrap()
            .is_symlink()
    );
}

#[test]
fn init_refuses_a_linked_project_makefile_or_main() {
    let (tmp, dir) = empty_project_dir("guestbook");
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    for name in ["PROJECT", "Makefile", "main.go"] {
        fs::write(elsewhere.join(name), "theirs\n").unwrap();
    }
    fs::create_dir(dir.join("cmd")).unwrap();
    for (name, target) in [
        ("PROJECT", "PROJECT"),
        ("Makefile", "Makefile"),
        ("cmd/main.go", "main.go"),
    ] {
        symlink(elsewhere.join(target), dir.join(name)).unwrap();
        let before = snapshot_tree(&elsewhere);
        let needle = format!("{name} is a symbolic link");
        assert_refused(&dir, &INIT, &["--force"], &[&needle]);
        assert_eq!(snapshot_tree(&elsewhere), before);
        fs::remove_file(dir.join(name)).unwrap();
    }
}

#[test]
fn no_command_writes_through_a_link_out_of_the_project() {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    let elsewhere = tmp.path().join("elsewhere");
    fs::rename(dir.join("config"), &elsewhere).unwrap();
    symlink(&elsewhere, dir.join("config")).unwrap();
    let outside = snapshot_tree(&elsewhere);
    assert_refused(
        &dir,
        &CREATE_API,
        &[],
        &["config is a symbolic link to", "outside the project"],
    );
    assert_eq!(snapshot_tree(&elsewhere), outside);

    fs::remove_file(dir.join("config")).unwrap();
    fs::rename(&elsewhere, dir.join("config")).unwrap();
    let main = tmp.path().join("main.go");
    fs::rename(dir.join("cmd/main.go"), &main).unwrap();
    symlink(&main, dir.join("cmd/main.go")).unwrap();
    let before = read(tmp.path(), "main.go");
    assert_refused(&dir, &CREATE_API, &[], &["cmd/main.go is a symbolic link"]);
    assert_eq!(read(tmp.path(), "main.go"), before);
}

#[test]
fn a_link_inside_the_project_is_followed() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    fs::rename(dir.join("config"), dir.join("deploy")).unwrap();
    symlink(dir.join("deploy"), dir.join("config")).unwrap();
    kb_ok(&dir, &CREATE_API);
    assert!(dir.join("deploy/crd/kustomization.yaml").is_file());
}

#[test]
fn only_a_whole_word_year_in_the_license_header_becomes_the_year() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--owner", "YEARLY Corp"]);
    let header = read(&dir, "hack/boilerplate.go.txt");
    assert!(header.contains("Copyright YEAR YEARLY Corp."), "{header}");
    kb_ok(&dir, &CREATE_API);
    let types = read(&dir, "api/v1/captain_types.go");
    let line = types.lines().nth(1).unwrap();
    let year = line.split_whitespace().nth(1).unwrap();
    assert!(year.parse::<u32>().is_ok(), "{line}");
    assert!(line.ends_with(" YEARLY Corp."), "{line}");
}
