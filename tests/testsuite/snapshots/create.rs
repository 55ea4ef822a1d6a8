//! Snapshots of what `create api` and `create webhook` add to a project:
//! every new file in full, and a diff of every file they edit.

use crate::common;
use crate::common::{empty_project_dir, init_project, kb, stderr, words};
use std::path::Path;

/// Runs kubebuilder-rs `args` (with `--make=false`) and panics on failure.
fn run(dir: &Path, args: &[&str]) {
    let output = kb(dir).args(args).arg("--make=false").output().unwrap();
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        stderr(&output)
    );
}

/// Snapshots what `args` (with `--make=false`) changes in `dir`.
fn snapshot_command_with_make_off(dir: &Path, prefix: &str, args: &[&str]) {
    let mut args = args.to_vec();
    args.push("--make=false");
    common::snapshot_command(dir, prefix, &args);
}

#[test]
fn create_api_single_group() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--owner", "The Guestbook Authors"]);
    snapshot_command_with_make_off(
        &dir,
        "api_captain",
        &words("create api --group crew --version v1 --kind Captain"),
    );
    snapshot_command_with_make_off(
        &dir,
        "api_captain_backup",
        &words(
            "create api --group crew --version v1 --kind Captain --controller-name captain-backup --resource=false",
        ),
    );
    snapshot_command_with_make_off(
        &dir,
        "api_admiral_cluster",
        &words(
            "create api --group crew --version v1 --kind Admiral --namespaced=false --plural admirales",
        ),
    );
    snapshot_command_with_make_off(
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
    snapshot_command_with_make_off(
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
    snapshot_command_with_make_off(
        &dir,
        "webhook_firstmate_defaulting_validation",
        &words(
            "create webhook --group crew --version v1 --kind FirstMate --defaulting --programmatic-validation",
        ),
    );
    snapshot_command_with_make_off(
        &dir,
        "webhook_firstmate_conversion",
        &words("create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2"),
    );
    snapshot_command_with_make_off(
        &dir,
        "webhook_pod_core",
        &words("create webhook --group core --version v1 --kind Pod --defaulting"),
    );
}
