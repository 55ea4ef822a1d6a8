//! `init --plugins rust/v1-alpha`: the kube-rs project it writes (snapshots
//! of every file the Rust plugin renders), the PROJECT it records, and the
//! requests it refuses with nothing written.

use crate::common::{assert_refused, empty_project_dir, kb_ok, read, snapshot_tree, words};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs `init --plugins rust/v1-alpha` with `extra` flags in a new
/// directory named `guestbook`.
fn init_rust(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    let mut args = words("init --plugins rust/v1-alpha --domain example.com");
    args.extend_from_slice(extra);
    kb_ok(&dir, &args);
    (tmp, dir)
}

/// Every file below `dir` as text.
fn text_files(dir: &Path) -> BTreeMap<PathBuf, String> {
    snapshot_tree(dir)
        .into_iter()
        .filter(|(path, _)| !path.to_string_lossy().ends_with('/'))
        .map(|(path, bytes)| (path, String::from_utf8(bytes).expect("text file")))
        .collect()
}

#[test]
fn init_writes_a_kube_rs_crate_and_the_config_tree() {
    let (_tmp, dir) = init_rust(&["--owner", "The Guestbook Authors"]);
    let files = text_files(&dir);
    let mut settings = crate::common::snapshot_settings();
    settings.add_filter(r"Copyright \d{4}", "Copyright [year]");
    settings.add_filter(r"cliVersion: \S+", "cliVersion: [version]");
    settings.bind(|| {
        let list: Vec<String> = files.keys().map(|p| p.display().to_string()).collect();
        insta::assert_snapshot!("rust_init__file_list", list.join("\n"));
        // config/ is kustomize/v2's, snapshotted for go/v4 already.
        for (path, text) in files.iter().filter(|(p, _)| !p.starts_with("config")) {
            let name = format!("rust_init__{}", path.display()).replace('/', "__");
            insta::assert_snapshot!(name, text);
        }
    });
    assert!(!dir.join("go.mod").exists() && !dir.join("cmd").exists());
    let project = &files[Path::new("PROJECT")];
    assert!(
        project.contains(
            "layout:\n- base.rust.kubebuilder-rs.io/v1-alpha\n- kustomize.common.kubebuilder.io/v2\n"
        ),
        "{project}"
    );
    assert!(!project.contains("repo:"), "{project}");
}

#[test]
fn crate_versions_come_from_the_one_pinned_file() {
    let (_tmp, dir) = init_rust(&[]);
    let pinned: toml_edit::DocumentMut = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scaffolds/rust/v1-alpha/versions.toml"),
    )
    .unwrap()
    .parse()
    .unwrap();
    let cargo: toml_edit::DocumentMut = std::fs::read_to_string(dir.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let deps = &cargo["dependencies"];
    for (dependency, key) in [
        ("kube", "kube"),
        ("k8s-openapi", "k8s_openapi"),
        ("tokio", "tokio"),
        ("schemars", "schemars"),
        ("hyper", "hyper"),
        ("serde-saphyr", "serde_saphyr"),
    ] {
        let entry = &deps[dependency];
        let version = entry
            .as_str()
            .or_else(|| entry.get("version").and_then(|v| v.as_str()))
            .unwrap_or_else(|| panic!("no version for {dependency}"));
        assert_eq!(Some(version), pinned[key].as_str(), "{dependency}");
    }
    let features = deps["k8s-openapi"]["features"].as_array().unwrap();
    assert!(
        features
            .iter()
            .any(|f| f.as_str() == pinned["k8s_openapi_feature"].as_str()),
        "k8s-openapi lacks the envtest Kubernetes feature"
    );
}

#[test]
fn owner_license_and_namespaced_reach_the_files() {
    let (_tmp, dir) = init_rust(&["--owner", "Jane Doe", "--namespaced"]);
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    assert!(main.starts_with("// Copyright "), "{main}");
    assert!(main.contains(" Jane Doe.\n"), "{main}");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("namespaced: true"), "{project}");
    let manager = std::fs::read_to_string(dir.join("config/manager/manager.yaml")).unwrap();
    assert!(manager.contains("WATCH_NAMESPACE"), "{manager}");

    let (_tmp, dir) = init_rust(&["--license", "none", "--project-name", "ship-yard"]);
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    assert!(main.starts_with("//! The manager of ship-yard"), "{main}");
    assert!(main.contains("use ship_yard::manager::"), "{main}");
    let cargo = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("name = \"ship-yard\""), "{cargo}");
}

#[test]
fn edit_owner_rewrites_the_boilerplate_once() {
    let (_tmp, dir) = init_rust(&[]);
    let boilerplate = dir.join("hack/boilerplate.rs.txt");
    let printed = kb_ok(&dir, &words("edit --owner Jane"));
    assert!(
        printed.contains("Existing Rust files keep their header"),
        "{printed}"
    );
    let text = std::fs::read_to_string(&boilerplate).unwrap();
    assert!(
        text.starts_with("// Copyright ") && text.contains(" Jane.\n"),
        "{text}"
    );
    let main_before = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();

    let printed = kb_ok(&dir, &words("edit --owner Jane"));
    assert!(
        printed.contains("already holds that license header"),
        "{printed}"
    );
    assert_eq!(std::fs::read_to_string(&boilerplate).unwrap(), text);

    kb_ok(&dir, &words("edit --license none"));
    assert_eq!(std::fs::read_to_string(&boilerplate).unwrap(), "");
    let main_after = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    assert_eq!(main_after, main_before, "existing files keep their header");
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    let printed = kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --dry-run"),
    );
    assert!(printed.contains("src/main.rs") && printed.contains("Cargo.toml"));
    assert!(printed.contains("config/default/kustomization.yaml"));
    assert!(snapshot_tree(&dir).is_empty());
}

#[test]
fn bad_requests_are_refused_in_one_line() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    let init = [
        "init",
        "--plugins",
        "rust/v1-alpha",
        "--domain",
        "example.com",
    ];
    assert_refused(
        &dir,
        &init,
        &["--repo", "example.com/guestbook"],
        &["--repo", "base.go.kubebuilder.io/v4"],
    );
    assert_refused(
        &dir,
        &init,
        &["--project-name", "1st-operator"],
        &["\"1st-operator\"", "start with a letter"],
    );
    assert_refused(
        &dir,
        &init,
        &["--project-name", "kube"],
        &["\"kube\"", "crate"],
    );
    assert_refused(
        &dir,
        &["init", "--domain", "example.com"],
        &["--plugins", "rust/v1-alpha,go/v4"],
        &["cannot hold both"],
    );
}

#[test]
fn the_project_infrastructure_is_rust_and_wired_to_make() {
    let (_tmp, dir) = init_rust(&[]);
    let devcontainer =
        std::fs::read_to_string(dir.join(".devcontainer/devcontainer.json")).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&devcontainer).expect("devcontainer.json is JSON");
    assert_eq!(json["name"], "guestbook");
    let image = json["image"].as_str().unwrap();
    assert!(
        image.starts_with("rust:") && image.ends_with("-bookworm"),
        "{image}"
    );
    assert!(json["features"]["ghcr.io/devcontainers/features/docker-in-docker:2"].is_object());
    assert_eq!(
        json["onCreateCommand"],
        "bash .devcontainer/post-install.sh"
    );
    let extensions = json["customizations"]["vscode"]["extensions"].to_string();
    assert!(
        extensions.contains("rust-lang.rust-analyzer"),
        "{extensions}"
    );
    let post_install = std::fs::read_to_string(dir.join(".devcontainer/post-install.sh")).unwrap();
    for needle in [
        "rustup component add rustfmt clippy",
        "kind-linux-",
        "bin/linux/${arch}/kubectl",
    ] {
        assert!(
            post_install.contains(needle),
            "no {needle:?} in post-install.sh"
        );
    }
    assert!(!post_install.contains("go version"));
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(dir.join(".devcontainer/post-install.sh"))
        .status()
        .unwrap();
    assert!(syntax.success(), "post-install.sh is not valid bash");

    let makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    for needle in [
        "KIND_CLUSTER ?= guestbook-test-e2e\n",
        "\nsetup-test-e2e:",
        "\ntest-e2e: setup-test-e2e manifests generate fmt vet ##",
        "cargo test --test e2e -- --ignored",
        "\ncleanup-test-e2e:",
        "\nlint-config:",
        "\nlint:",
        "\nlint-fix:",
    ]
    .map(|n| n.replace("cargo test", "$(CARGO) test"))
    {
        assert!(makefile.contains(&needle), "no {needle:?} in the Makefile");
    }
    let suite = std::fs::read_to_string(dir.join("tests/e2e/main.rs")).unwrap();
    assert!(suite.contains("#[ignore = \"needs a cluster: run by `make test-e2e`\"]"));
    // `cargo test` does not even build it (one test binary fewer to link).
    let manifest: toml_edit::DocumentMut = read(&dir, "Cargo.toml").parse().unwrap();
    let e2e = manifest["test"]
        .as_array_of_tables()
        .and_then(|tests| tests.iter().find(|t| t["name"].as_str() == Some("e2e")))
        .expect("a [[test]] named e2e");
    assert_eq!(e2e["path"].as_str(), Some("tests/e2e/main.rs"));
    assert_eq!(e2e["test"].as_bool(), Some(false));
    for (workflow, step) in [
        ("lint.yml", "cargo fmt --check"),
        ("lint.yml", "make lint-config"),
        ("lint.yml", "make lint"),
        ("test.yml", "make test"),
        ("test-e2e.yml", "make test-e2e"),
    ] {
        let text = std::fs::read_to_string(dir.join(".github/workflows").join(workflow)).unwrap();
        assert!(
            text.contains(&format!("run: {step}\n")),
            "no `run: {step}` in {workflow}"
        );
        assert!(!text.contains("setup-go"), "{workflow} sets up Go");
    }
}
