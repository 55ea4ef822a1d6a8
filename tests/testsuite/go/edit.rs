//! `edit --namespaced --force` on a project grown with the real Go toolchain:
//! after the switch, controller-gen writes a namespaced Role, the project
//! builds and its tests pass against envtest; switching back gives the
//! original tree byte for byte.
//!
//! Needs Go, the module proxy and the control plane (KUBEBUILDER_ASSETS), so
//! it is ignored by a plain `cargo test` and run by `scripts/test-all`.

use crate::common::{kb_ok, kb_with_make, persistent_project_dir, run_ok, snapshot_tree, words};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The project's files, without what builds and tests leave behind.
fn source_tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot_tree(dir)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("bin") && !path.ends_with("cover.out"))
        .collect()
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn namespaced_switch_builds_tests_and_switches_back() {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let dir = persistent_project_dir("shipyard");
    kb_ok(
        &dir,
        &words("init --domain example.com --repo example.com/shipyard"),
    );
    kb_with_make(
        &dir,
        &words("create api --group crew --version v1 --kind Captain"),
    );
    kb_with_make(
        &dir,
        &words(
            "create api --group apps --version v1 --kind Deployment --resource=false --controller",
        ),
    );
    kb_with_make(
        &dir,
        &words(
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        ),
    );
    run_ok(&dir, "make", &["manifests"]);
    let role = || std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role().contains("\nkind: ClusterRole\n"), "{}", role());
    let cluster_wide = source_tree(&dir);

    kb_ok(&dir, &words("edit --namespaced --force"));
    run_ok(&dir, "make", &["manifests"]);
    assert!(
        role().contains(
            "\nkind: Role\nmetadata:\n  name: manager-role\n  namespace: shipyard-system\n"
        ),
        "controller-gen wrote no namespaced Role:\n{}",
        role()
    );
    assert!(!role().contains("ClusterRole"), "{}", role());
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "make", &["test"]);

    kb_ok(&dir, &words("edit --namespaced=false --force"));
    run_ok(&dir, "make", &["manifests"]);
    let back = source_tree(&dir);
    let differing: Vec<&PathBuf> = cluster_wide
        .keys()
        .chain(back.keys())
        .filter(|path| cluster_wide.get(*path) != back.get(*path))
        .collect();
    assert!(
        differing.is_empty(),
        "switching back changed: {differing:?}"
    );
}
