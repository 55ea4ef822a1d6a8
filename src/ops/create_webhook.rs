//! `create webhook`: defaulting, validating and conversion webhooks for an
//! API of the project.

use super::{ResourceName, ResourceSpec, Write, after_write, carry_out, plan_project_file};
use crate::machinery::{Plan, Source};
use crate::plugins::{
    Chain, DomainOption, Flags, Hook, Output, WebhookContext, manager_takes_flag,
};
use crate::project::bookkeeping::{self, WebhookOptions};
use crate::project::{Project, ProjectFile, ResourceEntry};
use crate::resource::Resource;
use anyhow::{Result, anyhow, bail};
use std::path::Path;

/// A request for `create webhook`.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// The project's chain, with the optional plugins the request adds.
    pub chain: Chain,
    /// The API.
    pub resource: ResourceSpec,
    /// The webhooks.
    pub options: WebhookOptions,
    /// The plugins' options.
    pub flags: Flags,
}

/// Scaffolds the webhooks `request` asks for in `project`, loaded from
/// `dir`, and runs the plugins' post-steps.
pub fn run(dir: &Path, mut project: Project, request: &WebhookRequest, write: Write) -> Result<()> {
    let (plan, resource) = plan(Source::Dir(dir), &mut project, request)?;
    let Some(written) = carry_out(&plan, dir, write)? else {
        return Ok(());
    };
    let (chain, flags) = (&request.chain, &request.flags);
    after_write(
        chain,
        Hook::CreateWebhook,
        dir,
        flags,
        &written,
        Some(&resource),
    )
}

/// Checks `request` against PROJECT, runs every plugin of its chain, and
/// records the webhooks in `project`: the plan, PROJECT's new content
/// included; with the resource as planned.
pub fn plan(
    files: Source,
    project: &mut Project,
    request: &WebhookRequest,
) -> Result<(Plan, Resource)> {
    let WebhookRequest {
        chain,
        options,
        flags,
        ..
    } = request;
    let resource = resource(chain, &project.file, &request.resource, flags)?;
    bookkeeping::check_webhook(&project.file, &resource, options)?;
    let mut out = Output::default();
    let ctx = WebhookContext {
        chain,
        files,
        project: &project.file,
        resource: &resource,
        options,
        flags,
        manager_webhook_port: manager_takes_flag(chain, files, "webhook-port")?,
    };
    for hook in chain.iter().filter_map(|p| p.create_webhook()) {
        hook.plan(&ctx, &mut out)?;
    }
    bookkeeping::record_webhook(&mut project.file, &resource, options);
    plan_project_file(project, &mut out, false)?;
    Ok((out.plan, resource))
}

/// The resource `spec` names in `project` (see [`pick_entry`] for a named
/// one), as the chain's plugins shape it.
fn resource(
    chain: &Chain,
    project: &ProjectFile,
    spec: &ResourceSpec,
    flags: &Flags,
) -> Result<Resource> {
    let mut resource = match spec {
        ResourceSpec::Named(name) => {
            let mut option = None;
            for hook in chain.iter().filter_map(|p| p.create_webhook()) {
                option = option.or(hook.domain_option(flags)?);
            }
            pick_entry(project, name, option.as_ref())?
        }
        ResourceSpec::Recorded(entry) => {
            Resource::from_entry(entry, project.domain.as_deref().unwrap_or_default())
        }
    };
    for hook in chain.iter().filter_map(|p| p.create_webhook()) {
        hook.shape_resource(project, flags, &mut resource)?;
    }
    Ok(resource)
}

/// The resource a named webhook is for: the PROJECT entry with the same
/// group, version and kind, as kubebuilder picks it. Of several, the one
/// whose domain a plugin's `option` gives (go/v4's `--external-api-domain`),
/// else the one that is not an external type (the project's own when a
/// built-in one shares its kind). With no entry, or a domain no entry has
/// and options that describe a new type, a new resource from the name.
fn pick_entry(
    project: &ProjectFile,
    name: &ResourceName,
    option: Option<&DomainOption>,
) -> Result<Resource> {
    let (group, version, kind) = (&name.group, &name.version, &name.kind);
    let candidates: Vec<&ResourceEntry> = project
        .resources
        .iter()
        .filter(|entry| entry.is(group, version, kind))
        .collect();
    let project_domain = project.domain.as_deref().unwrap_or_default();
    let domain_of = |entry: &ResourceEntry| entry.domain.clone().unwrap_or_default();
    let domains = || {
        let names: Vec<String> = candidates
            .iter()
            .map(|c| Some(domain_of(c)).filter(|d| !d.is_empty()))
            .map(|d| d.unwrap_or_else(|| "<none>".to_string()))
            .collect();
        names.join(", ")
    };
    let given = option.and_then(|o| o.value.as_deref().map(|domain| (o, domain)));
    let selected = match (candidates.as_slice(), given) {
        ([], _) => None,
        (_, Some((option, domain))) => match candidates.iter().find(|c| domain_of(c) == domain) {
            Some(entry) => Some(*entry),
            None if option.describes_new_type => None,
            None => bail!(
                "no API {group}/{version} {kind} in PROJECT has {} {domain:?} (recorded domains: {})",
                option.name,
                domains()
            ),
        },
        ([only], None) => Some(*only),
        (_, None) => {
            let own: Vec<&ResourceEntry> = candidates
                .iter()
                .copied()
                .filter(|c| c.external != Some(true))
                .collect();
            match own.as_slice() {
                [only] => Some(*only),
                _ => own.into_iter().find(|c| domain_of(c) == project_domain),
            }
            .ok_or_else(|| {
                let way_out = match option {
                    Some(option) => format!("pass {} to pick one", option.name),
                    None => "remove the extra entries from PROJECT".to_string(),
                };
                anyhow!(
                    "{group}/{version} {kind} is recorded in PROJECT more than once (domains: {}); {way_out}",
                    domains()
                )
            })
            .map(Some)?
        }
    };
    let fresh = crate::project::unrecorded_entry(group, version, kind, false);
    let mut resource = Resource::from_entry(selected.unwrap_or(&fresh), project_domain);
    if let Some(plural) = &name.plural {
        resource.plural = plural.clone();
        resource.custom_plural = true;
    }
    Ok(resource)
}
