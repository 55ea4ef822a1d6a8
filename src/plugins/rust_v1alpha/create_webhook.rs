//! `create webhook` for the Rust layout: the crate's webhook server (once),
//! the kind's webhook module with a `Defaulter`, a `Validator` and a
//! conversion through the hub as asked, the integration test that has the
//! API server call them, and the lines that wire them into the crate, the
//! manager and `make manifests`. A built-in type's webhooks are on
//! k8s-openapi's type, with an example on a label and unit tests only.
//! Which fragment goes where is declared in
//! `scaffolds/rust/v1-alpha/create-webhook/fragments.toml`.

use super::create_api::Render;
use super::names::{crate_ident, module_ident, own_api_module, snake_case, type_module};
use super::test_suites::suite_file;
use super::{
    TEMPLATE_DIR, WEBHOOK_DIR, base_context, cargo_toml, external, read_rust_header, versions,
};
use crate::machinery::{Change, Fragments, Plan, Source, Templates};
use crate::plugins::WebhookContext;
use crate::project::ProjectFile;
use crate::project::bookkeeping::{self, WebhookOptions};
use crate::resource::{Origin, Resource};
use anyhow::{Context as _, Result};
use serde::Serialize;

/// The manager's module file, which declares the modules it has.
const MANAGER_MODULE: &str = "src/manager/mod.rs";

/// The manager's module templates, some of which a webhook server of an
/// older manager gets a copy of.
const MANAGER_TEMPLATES: &str = "init/src/manager";

/// The marker above which `create api` lists each kind's CRD in src/api/mod.rs.
const CRDS_MARKER: &str = "+kubebuilder:scaffold:crds";

/// The kind's webhooks, as templates see them (`webhook.*`).
#[derive(Debug, Serialize)]
struct WebhookView {
    /// The group's module name (`foo_policy` for `foo.policy`).
    group_module: String,
    /// The kind's module name (`first_mate`).
    kind_module: String,
    /// The module of the type, from inside the crate (`crate::api::v1`).
    type_module: String,
    /// The same module from tests (`ship_yard::api::v1`).
    external_type_module: String,
    /// The module of the group's versions, from inside the crate
    /// (`crate::api`, `crate::api::crew`): spokes are its children.
    api_module: String,
    /// The same module from tests.
    external_api_module: String,
    /// The kind's webhook module from `crate::webhook` (`v1::captain`).
    path: String,
    /// The kind's webhook module from tests (`ship_yard::webhook::v1::captain`).
    external_module: String,
    /// The kind's module among the integration tests (`captain_v1`).
    test_module: String,
    /// go/v4's name of the defaulting webhook (`mcaptain-v1.kb.io`).
    defaulting_name: String,
    /// go/v4's name of the validating webhook (`vcaptain-v1.kb.io`).
    validation_name: String,
    /// The defaulting webhook's URL path.
    defaulting_path: String,
    /// The validating webhook's URL path.
    validation_path: String,
    /// The type comes from another crate (k8s-openapi's built-in types, an
    /// external type): webhooks on a label, unit tests only.
    foreign: bool,
    /// `group/version` of the type, as objects of it name it (`apiVersion`).
    api_version: String,
}

/// Plans the Rust side of `create webhook`.
pub fn plan(ctx: &WebhookContext, plan: &mut Plan) -> Result<()> {
    let (project, resource, options) = (ctx.project, ctx.resource, ctx.options);
    // A type from another crate (k8s-openapi's or an external one) gets
    // the webhooks of a built-in type.
    let core = !matches!(resource.origin, Origin::Own);
    let multigroup = project.multigroup == Some(true);
    let webhook = webhook_view(resource, project, options);
    let group_dir = if multigroup {
        webhook.group_module.clone()
    } else {
        String::new()
    };

    let templates = Templates::load(
        TEMPLATE_DIR,
        &[
            "create-webhook",
            "init/src/manager",
            "test-support",
            "test-suite",
        ],
    )?;
    let fragments = Fragments::load(TEMPLATE_DIR, "create-webhook")?;
    let shared_tls = manager_has_module(ctx.files, "tls");
    let shared_http = manager_has_module(ctx.files, "http_server");
    let suite = suite_file(ctx.files, "webhooks");
    let mut context = base_context(project, &read_rust_header(ctx.files));
    context.insert("resource", resource);
    context.insert("webhook", &webhook);
    context.insert("manager_webhook_port", &ctx.manager_webhook_port);
    context.insert("shared_tls", &shared_tls);
    context.insert("shared_http", &shared_http);
    context.insert("suite_module", &(suite == "mod.rs"));
    let vars = [
        ("group_dir", group_dir.as_str()),
        ("version", resource.version.as_str()),
        ("kind", webhook.kind_module.as_str()),
        ("test", webhook.test_module.as_str()),
        ("suite", suite),
    ];
    let render = Render {
        templates: &templates,
        fragments: &fragments,
        context: &context,
        vars: &vars,
    };

    let mut cargo = with_webhook_dependencies(&read_cargo_toml(ctx)?)?;
    if let Origin::External(external) = &resource.origin {
        cargo = external::with_crate(&cargo, external)?;
    }
    plan.push(Change::Write {
        path: "Cargo.toml".into(),
        contents: cargo,
    });
    render.files("create-webhook/server", plan)?;
    // A manager scaffolded before the metrics server's TLS, or before its
    // servers moved onto hyper: the webhook server keeps a copy of the
    // module it lacks.
    for (shared, module) in [(shared_tls, "tls"), (shared_http, "http_server")] {
        if !shared {
            plan.push(Change::CreateIfMissing {
                path: format!("{WEBHOOK_DIR}/{module}.rs").into(),
                contents: templates
                    .render(&format!("{MANAGER_TEMPLATES}/{module}.rs.jinja"), &context)?,
            });
        }
    }
    if multigroup {
        render.files("create-webhook/webhook-group", plan)?;
        render.fragments("webhook-group", plan)?;
    }
    render.files("create-webhook/webhook", plan)?;
    plan_test_files(&render, core, suite, plan)?;
    render.fragments("common", plan)?;
    if !core {
        render.fragments("integration-test", plan)?;
    }
    // The conversion's own fragment holds the markers its spokes are
    // inserted at, so once spokes split it, it no longer reads as "already
    // there": a later call (`--conversion --spoke v3 --force`) adds spokes only.
    let has_conversion = bookkeeping::entry(project, resource)
        .and_then(|entry| entry.webhooks.as_ref())
        .and_then(|webhooks| webhooks.conversion)
        == Some(true);
    let (defaulting, validation) = if core {
        ("core-defaulting", "core-validation")
    } else {
        ("defaulting", "validation")
    };
    for (wanted, group) in [
        (options.defaulting, defaulting),
        (options.validation, validation),
        (options.conversion && !has_conversion, "conversion"),
    ] {
        if wanted {
            render.fragments(group, plan)?;
        }
    }
    if options.conversion {
        plan_spokes(&render, resource, project, &options.spokes, plan)?;
    }
    Ok(())
}

/// Plans the integration tests' files for the project's own types: their
/// test API server (which a project without a controller lacks), the
/// webhook server started for them and the kind's module. A built-in type
/// gets none: a valid object of it (a Pod with containers, a Deployment
/// with a selector) is the user's to write, so it has unit tests only.
fn plan_test_files(render: &Render, core: bool, suite: &str, plan: &mut Plan) -> Result<()> {
    if core {
        return Ok(());
    }
    render.files("test-support", plan)?;
    if suite == "mod.rs" {
        render.files("test-suite", plan)?;
        render.fragments("webhook-suite", plan)?;
    }
    render.files("create-webhook/webhook-test", plan)
}

/// Plans each spoke's part of the conversion, and lists the spokes' CRDs
/// after the hub's in `api::crds()`, so that `make manifests` stores the hub.
fn plan_spokes(
    render: &Render,
    resource: &Resource,
    project: &ProjectFile,
    spokes: &[String],
    plan: &mut Plan,
) -> Result<()> {
    for spoke in spokes {
        let mut context = render.context.clone();
        context.insert("spoke", spoke);
        Render {
            context: &context,
            ..*render
        }
        .fragments("conversion-spoke", plan)?;

        let mut at_spoke = resource.clone();
        at_spoke.version = spoke.clone();
        let line = format!("        {}::crd(),\n", crd_path(&at_spoke, project));
        plan.push(Change::RemoveLines {
            path: "src/api/mod.rs".into(),
            text: line.clone(),
        });
        plan.push(Change::Insert {
            path: "src/api/mod.rs".into(),
            marker: CRDS_MARKER.to_string(),
            fragment: line,
            fallback: None,
        });
    }
    Ok(())
}

/// Whether the manager of `files` has the module `name` (`pub mod <name>;`
/// in src/manager/mod.rs), which the webhook server then shares with it.
fn manager_has_module(files: Source, name: &str) -> bool {
    let declaration = format!("pub mod {name};");
    files
        .read_to_string(MANAGER_MODULE)
        .is_ok_and(|text| text.lines().any(|line| line.trim() == declaration))
}

/// The project's Cargo.toml.
fn read_cargo_toml(ctx: &WebhookContext) -> Result<String> {
    ctx.files.read_to_string("Cargo.toml").with_context(|| {
        format!(
            "cannot read {}: create webhook edits it to add the webhook server's crates",
            ctx.files.shown("Cargo.toml").display()
        )
    })
}

/// `Cargo.toml` text with what the webhook server needs: kube's admission
/// types, the HTTP server (hyper; already there since the manager's
/// servers use it), rustls (with ring, as kube uses it), the JSON patch
/// crate kube's admission types take and the YAML writer of
/// config/webhook/manifests.yaml.
fn with_webhook_dependencies(text: &str) -> Result<String> {
    let pinned = versions();
    let mut text = cargo_toml::with_dependency(text, "kube", pinned.get("kube"), &["admission"])?;
    text = cargo_toml::with_dependency(&text, "http", pinned.get("http"), &[])?;
    text = cargo_toml::with_dependency(&text, "http-body-util", pinned.get("http_body_util"), &[])?;
    let server = ["server", "http1", "http2"];
    text = cargo_toml::with_dependency(&text, "hyper", pinned.get("hyper"), &server)?;
    text = cargo_toml::with_dependency(&text, "hyper-util", pinned.get("hyper_util"), &["tokio"])?;
    text = cargo_toml::with_dependency(&text, "json-patch", pinned.get("json_patch"), &[])?;
    text = cargo_toml::with_dependency(&text, "serde-saphyr", pinned.get("serde_saphyr"), &[])?;
    let tls = ["ring", "tls12", "logging"];
    text = cargo_toml::with_dependency_without_defaults(
        &text,
        "rustls",
        pinned.get("rustls"),
        &["std", "ring", "tls12", "logging"],
    )?;
    cargo_toml::with_dependency_without_defaults(
        &text,
        "tokio-rustls",
        pinned.get("tokio_rustls"),
        &tls,
    )
}

/// `v1::Captain` or `crew::v1::Captain`: the type from src/api/mod.rs.
fn crd_path(resource: &Resource, project: &ProjectFile) -> String {
    let module = api_module(resource, project);
    format!("{}::{}", module.trim_start_matches("api::"), resource.kind)
}

/// The module of the resource's type from the crate root (`api::v1`,
/// `api::crew::v1`), as PROJECT recorded it when the API was created: a
/// project made multigroup later keeps its earlier APIs where they were.
fn api_module(resource: &Resource, project: &ProjectFile) -> String {
    let recorded = bookkeeping::entry(project, resource).and_then(|entry| entry.path.as_deref());
    match recorded.and_then(|path| path.split_once("::")) {
        Some((_crate, module)) => module.to_string(),
        None => own_api_module(resource, project),
    }
}

/// Builds `webhook.*` for templates.
fn webhook_view(
    resource: &Resource,
    project: &ProjectFile,
    options: &WebhookOptions,
) -> WebhookView {
    let crate_name = crate_ident(project.project_name.as_deref().unwrap_or_default());
    let kind_module = snake_case(&resource.kind);
    let api_module = api_module(resource, project);
    let group_api_module = api_module
        .rsplit_once("::")
        .map_or("api", |(parent, _)| parent)
        .to_string();
    // The webhook module follows the project's layout now, wherever the
    // type was put when the API was created.
    let (path, test_module) = if project.multigroup == Some(true) {
        let group = module_ident(&resource.group);
        let version = &resource.version;
        (
            format!("{group}::{version}::{kind_module}"),
            format!("{group}_{kind_module}_{version}"),
        )
    } else {
        (
            format!("{}::{kind_module}", resource.version),
            format!("{kind_module}_{}", resource.version),
        )
    };
    let path_stem = format!(
        "{}-{}-{}",
        resource.qualified_group.replace('.', "-"),
        resource.version,
        resource.kind_lower
    );
    let (type_module, external_type_module) = match &resource.origin {
        // k8s-openapi's module, from inside the crate as from its tests.
        Origin::Core(_) => {
            let module = type_module(resource, project);
            (module.clone(), module)
        }
        Origin::External(external) => external::type_modules(external, &crate_name),
        Origin::Own => (
            format!("crate::{api_module}"),
            format!("{crate_name}::{api_module}"),
        ),
    };
    WebhookView {
        group_module: module_ident(&resource.group),
        type_module,
        external_type_module,
        api_module: format!("crate::{group_api_module}"),
        external_api_module: format!("{crate_name}::{group_api_module}"),
        external_module: format!("{crate_name}::webhook::{path}"),
        test_module,
        defaulting_name: format!("m{}-{}.kb.io", resource.kind_lower, resource.version),
        validation_name: format!("v{}-{}.kb.io", resource.kind_lower, resource.version),
        defaulting_path: options
            .defaulting_path
            .clone()
            .unwrap_or_else(|| format!("/mutate-{path_stem}")),
        validation_path: options
            .validation_path
            .clone()
            .unwrap_or_else(|| format!("/validate-{path_stem}")),
        kind_module,
        path,
        foreign: !matches!(resource.origin, Origin::Own),
        api_version: super::create_api::api_version(resource),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(multigroup: bool) -> ProjectFile {
        ProjectFile {
            domain: Some("example.com".into()),
            project_name: Some("ship-yard".into()),
            multigroup: multigroup.then_some(true),
            ..ProjectFile::default()
        }
    }

    #[test]
    fn names_and_paths_are_go_v4_s() {
        let project = project(false);
        let resource = Resource::new(&project, "crew", "v1", "FirstMate", None, true);
        let view = webhook_view(&resource, &project, &WebhookOptions::default());
        assert_eq!(view.defaulting_name, "mfirstmate-v1.kb.io");
        assert_eq!(view.validation_name, "vfirstmate-v1.kb.io");
        assert_eq!(
            view.defaulting_path,
            "/mutate-crew-example-com-v1-firstmate"
        );
        assert_eq!(
            view.validation_path,
            "/validate-crew-example-com-v1-firstmate"
        );
        assert_eq!(view.path, "v1::first_mate");
        assert_eq!(view.type_module, "crate::api::v1");
        assert_eq!(view.api_module, "crate::api");
        let custom = WebhookOptions {
            validation_path: Some("/check".into()),
            ..WebhookOptions::default()
        };
        assert_eq!(
            webhook_view(&resource, &project, &custom).validation_path,
            "/check"
        );
    }

    #[test]
    fn built_in_types_are_k8s_openapis_on_go_v4_s_paths() {
        let project = project(true);
        let pod = Resource::new(&project, "core", "v1", "Pod", None, false);
        let view = webhook_view(&pod, &project, &WebhookOptions::default());
        assert_eq!(view.type_module, "k8s_openapi::api::core::v1");
        assert_eq!(view.external_type_module, "k8s_openapi::api::core::v1");
        assert_eq!(view.defaulting_path, "/mutate--v1-pod");
        assert_eq!(view.path, "core::v1::pod");
        let deployment = Resource::new(&project, "apps", "v1", "Deployment", None, false);
        let view = webhook_view(&deployment, &project, &WebhookOptions::default());
        assert_eq!(view.validation_path, "/validate-apps-v1-deployment");
        assert_eq!(view.type_module, "k8s_openapi::api::apps::v1");
    }

    #[test]
    fn a_multigroup_project_nests_by_group_but_keeps_types_where_they_were() {
        let mut project = project(true);
        let resource = Resource::new(&project, "foo.policy", "v1", "Tide", None, true);
        let view = webhook_view(&resource, &project, &WebhookOptions::default());
        assert_eq!(view.path, "foo_policy::v1::tide");
        assert_eq!(view.test_module, "foo_policy_tide_v1");
        assert_eq!(view.external_type_module, "ship_yard::api::foo_policy::v1");
        assert_eq!(view.external_api_module, "ship_yard::api::foo_policy");

        // An API created before `edit --multigroup` stays in api::v1.
        project.resources.push(crate::project::ResourceEntry {
            group: Some("foo.policy".into()),
            version: "v1".into(),
            kind: "Tide".into(),
            path: Some("ship_yard::api::v1".into()),
            ..Default::default()
        });
        let view = webhook_view(&resource, &project, &WebhookOptions::default());
        assert_eq!(view.type_module, "crate::api::v1");
        assert_eq!(view.path, "foo_policy::v1::tide");
        assert_eq!(crd_path(&resource, &project), "v1::Tide");
    }
}
