//! `deploy-image.go.kubebuilder.io/v1-alpha` (short `deploy-image/v1-alpha`):
//! `create api --plugins deploy-image/v1-alpha --image <image>` scaffolds an
//! API and a controller that runs the image as a Deployment.
//!
//! The plugin runs after the layout (go/v4 or rust/v1-alpha, each with
//! kustomize/v2) in the same command and fills in the files the layout
//! plans (the API type, the controller and its test, the sample) with its
//! own content, in Go (`go.rs`) or in Rust (`rust.rs`), with the variables
//! the layout gives ([`super::Layout`]); it has the manifests plugin add the
//! image to the manager's environment ([`super::ManifestsLayout`]) and
//! records the resource with its options under PROJECT's `plugins:`, as
//! kubebuilder does, so `alpha generate` runs the same `create api` again.

mod go;
mod options;
mod rust;

use super::flags::args_of;
use super::{
    AfterWrite, ApiContext, Chain, CreateApiHook, Given, Layout, Output, Plugin, Role, Toolchain,
};
use crate::machinery::{Templates, path_vars};
use crate::project::{ProjectFile, ResourceEntry};
use crate::resource::{Origin, Resource};
use anyhow::{Context as _, Result, bail};
use options::{DeployImageOptions, Operand, Options};
use serde::{Deserialize, Serialize};
use serde_norway::Mapping;

/// The plugin's key.
pub const KEY: &str = "deploy-image.go.kubebuilder.io/v1-alpha";

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "deploy-image/v1-alpha";

/// The plugin's name in messages.
const NAME: &str = "deploy-image/v1-alpha";

/// The deploy-image/v1-alpha plugin.
pub struct DeployImage;

impl Plugin for DeployImage {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some(NAME)
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    joins!(create_api: CreateApiHook);
}

impl CreateApiHook for DeployImage {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<DeployImageOptions>()
    }

    fn scaffolds_api_and_controller(&self) -> bool {
        true
    }

    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        check_request(ctx)?;
        let options: DeployImageOptions = ctx.flags.get()?;
        let operand = Operand::parse(
            options.image.as_deref(),
            options.image_container_command.as_deref(),
            options.image_container_port.as_deref(),
            options.run_as_user.as_deref(),
        )?;
        let chain = ctx.chain;
        plan_files(ctx, language_layout(chain)?, &operand, out)?;
        let Some(manifests) = chain.manifests_layout() else {
            bail!(
                "{NAME} passes the image to the manager in config/, which the project's chain ({}) does not write: add kustomize/v2 to its layout",
                chain.keys.join(",")
            );
        };
        let env_var = Operand::env_var(&ctx.resource.kind);
        manifests.plan_manager_env(ctx.files, &env_var, &operand.image, NAME, out)?;
        out.record(KEY, &section(ctx.project, ctx.resource, &operand)?)?;
        Ok(())
    }

    fn after_write(&self, ctx: &AfterWrite) -> Result<()> {
        let options: DeployImageOptions = ctx.flags.get()?;
        match ctx.chain.layout() {
            Some(layout) if options.manifests => layout.make_manifests(ctx.dir),
            _ => Ok(()),
        }
    }

    fn replay_options(
        &self,
        project: &ProjectFile,
        entry: &ResourceEntry,
    ) -> Result<Option<Given>> {
        let group = entry.group.as_deref().unwrap_or_default();
        let section: Section = project.plugin_section(KEY)?.unwrap_or_default();
        let Some(recorded) = section
            .resources
            .into_iter()
            .find(|r| r.is(group, &entry.version, &entry.kind))
        else {
            return Ok(None);
        };
        let options = recorded.options.unwrap_or_default();
        let operand = Operand::from_options(&options).with_context(|| {
            format!(
                "PROJECT's {KEY} entry for {group}/{} {}",
                entry.version, entry.kind
            )
        })?;
        // A replay writes into a scratch directory: no post-steps.
        let flags = DeployImageOptions {
            manifests: false,
            ..operand.flags()
        };
        Ok(Some(Given::new(flags)))
    }
}

/// The language layout of the project, whose files the plugin fills in.
fn language_layout(chain: &Chain) -> Result<&'static dyn Layout> {
    chain.layout().with_context(|| {
        format!(
            "{NAME} scaffolds the API in the project's language, and the project's chain ({}) has no language layout",
            chain.keys.join(",")
        )
    })
}

/// The plugin scaffolds a new API type of the project together with its
/// controller, for a namespaced kind (the Deployment lives beside it).
fn check_request(ctx: &ApiContext) -> Result<()> {
    let resource = ctx.resource;
    if !matches!(resource.origin, Origin::Own) {
        bail!(
            "deploy-image/v1-alpha scaffolds a new API of this project; {} is not one (drop --external-api-* and built-in groups)",
            resource.gvk()
        );
    }
    if !ctx.options.resource || !ctx.options.controller {
        bail!(
            "deploy-image/v1-alpha scaffolds the API type and its controller together: drop --resource=false and --controller=false"
        );
    }
    if ctx.options.ssa {
        bail!(
            "deploy-image/v1-alpha scaffolds a controller that updates its Deployment without server-side apply: drop --ssa"
        );
    }
    if let Some(name) = &ctx.options.controller_name {
        bail!(
            "deploy-image/v1-alpha names the controller after the kind: drop --controller-name {name}"
        );
    }
    if !resource.namespaced {
        bail!(
            "deploy-image/v1-alpha needs a namespaced kind, since its Deployment lives in the {}'s namespace: drop --namespaced=false",
            resource.kind
        );
    }
    Ok(())
}

/// Renders the plugin's templates over the files the layout and
/// kustomize/v2 planned for the resource: the sample, then those of the
/// layout's language (`create-api/go` or `create-api/rust`).
fn plan_files(
    ctx: &ApiContext,
    layout: &dyn Layout,
    operand: &Operand,
    out: &mut Output,
) -> Result<()> {
    let templates = Templates::load(TEMPLATE_DIR, &["create-api"])?;
    let api = layout.api_template_context(ctx)?;
    let kind = &ctx.resource.kind;
    let context = match layout.toolchain() {
        Some(Toolchain::Go) => go::with_operand(api.context, kind, operand),
        Some(Toolchain::Cargo) => rust::with_operand(api.context, kind, operand),
        None => bail!(
            "{NAME} has no templates for the {} layout: use it with go/v4 or rust/v1-alpha",
            layout.name()
        ),
    };
    let mut vars = api.vars;
    vars.push(("group", ctx.resource.group.clone()));
    let vars = path_vars(&vars);
    let language = format!("create-api/{}", layout.language());
    for folder in ["create-api/common", language.as_str()] {
        templates.plan_tree(folder, &context, &vars, &mut out.plan)?;
    }
    Ok(())
}

/// The operand as both layouts' templates see it (`operand.*`).
#[derive(Debug, Serialize)]
struct OperandView {
    image: String,
    env_var: String,
    container_name: String,
    /// The container port's name: the container's name cut to the 15
    /// characters a port name may have.
    port_name: String,
    /// The command's items as string literals of the layout's language.
    command: Vec<String>,
    container_port: Option<u16>,
    run_as_user: Option<u32>,
}

impl OperandView {
    /// The view of the operand of a `kind`, with the command's items made
    /// into literals by `literal`.
    fn new(kind: &str, operand: &Operand, literal: fn(&str) -> String) -> Self {
        let container_name = kind.to_ascii_lowercase();
        Self {
            port_name: container_name.chars().take(15).collect(),
            image: operand.image.clone(),
            env_var: Operand::env_var(kind),
            container_name,
            command: operand.command.iter().map(|c| literal(c)).collect(),
            container_port: operand.container_port,
            run_as_user: operand.run_as_user,
        }
    }
}

/// The plugin's PROJECT section: the resources it scaffolded, each with
/// the operand its controller deploys, as kubebuilder records them.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Section {
    /// The resources, in the order they were created.
    #[serde(default)]
    resources: Vec<RecordedResource>,
    /// Any other key, kept as it was.
    #[serde(flatten)]
    extra: Mapping,
}

/// One resource of the section.
#[derive(Debug, Serialize, Deserialize)]
struct RecordedResource {
    /// The API's domain (absent for an empty one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    domain: Option<String>,
    /// The API group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    /// The kind.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    kind: String,
    /// The operand, as the flags of `create api` gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    options: Option<Options>,
    /// The API version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    version: String,
    /// Any other key, kept as it was.
    #[serde(flatten)]
    extra: Mapping,
}

impl RecordedResource {
    /// Whether this is `group`/`version` `kind`.
    fn is(&self, group: &str, version: &str, kind: &str) -> bool {
        self.group.as_deref().unwrap_or_default() == group
            && self.version == version
            && self.kind == kind
    }
}

/// The plugin's PROJECT section with `resource` recorded (in place of an
/// earlier record of the same resource, after `--force`).
fn section(project: &ProjectFile, resource: &Resource, operand: &Operand) -> Result<Section> {
    let mut section: Section = project.plugin_section(KEY)?.unwrap_or_default();
    section
        .resources
        .retain(|r| !r.is(&resource.group, &resource.version, &resource.kind));
    section.resources.push(RecordedResource {
        domain: (!resource.domain.is_empty()).then(|| resource.domain.clone()),
        group: Some(resource.group.clone()),
        kind: resource.kind.clone(),
        options: Some(operand.to_options()),
        version: resource.version.clone(),
        extra: Mapping::new(),
    });
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::{Flags, Hook};
    use serde_norway::Value;

    /// Records `resource` in `project` as `create api` does; the section as PROJECT holds it.
    fn record(project: &mut ProjectFile, resource: &Resource, operand: &Operand) -> Value {
        let section = section(project, resource, operand).unwrap();
        let value = serde_norway::to_value(section).unwrap();
        project
            .plugins
            .insert(Value::String(KEY.into()), value.clone());
        value
    }

    #[test]
    fn a_resource_recorded_again_replaces_its_entry() {
        let mut project = ProjectFile {
            domain: Some("example.com".into()),
            ..ProjectFile::default()
        };
        let operand = Operand::parse(Some("memcached:1"), None, Some("11211"), None).unwrap();
        let resource = Resource::new(&project, "cache", "v1alpha1", "Memcached", None, true);
        let first = record(&mut project, &resource, &operand);
        let other = Resource::new(&project, "cache", "v1alpha1", "Busybox", None, true);
        record(&mut project, &other, &operand);
        let again = record(&mut project, &resource, &operand);
        let kinds: Vec<&str> = again["resources"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["Busybox", "Memcached"]);
        assert_eq!(
            first["resources"][0]["options"]["containerPort"].as_str(),
            Some("11211")
        );
        assert_eq!(
            first["resources"][0]["domain"].as_str(),
            Some("example.com")
        );
    }

    #[test]
    fn what_the_plugin_does_not_know_survives_recording_another_resource() {
        let mut project = ProjectFile::default();
        let mine = "resources:\n- group: cache\n  kind: Busybox\n  note: mine\n  options:\n    containerPort: 8080\n    image: busybox:1\n    pullPolicy: Always\n  version: v1alpha1\nteam: crew\n";
        let before: Value = serde_norway::from_str(mine).unwrap();
        project
            .plugins
            .insert(Value::String(KEY.into()), before.clone());
        let busybox = ResourceEntry {
            group: Some("cache".into()),
            version: "v1alpha1".into(),
            kind: "Busybox".into(),
            ..ResourceEntry::default()
        };
        let given = DeployImage
            .replay_options(&project, &busybox)
            .unwrap()
            .unwrap();
        let replayed = Flags::replayed(Hook::CreateApi, vec![given]);
        let options: DeployImageOptions = replayed.get().unwrap();
        assert_eq!(options.image_container_port.as_deref(), Some("8080"));
        assert_eq!(options.image.as_deref(), Some("busybox:1"));
        assert!(!options.manifests);
        let operand = Operand::parse(Some("memcached:1"), None, None, None).unwrap();
        let resource = Resource::new(&project, "cache", "v1alpha1", "Memcached", None, true);
        let after = record(&mut project, &resource, &operand);
        assert_eq!(after["resources"][0], before["resources"][0]);
        assert_eq!(after["team"], before["team"]);
        assert_eq!(after["resources"][1]["kind"].as_str(), Some("Memcached"));
    }
}
