//! deploy-image/v1-alpha in a rust/v1-alpha project: the same command line
//! as for go/v4 (`--make` included) gives a kube-rs controller that runs
//! the image (snapshot of the quick-start Memcached), a kind given only an
//! image, the manager's environment and the PROJECT entry, refusals that
//! leave the project as it was, `--dry-run`, and `alpha generate` replaying
//! the plugin from PROJECT.

use crate::common::{
    assert_holds, assert_refused, assert_same_files, empty_project_dir, kb_ok, read,
    snapshot_command, snapshot_tree, words,
};
use serde_norway::Value;
use std::path::PathBuf;

/// kubebuilder's quick-start `create api`, without `make manifests`.
const MEMCACHED: &str = "create api --group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19 --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001 --make=false --manifests=false";

/// A second kind given only an image.
const BUSYBOX: &str = "create api --group cache --version v1alpha1 --kind Busybox --plugins deploy-image/v1-alpha --image busybox:1.36.1 --manifests=false";

/// A new rust/v1-alpha project.
fn rust_project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("memcached-operator");
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    (tmp, dir)
}

/// A Rust project with both kinds.
fn project_with_both_kinds() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = rust_project();
    kb_ok(&dir, &words(MEMCACHED));
    kb_ok(&dir, &words(BUSYBOX));
    (tmp, dir)
}

#[test]
fn the_quick_start_kind_gets_a_kube_rs_controller_for_its_image() {
    let (_tmp, dir) = rust_project();
    snapshot_command(&dir, "rust_deploy_image_memcached", &words(MEMCACHED));

    let controller = read(&dir, "src/controller/memcached.rs");
    assert_holds(
        "src/controller/memcached.rs",
        &controller,
        &[
            "pub const IMAGE_ENV_VAR: &str = \"MEMCACHED_IMAGE\";",
            "pub const FINALIZER: &str = \"cache.example.com/finalizer\";",
            "\"memcached\".to_string(),\n            \"--memory-limit=64\".to_string(),",
            "container_port: object.spec.container_port(),",
            "run_as_user: Some(1001),",
            "controller::rule(\"apps\", &[\"deployments\"], ALL_VERBS),",
            "runner.owns(runner.watch(objects), deployments)",
            "finalizer(&api, FINALIZER, object,",
        ],
    );
    let types = read(&dir, "src/api/v1alpha1/memcached.rs");
    assert_holds(
        "src/api/v1alpha1/memcached.rs",
        &types,
        &[
            "pub size: Option<i32>,",
            "pub container_port: Option<i32>,",
            "extend(\"default\" = 11211)",
            "pub conditions: Vec<Condition>,",
        ],
    );
    // The layout wires the controller in as for any other kind.
    assert_holds(
        "src/main.rs",
        &read(&dir, "src/main.rs"),
        &["controller::memcached::run(client.clone(), shutdown.clone())"],
    );
    let sample: Value =
        serde_norway::from_str(&read(&dir, "config/samples/cache_v1alpha1_memcached.yaml"))
            .unwrap();
    assert_eq!(sample["spec"]["containerPort"].as_i64(), Some(11211));
}

#[test]
fn a_kind_with_only_an_image_gets_no_port_command_or_user() {
    let (_tmp, dir) = project_with_both_kinds();
    let types = read(&dir, "src/api/v1alpha1/busybox.rs");
    assert!(!types.contains("container_port"), "{types}");
    let controller = read(&dir, "src/controller/busybox.rs");
    assert_holds(
        "src/controller/busybox.rs",
        &controller,
        &["\"BUSYBOX_IMAGE\"", "run_as_non_root: Some(true)"],
    );
    for absent in ["command:", "ports:", "run_as_user:"] {
        assert!(!controller.contains(absent), "{absent} in:\n{controller}");
    }
}

#[test]
fn the_manager_gets_each_image_and_project_records_each_kind() {
    let (_tmp, dir) = project_with_both_kinds();
    assert_holds(
        "config/manager/manager.yaml",
        &read(&dir, "config/manager/manager.yaml"),
        &[
            "        env:\n        - name: BUSYBOX_IMAGE\n          value: busybox:1.36.1\n        - name: MEMCACHED_IMAGE\n          value: memcached:1.6.26-alpine3.19\n",
        ],
    );
    let project: Value = serde_norway::from_str(&read(&dir, "PROJECT")).unwrap();
    let recorded = &project["plugins"]["deploy-image.go.kubebuilder.io/v1-alpha"]["resources"];
    let kinds: Vec<&str> = recorded
        .as_sequence()
        .expect("the plugin's resources in PROJECT")
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["Memcached", "Busybox"]);
    assert_eq!(recorded[0]["options"]["runAsUser"].as_str(), Some("1001"));
    let layout: Vec<&str> = project["layout"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(
        layout,
        [
            "base.rust.kubebuilder-rs.io/v1-alpha",
            "kustomize.common.kubebuilder.io/v2"
        ]
    );
}

#[test]
fn bad_values_are_refused_in_one_line_and_nothing_is_written() {
    let (_tmp, dir) = rust_project();
    let create =
        words("create api --group cache --version v1alpha1 --kind Memcached --manifests=false");
    let plugin = ["--plugins", "deploy-image/v1-alpha"];
    for (args, needles) in [
        (&[][..], &["needs --image"][..]),
        (
            &["--image", "x:1", "--image-container-port", "http"],
            &["\"http\" is not a port"],
        ),
        (
            &["--image", "x:1", "--namespaced=false"],
            &["needs a namespaced kind"],
        ),
        (
            &["--image", "x:1", "--controller=false"],
            &["--controller=false"],
        ),
    ] {
        let all: Vec<&str> = plugin.iter().chain(args).copied().collect();
        assert_refused(&dir, &create, &all, needles);
    }
    // --make belongs to go/v4 and deploy-image/v1-alpha: a Rust project
    // takes it only with the plugin.
    assert_refused(
        &dir,
        &words("create api --group cache --version v1alpha1 --kind Memcached"),
        &["--make=false"],
        &[
            "--make is a flag of the plugin base.go.kubebuilder.io/v4 or deploy-image.go.kubebuilder.io/v1-alpha",
        ],
    );
}

#[test]
fn dry_run_lists_the_files_and_writes_nothing() {
    let (_tmp, dir) = rust_project();
    let before = snapshot_tree(&dir);
    let mut args = words(MEMCACHED);
    args.push("--dry-run");
    let printed = kb_ok(&dir, &args);
    for path in [
        "create    src/api/v1alpha1/memcached.rs",
        "create    src/controller/memcached.rs",
        "create    tests/controllers/memcached.rs",
        "create    config/samples/cache_v1alpha1_memcached.yaml",
        "update    config/manager/manager.yaml",
        "update    PROJECT",
    ] {
        assert!(printed.contains(path), "{path} not listed:\n{printed}");
    }
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn alpha_generate_replays_the_plugin_file_for_file() {
    let (tmp, dir) = project_with_both_kinds();
    kb_ok(
        tmp.path(),
        &words("alpha generate --input-dir memcached-operator --output-dir regenerated"),
    );
    assert_same_files(&dir, &tmp.path().join("regenerated"));
}
