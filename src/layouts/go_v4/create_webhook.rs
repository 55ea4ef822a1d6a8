//! `create webhook` for go/v4: defaulting, validating and conversion webhooks.
//!
//! The webhook file and its test start as skeletons holding only markers;
//! each webhook type is a set of fragments inserted at those markers, always
//! in the order defaulting, validation, conversion. Asking for two types in
//! two calls therefore ends in the same bytes as asking for both at once.

use super::core_types;
use super::resource_view::{Origin, ResourceSpec, ResourceView, go_identifier};
use super::{STORAGE_VERSION_MARKER, base_context, read_go_header};
use crate::layouts::WebhookRequest;
use crate::machinery::{Change, Plan, Templates};
use crate::project::{ProjectFile, ResourceEntry, WebhooksEntry};
use anyhow::{Result, bail};
use serde::Serialize;
use std::path::PathBuf;

/// Files of the project that fragments go into.
#[derive(Clone, Copy)]
enum Target {
    /// `internal/webhook/[<group>/]<version>/<kind>_webhook.go`
    WebhookFile,
    /// `internal/webhook/[<group>/]<version>/<kind>_webhook_test.go`
    WebhookTest,
    /// `internal/webhook/[<group>/]<version>/webhook_suite_test.go`
    Suite,
    /// `cmd/main.go`
    Main,
    /// `config/crd/kustomization.yaml`
    CrdKustomization,
    /// `config/default/kustomization.yaml`
    DefaultKustomization,
    /// `config/network-policy/kustomization.yaml`
    NetworkPolicyKustomization,
    WebhookKustomization,
    HubTypes,
}

/// How a fragment is applied to its target.
#[derive(Clone, Copy)]
enum Edit {
    /// Inserted above the line holding this marker.
    Insert(&'static str),
    /// Switched on where it stands commented out.
    Uncomment,
    /// Added at the end of the file.
    Append,
}

/// One fragment template and where it goes.
type Step = (&'static str, Target, Edit);

const IMPORTS: Edit = Edit::Insert("+kubebuilder:scaffold:imports");
const BUILDER: Edit = Edit::Insert("+kubebuilder:scaffold:webhook-builder");
const TYPES: Edit = Edit::Insert("+kubebuilder:scaffold:webhook-types");
const TESTS: Edit = Edit::Insert("+kubebuilder:scaffold:webhook-tests");

/// Fragments of every webhook kind: the manager and the test suite call the
/// setup function, and the webhook server is deployed with its certificate.
const COMMON: &[Step] = &[
    ("main-imports-webhook.go.tera", Target::Main, IMPORTS),
    (
        "main-builder-webhook.go.tera",
        Target::Main,
        Edit::Insert("+kubebuilder:scaffold:builder"),
    ),
    ("suite-imports.go.tera", Target::Suite, IMPORTS),
    (
        "suite-scheme.go.tera",
        Target::Suite,
        Edit::Insert("+kubebuilder:scaffold:scheme"),
    ),
    (
        "suite-setup.go.tera",
        Target::Suite,
        Edit::Insert("+kubebuilder:scaffold:webhook"),
    ),
    (
        "uncomment/webhook-resource.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
    (
        "uncomment/certmanager-resource.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
    (
        "uncomment/manager-webhook-patch.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
    (
        "uncomment/replacements.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
    (
        "uncomment/replacements-webhook-service.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
    (
        "network-policy-webhook.yaml.tera",
        Target::NetworkPolicyKustomization,
        Edit::Append,
    ),
];

/// Fragments of a defaulting webhook.
const DEFAULTING: &[Step] = &[
    (
        "context-import.go.tera",
        Target::WebhookFile,
        Edit::Insert("+kubebuilder:scaffold:stdlib-imports"),
    ),
    ("logf-import.go.tera", Target::WebhookFile, IMPORTS),
    (
        "webhook-manifests.yaml.tera",
        Target::WebhookKustomization,
        Edit::Insert("+kubebuilder:scaffold:webhookresource"),
    ),
    ("defaulter-setup.go.tera", Target::WebhookFile, BUILDER),
    ("defaulter.go.tera", Target::WebhookFile, TYPES),
    ("defaulter-test.go.tera", Target::WebhookTest, TESTS),
    (
        "uncomment/replacements-mutating.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
];

/// Fragments of a validating webhook.
const VALIDATION: &[Step] = &[
    (
        "context-import.go.tera",
        Target::WebhookFile,
        Edit::Insert("+kubebuilder:scaffold:stdlib-imports"),
    ),
    ("logf-import.go.tera", Target::WebhookFile, IMPORTS),
    ("validator-imports.go.tera", Target::WebhookFile, IMPORTS),
    (
        "webhook-manifests.yaml.tera",
        Target::WebhookKustomization,
        Edit::Insert("+kubebuilder:scaffold:webhookresource"),
    ),
    ("validator-setup.go.tera", Target::WebhookFile, BUILDER),
    ("validator.go.tera", Target::WebhookFile, TYPES),
    ("validator-test.go.tera", Target::WebhookTest, TESTS),
    (
        "uncomment/replacements-validating.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
];

/// Fragments of a conversion webhook.
const CONVERSION: &[Step] = &[
    ("spoke-imports.go.tera", Target::WebhookTest, IMPORTS),
    ("spoke-imports.go.tera", Target::Suite, IMPORTS),
    (
        "suite-spoke-scheme.go.tera",
        Target::Suite,
        Edit::Insert("+kubebuilder:scaffold:scheme"),
    ),
    (
        "storageversion.go.tera",
        Target::HubTypes,
        Edit::Insert("+kubebuilder:object:root=true"),
    ),
    (
        "uncomment/crd-configurations.yaml.tera",
        Target::CrdKustomization,
        Edit::Uncomment,
    ),
    ("conversion-test.go.tera", Target::WebhookTest, TESTS),
    (
        "crd-webhook-patch.yaml.tera",
        Target::CrdKustomization,
        Edit::Insert("+kubebuilder:scaffold:crdkustomizewebhookpatch"),
    ),
    (
        "cainjection-ns-target.yaml.tera",
        Target::DefaultKustomization,
        Edit::Insert("+kubebuilder:scaffold:crdkustomizecainjectionns"),
    ),
    (
        "cainjection-name-target.yaml.tera",
        Target::DefaultKustomization,
        Edit::Insert("+kubebuilder:scaffold:crdkustomizecainjectionname"),
    ),
    (
        "uncomment/replacements-crd-ns.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
    (
        "uncomment/replacements-crd-name.yaml.tera",
        Target::DefaultKustomization,
        Edit::Uncomment,
    ),
];

/// The webhook package, as templates see it (`webhook.*`).
#[derive(Debug, Serialize)]
struct WebhookView {
    package: String,
    import_path: String,
    import_alias: String,
    defaulting_path: String,
    validation_path: String,
    custom_defaulting_path: bool,
    custom_validation_path: bool,
}

/// Plans `create webhook` and records the webhooks in `project`.
pub fn plan(
    dir: &std::path::Path,
    project: &mut ProjectFile,
    request: &WebhookRequest,
) -> Result<Plan> {
    let existing = project
        .resources
        .iter()
        .position(|r| r.is(&request.group, &request.version, &request.kind));
    let origin = origin_of(project, existing, request)?;
    check_against_project(project, existing, request, &origin)?;

    let multigroup = project.multigroup == Some(true);
    let repo = project.repo.clone().unwrap_or_default();
    let domain = project.domain.clone().unwrap_or_default();
    let entry = existing.map(|i| &project.resources[i]);
    let spec = ResourceSpec {
        group: &request.group,
        version: &request.version,
        kind: &request.kind,
        plural: request
            .plural
            .clone()
            .or_else(|| entry.and_then(|e| e.plural.clone())),
        namespaced: entry
            .and_then(|e| e.api.as_ref())
            .and_then(|a| a.namespaced)
            == Some(true),
        ssa: false,
    };
    let resource = ResourceView::new(&spec, &origin, &repo, &domain, multigroup);
    let webhook = webhook_view(request, &resource, &repo, multigroup);

    let templates = Templates::load(super::TEMPLATE_DIR, &["create-webhook"])?;
    let mut context = base_context(project, &read_go_header(dir))?;
    context.insert("resource", &resource);
    context.insert("webhook", &webhook);
    context.insert("hub", &request.version);
    context.insert("spokes", &request.spokes);
    let group_dir = if multigroup {
        request.group.as_str()
    } else {
        ""
    };
    let vars = [
        ("group_dir", group_dir),
        ("version", request.version.as_str()),
        ("kind", resource.kind_lower.as_str()),
        ("plural", resource.plural.as_str()),
        ("hub", request.version.as_str()),
    ];
    let package_dir: PathBuf = ["internal", "webhook", group_dir, &request.version]
        .iter()
        .filter(|s| !s.is_empty())
        .collect();
    let target_path = |target: Target| -> PathBuf {
        match target {
            Target::WebhookFile => package_dir.join(format!("{}_webhook.go", resource.kind_lower)),
            Target::WebhookTest => {
                package_dir.join(format!("{}_webhook_test.go", resource.kind_lower))
            }
            Target::Suite => package_dir.join("webhook_suite_test.go"),
            Target::Main => "cmd/main.go".into(),
            Target::CrdKustomization => "config/crd/kustomization.yaml".into(),
            Target::DefaultKustomization => "config/default/kustomization.yaml".into(),
            Target::NetworkPolicyKustomization => "config/network-policy/kustomization.yaml".into(),
            Target::WebhookKustomization => "config/webhook/kustomization.yaml".into(),
            Target::HubTypes => super::types_file(group_dir, &request.version, &request.kind),
        }
    };

    let mut plan = Plan::new();
    for template in templates.tree("create-webhook/webhook") {
        let contents = templates.render(&template.name, &context)?;
        plan.push(Change::CreateIfMissing {
            path: template.output_with(&vars),
            contents,
        });
    }
    if request.conversion {
        plan_conversion_files(&templates, &mut context, &vars, &request.spokes, &mut plan)?;
        // The hub is the storage version: no spoke may claim it too.
        for spoke in &request.spokes {
            plan.push(Change::RemoveLines {
                path: super::types_file(group_dir, spoke, &request.kind),
                text: format!("{STORAGE_VERSION_MARKER}\n"),
            });
        }
    }
    let mut steps: Vec<Step> = COMMON.to_vec();
    for (wanted, group) in [
        (request.defaulting, DEFAULTING),
        (request.validation, VALIDATION),
        (request.conversion, CONVERSION),
    ] {
        if wanted {
            steps.extend_from_slice(group);
        }
    }
    for (fragment, target, edit) in steps {
        let text = templates.render(&format!("create-webhook/fragments/{fragment}"), &context)?;
        let path = target_path(target);
        plan.push(match edit {
            Edit::Insert(marker) => Change::Insert {
                path,
                marker: marker.into(),
                fragment: text,
            },
            Edit::Uncomment => Change::Uncomment { path, text },
            Edit::Append => Change::Append { path, text },
        });
    }
    record_in_project(project, existing, request, &resource);
    Ok(plan)
}

/// Plans the hub's `Hub()` file, each spoke's conversion functions, and the
/// CRD patch that points the API server at the conversion webhook.
fn plan_conversion_files(
    templates: &Templates,
    context: &mut crate::machinery::Context,
    vars: &[(&str, &str)],
    spokes: &[String],
    plan: &mut Plan,
) -> Result<()> {
    for template in templates.tree("create-webhook/conversion") {
        let per_spoke = template.output.to_string_lossy().contains("{spoke}");
        let spoke_list: Vec<Option<&String>> = if per_spoke {
            spokes.iter().map(Some).collect()
        } else {
            vec![None]
        };
        for spoke in spoke_list {
            let mut all_vars = vars.to_vec();
            if let Some(spoke) = spoke {
                context.insert("spoke", spoke);
                all_vars.push(("spoke", spoke.as_str()));
            }
            let contents = templates.render(&template.name, context)?;
            plan.push(Change::Create {
                path: template.output_with(&all_vars),
                contents,
            });
        }
    }
    Ok(())
}

/// Works out where the type comes from: PROJECT, k8s.io/api or the flags.
fn origin_of(
    project: &ProjectFile,
    existing: Option<usize>,
    request: &WebhookRequest,
) -> Result<Origin> {
    let entry = existing.map(|i| &project.resources[i]);
    if let Some(external) = &request.external {
        return Ok(Origin::External(external.clone()));
    }
    if let Some(entry) = entry.filter(|e| e.external == Some(true)) {
        return Ok(Origin::External(crate::layouts::ExternalApi {
            path: entry.path.clone().unwrap_or_default(),
            domain: entry.domain.clone().unwrap_or_default(),
            module: entry.module.clone().unwrap_or_default(),
        }));
    }
    if let Some(core) = core_types::core_group(&request.group) {
        core_types::check_core_kind(&request.group, &request.version, &request.kind)?;
        return Ok(Origin::Core(core));
    }
    if entry.and_then(|e| e.api.as_ref()).is_none() {
        bail!(
            "there is no API {}/{} {} in PROJECT; create it first with `kubebuilder-rs create api`",
            request.group,
            request.version,
            request.kind
        );
    }
    Ok(Origin::Own)
}

/// Refuses webhooks that exist already and conversions that cannot work.
fn check_against_project(
    project: &ProjectFile,
    existing: Option<usize>,
    request: &WebhookRequest,
    origin: &Origin,
) -> Result<()> {
    let gvk = format!("{}/{} {}", request.group, request.version, request.kind);
    let webhooks = existing
        .and_then(|i| project.resources[i].webhooks.clone())
        .unwrap_or_default();
    if !request.force {
        for (asked, present, name) in [
            (request.defaulting, webhooks.defaulting, "defaulting"),
            (request.validation, webhooks.validation, "validation"),
            (request.conversion, webhooks.conversion, "conversion"),
        ] {
            if asked && present == Some(true) {
                bail!(
                    "the {name} webhook for {gvk} already exists; pass --force to scaffold it again"
                );
            }
        }
    }
    if request.conversion {
        if !matches!(origin, Origin::Own) {
            bail!("a conversion webhook needs an API of this project; {gvk} is not one");
        }
        for spoke in &request.spokes {
            if spoke == &request.version {
                bail!(
                    "--spoke {spoke} is the hub version itself; give the other versions of {}",
                    request.kind
                );
            }
            let has_api = project
                .resources
                .iter()
                .any(|r| r.is(&request.group, spoke, &request.kind) && r.api.is_some());
            if !has_api {
                bail!(
                    "--spoke {spoke}: there is no API {}/{spoke} {} in PROJECT; create it first with `kubebuilder-rs create api`",
                    request.group,
                    request.kind
                );
            }
        }
    }
    Ok(())
}

/// Builds `webhook.*` for templates.
fn webhook_view(
    request: &WebhookRequest,
    resource: &ResourceView,
    repo: &str,
    multigroup: bool,
) -> WebhookView {
    let group_dir = if multigroup {
        format!("{}/", request.group)
    } else {
        String::new()
    };
    let path_stem = format!(
        "{}-{}-{}",
        resource.webhook_group.replace('.', "-"),
        request.version,
        resource.kind_lower
    );
    let alias_group = if multigroup {
        go_identifier(&request.group)
    } else {
        String::new()
    };
    WebhookView {
        package: request.version.clone(),
        import_path: format!("{repo}/internal/webhook/{group_dir}{}", request.version),
        import_alias: format!("webhook{alias_group}{}", request.version),
        defaulting_path: request
            .defaulting_path
            .clone()
            .unwrap_or_else(|| format!("/mutate-{path_stem}")),
        validation_path: request
            .validation_path
            .clone()
            .unwrap_or_else(|| format!("/validate-{path_stem}")),
        custom_defaulting_path: request.defaulting_path.is_some(),
        custom_validation_path: request.validation_path.is_some(),
    }
}

/// Adds the webhooks to the resource's PROJECT entry.
fn record_in_project(
    project: &mut ProjectFile,
    existing: Option<usize>,
    request: &WebhookRequest,
    resource: &ResourceView,
) {
    let index = existing.unwrap_or_else(|| {
        project.resources.push(ResourceEntry {
            group: Some(request.group.clone()),
            version: request.version.clone(),
            kind: request.kind.clone(),
            path: Some(resource.import_path.clone()),
            core: resource.core.then_some(true),
            external: resource.external.then_some(true),
            domain: resource.external.then(|| resource.domain.clone()),
            module: request.external.as_ref().map(|e| e.module.clone()),
            ..ResourceEntry::default()
        });
        project.resources.len() - 1
    });
    let webhooks = project.resources[index]
        .webhooks
        .get_or_insert_with(WebhooksEntry::default);
    if request.defaulting {
        webhooks.defaulting = Some(true);
        if request.defaulting_path.is_some() {
            webhooks.defaulting_path = request.defaulting_path.clone();
        }
    }
    if request.validation {
        webhooks.validation = Some(true);
        if request.validation_path.is_some() {
            webhooks.validation_path = request.validation_path.clone();
        }
    }
    if request.conversion {
        webhooks.conversion = Some(true);
        for spoke in &request.spokes {
            if !webhooks.spoke.contains(spoke) {
                webhooks.spoke.push(spoke.clone());
            }
        }
    }
    webhooks.webhook_version = Some("v1".into());
}
