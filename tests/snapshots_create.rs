//! Snapshots of what `create api` and `create webhook` add to a project:
//! every new file in full, and a diff of every file they edit.

mod common;

use common::{empty_project_dir, init_project, kb, snapshot_tree, stderr, words};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs kubebuilder-rs `args` (with `--make=false`) and panics on failure.
fn run(dir: &Path, args: &[&str]) {
    let output = kb(dir).args(args).arg("--make=false").output().unwrap();
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        stderr(&output)
    );
}

/// Snapshots what running `args` changes in `dir`, under names starting with `prefix`.
fn snapshot_command(dir: &Path, prefix: &str, args: &[&str]) {
    let before = snapshot_tree(dir);
    run(dir, args);
    let after = snapshot_tree(dir);
    let text = |bytes: &Vec<u8>| String::from_utf8(bytes.clone()).expect("text file");
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"Copyright \d{4}", "Copyright [year]");
    settings.add_filter(r"cliVersion: \S+", "cliVersion: [version]");
    settings.set_prepend_module_to_snapshot(false);
    let new_files: BTreeMap<&PathBuf, String> = after
        .iter()
        .filter(|(path, _)| !before.contains_key(*path) && !path.to_string_lossy().ends_with('/'))
        .map(|(path, bytes)| (path, text(bytes)))
        .collect();
    let mut edits = String::new();
    for (path, bytes) in after
        .iter()
        .filter(|(p, b)| before.get(*p).is_some_and(|old| old != *b))
    {
        let label = path.display().to_string();
        let diff = similar::TextDiff::from_lines(text(&before[path]), text(bytes))
            .unified_diff()
            .header(&label, &label)
            .to_string();
        edits.push_str(&diff);
    }
    settings.bind(|| {
        for (path, contents) in &new_files {
            let name = format!("{prefix}__{}", path.display()).replace('/', "__");
            insta::assert_snapshot!(name, contents);
        }
        insta::assert_snapshot!(format!("{prefix}__edits"), edits);
    });
}

#[test]
fn create_api_single_group() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--owner", "The Guestbook Authors"]);
    snapshot_command(
        &dir,
        "api_captain",
        &words("create api --group crew --version v1 --kind Captain"),
    );
    snapshot_command(
        &dir,
        "api_captain_backup",
        &words(
            "create api --group crew --version v1 --kind Captain --controller-name captain-backup --resource=false",
        ),
    );
    snapshot_command(
        &dir,
        "api_admiral_cluster",
        &words(
            "create api --group crew --version v1 --kind Admiral --namespaced=false --plural admirales",
        ),
    );
    snapshot_command(
        &dir,
        "api_deployment_core",
        &words(
            "create api --group apps --version v1 --kind Deployment --resource=false --controller",
        ),
    );
}

#[test]
fn create_api_multigroup() {
    let (_tmp, dir) = empty_project_dir("fleet");
    init_project(&dir, &["--owner", "The Fleet Authors", "--multigroup"]);
    snapshot_command(
        &dir,
        "api_multigroup_policy",
        &words("create api --group foo.policy --version v1 --kind HealthCheckPolicy"),
    );
}

#[test]
fn create_webhook_single_group() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--owner", "The Guestbook Authors"]);
    run(
        &dir,
        &words("create api --group crew --version v1 --kind FirstMate"),
    );
    run(
        &dir,
        &words("create api --group crew --version v2 --kind FirstMate --controller=false"),
    );
    snapshot_command(
        &dir,
        "webhook_firstmate_defaulting_validation",
        &words(
            "create webhook --group crew --version v1 --kind FirstMate --defaulting --programmatic-validation",
        ),
    );
    snapshot_command(
        &dir,
        "webhook_firstmate_conversion",
        &words("create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2"),
    );
    snapshot_command(
        &dir,
        "webhook_pod_core",
        &words("create webhook --group core --version v1 --kind Pod --defaulting"),
    );
}
