//! CLI behaviour of webhook-certs/v1-alpha: chosen at `init`, recorded
//! under PROJECT's `plugins:` (kubebuilder must still resolve the `layout`)
//! and run by every later command; the webhooks' manifests without
//! cert-manager; the manager's code and the component written once, each
//! converting CRD named in it; `edit` completing what kubebuilder added;
//! refusals in one line with nothing changed. Both layouts.

use crate::common::{
    assert_refused, empty_project_dir, init_project, kb, read, snapshot_tree, stderr, words,
};
use std::path::Path;

/// Runs kubebuilder-rs, with `--make=false` (no toolchain step) on a
/// `create` command of a go/v4 project (rust/v1-alpha's have none).
fn kb_ok(dir: &Path, line: &str) -> String {
    let go = dir.join("go.mod").is_file();
    let make = (go && line.starts_with("create")).then_some("--make=false");
    let output = kb(dir).args(words(line)).args(make).output().unwrap();
    assert!(output.status.success(), "{line}: {}", stderr(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A go/v4 project with webhook-certs/v1-alpha, Frigate v1 and v2, and
/// Captain v1.
fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = empty_project_dir("fleet");
    init_project(&dir, &["--plugins", "go/v4,webhook-certs/v1-alpha"]);
    for line in [
        "create api --group ship --version v1 --kind Frigate --resource --controller",
        "create api --group ship --version v2 --kind Frigate --resource --controller=false",
        "create api --group ship --version v1 --kind Captain --resource --controller",
    ] {
        kb_ok(&dir, line);
    }
    (tmp, dir)
}

const COMPONENT: &str = "config/webhook-certs";

#[test]
fn init_records_the_plugin_outside_the_layout_and_leaves_cert_manager_out() {
    let (_tmp, dir) = project();
    let project = read(&dir, "PROJECT");
    assert!(
        project.contains("layout:\n- go.kubebuilder.io/v4\nplugins:\n  webhook-certs.kubebuilder-rs.io/v1-alpha: {}\n"),
        "{project}"
    );
    let overlay = read(&dir, "config/default/kustomization.yaml");
    for cert_manager in ["../certmanager", "inject-ca-from", "manager_webhook_patch"] {
        assert!(
            !overlay.contains(cert_manager),
            "{cert_manager} in:\n{overlay}"
        );
    }
    assert!(overlay.contains("#- ../webhook\n"), "{overlay}");
    assert!(
        !dir.join(COMPONENT).exists(),
        "the component comes with the first webhook"
    );
}

#[test]
fn webhooks_bring_the_managers_code_and_the_component_once_and_name_converting_crds() {
    let (_tmp, dir) = project();
    kb_ok(
        &dir,
        "create webhook --group ship --version v1 --kind Frigate --defaulting --programmatic-validation --conversion --spoke v2",
    );
    for path in [
        "internal/webhookcerts/webhookcerts.go",
        "internal/webhookcerts/certificates.go",
        "internal/webhookcerts/webhookcerts_test.go",
        "config/webhook-certs/kustomization.yaml",
        "config/webhook-certs/secret.yaml",
    ] {
        assert!(dir.join(path).is_file(), "{path} was not written");
    }
    assert!(!dir.join("config/certmanager").exists());
    assert!(
        !dir.join("config/default/manager_webhook_patch.yaml")
            .exists()
    );
    let import = "\"example.com/guestbook/internal/webhookcerts\"";
    // cmd/main.go is built alone (`go build cmd/main.go`): the code is in
    // the package it imports.
    let cmd: Vec<_> = std::fs::read_dir(dir.join("cmd"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(cmd, ["main.go"], "cmd/ holds more than main.go");
    kb_ok(
        &dir,
        "create webhook --group ship --version v1 --kind Captain --programmatic-validation",
    );
    let main = read(&dir, "cmd/main.go");
    for once in [import, "webhookcerts.SetupFromFlags(mgr)"] {
        assert_eq!(main.matches(once).count(), 1, "{once} in:\n{main}");
    }
    let overlay = read(&dir, "config/default/kustomization.yaml");
    assert!(overlay.contains("\n- ../webhook\n"), "{overlay}");
    assert_eq!(
        overlay.matches("- ../webhook-certs\n").count(),
        1,
        "{overlay}"
    );
    assert!(!overlay.contains("certmanager"), "{overlay}");
    // The converting CRD, and only it, in the three places.
    let crd = "frigates.ship.example.com";
    for file in ["kustomization.yaml", "role.yaml", "manager_args_patch.yaml"] {
        let text = read(&dir, &format!("{COMPONENT}/{file}"));
        assert_eq!(text.matches(crd).count(), 1, "{file}:\n{text}");
        assert!(!text.contains("captains"), "{file}:\n{text}");
    }
}

#[test]
fn edit_names_the_converting_crds_kubebuilder_added_and_changes_nothing_twice() {
    let (_tmp, dir) = project();
    kb_ok(
        &dir,
        "create webhook --group ship --version v1 --kind Frigate --defaulting",
    );
    // What kubebuilder's `create webhook --conversion` leaves: PROJECT
    // records the conversion, the component does not name the CRD.
    let project = read(&dir, "PROJECT");
    let recorded = project.replacen(
        "  webhooks:\n    defaulting: true\n",
        "  webhooks:\n    conversion: true\n    defaulting: true\n    spoke:\n    - v2\n",
        1,
    );
    assert_ne!(recorded, project, "{project}");
    std::fs::write(dir.join("PROJECT"), recorded).unwrap();
    kb_ok(&dir, "edit --plugins webhook-certs/v1-alpha");
    let crd = "frigates.ship.example.com";
    for file in ["kustomization.yaml", "role.yaml", "manager_args_patch.yaml"] {
        let text = read(&dir, &format!("{COMPONENT}/{file}"));
        assert_eq!(text.matches(crd).count(), 1, "{file}:\n{text}");
    }
    let before = snapshot_tree(&dir);
    kb_ok(&dir, "edit --plugins webhook-certs/v1-alpha");
    assert!(
        before == snapshot_tree(&dir),
        "a second edit changed the project"
    );
}

#[test]
fn a_project_with_cert_manager_webhooks_or_another_layout_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        "create api --group ship --version v1 --kind Frigate --resource --controller",
    );
    kb_ok(
        &dir,
        "create webhook --group ship --version v1 --kind Frigate --defaulting",
    );
    assert_refused(
        &dir,
        &["edit"],
        &["--plugins", "webhook-certs/v1-alpha"],
        &[
            "webhook-certs/v1-alpha can only be added before the project's first webhook",
            "cert-manager",
        ],
    );
    // A chain that writes no config/ has nowhere to put the component.
    let (_tmp, bare) = empty_project_dir("bare");
    let init = kb(&bare)
        .args(words(
            "init --plugins base.go.kubebuilder.io/v4,webhook-certs/v1-alpha --domain example.com --repo example.com/bare",
        ))
        .output()
        .unwrap();
    let said = stderr(&init);
    assert!(
        !init.status.success()
            && said.contains("webhook-certs/v1-alpha has the manager's code for the go/v4 and rust/v1-alpha layouts (with kustomize/v2), and the chain is base.go.kubebuilder.io/v4,")
            && said.trim().lines().count() == 1,
        "{said}"
    );
    assert_eq!(
        std::fs::read_dir(&bare).unwrap().count(),
        0,
        "init left files"
    );
}

#[test]
fn a_rust_project_gets_the_module_its_crates_and_the_calls_once() {
    let (_tmp, dir) = empty_project_dir("shipyard");
    kb_ok(
        &dir,
        "init --domain example.com --plugins rust/v1-alpha,webhook-certs/v1-alpha",
    );
    let e2e = read(&dir, "tests/e2e/main.rs");
    assert!(
        e2e.contains("not installing cert-manager") && e2e.contains("-webhook-server-cert"),
        "the e2e suite installs cert-manager:\n{e2e}"
    );
    for line in [
        "create api --group ship --version v1 --kind Frigate --resource --controller",
        "create api --group ship --version v2 --kind Frigate --resource --controller=false",
        "create api --group ship --version v1 --kind Captain --resource --controller",
        "create webhook --group ship --version v1 --kind Frigate --defaulting --conversion --spoke v2",
        "create webhook --group ship --version v1 --kind Captain --programmatic-validation",
    ] {
        kb_ok(&dir, line);
    }
    for path in [
        "src/webhook_certs/mod.rs",
        "src/webhook_certs/certificates.rs",
        "config/webhook-certs/kustomization.yaml",
    ] {
        assert!(dir.join(path).is_file(), "{path} was not written");
    }
    assert!(!dir.join("config/certmanager").exists());
    let main = read(&dir, "src/main.rs");
    for once in [
        "webhook::serve(",
        "webhook_certs::serve_from_secret(",
        "webhook_certs::Keeper::from_flags(",
        "// +kubebuilder:scaffold:webhook-server",
    ] {
        assert_eq!(main.matches(once).count(), 1, "{once} in:\n{main}");
    }
    let serve_at = main.find("webhook::serve(").unwrap();
    assert!(
        main.find("serve_from_secret(").unwrap() < serve_at,
        "the resolver is set after the server started:\n{main}"
    );
    let flags = read(&dir, "src/manager/flags.rs");
    assert_eq!(
        flags
            .matches("pub webhook_certs: crate::webhook_certs::WebhookCertFlags,")
            .count(),
        1,
        "{flags}"
    );
    assert_eq!(
        read(&dir, "src/lib.rs")
            .matches("pub mod webhook_certs;")
            .count(),
        1
    );
    let cargo = read(&dir, "Cargo.toml");
    for dependency in [
        "x509-cert = \"0.2\"",
        // rcgen as the layout has it, without x509-parser's feature.
        "rcgen = \"0.14\"",
        // What the layout's create webhook adds is kept beside it.
        "json-patch = ",
    ] {
        assert!(cargo.contains(dependency), "{dependency} not in:\n{cargo}");
    }
    let crd = "frigates.ship.example.com";
    for file in ["kustomization.yaml", "role.yaml", "manager_args_patch.yaml"] {
        let text = read(&dir, &format!("{COMPONENT}/{file}"));
        assert_eq!(text.matches(crd).count(), 1, "{file}:\n{text}");
    }
}
