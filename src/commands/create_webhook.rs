//! `kubebuilder-rs create webhook`: defaulting, validating and conversion webhooks.

use super::{carry_out, plan_project_file, project_chain};
use crate::cli::WebhookArgs;
use crate::machinery::Plan;
use crate::plugins::{Chain, Flags, Hook, Output, WebhookContext, manager_takes_flag};
use crate::project::Project;
use crate::project::bookkeeping::{self, WebhookOptions};
use crate::resource::{Resource, naming};
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `create webhook` in `dir`.
pub fn run(args: &WebhookArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    super::validate_resource(&args.api)?;
    let options = options_from_args(args)?;
    let mut project = Project::load(dir)?;
    let chain = project_chain(&project.file, plugins, flags)?;
    let api = &args.api;
    let mut resource = Resource::new(
        &project.file,
        &api.group,
        &api.version,
        &api.kind,
        api.plural.as_deref(),
        false,
    );
    for plugin in chain.iter() {
        plugin.shape_resource(Hook::CreateWebhook, &project.file, flags, &mut resource)?;
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
        dir,
        project: &project.file,
        resource,
        options,
        flags,
        manager_webhook_port: manager_takes_flag(chain, dir, "webhook-port")?,
    };
    for plugin in chain.iter() {
        plugin.create_webhook(&ctx, &mut out)?;
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
