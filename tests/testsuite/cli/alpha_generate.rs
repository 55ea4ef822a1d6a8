//! `alpha generate`: re-scaffolding from PROJECT gives back the tree the
//! original commands wrote, in place (with a backup) or into a new
//! directory, and every refusal leaves both directories as they were.

use crate::common::sequences::{MULTIGROUP, SINGLE_GROUP};
use crate::common::{
    assert_refused_in, assert_same_files, empty_project_dir, init_project, kb, kb_ok, read,
    snapshot_tree, stderr, words,
};
use std::path::{Path, PathBuf};

/// A project grown by `init` (with `init_flags`) and `sequence`, all without
/// post-steps.
fn grown_project(
    name: &str,
    init_flags: &[&str],
    sequence: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir(name);
    init_project(&dir, init_flags);
    for line in sequence {
        let mut args = words(line);
        args.push("--make=false");
        kb_ok(&dir, &args);
    }
    (tmp, dir)
}

/// Runs `alpha generate` in `cwd` with `args` and expects a one-line
/// refusal containing every needle, with nothing below `watched` changed.
fn assert_generate_refused(cwd: &Path, args: &[&str], needles: &[&str], watched: &Path) {
    let command = ["alpha", "generate", "--make=false"];
    assert_refused_in(cwd, watched, &command, args, needles);
}

#[test]
fn a_single_group_project_comes_back_file_for_file() {
    let (tmp, dir) = grown_project("ship", &[], SINGLE_GROUP);
    let out = tmp.path().join("regenerated");
    let printed = kb_ok(
        tmp.path(),
        &[
            "alpha",
            "generate",
            "--input-dir",
            "ship",
            "--output-dir",
            "regenerated",
            "--make=false",
        ],
    );
    assert!(printed.contains("no file differs"), "{printed}");
    let original = assert_same_files(&dir, &out);
    assert!(original.len() > 90, "only {} entries", original.len());
}

#[test]
fn a_multigroup_project_is_regenerated_in_place_with_a_backup() {
    let (tmp, dir) = grown_project("fleet", &["--multigroup"], MULTIGROUP);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "mine\n").unwrap();
    let main_go = dir.join("cmd/main.go");
    let scaffolded_main = std::fs::read_to_string(&main_go).unwrap();
    std::fs::write(&main_go, format!("{scaffolded_main}// my change\n")).unwrap();
    let original = snapshot_tree(&dir);

    let printed = kb_ok(&dir, &["alpha", "generate", "--make=false"]);

    let backups: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("fleet-backup-")
        })
        .collect();
    assert_eq!(backups.len(), 1, "{printed}");
    let backup = &backups[0];
    assert!(printed.contains(&backup.display().to_string()), "{printed}");
    // The backup holds the original files (git data stays in the project).
    let mut expected_backup = original.clone();
    expected_backup.retain(|path, _| !path.starts_with(".git"));
    assert_eq!(snapshot_tree(backup), expected_backup);
    // The new tree is the scaffold: the hand-made change and file are gone,
    // everything else is as the commands wrote it.
    let regenerated = snapshot_tree(&dir);
    assert_eq!(std::fs::read_to_string(&main_go).unwrap(), scaffolded_main);
    let mut expected = original;
    expected.remove(Path::new("notes.txt"));
    expected.insert("cmd/main.go".into(), scaffolded_main.into_bytes());
    assert_eq!(regenerated, expected);
    assert!(
        printed.contains("changed               cmd/main.go"),
        "{printed}"
    );
    assert!(
        printed.contains("only in the original  notes.txt"),
        "{printed}"
    );
}

#[test]
fn dry_run_lists_the_differences_and_writes_nothing() {
    let (tmp, dir) = grown_project("ship", &[], &SINGLE_GROUP[..3]);
    std::fs::remove_file(dir.join("Dockerfile")).unwrap();
    let before = snapshot_tree(tmp.path());
    let printed = kb_ok(&dir, &["alpha", "generate", "--make=false", "--dry-run"]);
    assert!(
        printed.contains("new                   Dockerfile"),
        "{printed}"
    );
    assert!(printed.contains("dry run"), "{printed}");
    assert_eq!(snapshot_tree(tmp.path()), before);
}

#[test]
fn license_header_and_unknown_project_keys_are_kept() {
    let (tmp, dir) = grown_project("ship", &["--license", "none"], &SINGLE_GROUP[..1]);
    std::fs::write(
        dir.join("hack/boilerplate.go.txt"),
        "// Copyright YEAR Sailors.\n",
    )
    .unwrap();
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let with_plugin = project.replace(
        "projectName:",
        "plugins:\n  example.com/unknown-plugin/v1:\n    setting: kept\nprojectName:",
    );
    std::fs::write(dir.join("PROJECT"), &with_plugin).unwrap();
    let output = kb(tmp.path())
        .args([
            "alpha",
            "generate",
            "--make=false",
            "--input-dir",
            "ship",
            "--output-dir",
            "new",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("plugins"), "{}", stderr(&output));
    let new = tmp.path().join("new");
    assert_eq!(
        std::fs::read_to_string(new.join("hack/boilerplate.go.txt")).unwrap(),
        "// Copyright YEAR Sailors.\n"
    );
    let types = std::fs::read_to_string(new.join("api/v1/captain_types.go")).unwrap();
    assert!(types.starts_with("// Copyright 2"), "{}", &types[..60]);
    assert_eq!(
        std::fs::read_to_string(new.join("PROJECT")).unwrap(),
        with_plugin
    );
}

#[test]
fn a_project_file_is_required() {
    let (tmp, dir) = empty_project_dir("empty");
    assert_generate_refused(&dir, &[], &["no PROJECT file", "empty"], tmp.path());
    assert_generate_refused(
        tmp.path(),
        &["--input-dir", "missing", "--output-dir", "out"],
        &["no PROJECT file", "missing"],
        tmp.path(),
    );
}

#[test]
fn unknown_layouts_and_plugins_are_refused() {
    let (tmp, dir) = grown_project("ship", &[], &[]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    std::fs::write(
        dir.join("PROJECT"),
        project.replace("go.kubebuilder.io/v4", "go.kubebuilder.io/v5"),
    )
    .unwrap();
    assert_generate_refused(&dir, &[], &["go.kubebuilder.io/v5", "go/v4"], tmp.path());

    std::fs::write(
        dir.join("PROJECT"),
        project.replace(
            "- go.kubebuilder.io/v4\n",
            "- go.kubebuilder.io/v4\n- declarative.go.kubebuilder.io/v1\n",
        ),
    )
    .unwrap();
    assert_generate_refused(
        &dir,
        &[],
        &["declarative.go.kubebuilder.io/v1", "cannot re-scaffold"],
        tmp.path(),
    );
}

#[test]
fn a_non_empty_output_dir_is_refused() {
    let (tmp, dir) = grown_project("ship", &[], &[]);
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "x").unwrap();
    assert_generate_refused(
        &dir,
        &["--output-dir", out.to_str().unwrap()],
        &["--output-dir", "out", "not empty"],
        tmp.path(),
    );
    // The project's own directory is not empty either.
    assert_generate_refused(&dir, &["--output-dir", "."], &["not empty"], tmp.path());
}

#[test]
fn a_project_that_cannot_be_replayed_changes_nothing() {
    let (tmp, dir) = grown_project("ship", &[], &SINGLE_GROUP[..1]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    // A conversion webhook whose spoke version PROJECT does not have.
    let broken = project.replace(
        "  version: v1\n",
        "  version: v1\n  webhooks:\n    conversion: true\n    spoke:\n    - v9\n    webhookVersion: v1\n",
    );
    std::fs::write(dir.join("PROJECT"), broken).unwrap();
    assert_generate_refused(&dir, &[], &["Captain", "v9"], tmp.path());
    assert_generate_refused(
        &dir,
        &["--output-dir", "../out"],
        &["Captain", "v9"],
        tmp.path(),
    );
    assert!(!tmp.path().join("out").exists());

    std::fs::write(
        dir.join("PROJECT"),
        project.replace("repo: example.com/guestbook\n", ""),
    )
    .unwrap();
    assert_generate_refused(&dir, &[], &["no `repo`"], tmp.path());
}

#[test]
fn old_go_layouts_are_regenerated_as_go_v4() {
    let (tmp, dir) = grown_project("ship", &[], &SINGLE_GROUP[..1]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    for old in ["v2", "v3", "v3-alpha", "v4-alpha"] {
        let key = format!("go.kubebuilder.io/{old}");
        let old_project = project.replace("go.kubebuilder.io/v4", &key);
        std::fs::write(dir.join("PROJECT"), &old_project).unwrap();
        let out = format!("new-{old}");
        let output = kb(tmp.path())
            .args(["alpha", "generate", "--make=false", "--input-dir", "ship"])
            .args(["--output-dir", &out])
            .output()
            .unwrap();
        assert!(output.status.success(), "{key}: {}", stderr(&output));
        assert!(stderr(&output).contains(&key), "{}", stderr(&output));
        // The new PROJECT records go/v4; the original is left as it was.
        let new_project = std::fs::read_to_string(tmp.path().join(&out).join("PROJECT"));
        assert_eq!(new_project.unwrap(), project, "{key}");
        assert_eq!(read(&dir, "PROJECT"), old_project);
    }
}

#[test]
fn in_place_means_the_input_dir_and_keeps_the_grafana_metrics_config() {
    let (tmp, dir) = grown_project("ship", &[], &SINGLE_GROUP[..1]);
    kb_ok(&dir, &["edit", "--plugins", "grafana/v1-alpha"]);
    let config = "customMetrics:\n  - metric: ship_voyages_total\n    type: counter\n";
    std::fs::write(dir.join("grafana/custom-metrics/config.yaml"), config).unwrap();
    let dashboard = "grafana/custom-metrics/custom-metrics-dashboard.json";
    assert!(!dir.join(dashboard).exists());

    // Run from the parent: without --output-dir, the project is regenerated
    // where --input-dir points, not in the current directory.
    kb_ok(
        tmp.path(),
        &["alpha", "generate", "--make=false", "--input-dir", "ship"],
    );
    let mut entries: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(entries[0], "ship");
    assert!(entries[1].starts_with("ship-backup-"), "{entries:?}");
    assert_eq!(read(&dir, "grafana/custom-metrics/config.yaml"), config);
    assert!(read(&dir, dashboard).contains("ship_voyages_total"));
}
