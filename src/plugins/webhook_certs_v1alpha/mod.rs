//! `webhook-certs.kubebuilder-rs.io/v1-alpha` (short `webhook-certs/v1-alpha`):
//! the manager keeps its webhook certificates itself, so the webhooks need no
//! cert-manager. Chosen at `init --plugins go/v4,webhook-certs/v1-alpha` or
//! with `edit --plugins webhook-certs/v1-alpha` before the first webhook.
//!
//! Both layouts: go/v4 and rust/v1-alpha (kustomize/v2 writing `config/`).
//!
//! PROJECT records it under `plugins:` (not `layout`, so kubebuilder still
//! resolves the project's plugins), and it stays in the chain of every later
//! command ([`Plugin::stays_in_chain`]); the manifests plugin then leaves
//! cert-manager out ([`Plugin::supplies_webhook_certificates`]). The
//! project's first webhook brings the manager's code (`internal/webhookcerts`,
//! imported and called by `cmd/main.go`; or `src/webhook_certs/`, called by
//! `src/main.rs`, and its crates in Cargo.toml) and the kustomize
//! component `config/webhook-certs`, which the default overlay includes;
//! each conversion webhook names its CRD there.

use super::{
    Chain, CreateWebhookHook, EditContext, EditHook, InitContext, InitHook, Layout, Library,
    Output, Plugin, Role, WebhookContext,
};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::{Context, Fragments, Source, Templates, embedded_text};
use crate::project::{ProjectFile, ResourceEntry};
use crate::resource::Resource;
use anyhow::{Context as _, Result, anyhow, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The plugin's key.
pub const KEY: &str = "webhook-certs.kubebuilder-rs.io/v1-alpha";

/// The plugin's name in messages.
const NAME: &str = "webhook-certs/v1-alpha";

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "webhook-certs/v1-alpha";

/// The overlay `make deploy` builds, which includes the component.
const DEFAULT_OVERLAY: &str = "config/default/kustomization.yaml";

/// The plugin's PROJECT section: empty (`{}`); it keeps no settings.
#[derive(Debug, Serialize, Deserialize)]
struct Section {}

/// The webhook-certs/v1-alpha plugin.
pub struct WebhookCerts;

impl Plugin for WebhookCerts {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some(NAME)
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    fn supplies_webhook_certificates(&self) -> bool {
        true
    }

    fn stays_in_chain(&self) -> bool {
        true
    }

    joins!(init: InitHook, create_webhook: CreateWebhookHook, edit: EditHook);
}

impl InitHook for WebhookCerts {
    fn prepare(&self, ctx: &InitContext, _project: &mut ProjectFile) -> Result<()> {
        check_layout(ctx.chain).map(|_| ())
    }

    fn plan(&self, _ctx: &InitContext, _project: &ProjectFile, out: &mut Output) -> Result<()> {
        out.record(KEY, &Section {})
    }
}

impl CreateWebhookHook for WebhookCerts {
    fn plan(&self, ctx: &WebhookContext, out: &mut Output) -> Result<()> {
        plan_shared(ctx.chain, ctx.files, ctx.project, out)?;
        if ctx.options.conversion {
            plan_conversion(ctx.resource, out)?;
        }
        Ok(())
    }
}

impl EditHook for WebhookCerts {
    /// Adds the plugin to a project that has no webhook yet. In a project
    /// that has it, brings every webhook's share in again: what kubebuilder
    /// scaffolded since (it does not know the plugin) gets its entries. A
    /// project whose webhooks take their certificate from cert-manager is
    /// refused.
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        check_layout(ctx.chain)?;
        let project = ctx.project;
        let with_webhooks: Vec<&ResourceEntry> = project
            .resources
            .iter()
            .filter(|entry| entry.webhooks.is_some())
            .collect();
        if !with_webhooks.is_empty() && project.plugin_section::<Section>(KEY)?.is_none() {
            bail!(
                "{NAME} can only be added before the project's first webhook: its webhooks already take their certificate from cert-manager (config/certmanager); start the project with `init --plugins {},{NAME}`",
                project.layout.join(",")
            );
        }
        if !with_webhooks.is_empty() {
            plan_shared(ctx.chain, ctx.files, project, out)?;
        }
        let domain = project.domain.as_deref().unwrap_or_default();
        let converting = with_webhooks.into_iter().filter(|entry| {
            entry
                .webhooks
                .as_ref()
                .is_some_and(|w| w.conversion == Some(true))
        });
        for entry in converting {
            plan_conversion(&Resource::from_entry(entry, domain), out)?;
        }
        out.record(KEY, &Section {})
    }
}

/// The chain's layout, when the plugin has the manager's code for its
/// language (a folder `create-webhook/<language>/` of templates) and the
/// chain writes `config/`; otherwise a one-line refusal.
fn check_layout(chain: &Chain) -> Result<&'static dyn Layout> {
    let layout = chain
        .layout()
        .filter(|_| chain.manifests_layout().is_some());
    let templates = Templates::load(TEMPLATE_DIR, &["create-webhook"])?;
    match layout {
        Some(layout) if !templates.tree(&code_folder(layout.language())).is_empty() => Ok(layout),
        _ => bail!(
            "{NAME} has the manager's code for the go/v4 and rust/v1-alpha layouts (with kustomize/v2), and the chain is {}",
            chain.keys.join(",")
        ),
    }
}

/// The libraries the manager's code in `language` needs: the group of
/// that language in `create-webhook/libraries.toml` (none without one).
fn libraries(language: &str) -> Result<Vec<Library>> {
    let path = format!("{TEMPLATE_DIR}/create-webhook/libraries.toml");
    let text = embedded_text(&path).ok_or_else(|| anyhow!("no {path} embedded"))?;
    let doc: toml_edit::DocumentMut = text.parse().with_context(|| format!("invalid {path}"))?;
    let Some(group) = doc.get(language) else {
        return Ok(Vec::new());
    };
    let tables = group
        .as_array_of_tables()
        .ok_or_else(|| anyhow!("{path}: {language} is not a list of [[{language}]] tables"))?;
    tables
        .iter()
        .map(|table| {
            let field = |key: &str| {
                table
                    .get(key)
                    .and_then(|item| item.as_str())
                    .map(str::to_string)
                    .ok_or_else(|| anyhow!("{path}: a [[{language}]] lacks {key}"))
            };
            let features = table
                .get("features")
                .and_then(|item| item.as_array())
                .map(|list| {
                    list.iter()
                        .filter_map(|f| f.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            Ok(Library {
                name: field("name")?,
                version: field("version")?,
                features,
            })
        })
        .collect()
}

/// The templates of the manager's code in `language`.
fn code_folder(language: &str) -> String {
    format!("create-webhook/{language}")
}

/// Plans what every webhook shares: the manager's code and the component
/// (kept once written), the call in main.go and the component in the default
/// overlay (each once).
fn plan_shared(
    chain: &Chain,
    files: Source,
    project: &ProjectFile,
    out: &mut Output,
) -> Result<()> {
    let layout = check_layout(chain)?;
    let language = layout.language();
    let templates = Templates::load(TEMPLATE_DIR, &["create-webhook"])?;
    let fragments = Fragments::load(TEMPLATE_DIR, "create-webhook")?;
    let mut context = Context::new();
    context.insert("header", &layout.source_header(files));
    context.insert("repo", project.repo.as_deref().unwrap_or_default());
    context.insert(
        "project_name",
        project.project_name.as_deref().unwrap_or_default(),
    );
    templates.plan_tree(&code_folder(language), &context, &[], &mut out.plan)?;
    templates.plan_tree("create-webhook/config", &context, &[], &mut out.plan)?;
    fragments.plan(language, &templates, &context, &[], &mut out.plan)?;
    layout.plan_libraries(files, &libraries(language)?, &mut out.plan)?;
    if !includes_component(files)? {
        fragments.plan("common", &templates, &context, &[], &mut out.plan)?;
    }
    Ok(())
}

/// Plans a converting CRD's entries in the component: its annotation, its
/// rule and its flag.
fn plan_conversion(resource: &Resource, out: &mut Output) -> Result<()> {
    let templates = Templates::load(TEMPLATE_DIR, &["create-webhook"])?;
    let fragments = Fragments::load(TEMPLATE_DIR, "create-webhook")?;
    let mut context = Context::new();
    context.insert("resource", resource);
    fragments.plan("conversion", &templates, &context, &[], &mut out.plan)
}

/// Whether the default overlay already includes the component (the append
/// of a later webhook would add a second `components:` key).
fn includes_component(files: Source) -> Result<bool> {
    let text = read_if_present(files, Path::new(DEFAULT_OVERLAY))?.unwrap_or_default();
    Ok(text.lines().any(|line| line.trim() == "- ../webhook-certs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rust_code_brings_its_libraries_and_the_go_code_none() {
        let rust = libraries("rust").unwrap();
        let names: Vec<&str> = rust.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["x509-cert"]);
        assert!(rust[0].features.is_empty());
        assert!(libraries("go").unwrap().is_empty());
    }
}
