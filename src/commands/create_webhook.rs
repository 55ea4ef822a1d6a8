//! `kubebuilder-rs create webhook`: defaulting, validating and conversion webhooks.

use super::{carry_out, plan_project_file, project_chain};
use crate::cli::{ResourceArgs, WebhookArgs};
use crate::machinery::Plan;
use crate::plugins::{
    Chain, DomainOption, Flags, Hook, Output, WebhookContext, manager_takes_flag,
};
use crate::project::bookkeeping::{self, WebhookOptions};
use crate::project::{Project, ProjectFile, ResourceEntry};
use crate::resource::{Resource, naming};
use anyhow::{Result, anyhow, bail};
use std::path::Path;

/// Runs `create webhook` in `dir`.
pub fn run(args: &WebhookArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    super::validate_resource(&args.api)?;
    let options = options_from_args(args)?;
    let mut project = Project::load(dir)?;
    let chain = project_chain(&project.file, plugins, Hook::CreateWebhook, flags)?;
    let mut option = None;
    for hook in chain.iter().filter_map(|p| p.create_webhook()) {
        option = option.or(hook.domain_option(flags)?);
    }
    let mut resource = resolve_resource(&project.file, &args.api, option.as_ref())?;
    for hook in chain.iter().filter_map(|p| p.create_webhook()) {
        hook.shape_resource(&project.file, flags, &mut resource)?;
    }
    let plan = plan(&chain, dir, &mut project, &resource, &options, flags)?;
    let Some(written) = carry_out(&plan, dir, args.write.force, args.write.dry_run)? else {
        return Ok(());
    };
    super::after_write(
        &chain,
        Hook::CreateWebhook,
        dir,
        flags,
        &written,
        Some(&resource),
    )?;
    Ok(())
}

/// The resource `create webhook` works on: the PROJECT entry with the same
/// group, version and kind, as kubebuilder picks it. Of several, the one
/// whose domain a plugin's `option` gives (go/v4's `--external-api-domain`),
/// else the one that is not an external type (the project's own when a
/// built-in one shares its kind). With no entry, or a domain no entry has
/// and options that describe a new type, a new resource from the flags.
fn resolve_resource(
    project: &ProjectFile,
    api: &ResourceArgs,
    option: Option<&DomainOption>,
) -> Result<Resource> {
    let (group, version, kind) = (&api.group, &api.version, &api.kind);
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
    if let Some(plural) = &api.plural {
        resource.plural = plural.clone();
        resource.custom_plural = true;
    }
    Ok(resource)
}

/// Checks `options` for `resource` against PROJECT, runs every plugin of
/// `chain`, and records the webhooks: the plan, PROJECT's new content included.
pub(crate) fn plan(
    chain: &Chain,
    dir: &Path,
    project: &mut Project,
    resource: &Resource,
    options: &WebhookOptions,
    flags: &Flags,
) -> Result<Plan> {
    bookkeeping::check_webhook(&project.file, resource, options)?;
    let mut out = Output::default();
    let ctx = WebhookContext {
        chain,
        dir,
        project: &project.file,
        resource,
        options,
        flags,
        manager_webhook_port: manager_takes_flag(chain, dir, "webhook-port")?,
    };
    for hook in chain.iter().filter_map(|p| p.create_webhook()) {
        hook.plan(&ctx, &mut out)?;
    }
    bookkeeping::record_webhook(&mut project.file, resource, options);
    plan_project_file(project, &mut out, false)?;
    Ok(out.plan)
}

/// Checks the flags and turns them into options.
fn options_from_args(args: &WebhookArgs) -> Result<WebhookOptions> {
    if !args.defaulting && !args.programmatic_validation && !args.conversion {
        bail!(
            "no webhook asked for: pass at least one of --defaulting, --programmatic-validation, --conversion"
        );
    }
    if !args.spoke.is_empty() && !args.conversion {
        bail!("--spoke {} needs --conversion", args.spoke.join(","));
    }
    if args.conversion && args.spoke.is_empty() {
        bail!(
            "--conversion needs --spoke <version>[,<version>…]: the versions converted to and from the hub {}",
            args.api.version
        );
    }
    for spoke in &args.spoke {
        naming::validate_version(spoke)
            .map_err(|e| anyhow::anyhow!("{}", e.to_string().replace("--version", "--spoke")))?;
    }
    for (flag, path) in [
        ("--defaulting-path", &args.defaulting_path),
        ("--validation-path", &args.validation_path),
    ] {
        if let Some(path) = path {
            naming::validate_url_path(flag, path)?;
        }
    }
    if args.defaulting_path.is_some() && !args.defaulting {
        bail!("--defaulting-path needs --defaulting");
    }
    if args.validation_path.is_some() && !args.programmatic_validation {
        bail!("--validation-path needs --programmatic-validation");
    }
    Ok(WebhookOptions {
        defaulting: args.defaulting,
        validation: args.programmatic_validation,
        conversion: args.conversion,
        spokes: args.spoke.clone(),
        defaulting_path: args.defaulting_path.clone(),
        validation_path: args.validation_path.clone(),
        force: args.write.force,
    })
}
