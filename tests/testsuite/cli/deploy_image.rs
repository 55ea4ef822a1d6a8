//! deploy-image/v1-alpha on the command line: the files `create api
//! --plugins deploy-image/v1-alpha` writes for the quick-start Memcached and
//! for a kind given only an image, the manager's environment, the PROJECT
//! entry as kubebuilder records it, refusals of bad values, `--dry-run`, and
//! `alpha generate` replaying the plugin from PROJECT.

use crate::common::{
    assert_holds, assert_refused, assert_same_files, empty_project_dir, init_project, kb_ok, read,
    snapshot_tree, words,
};
use serde_norway::Value;
use std::path::{Path, PathBuf};

/// The quick start's `create api`, without post-steps.
const MEMCACHED: &str = "create api --group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19 --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001 --make=false --manifests=false";

/// A second kind given only an image (the short plugin key in full form).
const BUSYBOX: &str = "create api --group cache --version v1alpha1 --kind Busybox --plugins deploy-image.go.kubebuilder.io/v1-alpha --image busybox:1.36.1 --make=false --manifests=false";

/// A new project with both kinds.
fn project_with_both_kinds() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("memcached-operator");
    init_project(&dir, &[]);
    kb_ok(&dir, &words(MEMCACHED));
    kb_ok(&dir, &words(BUSYBOX));
    (tmp, dir)
}

/// The plugin's PROJECT section: `(kind, options)` of each resource, in order.
fn recorded_resources(dir: &Path) -> Vec<(String, Value)> {
    let project: Value = serde_norway::from_str(&read(dir, "PROJECT")).unwrap();
    let section = &project["plugins"]["deploy-image.go.kubebuilder.io/v1-alpha"];
    section["resources"]
        .as_sequence()
        .expect("a resources list under the plugin's key")
        .iter()
        .map(|r| {
            assert_eq!(r["domain"].as_str(), Some("example.com"));
            assert_eq!(r["group"].as_str(), Some("cache"));
            assert_eq!(r["version"].as_str(), Some("v1alpha1"));
            (
                r["kind"].as_str().unwrap().to_string(),
                r["options"].clone(),
            )
        })
        .collect()
}

#[test]
fn the_quick_start_kind_runs_its_image_with_command_port_and_user() {
    let (_tmp, dir) = project_with_both_kinds();

    let types = read(&dir, "api/v1alpha1/memcached_types.go");
    assert_holds(
        "memcached_types.go",
        &types,
        &[
            "Size *int32 `json:\"size,omitempty\"`",
            "ContainerPort int32 `json:\"containerPort,omitempty\"`",
            "+kubebuilder:default=11211",
            "Conditions []metav1.Condition `json:\"conditions,omitempty\"`",
        ],
    );

    let controller = read(&dir, "internal/controller/memcached_controller.go");
    assert_holds(
        "memcached_controller.go",
        &controller,
        &[
            "memcachedImageEnvVar = \"MEMCACHED_IMAGE\"",
            "Command:         []string{\"memcached\", \"--memory-limit=64\", \"-o\", \"modern\", \"-v\"}",
            // The port is named after the container through its constant, so
            // golangci-lint's goconst does not count the name three times.
            "Name:          memcachedContainerName,\n\t\t\tContainerPort: memcached.Spec.ContainerPort,",
            "RunAsUser:                new(int64(1001))",
            "RunAsNonRoot:             new(true)",
            "SeccompProfileTypeRuntimeDefault",
            "Drop: []corev1.Capability{\"ALL\"}",
            "memcachedFinalizer = \"cache.example.com/finalizer\"",
            "Owns(&appsv1.Deployment{})",
            "\"Available\"",
            "\"Progressing\"",
            "\"Degraded\"",
            "r.Recorder.Eventf(",
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete",
            "// +kubebuilder:rbac:groups=core,resources=pods,verbs=get;list;watch",
            "// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch",
            "// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update",
        ],
    );
    // As kubebuilder v4.16 writes it: Go 1.26's new(value) instead of k8s.io/utils/ptr.
    assert!(!controller.contains("k8s.io/utils/ptr"), "{controller}");
    let test = read(&dir, "internal/controller/memcached_controller_test.go");
    assert!(!test.contains("k8s.io/utils/ptr"), "{test}");
    assert_holds(
        "memcached_controller_test.go",
        &test,
        &[
            "Expect(container.Image).To(Equal(testImage))",
            "Expect(conditionStatus(memcachedProgressing)).To(Equal(metav1.ConditionTrue))",
            "ContainerPort: 11211",
        ],
    );

    let sample = read(&dir, "config/samples/cache_v1alpha1_memcached.yaml");
    let sample: Value = serde_norway::from_str(&sample).unwrap();
    assert_eq!(sample["spec"]["size"].as_i64(), Some(1));
    assert_eq!(sample["spec"]["containerPort"].as_i64(), Some(11211));

    // go/v4 wires the controller into the manager as for any other kind.
    let main = read(&dir, "cmd/main.go");
    assert_holds("cmd/main.go", &main, &["(&controller.MemcachedReconciler{"]);
}

#[test]
fn a_kind_with_only_an_image_gets_no_port_command_or_user() {
    let (_tmp, dir) = project_with_both_kinds();
    let types = read(&dir, "api/v1alpha1/busybox_types.go");
    assert!(!types.contains("ContainerPort"), "{types}");
    let controller = read(&dir, "internal/controller/busybox_controller.go");
    assert_holds(
        "busybox_controller.go",
        &controller,
        &["busyboxImageEnvVar = \"BUSYBOX_IMAGE\"", "RunAsNonRoot"],
    );
    for absent in ["Command:", "Ports:", "RunAsUser:"] {
        assert!(!controller.contains(absent), "{absent} in:\n{controller}");
    }
    let sample = read(&dir, "config/samples/cache_v1alpha1_busybox.yaml");
    assert!(!sample.contains("containerPort"), "{sample}");
}

#[test]
fn the_manager_gets_each_image_and_project_records_each_kind() {
    let (_tmp, dir) = project_with_both_kinds();
    let manager = read(&dir, "config/manager/manager.yaml");
    assert_holds(
        "manager.yaml",
        &manager,
        &[
            "        env:\n        - name: BUSYBOX_IMAGE\n          value: busybox:1.36.1\n        - name: MEMCACHED_IMAGE\n          value: memcached:1.6.26-alpine3.19\n        ports:\n",
        ],
    );
    assert_eq!(manager.matches("env:").count(), 1, "{manager}");

    let resources = recorded_resources(&dir);
    let kinds: Vec<&str> = resources.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["Memcached", "Busybox"]);
    let options = &resources[0].1;
    for (key, value) in [
        ("image", "memcached:1.6.26-alpine3.19"),
        (
            "containerCommand",
            "memcached,--memory-limit=64,-o,modern,-v",
        ),
        ("containerPort", "11211"),
        ("runAsUser", "1001"),
    ] {
        assert_eq!(options[key].as_str(), Some(value), "options.{key}");
    }
    let busybox = resources[1].1.as_mapping().unwrap();
    assert_eq!(busybox.len(), 1, "{busybox:?}");
    // Strings, quoted as kubebuilder writes them.
    assert!(read(&dir, "PROJECT").contains("containerPort: \"11211\"\n"));
}

#[test]
fn switching_the_manager_to_namespaced_and_back_keeps_the_images() {
    let (_tmp, dir) = project_with_both_kinds();
    let cluster_wide = read(&dir, "config/manager/manager.yaml");
    kb_ok(&dir, &["edit", "--namespaced", "--force"]);
    let namespaced = read(&dir, "config/manager/manager.yaml");
    assert_holds(
        "manager.yaml",
        &namespaced,
        &[
            "        env:\n        - name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.namespace\n        - name: BUSYBOX_IMAGE\n",
        ],
    );
    assert_eq!(namespaced.matches("env:").count(), 1, "{namespaced}");
    kb_ok(&dir, &["edit", "--namespaced=false", "--force"]);
    assert_eq!(read(&dir, "config/manager/manager.yaml"), cluster_wide);
}

#[test]
fn bad_values_are_refused_in_one_line_and_nothing_is_written() {
    let (_tmp, dir) = empty_project_dir("memcached-operator");
    init_project(&dir, &[]);
    let create = [
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1alpha1",
        "--kind",
        "Memcached",
        "--make=false",
        "--manifests=false",
    ];
    let plugin = ["--plugins", "deploy-image/v1-alpha"];
    for (args, needles) in [
        (
            &[][..],
            &["needs --image", "memcached:1.6.26-alpine3.19"][..],
        ),
        (
            &["--image", "bad image"],
            &["\"bad image\"", "letters, digits"],
        ),
        (
            &["--image", "x:1", "--image-container-port", "http"],
            &["\"http\" is not a port", "1 to 65535"],
        ),
        (
            &["--image", "x:1", "--image-container-port", "65536"],
            &["\"65536\" is not a port"],
        ),
        (
            &["--image", "x:1", "--run-as-user", "0"],
            &["\"0\" is not a non-root user ID", "1 to 2147483647"],
        ),
        (
            &["--image", "x:1", "--run-as-user", "abc"],
            &["\"abc\" is not a non-root user ID"],
        ),
        (
            &["--image", "x:1", "--image-container-command", "sh,,-c"],
            &["\"sh,,-c\" has an empty item"],
        ),
        (
            &["--image", "x:1", "--namespaced=false"],
            &["needs a namespaced kind"],
        ),
        (
            &["--image", "x:1", "--controller-name", "other"],
            &["drop --controller-name other"],
        ),
        (&["--image", "x:1", "--ssa"], &["drop --ssa"]),
    ] {
        let all: Vec<&str> = plugin.iter().chain(args).copied().collect();
        assert_refused(&dir, &create, &all, needles);
    }
    // The plugin's flags need the plugin; the plugin has no part in edit.
    assert_refused(
        &dir,
        &create,
        &["--image", "x:1"],
        &["--image is a flag of the plugin deploy-image.go.kubebuilder.io/v1-alpha"],
    );
    assert_refused(
        &dir,
        &["edit"],
        &plugin,
        &["takes part in `create api` only"],
    );
}

/// A kind of a package where another kind has `--ssa` opts out of the
/// package's apply configurations, as go/v4's own kinds do.
#[test]
fn a_kind_beside_an_ssa_kind_opts_out_of_apply_configurations() {
    let (_tmp, dir) = empty_project_dir("memcached-operator");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        &words("create api --group cache --version v1alpha1 --kind Cache --ssa --make=false"),
    );
    kb_ok(&dir, &words(BUSYBOX));
    let types = read(&dir, "api/v1alpha1/busybox_types.go");
    assert_holds(
        "busybox_types.go",
        &types,
        &["}\n\n// +kubebuilder:ac:generate=false\n// +kubebuilder:object:root=true\n"],
    );
    let (_tmp, dir) = project_with_both_kinds();
    let types = read(&dir, "api/v1alpha1/busybox_types.go");
    assert!(!types.contains("+kubebuilder:ac:generate"), "{types}");
}

#[test]
fn at_a_terminal_the_plugin_asks_nothing() {
    // `script` gives the command a terminal; were it to ask "Create
    // Resource [y/n]", nothing would answer and `timeout` would stop it.
    let (_tmp, dir) = empty_project_dir("memcached-operator");
    init_project(&dir, &[]);
    let binary = assert_cmd::cargo::cargo_bin("kubebuilder-rs");
    let line = format!("{} {MEMCACHED}", binary.display());
    let output = std::process::Command::new("timeout")
        .args(["30", "script", "-qec", &line, "/dev/null"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script (util-linux)");
    assert!(
        output.status.success(),
        "create api at a terminal failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        dir.join("internal/controller/memcached_controller.go")
            .is_file()
    );
}

#[test]
fn dry_run_lists_the_files_and_writes_nothing() {
    let (_tmp, dir) = empty_project_dir("memcached-operator");
    init_project(&dir, &[]);
    let before = snapshot_tree(&dir);
    let mut args = words(MEMCACHED);
    args.push("--dry-run");
    let printed = kb_ok(&dir, &args);
    for path in [
        "create    api/v1alpha1/memcached_types.go",
        "create    internal/controller/memcached_controller.go",
        "create    internal/controller/memcached_controller_test.go",
        "create    config/samples/cache_v1alpha1_memcached.yaml",
        "update    config/manager/manager.yaml",
        "update    PROJECT",
    ] {
        assert!(printed.contains(path), "{path} not listed:\n{printed}");
    }
    assert!(printed.contains("+          value: memcached:1.6.26-alpine3.19"));
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn alpha_generate_replays_the_plugin_file_for_file() {
    let (tmp, dir) = project_with_both_kinds();
    kb_ok(
        tmp.path(),
        &[
            "alpha",
            "generate",
            "--input-dir",
            "memcached-operator",
            "--output-dir",
            "regenerated",
            "--make=false",
        ],
    );
    assert_same_files(&dir, &tmp.path().join("regenerated"));
}
