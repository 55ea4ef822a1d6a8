//! CLI behaviour of `kubebuilder-rs create webhook`: refusals that leave the
//! directory untouched, and incremental calls that end where one call does.

mod common;

use common::{empty_project_dir, init_project, kb, snapshot_tree, stderr, words};
use std::path::Path;

/// Runs kubebuilder-rs with `--make=false` appended, panicking on failure.
fn kb_ok(dir: &Path, args: &[&str]) {
    let output = kb(dir).args(args).arg("--make=false").output().unwrap();
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        stderr(&output)
    );
}

/// Expects `create webhook` with `args` to be refused with one line holding
/// every needle, leaving the directory byte for byte as it was.
fn assert_refused(dir: &Path, args: &[&str], needles: &[&str]) {
    common::assert_refused(dir, &["create", "webhook", "--make=false"], args, needles);
}

/// A project with crew/v1 Captain, and FirstMate at v1 and v2.
fn project_with_apis() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain"),
    );
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind FirstMate"),
    );
    kb_ok(
        &dir,
        &words("create api --group crew --version v2 --kind FirstMate --controller=false"),
    );
    (tmp, dir)
}

const CAPTAIN: &[&str] = &["--group", "crew", "--version", "v1", "--kind", "Captain"];

#[test]
fn bad_requests_are_refused() {
    let (_tmp, dir) = project_with_apis();
    let with = |extra: &[&'static str]| [CAPTAIN, extra].concat();
    assert_refused(
        &dir,
        CAPTAIN,
        &["--defaulting", "--programmatic-validation", "--conversion"],
    );
    assert_refused(
        &dir,
        &words("--group crew --version v1 --kind Bosun --defaulting"),
        &["no API crew/v1 Bosun"],
    );
    assert_refused(
        &dir,
        &with(&["--defaulting", "--spoke", "v2"]),
        &["--spoke", "--conversion"],
    );
    let first_mate = [
        "--group",
        "crew",
        "--version",
        "v1",
        "--kind",
        "FirstMate",
        "--conversion",
    ];
    assert_refused(
        &dir,
        &[&first_mate[..], &["--spoke", "v1"]].concat(),
        &["v1", "hub"],
    );
    assert_refused(
        &dir,
        &[&first_mate[..], &["--spoke", "v3"]].concat(),
        &["v3", "no API"],
    );
    assert_refused(
        &dir,
        &with(&["--defaulting", "--defaulting-path", "mutate-captain"]),
        &["mutate-captain", "'/'"],
    );
    assert_refused(
        &dir,
        &with(&["--programmatic-validation", "--validation-path=/bad path"]),
        &["/bad path"],
    );
    assert_refused(
        &dir,
        &words("--group apps --version v1 --kind Deploymint --defaulting"),
        &["Deploymint"],
    );
}

#[test]
fn missing_marker_is_named() {
    let (_tmp, dir) = project_with_apis();
    let main = dir.join("cmd/main.go");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        text.replace("// +kubebuilder:scaffold:builder", "// builder"),
    )
    .unwrap();
    assert_refused(
        &dir,
        &[CAPTAIN, &["--defaulting"]].concat(),
        &["cmd/main.go", "+kubebuilder:scaffold:builder"],
    );
}

#[test]
fn existing_webhook_is_refused_without_force() {
    let (_tmp, dir) = project_with_apis();
    kb_ok(
        &dir,
        &[&["create", "webhook"][..], CAPTAIN, &["--defaulting"]].concat(),
    );
    assert_refused(
        &dir,
        &[CAPTAIN, &["--defaulting"]].concat(),
        &["defaulting webhook", "already exists"],
    );
}

#[test]
fn two_calls_end_where_one_call_does() {
    let (_tmp, one_call) = project_with_apis();
    kb_ok(
        &one_call,
        &[
            &["create", "webhook"][..],
            CAPTAIN,
            &["--defaulting", "--programmatic-validation"],
        ]
        .concat(),
    );
    let (_tmp2, two_calls) = project_with_apis();
    kb_ok(
        &two_calls,
        &[&["create", "webhook"][..], CAPTAIN, &["--defaulting"]].concat(),
    );
    kb_ok(
        &two_calls,
        &[
            &["create", "webhook"][..],
            CAPTAIN,
            &["--programmatic-validation"],
        ]
        .concat(),
    );
    let a = snapshot_tree(&one_call);
    let b = snapshot_tree(&two_calls);
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "different files"
    );
    for (path, bytes) in &a {
        assert!(
            bytes == &b[path],
            "{} differs between one call and two",
            path.display()
        );
    }
    let project = std::fs::read_to_string(one_call.join("PROJECT")).unwrap();
    assert!(
        project.contains(
            "  webhooks:\n    defaulting: true\n    validation: true\n    webhookVersion: v1\n"
        ),
        "{project}"
    );
    let default =
        std::fs::read_to_string(one_call.join("config/default/kustomization.yaml")).unwrap();
    assert!(
        default.contains("\n- ../webhook\n") && default.contains("\n- ../certmanager\n"),
        "{default}"
    );
}

#[test]
fn a_multigroup_conversion_patch_is_named_after_group_and_plural() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--multigroup"]);
    for line in [
        "create api --group crew --version v1 --kind Captain",
        "create api --group crew --version v2 --kind Captain --controller=false",
        "create webhook --group crew --version v1 --kind Captain --conversion --spoke v2",
    ] {
        kb_ok(&dir, &words(line));
    }
    let patches = dir.join("config/crd/patches");
    assert!(patches.join("webhook_in_crew_captains.yaml").is_file());
    assert!(!patches.join("webhook_in_captains.yaml").exists());
    let crd = std::fs::read_to_string(dir.join("config/crd/kustomization.yaml")).unwrap();
    assert!(
        crd.contains("- path: patches/webhook_in_crew_captains.yaml\n"),
        "{crd}"
    );
}
