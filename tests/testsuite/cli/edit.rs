//! CLI behaviour of `kubebuilder-rs edit`: switching the layout, the
//! manager's scope and the license header, and refusals that leave the
//! directory untouched.

use crate::common;
use crate::common::{empty_project_dir, init_project, kb, snapshot_tree, stderr, stdout, words};
use std::path::{Path, PathBuf};

/// Runs kubebuilder-rs with the words of `line` in `dir`, panicking on
/// failure; returns standard output.
fn kb_ok(dir: &Path, line: &str) -> String {
    common::kb_ok(dir, &words(line))
}

/// Expects `edit` with `args` to be refused with one line holding every
/// needle, leaving the directory byte for byte as it was.
fn assert_refused(dir: &Path, args: &[&str], needles: &[&str]) {
    common::assert_refused(dir, &["edit"], args, needles);
}

/// The commands that grow a freshly initialised project: a namespaced API, a
/// cluster-scoped one, a second controller, and webhooks.
const GROW: &[&str] = &[
    "create api --make=false --group crew --version v1 --kind Captain",
    "create api --make=false --group crew --version v1 --kind Admiral --namespaced=false",
    "create api --make=false --group crew --version v1 --kind Captain --controller-name captain-backup --resource=false",
    "create webhook --make=false --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
];

/// A project `guestbook` made by `init` with `init_flags`, grown by [`GROW`].
fn grown_project(init_flags: &str) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &words(init_flags));
    for line in GROW {
        kb_ok(&dir, line);
    }
    (tmp, dir)
}

/// A project made by `init` alone.
fn project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    (tmp, dir)
}

/// The paths whose content differs between two trees.
fn differing(dir: &Path, other: &Path) -> Vec<PathBuf> {
    let (a, b) = (snapshot_tree(dir), snapshot_tree(other));
    let mut paths: Vec<PathBuf> = a
        .keys()
        .chain(b.keys())
        .filter(|path| a.get(*path) != b.get(*path))
        .cloned()
        .collect();
    paths.dedup();
    paths
}

/// `edit --namespaced --force` turns a cluster-wide project into the one
/// `init --namespaced` and the same commands make, and switching back
/// restores every byte.
fn assert_namespaced_round_trip(init_flags: &str) {
    let (_tmp, dir) = grown_project(init_flags);
    let original = snapshot_tree(&dir);
    let (_tmp2, reference) = grown_project(&format!("{init_flags} --namespaced"));

    let out = kb_ok(&dir, "edit --namespaced --force");
    assert_eq!(differing(&dir, &reference), Vec::<PathBuf>::new());
    assert!(out.contains("update    cmd/main.go"), "{out}");
    assert!(out.contains("make manifests"), "{out}");
    assert!(out.contains("namespaceSelector"), "{out}");

    kb_ok(&dir, "edit --namespaced=false --force");
    assert!(
        snapshot_tree(&dir) == original,
        "switching back changed files"
    );
}

#[test]
fn namespaced_force_matches_init_namespaced_and_switches_back() {
    assert_namespaced_round_trip("");
}

#[test]
fn namespaced_force_in_a_multigroup_project() {
    assert_namespaced_round_trip("--multigroup");
}

#[test]
fn namespaced_without_force_changes_only_project_and_names_the_files() {
    let (_tmp, dir) = grown_project("");
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, "edit --namespaced");
    let after = snapshot_tree(&dir);
    let changed: Vec<&PathBuf> = before
        .keys()
        .filter(|path| before.get(*path) != after.get(*path))
        .collect();
    assert_eq!(changed, [Path::new("PROJECT")]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("\nnamespaced: true\n"), "{project}");
    for file in [
        "cmd/main.go",
        "config/manager/manager.yaml",
        "config/rbac/role.yaml",
        "config/rbac/role_binding.yaml",
        "internal/controller/captain_controller.go",
        "internal/controller/captain_backup_controller.go",
        "internal/controller/admiral_controller.go",
    ] {
        assert!(
            out.contains(&format!("\n  {file}\n")),
            "{file} not named:\n{out}"
        );
    }
    assert!(out.contains("edit --namespaced --force"), "{out}");

    // PROJECT already says namespaced; --force now rewrites the files.
    let (_tmp2, reference) = grown_project("--namespaced");
    kb_ok(&dir, "edit --namespaced --force");
    assert_eq!(differing(&dir, &reference), Vec::<PathBuf>::new());
    let again = kb_ok(&dir, "edit --namespaced --force");
    assert!(again.contains("already namespaced"), "{again}");
}

#[test]
fn hand_edited_lines_refuse_the_switch() {
    let (_tmp, dir) = grown_project("");
    let main = dir.join("cmd/main.go");
    let text = std::fs::read_to_string(&main).unwrap();
    let edited = text.replacen("\t\"flag\"\n", "\t\"flag\" // command-line flags\n", 1);
    assert_ne!(edited, text);
    std::fs::write(&main, edited).unwrap();
    assert_refused(
        &dir,
        &["--namespaced", "--force"],
        &["cmd/main.go", "namespaced", "by hand"],
    );
}

#[test]
fn refusals_change_nothing() {
    let (_tmp, empty) = empty_project_dir("guestbook");
    assert_refused(&empty, &["--multigroup"], &["PROJECT", "init"]);

    let (_tmp, dir) = project();
    assert_refused(
        &dir,
        &[],
        &["nothing to edit", "--multigroup", "--license-file"],
    );
    assert_refused(&dir, &["--force"], &["nothing to edit"]);
    assert_refused(
        &dir,
        &["--plugins", "declarative/v1", "--multigroup"],
        &["\"declarative/v1\"", "go/v4"],
    );
    assert_refused(&dir, &["--license", "mit"], &["\"mit\"", "apache2", "none"]);
    assert_refused(
        &dir,
        &["--license-file", "missing-header.txt"],
        &["--license-file", "missing-header.txt"],
    );
}

#[test]
fn own_layout_as_plugin_is_accepted_and_changes_nothing() {
    let (_tmp, dir) = project();
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, "edit --plugins go/v4");
    assert!(out.contains("nothing to change"), "{out}");
    kb_ok(&dir, "edit --plugins go.kubebuilder.io/v4");
    assert!(snapshot_tree(&dir) == before);
}

#[test]
fn multigroup_lists_the_moves_and_later_apis_use_group_directories() {
    let (_tmp, dir) = grown_project("");
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, "edit --multigroup");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("\nmultigroup: true\n"), "{project}");
    for line in [
        "  api/v1/ -> api/crew/v1/",
        "  internal/controller/captain_controller.go -> internal/controller/crew/",
        "  internal/controller/captain_controller_test.go -> internal/controller/crew/",
        "  internal/controller/captain_backup_controller.go -> internal/controller/crew/",
        "  internal/controller/admiral_controller.go -> internal/controller/crew/",
        "  internal/controller/suite_test.go -> internal/controller/crew/",
        "  internal/webhook/v1/ -> internal/webhook/crew/v1/",
    ] {
        assert!(
            out.contains(&format!("{line}\n")),
            "{line:?} not in:\n{out}"
        );
    }
    assert!(out.contains("import paths"), "{out}");
    let after = snapshot_tree(&dir);
    assert!(
        before
            .keys()
            .all(|p| p == Path::new("PROJECT") || before.get(p) == after.get(p)),
        "edit --multigroup changed more than PROJECT"
    );

    let again = kb_ok(&dir, "edit --multigroup");
    assert!(again.contains("already multigroup"), "{again}");

    kb_ok(
        &dir,
        "create api --make=false --group sea --version v1 --kind Ship",
    );
    assert!(dir.join("api/sea/v1/ship_types.go").is_file());
    assert!(
        dir.join("internal/controller/sea/ship_controller.go")
            .is_file()
    );
    assert!(
        dir.join("api/v1/captain_types.go").is_file(),
        "old files moved"
    );
    let main = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap();
    assert!(
        main.contains("\"example.com/guestbook/api/sea/v1\""),
        "{main}"
    );

    let back = kb_ok(&dir, "edit --multigroup=false");
    assert!(back.contains("  api/sea/v1/ -> api/v1/\n"), "{back}");
    assert!(
        back.contains("  internal/controller/sea/ship_controller.go -> internal/controller/\n"),
        "{back}"
    );
}

#[test]
fn license_header_is_rewritten_as_init_writes_it() {
    let (_tmp, dir) = project();
    let header = || std::fs::read_to_string(dir.join("hack/boilerplate.go.txt")).unwrap();
    let main_before = std::fs::read(dir.join("cmd/main.go")).unwrap();

    let (_tmp2, reference) = empty_project_dir("guestbook");
    init_project(&reference, &["--owner", "Example Corp"]);
    let expected = std::fs::read_to_string(reference.join("hack/boilerplate.go.txt")).unwrap();
    assert!(
        expected.contains("Copyright YEAR Example Corp."),
        "{expected}"
    );

    let out = kb(&dir)
        .args(["edit", "--license", "apache2", "--owner", "Example Corp"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(header(), expected);
    assert!(
        stdout(&out).contains("keep their header"),
        "{}",
        stdout(&out)
    );

    kb_ok(&dir, "edit --license none");
    assert_eq!(header(), "");

    let custom = dir.join("header.txt");
    std::fs::write(&custom, "// Copyright YEAR the shipwrights.\n").unwrap();
    let out = kb(&dir)
        .args(["edit", "--license", "none", "--license-file"])
        .arg(&custom)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(header(), "// Copyright YEAR the shipwrights.\n");

    let out = kb(&dir)
        .args(["edit", "--owner", "Example Corp"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(header(), expected, "--owner alone means apache2");

    assert_eq!(std::fs::read(dir.join("cmd/main.go")).unwrap(), main_before);
}

#[test]
fn dry_run_shows_the_diffs_and_writes_nothing() {
    let (_tmp, dir) = grown_project("");
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, "edit --namespaced --force --multigroup --dry-run");
    assert!(snapshot_tree(&dir) == before, "a dry run wrote files");
    for needle in [
        "update    cmd/main.go",
        "--- a/cmd/main.go",
        "+\t\"fmt\"\n",
        "-kind: ClusterRoleBinding\n+kind: RoleBinding\n",
        "+namespaced: true\n",
        "+multigroup: true\n",
        "dry run: nothing was written",
    ] {
        assert!(out.contains(needle), "{needle:?} not in:\n{out}");
    }
}
