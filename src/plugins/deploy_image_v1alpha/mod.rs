//! `deploy-image.go.kubebuilder.io/v1-alpha` (short `deploy-image/v1-alpha`):
//! `create api --plugins deploy-image/v1-alpha --image <image>` scaffolds an
//! API and a controller that runs the image as a Deployment.
//!
//! The plugin runs after the layout (go/v4 or rust/v1-alpha, each with
//! kustomize/v2) in the same command and fills in the files the layout
//! plans (the API type, the controller and its test, the sample) with its
//! own content, in Go (`go.rs`) or in Rust (`rust.rs`); it adds the image
//! to the manager's environment in `config/manager/manager.yaml` and
//! records the resource with its options under PROJECT's `plugins:`, as
//! kubebuilder does, so `alpha generate` runs the same `create api` again.

mod go;
mod options;
mod rust;

use super::flags::{bool_flag, text_flag};
use super::go_v4::post_steps;
use super::kustomize_v2::{MANAGER_PATH, manager_env};
use super::rust_v1alpha;
use super::{AfterWrite, ApiContext, EditContext, Hook, Output, Plugin, Role, WebhookContext};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::{Change, Templates, path_vars};
use crate::project::{ProjectFile, ResourceEntry};
use crate::resource::{Origin, Resource};
use anyhow::{Context as _, Result, bail};
use options::{Operand, Options};
use serde::{Deserialize, Serialize};
use serde_norway::Mapping;
use std::path::Path;

/// The plugin's key.
pub const KEY: &str = "deploy-image.go.kubebuilder.io/v1-alpha";

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "deploy-image/v1-alpha";

/// `--manifests`: run `make manifests` afterwards.
const MANIFESTS: &str = "manifests";

/// `--make`: run `make generate` afterwards (go/v4 declares it too).
const MAKE: &str = "make";

/// How to use the plugin, for refusals.
const USAGE: &str = "deploy-image/v1-alpha takes part in `create api` only: kubebuilder-rs create api --group <group> --version <version> --kind <Kind> --plugins deploy-image/v1-alpha --image <image>";

/// The deploy-image/v1-alpha plugin.
pub struct DeployImage;

impl Plugin for DeployImage {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("deploy-image/v1-alpha")
    }

    fn template_dir(&self) -> &'static str {
        TEMPLATE_DIR
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    fn flags(&self, hook: Hook) -> Vec<clap::Arg> {
        if hook != Hook::CreateApi {
            return Vec::new();
        }
        vec![
            text_flag(
                options::IMAGE,
                "deploy-image/v1-alpha: the container image the controller deploys (e.g. memcached:1.6.26-alpine3.19)",
            ),
            text_flag(
                options::COMMAND,
                "deploy-image/v1-alpha: the container's command and arguments, comma-separated (e.g. memcached,--memory-limit=64,-v)",
            ),
            text_flag(
                options::PORT,
                "deploy-image/v1-alpha: the port the container listens on (e.g. 11211); adds containerPort to the spec",
            ),
            text_flag(
                options::RUN_AS_USER,
                "deploy-image/v1-alpha: the non-root user ID the container runs as (e.g. 1001)",
            ),
            bool_flag(
                MAKE,
                true,
                "deploy-image/v1-alpha: run make generate afterwards (--make=false to skip); the Rust layout has no generated code, so there it does nothing",
            ),
            bool_flag(
                MANIFESTS,
                true,
                "deploy-image/v1-alpha: run make manifests afterwards, for the new RBAC rules and CRD (--manifests=false to skip)",
            ),
        ]
    }

    fn scaffolds_api_and_controller(&self) -> bool {
        true
    }

    fn create_api(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        check_request(ctx)?;
        let flags = ctx.flags;
        let operand = Operand::parse(
            flags.text(options::IMAGE),
            flags.text(options::COMMAND),
            flags.text(options::PORT),
            flags.text(options::RUN_AS_USER),
        )?;
        plan_files(ctx, &operand, out)?;
        plan_manager_env(ctx.dir, &ctx.resource.kind, &operand, out)?;
        out.record(KEY, &section(ctx.project, ctx.resource, &operand)?)?;
        Ok(())
    }

    fn create_webhook(&self, _ctx: &WebhookContext, _out: &mut Output) -> Result<()> {
        bail!("{USAGE}")
    }

    fn edit(&self, _ctx: &EditContext, _out: &mut Output) -> Result<()> {
        bail!("{USAGE}")
    }

    fn after_write(&self, hook: Hook, ctx: &AfterWrite) -> Result<()> {
        if hook != Hook::CreateApi || !ctx.flags.is_on(MANIFESTS) {
            return Ok(());
        }
        if ctx.chain.contains(rust_v1alpha::KEY) {
            return rust::run_manifests(ctx.dir);
        }
        post_steps::require_go(ctx.dir)?;
        post_steps::run_make(ctx.dir, "manifests")
    }

    fn recorded_api_flags(
        &self,
        project: &ProjectFile,
        entry: &ResourceEntry,
    ) -> Result<Option<Vec<(&'static str, String)>>> {
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
        let mut flags = operand.flags();
        flags.push((MANIFESTS, "false".into()));
        Ok(Some(flags))
    }

    fn replayed_by_edit(&self) -> bool {
        false
    }
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
/// kustomize/v2 planned for the resource: the sample, then the layout's
/// own (`create-api/go` or `create-api/rust`).
fn plan_files(ctx: &ApiContext, operand: &Operand, out: &mut Output) -> Result<()> {
    let templates = Templates::load(TEMPLATE_DIR, &["create-api"])?;
    let in_rust = ctx
        .project
        .layout
        .iter()
        .any(|key| key == rust_v1alpha::KEY);
    let (context, mut vars, language) = if in_rust {
        let (context, vars) = rust::template_context(ctx, operand);
        (context, vars, "create-api/rust")
    } else {
        let (context, vars) = go::template_context(ctx, operand)?;
        (context, vars, "create-api/go")
    };
    vars.push(("group", ctx.resource.group.clone()));
    let vars = path_vars(&vars);
    for folder in ["create-api/common", language] {
        templates.plan_tree(folder, &context, &vars, &mut out.plan)?;
    }
    Ok(())
}

/// Adds the image's variable to the manager's environment.
fn plan_manager_env(dir: &Path, kind: &str, operand: &Operand, out: &mut Output) -> Result<()> {
    let path = Path::new(MANAGER_PATH);
    let Some(text) = read_if_present(dir, path)? else {
        bail!(
            "{MANAGER_PATH} does not exist, and deploy-image/v1-alpha passes the image to the manager there: restore it (the kustomize/v2 plugin writes it on init)"
        );
    };
    let text = text.replace("\r\n", "\n");
    let contents = manager_env::with_env_var(&text, &Operand::env_var(kind), &operand.image)?;
    out.plan.push(Change::Write {
        path: path.into(),
        contents,
    });
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
        let flags = DeployImage
            .recorded_api_flags(&project, &busybox)
            .unwrap()
            .unwrap();
        assert!(
            flags.contains(&(options::PORT, "8080".to_string())),
            "{flags:?}"
        );
        let operand = Operand::parse(Some("memcached:1"), None, None, None).unwrap();
        let resource = Resource::new(&project, "cache", "v1alpha1", "Memcached", None, true);
        let after = record(&mut project, &resource, &operand);
        assert_eq!(after["resources"][0], before["resources"][0]);
        assert_eq!(after["team"], before["team"]);
        assert_eq!(after["resources"][1]["kind"].as_str(), Some("Memcached"));
    }
}
