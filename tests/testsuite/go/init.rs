//! The project that `init` generates, checked with the real Go toolchain:
//! it downloads its dependencies, builds, vets, lints, generates manifests
//! and renders its kustomize tree.
//!
//! Needs Go and the Go module proxy, so it is ignored by a plain
//! `cargo test` and run by the README's test command (`scripts/test-all`).

use crate::common::{kb, persistent_project_dir, run_ok, shared_tools_bin, stderr};

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn fresh_init_builds_vets_lints_and_deploys_as_yaml() {
    let dir = persistent_project_dir("guestbook");
    let output = kb(&dir)
        .args([
            "init",
            "--domain",
            "example.com",
            "--repo",
            "example.com/guestbook",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "init failed: {}", stderr(&output));
    assert!(dir.join("go.sum").is_file(), "go mod tidy did not run");
    // As written, before any `make fmt`: `make lint` runs gofmt too.
    let unformatted = run_ok(&dir, "gofmt", &["-l", "."]);
    assert!(
        unformatted.trim().is_empty(),
        "init wrote Go files gofmt would change:\n{unformatted}"
    );

    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "go", &["vet", "./..."]);
    run_ok(&dir, "go", &["vet", "-tags", "e2e", "./..."]);
    run_ok(&dir, "make", &["build"]);
    assert!(
        dir.join("bin/manager").is_file(),
        "make build made no bin/manager"
    );
    run_ok(&dir, "make", &["manifests"]);
    run_ok(&dir, "make", &["lint"]);
    run_ok(&dir, "make", &["kustomize"]);

    // With KUBEBUILDER_ASSETS set (scripts/test-all sets it to the control
    // plane built from source), `make test` must not call setup-envtest.
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let test_output = run_ok(&dir, "make", &["test"]);
    assert!(
        !test_output.contains("setup-envtest use"),
        "make test called setup-envtest although KUBEBUILDER_ASSETS was set:\n{test_output}"
    );

    let kustomize = shared_tools_bin().join("kustomize");
    let yaml = run_ok(
        &dir,
        kustomize.to_str().unwrap(),
        &["build", "config/default"],
    );
    for needle in [
        "kind: Namespace\nmetadata:",
        "name: guestbook-system",
        "name: guestbook-controller-manager",
        "kind: Deployment",
        "kind: ClusterRole",
        "name: guestbook-controller-manager-metrics-service",
    ] {
        assert!(
            yaml.contains(needle),
            "{needle:?} missing from kustomize output"
        );
    }
}

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn namespaced_init_builds_and_uses_namespaced_rbac() {
    let dir = persistent_project_dir("fleet");
    let output = kb(&dir)
        .args([
            "init",
            "--domain",
            "example.com",
            "--repo",
            "example.com/fleet",
        ])
        .args(["--namespaced", "--multigroup", "--license", "none"])
        .output()
        .unwrap();
    assert!(output.status.success(), "init failed: {}", stderr(&output));
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "go", &["vet", "./..."]);
    run_ok(&dir, "make", &["manifests"]);
    let kustomize = shared_tools_bin().join("kustomize");
    let yaml = run_ok(
        &dir,
        kustomize.to_str().unwrap(),
        &["build", "config/default"],
    );
    assert!(
        yaml.contains("WATCH_NAMESPACE"),
        "manager does not get WATCH_NAMESPACE"
    );
    assert!(
        yaml.contains("kind: RoleBinding\nmetadata:\n  labels:"),
        "no namespaced binding"
    );
}
