//! PROJECT bookkeeping shared by every command and plugin: what a `create`
//! request may do given what PROJECT records, and how the request is
//! recorded. Plugins read the result; they never record resources
//! themselves.

use super::{ApiEntry, ProjectFile, ResourceEntry, WebhooksEntry};
use crate::resource::{Origin, Resource, core_types};
use anyhow::{Result, bail};
use serde_norway::Value;

/// What `create api` was asked to scaffold for a resource.
#[derive(Debug, Clone, Default)]
pub struct ApiOptions {
    /// Scaffold the API type.
    pub resource: bool,
    /// Scaffold a controller.
    pub controller: bool,
    /// Name given with `--controller-name`.
    pub controller_name: Option<String>,
    /// Generate server-side-apply configurations.
    pub ssa: bool,
    /// Scaffold again what exists.
    pub force: bool,
}

impl ApiOptions {
    /// The controller's name: `--controller-name`, or the lowercased kind.
    pub fn controller_name(&self, resource: &Resource) -> String {
        self.controller_name
            .clone()
            .unwrap_or_else(|| resource.kind_lower.clone())
    }
}

/// What `create webhook` was asked to scaffold for a resource.
#[derive(Debug, Clone, Default)]
pub struct WebhookOptions {
    /// A defaulting (mutating) webhook.
    pub defaulting: bool,
    /// A validating webhook.
    pub validation: bool,
    /// A conversion webhook; the resource's version is the hub.
    pub conversion: bool,
    /// Versions converted to and from the hub.
    pub spokes: Vec<String>,
    /// Custom path of the defaulting webhook.
    pub defaulting_path: Option<String>,
    /// Custom path of the validating webhook.
    pub validation_path: Option<String>,
    /// Scaffold again what exists.
    pub force: bool,
}

/// The PROJECT entry of `resource`, if there is one.
pub fn entry<'a>(project: &'a ProjectFile, resource: &Resource) -> Option<&'a ResourceEntry> {
    project
        .resources
        .iter()
        .find(|r| r.is(&resource.group, &resource.version, &resource.kind))
}

/// Refuses a `create api` request that clashes with PROJECT or with what
/// the resource is (a built-in type gets no API type).
pub fn check_api(project: &ProjectFile, resource: &Resource, options: &ApiOptions) -> Result<()> {
    let gvk = resource.gvk();
    if let Origin::Core(core) = &resource.origin {
        if options.resource {
            bail!(
                "PROJECT records {gvk} as a built-in Kubernetes type: it gets a controller only; pass --resource=false"
            );
        }
        core_types::check_core_kind(&resource.group, core, &resource.version, &resource.kind)?;
    }
    if options.resource && resource.external {
        bail!(
            "an external API's type lives in its own module: pass --resource=false with --external-api-path"
        );
    }
    let entry = entry(project, resource);
    let has_api = entry.is_some_and(|e| e.api.is_some());
    if options.resource && has_api && !options.force {
        bail!("the API {gvk} already exists; pass --force to scaffold it again");
    }
    if !options.resource && matches!(resource.origin, Origin::Own) && !has_api {
        bail!(
            "there is no API {gvk} in PROJECT to add a controller to; create it with --resource=true"
        );
    }
    if options.controller {
        let name = options.controller_name(resource);
        let taken = entry.is_some_and(|e| e.controller_names().contains(&name));
        if taken && !options.force {
            bail!(
                "the controller {name:?} for {gvk} already exists; pass --controller-name to add another, or --force"
            );
        }
    }
    Ok(())
}

/// Records a `create api` request in PROJECT: the resource's entry (with the
/// package path the layout gave the resource), its API type and controller.
pub fn record_api(project: &mut ProjectFile, resource: &Resource, options: &ApiOptions) {
    let entry = entry_mut(project, resource);
    record_origin(entry, resource);
    if options.resource {
        let api = entry.api.get_or_insert_with(ApiEntry::default);
        api.crd_version = Some("v1".into());
        api.namespaced = resource.namespaced.then_some(true);
        api.ssa = options.ssa.then_some(true);
    }
    if resource.custom_plural {
        entry.plural = Some(resource.plural.clone());
    }
    if options.controller {
        entry.add_controller(&options.controller_name(resource));
    }
}

/// Refuses a `create webhook` request for a type the project does not have,
/// webhooks that exist already, and conversions that cannot work.
pub fn check_webhook(
    project: &ProjectFile,
    resource: &Resource,
    options: &WebhookOptions,
) -> Result<()> {
    let gvk = resource.gvk();
    let entry = entry(project, resource);
    match &resource.origin {
        Origin::Core(core) => {
            core_types::check_core_kind(&resource.group, core, &resource.version, &resource.kind)?;
        }
        Origin::Own if entry.and_then(|e| e.api.as_ref()).is_none() => bail!(
            "no API {}/{} {} in PROJECT: run `kubebuilder-rs create api` first, or pass --external-api-path for a type from another module",
            resource.qualified_group,
            resource.version,
            resource.kind
        ),
        _ => {}
    }
    let webhooks = entry.and_then(|e| e.webhooks.clone()).unwrap_or_default();
    if !options.force {
        for (asked, present, name) in [
            (options.defaulting, webhooks.defaulting, "defaulting"),
            (options.validation, webhooks.validation, "validation"),
            (options.conversion, webhooks.conversion, "conversion"),
        ] {
            if asked && present == Some(true) {
                bail!(
                    "the {name} webhook for {gvk} already exists; pass --force to scaffold it again"
                );
            }
        }
    }
    if options.conversion {
        check_spokes(project, resource, options)?;
    }
    Ok(())
}

/// A conversion needs the project's own type and an API at every spoke.
fn check_spokes(
    project: &ProjectFile,
    resource: &Resource,
    options: &WebhookOptions,
) -> Result<()> {
    if !matches!(resource.origin, Origin::Own) {
        bail!(
            "a conversion webhook needs an API of this project; {} is not one",
            resource.gvk()
        );
    }
    for spoke in &options.spokes {
        if spoke == &resource.version {
            bail!(
                "--spoke {spoke} is the hub version itself; give the other versions of {}",
                resource.kind
            );
        }
        let has_api = project
            .resources
            .iter()
            .any(|r| r.is(&resource.group, spoke, &resource.kind) && r.api.is_some());
        if !has_api {
            bail!(
                "--spoke {spoke}: there is no API {}/{spoke} {} in PROJECT; create it first with `kubebuilder-rs create api`",
                resource.group,
                resource.kind
            );
        }
    }
    Ok(())
}

/// Records a `create webhook` request in the resource's PROJECT entry,
/// adding the entry (built-in or external type) when there is none.
pub fn record_webhook(project: &mut ProjectFile, resource: &Resource, options: &WebhookOptions) {
    let is_new = entry(project, resource).is_none();
    let entry = entry_mut(project, resource);
    if is_new {
        record_origin(entry, resource);
    }
    let webhooks = entry.webhooks.get_or_insert_with(WebhooksEntry::default);
    if options.defaulting {
        webhooks.defaulting = Some(true);
        if options.defaulting_path.is_some() {
            webhooks.defaulting_path = options.defaulting_path.clone();
        }
    }
    if options.validation {
        webhooks.validation = Some(true);
        if options.validation_path.is_some() {
            webhooks.validation_path = options.validation_path.clone();
        }
    }
    if options.conversion {
        webhooks.conversion = Some(true);
        for spoke in &options.spokes {
            if !webhooks.spoke.contains(spoke) {
                webhooks.spoke.push(spoke.clone());
            }
        }
    }
    webhooks.webhook_version = Some("v1".into());
}

/// Records where the resource's type comes from, its domain and package path.
fn record_origin(entry: &mut ResourceEntry, resource: &Resource) {
    match &resource.origin {
        Origin::Own => entry.domain = Some(resource.domain.clone()),
        Origin::Core(core) => {
            entry.core = Some(true);
            entry.domain = (!core.domain.is_empty()).then(|| core.domain.clone());
        }
        Origin::External(external) => {
            entry.external = Some(true);
            entry.domain = Some(external.domain.clone());
            entry.module = Some(external.module.clone());
        }
    }
    entry.path = resource.path.clone();
}

/// The resource's entry, added at the end of PROJECT's list when missing.
fn entry_mut<'a>(project: &'a mut ProjectFile, resource: &Resource) -> &'a mut ResourceEntry {
    let index = project
        .resources
        .iter()
        .position(|r| r.is(&resource.group, &resource.version, &resource.kind))
        .unwrap_or_else(|| {
            project.resources.push(ResourceEntry {
                group: Some(resource.group.clone()),
                version: resource.version.clone(),
                kind: resource.kind.clone(),
                ..ResourceEntry::default()
            });
            project.resources.len() - 1
        });
    &mut project.resources[index]
}

/// Records `config` as the plugin's section under PROJECT's `plugins:`.
pub fn record_plugin(project: &mut ProjectFile, key: &str, config: Value) {
    project
        .plugins
        .insert(Value::String(key.to_string()), config);
}
