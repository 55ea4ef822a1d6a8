//! `create webhook` in a rust/v1-alpha project: what it adds and edits
//! (snapshots), go/v4's webhook names and paths, the hub listed first so
//! that it is stored, a multigroup project, two calls ending like one,
//! refusals, `--dry-run` and `alpha generate`, `--webhook-port` used only
//! with a manager that defines it, and the manager's TLS module shared with
//! the webhook server, or copied for a manager that has none.

use crate::common::{
    assert_refused, empty_project_dir, kb_ok, old_manager, read, snapshot_command, snapshot_tree,
    words,
};
use std::path::PathBuf;

/// A new rust/v1-alpha project named `name` grown by `sequence`.
fn rust_project(name: &str, sequence: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir(name);
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    for line in sequence {
        kb_ok(&dir, &words(line));
    }
    (tmp, dir)
}

/// Two versions of Captain, v2 created first.
const TWO_VERSIONS: &[&str] = &[
    "create api --group crew --version v2 --kind Captain --resource --controller=false",
    "create api --group crew --version v1 --kind Captain --resource --controller",
];

#[test]
fn every_webhook_of_a_kind_in_one_call() {
    let (_tmp, dir) = rust_project("guestbook", TWO_VERSIONS);
    snapshot_command(
        &dir,
        "rust_webhook_captain_all",
        &words(
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --conversion --spoke v2",
        ),
    );
    let kind = read(&dir, "src/webhook/v1/captain.rs");
    for needle in [
        "\"mcaptain-v1.kb.io\"",
        "\"/mutate-crew-example-com-v1-captain\"",
        "\"vcaptain-v1.kb.io\"",
        "\"/validate-crew-example-com-v1-captain\"",
        "\"crew.example.com/v2\" => conversion::from_json::<v2::Captain>(object)?.try_into()?,",
        "impl TryFrom<v2::Captain> for Captain {",
    ] {
        assert!(kind.contains(needle), "{needle:?} not in:\n{kind}");
    }
    // The hub's CRD now comes first, so `make manifests` stores v1.
    let api = read(&dir, "src/api/mod.rs");
    let (hub, spoke) = (
        api.find("v1::Captain::crd()"),
        api.find("v2::Captain::crd()"),
    );
    assert!(hub.unwrap() < spoke.unwrap(), "{api}");

    // A later spoke adds its own parts and nothing else.
    kb_ok(
        &dir,
        &words("create api --group crew --version v3 --kind Captain --resource --controller=false"),
    );
    kb_ok(
        &dir,
        &words(
            "create webhook --group crew --version v1 --kind Captain --conversion --spoke v3 --force",
        ),
    );
    let kind = read(&dir, "src/webhook/v1/captain.rs");
    assert_eq!(kind.matches("pub const CONVERSION").count(), 1, "{kind}");
    for spoke in ["v2", "v3"] {
        let arm =
            format!("\"crew.example.com/{spoke}\" => conversion::from_json::<{spoke}::Captain>");
        assert_eq!(kind.matches(&arm).count(), 1, "{kind}");
    }
    let cargo = read(&dir, "Cargo.toml");
    for needle in [
        "\"admission\"",
        "json-patch = \"4\"",
        "tokio-rustls = { version = \"0.26\", default-features = false",
    ] {
        assert!(cargo.contains(needle), "{needle:?} not in:\n{cargo}");
    }
}

#[test]
fn two_calls_end_like_one_and_custom_paths_are_kept() {
    let api = ["create api --group crew --version v1 --kind Captain --resource --controller"];
    let (_one, at_once) = rust_project("guestbook", &api);
    kb_ok(
        &at_once,
        &words(
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --defaulting-path /fill-captain",
        ),
    );
    let (_two, in_two) = rust_project("guestbook", &api);
    for line in [
        "create webhook --group crew --version v1 --kind Captain --defaulting --defaulting-path /fill-captain",
        "create webhook --group crew --version v1 --kind Captain --programmatic-validation",
    ] {
        kb_ok(&in_two, &words(line));
    }
    let (a, b) = (snapshot_tree(&at_once), snapshot_tree(&in_two));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, bytes) in &a {
        assert!(b[path] == *bytes, "{} differs", path.display());
    }
    let kind = read(&in_two, "src/webhook/v1/captain.rs");
    assert!(kind.contains("\"/fill-captain\""), "{kind}");
    assert_eq!(kind.matches("const RESOURCE").count(), 1, "{kind}");
    let listed = read(&in_two, "src/webhook/mod.rs");
    assert_eq!(listed.matches("v1::captain::webhooks(),").count(), 1);
}

#[test]
fn a_multigroup_project_nests_webhooks_by_group() {
    let (_tmp, dir) = rust_project(
        "guestbook",
        &[
            "edit --multigroup",
            "create api --group crew --version v1 --kind FirstMate --resource --controller",
            "create api --group crew --version v2 --kind FirstMate --resource --controller=false",
            "create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2",
            "create api --group sea --version v1 --kind Tide --namespaced=false --resource --controller",
            "create webhook --group sea --version v1 --kind Tide --programmatic-validation",
        ],
    );
    let root = read(&dir, "src/webhook/mod.rs");
    for needle in [
        "pub mod crew;",
        "pub mod sea;",
        "sea::v1::tide::webhooks(),",
        "crew::v1::first_mate::CONVERSION,",
    ] {
        assert!(root.contains(needle), "{needle:?} not in:\n{root}");
    }
    assert!(read(&dir, "src/webhook/crew/mod.rs").contains("pub mod v1;"));
    assert!(read(&dir, "src/webhook/crew/v1/mod.rs").contains("pub mod first_mate;"));
    let first_mate = read(&dir, "src/webhook/crew/v1/first_mate.rs");
    assert!(
        first_mate.contains("use crate::api::crew::v2;"),
        "{first_mate}"
    );
    let tests = read(&dir, "tests/webhooks/mod.rs");
    for needle in [
        "mod crew_first_mate_v1;",
        "crew_first_mate_v1::conversion_from_v2(&client).await;",
        "sea_tide_v1::validation(&client).await;",
    ] {
        assert!(tests.contains(needle), "{needle:?} not in:\n{tests}");
    }
    // A cluster-scoped kind is tested without a namespace.
    assert!(read(&dir, "tests/webhooks/sea_tide_v1.rs").contains("Api::all(client.clone())"));
}

#[test]
fn refusals_change_nothing() {
    let (_tmp, dir) = rust_project(
        "guestbook",
        &[
            "create api --group crew --version v1 --kind Captain --resource --controller",
            "create api --group apps --version v1 --kind Deployment --resource=false --controller",
            "create webhook --group crew --version v1 --kind Captain --defaulting",
        ],
    );
    let create = ["create", "webhook"];
    for (args, needles) in [
        (
            "--group core --version v9 --kind Pod --defaulting",
            &["core/v9 Pod", "api::core::v9", "serves: v1"][..],
        ),
        (
            "--group apps --version v1alpha1 --kind Deployment --programmatic-validation",
            &["apps/v1alpha1", "serves: v1"][..],
        ),
        (
            "--group metrics --version v1beta1 --kind PodMetrics --defaulting",
            &[
                "metrics/v1beta1 PodMetrics",
                "no module for the group metrics",
            ][..],
        ),
        (
            "--group apps --version v1 --kind Deploymint --defaulting",
            &["Deploymint", "Deployment, ReplicaSet"][..],
        ),
        (
            "--group core --version v1 --kind Pod --conversion --spoke v2",
            &["conversion webhook", "core/v1 Pod"][..],
        ),
    ] {
        assert_refused(&dir, &create, &words(args), needles);
    }
    assert_refused(
        &dir,
        &create,
        &words("--group crew --version v1 --kind Captain --defaulting"),
        &["defaulting webhook", "already exists"],
    );
    assert_refused(
        &dir,
        &create,
        &words("--group crew --version v1 --kind Captain --conversion --spoke v3"),
        &["--spoke v3"],
    );
}

#[test]
fn dry_run_writes_nothing_and_alpha_generate_gives_the_project_back() {
    let (tmp, dir) = rust_project("guestbook", TWO_VERSIONS);
    let before = snapshot_tree(&dir);
    let all = "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --conversion --spoke v2";
    let printed = kb_ok(&dir, &words(&format!("{all} --dry-run")));
    for path in ["src/webhook/v1/captain.rs", "src/main.rs", "Cargo.toml"] {
        assert!(printed.contains(path), "{path} not in:\n{printed}");
    }
    assert_eq!(snapshot_tree(&dir), before);

    kb_ok(&dir, &words(all));
    let printed = kb_ok(
        tmp.path(),
        &words("alpha generate --input-dir guestbook --output-dir regenerated"),
    );
    assert!(printed.contains("no file differs"), "{printed}");
    let regenerated = snapshot_tree(&tmp.path().join("regenerated"));
    for (path, bytes) in &snapshot_tree(&dir) {
        assert!(regenerated[path] == *bytes, "{} differs", path.display());
    }
}

/// The first webhook of a project whose manager takes `--webhook-port`
/// serves on the port it gives, and config/ passes it; a manager made
/// before the flag existed gets neither, and keeps serving on 9443.
#[test]
fn webhook_port_is_used_only_with_a_manager_that_defines_it() {
    let api = "create api --group crew --version v1 --kind Captain --resource --controller";
    for old in [false, true] {
        let (_tmp, dir) = rust_project("guestbook", &[api]);
        if old {
            old_manager::rust_without_webhook_port(&dir);
        }
        kb_ok(
            &dir,
            &words("create webhook --group crew --version v1 --kind Captain --defaulting"),
        );
        let patch = read(&dir, "config/default/manager_webhook_patch.yaml");
        assert_eq!(
            patch.contains("value: --webhook-port=9443\n"),
            !old,
            "old manager: {old}\n{patch}"
        );
        let server = read(&dir, "src/webhook/mod.rs");
        assert_eq!(
            server.contains("webhook_address(flags.webhook_port)"),
            !old,
            "old manager: {old}\n{server}"
        );
        assert_eq!(
            server.contains("Some(SocketAddr::from(([0, 0, 0, 0], PORT)))"),
            old,
            "old manager: {old}\n{server}"
        );
    }
}

/// The webhook server uses the TLS and HTTP server modules of a manager
/// that has them (src/manager/tls.rs and src/manager/http_server.rs, shared
/// with the metrics server: the project holds one copy of each); a manager
/// made before a module existed gets the same module under src/webhook/.
#[test]
fn the_webhook_server_shares_the_managers_modules_when_it_has_them() {
    let api = "create api --group crew --version v1 --kind Captain --resource --controller";
    let webhook = "create webhook --group crew --version v1 --kind Captain --defaulting";
    let (_new_tmp, new) = rust_project("guestbook", &[api, webhook]);
    let server = read(&new, "src/webhook/mod.rs");
    for module in ["tls", "http_server"] {
        let copy = format!("src/webhook/{module}.rs");
        assert!(!new.join(&copy).exists(), "a second copy: {copy}");
        assert!(!server.contains(&format!("pub mod {module};")), "{server}");
    }
    assert!(
        server.contains("use crate::manager::{Flags, Shutdown, tls, http_server};"),
        "{server}"
    );

    for (module, kept) in [("tls", "http_server"), ("http_server", "tls")] {
        let (_old_tmp, old) = rust_project("guestbook", &[api]);
        old_manager::rust_without_manager_module(&old, module);
        kb_ok(&old, &words(webhook));
        let copy = format!("src/webhook/{module}.rs");
        let manager_module = format!("src/manager/{module}.rs");
        assert_eq!(read(&old, &copy), read(&new, &manager_module));
        assert!(!old.join(&manager_module).exists());
        assert!(!old.join(format!("src/webhook/{kept}.rs")).exists());
        let server = read(&old, "src/webhook/mod.rs");
        assert!(
            server.contains(&format!("\npub mod {module};\n")),
            "{server}"
        );
        let shared = format!("use crate::manager::{{Flags, Shutdown, {kept}}};");
        assert!(server.contains(&shared), "{module}: {server}");
    }
}

/// A built-in type's webhooks use k8s-openapi's type, are served on the
/// paths go/v4 gives them (`/mutate--v1-pod` for the core group) and are
/// recorded in PROJECT as kubebuilder records core types; a type that
/// already has a controller keeps its entry. They come with unit tests
/// only: the integration tests get no module for them.
#[test]
fn built_in_types_get_webhooks_on_k8s_openapis_types() {
    let (_tmp, dir) = rust_project(
        "guestbook",
        &["create api --group apps --version v1 --kind Deployment --resource=false --controller"],
    );
    kb_ok(
        &dir,
        &words("create webhook --group core --version v1 --kind Pod --defaulting"),
    );
    kb_ok(
        &dir,
        &words(
            "create webhook --group apps --version v1 --kind Deployment --programmatic-validation",
        ),
    );
    let pod = read(&dir, "src/webhook/v1/pod.rs");
    for needle in [
        "use k8s_openapi::api::core::v1::Pod;",
        "AdmissionWebhook::defaulting::<Pod>(",
        "\"mpod-v1.kb.io\"",
        "\"/mutate--v1-pod\"",
        "const RESOURCE: (&str, &str, &str) = (\"\", \"v1\", \"pods\");",
        "impl Defaulter for Pod {",
        "pub const LABEL: &str = \"example.com/team\";",
    ] {
        assert!(pod.contains(needle), "{needle:?} not in:\n{pod}");
    }
    let deployment = read(&dir, "src/webhook/v1/deployment.rs");
    for needle in [
        "use k8s_openapi::api::apps::v1::Deployment;",
        "\"vdeployment-v1.kb.io\"",
        "\"/validate-apps-v1-deployment\"",
        "(\"apps\", \"v1\", \"deployments\")",
        "impl Validator for Deployment {",
    ] {
        assert!(
            deployment.contains(needle),
            "{needle:?} not in:\n{deployment}"
        );
    }
    assert!(!deployment.contains("Spec"), "{deployment}");
    let listed = read(&dir, "src/webhook/mod.rs");
    for needle in ["v1::pod::webhooks(),", "v1::deployment::webhooks(),"] {
        assert!(listed.contains(needle), "{needle:?} not in:\n{listed}");
    }
    assert!(!dir.join("tests/webhooks").exists());
    // Built-in types alone bring no integration tests; the project's own
    // type brings them, with the test API server a project without a
    // controller lacks.
    let pod_only = "create webhook --group core --version v1 --kind Pod --defaulting";
    let (_other, only) = rust_project("guestbook", &[pod_only]);
    assert!(!only.join("tests/webhooks").exists());
    assert!(!only.join("tests/support").exists());
    for line in [
        "create api --group crew --version v1 --kind Captain --resource --controller=false",
        "create webhook --group crew --version v1 --kind Captain --defaulting",
    ] {
        kb_ok(&only, &words(line));
    }
    assert!(read(&only, "tests/support/mod.rs").contains("pub struct ControlPlane"));
    assert!(read(&only, "tests/webhooks/mod.rs").contains("mod captain_v1;"));
    let project = read(&dir, "PROJECT");
    for needle in [
        "- controller: true\n  core: true\n  group: apps\n  kind: Deployment\n  path: k8s_openapi::api::apps::v1\n  version: v1\n  webhooks:\n    validation: true\n    webhookVersion: v1\n",
        "- core: true\n  group: core\n  kind: Pod\n  path: k8s_openapi::api::core::v1\n  version: v1\n  webhooks:\n    defaulting: true\n    webhookVersion: v1\n",
    ] {
        assert!(project.contains(needle), "{needle:?} not in:\n{project}");
    }
}

/// Webhooks for an external type: one not in PROJECT yet (recorded with
/// `external`, `domain`, `module` and the Rust `path`, as kubebuilder
/// records it, its crate added to Cargo.toml), and one whose controller was
/// created first (picked by --external-api-domain, its record kept).
#[test]
fn external_types_get_webhooks_on_their_crates_types() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    kb_ok(
        &dir,
        &words(
            "create webhook --group cert-manager --version v1 --kind Issuer --defaulting --external-api-path cert_types::v1 --external-api-module cert-types@0.3 --external-api-domain io",
        ),
    );
    let project = read(&dir, "PROJECT");
    let issuer = "- domain: io\n  external: true\n  group: cert-manager\n  kind: Issuer\n  module: cert-types@0.3\n  path: cert_types::v1\n  version: v1\n  webhooks:\n    defaulting: true\n    webhookVersion: v1\n";
    assert!(project.contains(issuer), "{project}");
    let cargo = read(&dir, "Cargo.toml");
    assert!(cargo.contains("\ncert-types = \"0.3\"\n"), "{cargo}");
    assert!(cargo.contains("\njson-patch = "), "{cargo}");
    let issuer_rs = read(&dir, "src/webhook/v1/issuer.rs");
    for needle in [
        "use cert_types::v1::Issuer;",
        "AdmissionWebhook::defaulting::<Issuer>(",
        "\"/mutate-cert-manager-io-v1-issuer\"",
        "(\"cert-manager.io\", \"v1\", \"issuers\")",
        "impl Defaulter for Issuer {",
        "\"apiVersion\": \"cert-manager.io/v1\"",
    ] {
        assert!(
            issuer_rs.contains(needle),
            "{needle:?} not in:\n{issuer_rs}"
        );
    }

    let crate_dir = dir.join("acme-types");
    std::fs::create_dir_all(&crate_dir).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        "[package]\nname = \"acme-types\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    kb_ok(
        &dir,
        &words(
            "create api --group widgets --version v1 --kind Widget --resource=false --controller --external-api-path acme_types::v1 --external-api-module acme-types@path:acme-types --external-api-domain acme.io",
        ),
    );
    kb_ok(
        &dir,
        &words(
            "create webhook --group widgets --version v1 --kind Widget --programmatic-validation --external-api-domain acme.io",
        ),
    );
    let project = read(&dir, "PROJECT");
    let widget = "- controller: true\n  domain: acme.io\n  external: true\n  group: widgets\n  kind: Widget\n  module: acme-types@path:acme-types\n  path: acme_types::v1\n  version: v1\n  webhooks:\n    validation: true\n    webhookVersion: v1\n";
    assert!(project.contains(widget), "{project}");
    assert!(read(&dir, "src/webhook/v1/widget.rs").contains("impl Validator for Widget {"));
    assert!(!dir.join("tests/webhooks").exists(), "unit tests only");
}

/// Bad external flags on `create webhook` are refused in one line.
#[test]
fn bad_external_flags_on_a_webhook_change_nothing() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    let create = ["create", "webhook"];
    let hook = "--group widgets --version v1 --kind Widget --defaulting";
    for (flags, needles) in [
        (
            "--external-api-module acme-types@1",
            &["--external-api-module", "needs --external-api-path"][..],
        ),
        (
            "--external-api-path acme_types::v1 --external-api-module acme-types@",
            &["\"acme-types@\"", "<crate>@path:<dir>"],
        ),
        (
            "--external-api-path acme_types::v1",
            &["acme_types", "not in Cargo.toml"],
        ),
        (
            "--external-api-path acme_types::type --external-api-module acme-types@1",
            &["\"acme_types::type\"", "Rust path"],
        ),
    ] {
        assert_refused(&dir, &create, &words(&format!("{hook} {flags}")), needles);
    }
}
