//! kubebuilder continuing a webhook-certs/v1-alpha project: the reference
//! release (`kubebuilder` in `scaffolds/go/v4/versions.toml`) keeps the
//! choice in PROJECT and runs its commands; the deployed manifests still
//! name no cert-manager object; a conversion webhook it adds is not in the
//! manager's component until `kubebuilder-rs edit --plugins
//! webhook-certs/v1-alpha`, which names it, builds, and changes nothing a
//! second time. The continued project builds and passes `make test`.

use crate::common::kubebuilder::kubebuilder_binary;
use crate::common::{kb_ok, persistent_project_dir, run_ok, shared_tools_bin, words};
use std::path::Path;
use std::process::Command;

/// The converting CRD kubebuilder adds.
const CAPTAINS: &str = "captains.ship.example.com";

/// `kubebuilder args` in `dir`, with the shared tools; its output.
fn kubebuilder(dir: &Path, line: &str) -> String {
    let kubebuilder = kubebuilder_binary();
    let program = kubebuilder.to_str().unwrap();
    let mut args = words(line);
    args.push("--make=false");
    let mut command = Command::new(program);
    command
        .args(&args)
        .current_dir(dir)
        .env("LOCALBIN", shared_tools_bin());
    crate::common::output_ok(&mut command, dir, "kubebuilder", &args)
}

/// `kustomize build config/default` with the project's kustomize, once its
/// manifests are generated.
fn deployed_manifests(dir: &Path) -> String {
    run_ok(dir, "make", &["manifests", "kustomize"]);
    let kustomize = shared_tools_bin().join("kustomize");
    run_ok(
        dir,
        kustomize.to_str().unwrap(),
        &["build", "config/default"],
    )
}

#[test]
#[ignore = "needs Go, the module proxy and kubebuilder; run by the README's test command"]
fn kubebuilder_continues_a_project_whose_manager_keeps_its_webhook_certificates() {
    let dir = persistent_project_dir("fleet");
    for line in [
        "init --domain example.com --repo example.com/fleet --plugins go/v4,webhook-certs/v1-alpha",
        "create api --group ship --version v1 --kind Frigate --resource --controller --make=false",
        "create webhook --group ship --version v1 --kind Frigate --defaulting --make=false",
    ] {
        kb_ok(&dir, &words(line));
    }
    for line in [
        "create api --group ship --version v1 --kind Captain --resource --controller",
        "create api --group ship --version v2 --kind Captain --resource --controller=false",
        "create webhook --group ship --version v1 --kind Captain --programmatic-validation",
        "create webhook --group ship --version v1 --kind Captain --conversion --spoke v2",
    ] {
        kubebuilder(&dir, line);
    }
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.contains("plugins:\n  webhook-certs.kubebuilder-rs.io/v1-alpha: {}\n"),
        "kubebuilder dropped the choice:\n{project}"
    );
    run_ok(&dir, "go", &["mod", "tidy"]);
    run_ok(&dir, "make", &["generate"]);
    let manifests = deployed_manifests(&dir);
    assert!(
        !manifests.contains("cert-manager.io"),
        "the manifests name cert-manager after kubebuilder's commands:\n{manifests}"
    );
    assert!(!manifests.contains(&format!("--webhook-cert-crd={CAPTAINS}")));

    kb_ok(&dir, &words("edit --plugins webhook-certs/v1-alpha"));
    let manifests = deployed_manifests(&dir);
    assert!(
        manifests.contains(&format!("--webhook-cert-crd={CAPTAINS}")),
        "{manifests}"
    );
    let crd_doc = manifests
        .split("\n---\n")
        .find(|doc| {
            doc.contains(&format!("name: {CAPTAINS}\n"))
                && doc.contains("kind: CustomResourceDefinition")
        })
        .unwrap_or_else(|| panic!("no {CAPTAINS} in:\n{manifests}"));
    assert!(
        crd_doc.contains(
            "webhook-certs.kubebuilder-rs.io/inject-ca-from-secret: fleet-webhook-server-cert"
        ),
        "{crd_doc}"
    );
    let before = crate::common::snapshot_tree(&dir.join("config"));
    kb_ok(&dir, &words("edit --plugins webhook-certs/v1-alpha"));
    assert!(
        before == crate::common::snapshot_tree(&dir.join("config")),
        "a second edit changed config/"
    );
    // What the Dockerfile does too: cmd/main.go built alone.
    run_ok(&dir, "make", &["build"]);
    run_ok(&dir, "make", &["test"]);
    a_release_of_another_name_names_its_own_objects(&dir);
}

/// helm/v2-alpha's chart of the project, installed under a release name
/// other than the project's: the manager's environment names the
/// release's Secret, Service and webhook configurations, and the chart
/// holds no cert-manager object.
fn a_release_of_another_name_names_its_own_objects(dir: &Path) {
    run_ok(
        dir,
        "make",
        &["build-installer", "IMG=example.com/fleet:v1"],
    );
    kb_ok(dir, &words("edit --plugins helm/v2-alpha"));
    let helm = crate::common::helm::newest_helm_release();
    let rendered = run_ok(
        dir,
        helm.to_str().unwrap(),
        &["template", "ops", "dist/chart", "-n", "ops-system"],
    );
    assert!(
        !rendered.contains("cert-manager.io"),
        "the chart names cert-manager:\n{rendered}"
    );
    for (variable, kind, suffix) in [
        ("WEBHOOK_CERT_SECRET", "Secret", "webhook-server-cert"),
        ("WEBHOOK_SERVICE", "Service", "webhook-service"),
        (
            "VALIDATING_WEBHOOK_CONFIGURATION",
            "ValidatingWebhookConfiguration",
            "validating-webhook-configuration",
        ),
    ] {
        let name = format!("ops-fleet-{suffix}");
        assert!(
            rendered.contains(&format!(
                "- name: {variable}\n              value: '{name}'\n"
            )) || rendered.contains(&format!(
                "- name: {variable}\n              value: {name}\n"
            )),
            "{variable} is not {name}:\n{rendered}"
        );
        let object = rendered.split("\n---\n").any(|doc| {
            doc.contains(&format!("\nkind: {kind}\n"))
                && doc.contains(&format!("\n  name: {name}\n"))
        });
        assert!(object, "no {kind} {name}:\n{rendered}");
    }
}
