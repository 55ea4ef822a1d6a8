//! Types from outside the project in the rust/v1-alpha layout, with the real
//! toolchain and a real API server: k8s-openapi's built-in types (a
//! controller for core/v1 Pod, a defaulting webhook on Pod, a validating one
//! on apps/v1 Deployment) and an external type from a small crate this test
//! writes (`acme-types`, a CRD-backed `Widget`, added with
//! `--external-api-module acme-types@path:../acme-types`), with a controller
//! and both webhooks. `make manifests` writes the core group as `""`, as
//! controller-gen does. The project's own webhook integration test, grown
//! as a user would grow it, then has the API server call the webhooks: a
//! Pod created gets the default label, a Deployment with an empty label is
//! refused with the webhook's message, a Widget is defaulted, refused when
//! invalid, and reconciled by its controller (whose reconcile the test
//! edits to annotate it).
//!
//! Needs cargo, the crates.io index and the control-plane binaries
//! (KUBEBUILDER_ASSETS); no Go. Shares the cargo target directory of every
//! generated project. Run by `scripts/test-all`.

use crate::common::cluster::step;
use crate::common::persistent_project_dir;
use crate::common::rust_project::{self, run, rust_env};
use std::path::Path;
use std::time::Instant;

/// The commands that grow the project, after `init`: an own type with a
/// webhook (which brings the webhook integration test), built-in types, and
/// the external Widget.
const SEQUENCE: &[&str] = &[
    "create api --group webapp --version v1 --kind Guestbook --resource --controller=false",
    "create webhook --group webapp --version v1 --kind Guestbook --defaulting",
    "create api --group core --version v1 --kind Pod --resource=false --controller",
    "create webhook --group core --version v1 --kind Pod --defaulting",
    "create webhook --group apps --version v1 --kind Deployment --programmatic-validation",
    "create api --group widgets --version v1 --kind Widget --resource=false --controller --external-api-path acme_types::v1 --external-api-module acme-types@path:../acme-types --external-api-domain acme.io",
    "create webhook --group widgets --version v1 --kind Widget --defaulting --programmatic-validation --external-api-domain acme.io",
];

/// The external crate: one namespaced kind, `Widget` in widgets.acme.io/v1,
/// on the kube and k8s-openapi versions the project pins.
fn write_acme_types(dir: &Path) {
    let versions = kubebuilder_rs::plugins::rust_v1alpha::versions();
    let manifest = format!(
        "[package]\nname = \"acme-types\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nkube = {{ version = \"{}\", default-features = false, features = [\"derive\"] }}\nk8s-openapi = {{ version = \"{}\", default-features = false, features = [\"schemars\"] }}\nschemars = \"{}\"\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n",
        versions.get("kube"),
        versions.get("k8s_openapi"),
        versions.get("schemars"),
    );
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), ACME_TYPES).unwrap();
}

/// `acme-types`' source.
const ACME_TYPES: &str = r#"//! Types of the widgets.acme.io API, for operators to use.

pub mod v1 {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// What a Widget asks for.
    #[derive(CustomResource, Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
    #[kube(group = "widgets.acme.io", version = "v1", kind = "Widget", namespaced)]
    pub struct WidgetSpec {
        /// How big the widget is.
        pub size: Option<i32>,
    }
}
"#;

/// What the edited Widget reconcile writes on each Widget it sees.
const RECONCILED: &str = "acme.io/reconciled";

/// The scaffolded reconcile of a type from another crate, and the user's
/// version of it: annotate the Widget.
const SCAFFOLDED: &str =
    "pub async fn reconcile(widget: Arc<Widget>, _ctx: Arc<Context>) -> Result<Action, Error> {
    tracing::info!(name = %widget.name_any(), \"reconciling\");
    Ok(Action::await_change())";
const EDITED: &str = "pub async fn reconcile(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action, Error> {
    tracing::info!(name = %widget.name_any(), \"reconciling\");
    let namespace = widget.namespace().unwrap_or_default();
    let api: Api<Widget> = Api::namespaced(ctx.client.clone(), &namespace);
    let patch = serde_json::json!({\"metadata\": {\"annotations\": {\"acme.io/reconciled\": \"true\"}}});
    let params = kube::api::PatchParams::default();
    api.patch(&widget.name_any(), &params, &kube::api::Patch::Merge(&patch)).await?;
    Ok(Action::await_change())";

/// The module the test adds to the project's webhook integration test.
const FOREIGN_TESTS: &str = r#"//! Webhooks and a controller on types from other crates, added by
//! kubebuilder-rs's tests/testsuite/rust/types.rs.

use acme_types::v1::Widget;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, ServiceAccount};
use kube::api::{Api, PostParams};
use kube::{Client, CustomResourceExt, ResourceExt};
use serde_json::json;
use shipyard::manager::Shutdown;
use std::time::{Duration, Instant};

const LABEL: &str = "example.com/team";
const EMPTY: &str = "the label example.com/team must not be empty";

fn label(object: &impl ResourceExt) -> Option<&str> {
    object.labels().get(LABEL).map(String::as_str)
}

/// A Pod created gets the default label from the Pod defaulting webhook.
pub async fn pod_gets_the_default(client: &Client) {
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
    let account = serde_json::from_value(json!({"metadata": {"name": "default"}})).unwrap();
    let _ = accounts.create(&PostParams::default(), &account).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "defaulted"},
        "spec": {"containers": [{"name": "app", "image": "busybox"}]},
    }))
    .unwrap();
    let created = pods.create(&PostParams::default(), &pod).await.expect("a Pod is created");
    assert_eq!(label(&created), Some("unassigned"), "{created:?}");
}

/// The Deployment validating webhook refuses an empty label, with its
/// message, and lets a valid Deployment in.
pub async fn deployment_is_validated(client: &Client) {
    let api: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let deployment = |name: &str, team: &str| -> Deployment {
        serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {LABEL: team}},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "app", "image": "busybox"}]},
                },
            },
        }))
        .unwrap()
    };
    let error = api
        .create(&PostParams::default(), &deployment("refused", ""))
        .await
        .expect_err("a Deployment with an empty label is refused");
    assert!(error.to_string().contains(EMPTY), "{error}");
    api.create(&PostParams::default(), &deployment("accepted", "blue"))
        .await
        .expect("a valid Deployment is accepted");
}

/// A Widget is defaulted, an invalid one refused, and the Widget controller
/// reconciles what is created.
pub async fn widgets_are_admitted_and_reconciled(client: &Client) {
    crate::support::install_crd(client, Widget::crd()).await;
    let shutdown = Shutdown::default();
    let controller = tokio::spawn(shipyard::controller::widget::run(
        client.clone(),
        shutdown.clone(),
    ));
    let api: Api<Widget> = Api::namespaced(client.clone(), "default");
    let widget = |name: &str, labels: serde_json::Value| -> Widget {
        serde_json::from_value(json!({
            "apiVersion": "widgets.acme.io/v1",
            "kind": "Widget",
            "metadata": {"name": name, "labels": labels},
            "spec": {"size": 3},
        }))
        .unwrap()
    };
    let created = api
        .create(&PostParams::default(), &widget("plain", json!({})))
        .await
        .expect("a Widget is created");
    assert_eq!(label(&created), Some("unassigned"), "{created:?}");
    let error = api
        .create(&PostParams::default(), &widget("empty", json!({LABEL: ""})))
        .await
        .expect_err("a Widget with an empty label is refused");
    assert!(error.to_string().contains(EMPTY), "{error}");
    let started = Instant::now();
    loop {
        let seen = api.get("plain").await.expect("the Widget is there");
        if seen.annotations().get("acme.io/reconciled").map(String::as_str) == Some("true") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "not reconciled: {seen:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    shutdown.trigger();
    controller.await.expect("the controller stops");
}
"#;

/// Inserts `line` above `marker` in the file at `path`, as a user adds code.
fn insert_above(path: &Path, marker: &str, line: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(marker), "{marker} not in {}", path.display());
    let edited = text.replacen(marker, &format!("{line}\n{marker}"), 1);
    std::fs::write(path, edited).unwrap();
}

/// Edits the Widget reconcile (and its controller test) and adds
/// [`FOREIGN_TESTS`] to the webhook integration test.
fn grow_the_tests(dir: &Path) {
    let controller = dir.join("src/controller/widget.rs");
    let text = std::fs::read_to_string(&controller).unwrap();
    assert!(text.contains(SCAFFOLDED), "unexpected controller:\n{text}");
    std::fs::write(&controller, text.replace(SCAFFOLDED, EDITED)).unwrap();
    assert!(EDITED.contains(RECONCILED));

    // The reconcile now writes the Widget, so its controller test creates
    // it through the API first, as the scaffolded test's TODO says.
    let test = dir.join("tests/controllers/widget.rs");
    let text = std::fs::read_to_string(&test).unwrap();
    let created = text
        .replace("\"spec\": {},", "\"spec\": {\"size\": 3},")
        .replace(
        "    let context = Arc::new(",
        "    crate::support::install_crd(client, <Widget as kube::CustomResourceExt>::crd()).await;
    let object = kube::Api::<Widget>::namespaced(client.clone(), \"default\")
        .create(&Default::default(), &object)
        .await
        .expect(\"the Widget is created\");
    let context = Arc::new(",
    );
    assert!(
        created.contains("install_crd") && created.contains("\"size\": 3"),
        "{text}"
    );
    std::fs::write(&test, created).unwrap();

    std::fs::write(dir.join("tests/webhooks/foreign.rs"), FOREIGN_TESTS).unwrap();
    let main = dir.join("tests/webhooks/mod.rs");
    insert_above(
        &main,
        "// +kubebuilder:scaffold:test-modules",
        "mod foreign;",
    );
    for call in [
        "    foreign::pod_gets_the_default(&client).await;",
        "    foreign::deployment_is_validated(&client).await;",
        "    foreign::widgets_are_admitted_and_reconciled(&client).await;",
    ] {
        insert_above(&main, "    // +kubebuilder:scaffold:webhook-tests", call);
    }
}

/// `make manifests`: the core group written `""` (the Pod controller's rules
/// and the Pod webhook), the Widget's group in the role and the webhooks.
fn check_manifests(dir: &Path) {
    let read = |path: &str| std::fs::read_to_string(dir.join(path)).unwrap();
    let role = read("config/rbac/role.yaml");
    for needle in ["- \"\"\n  resources:\n  - pods\n", "- widgets.acme.io\n"] {
        assert!(
            role.contains(needle),
            "{needle:?} not in role.yaml:\n{role}"
        );
    }
    assert!(!role.contains("''"), "{role}");
    let webhooks = read("config/webhook/manifests.yaml");
    for needle in [
        "  - apiGroups:\n    - \"\"\n",
        "path: /mutate--v1-pod",
        "path: /validate-apps-v1-deployment",
        "path: /mutate-widgets-acme-io-v1-widget",
        "path: /validate-widgets-acme-io-v1-widget",
    ] {
        assert!(
            webhooks.contains(needle),
            "{needle:?} not in manifests.yaml:\n{webhooks}"
        );
    }
    assert!(!webhooks.contains("''"), "{webhooks}");
}

#[test]
#[ignore = "needs cargo, crates.io and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn built_in_and_external_types_get_controllers_and_webhooks_the_api_server_calls() {
    let started = Instant::now();
    let acme = persistent_project_dir("acme-types");
    let dir = persistent_project_dir("shipyard");
    let env = rust_env(None);
    step("scaffold: the acme-types crate, then the project", || {
        write_acme_types(&acme);
        rust_project::scaffold(&dir, SEQUENCE);
        let cargo = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(
            cargo.contains("acme-types = { path = \"../acme-types\" }"),
            "{cargo}"
        );
        grow_the_tests(&dir);
    });
    step("make manifests: \"\" for the core group", || {
        run(&env, &dir, "make", &["manifests"]);
        check_manifests(&dir);
    });
    step(
        "cargo test: the API server calls the webhooks; the Widget controller reconciles",
        || {
            let out = run(
                &env,
                &dir,
                "cargo",
                &["test", "--lib", "--test", "integration"],
            );
            for test in [
                "webhooks::the_api_server_calls_the_webhooks",
                "controllers::controllers_reconcile_against_a_real_api_server",
                "webhook::v1::widget::tests::defaulting_fills_in_the_label_and_keeps_a_given_one",
                "webhook::v1::widget::tests::validation_refuses_an_empty_label",
            ] {
                assert!(out.contains(&format!("test {test} ... ok")), "{out}");
            }
        },
    );
    eprintln!(
        "rust types test took {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
