//! `kubebuilder-rs create webhook`: defaulting, validating and conversion webhooks.

use super::create_api::external_api;
use crate::cli::WebhookArgs;
use crate::layouts::{self, Layout, WebhookRequest};
use crate::machinery::{Change, Plan};
use crate::naming;
use crate::project::{self, Project};
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `create webhook` in `dir`.
pub fn run(args: &WebhookArgs, dir: &Path) -> Result<()> {
    let request = request_from_args(args)?;
    let mut project = Project::load(dir)?;
    let layout = layouts::from_project(&project.file)?;
    layouts::find(&args.write.plugins)?;
    let plan = plan(layout, dir, &mut project, &request)?;
    let written = super::carry_out(&plan, dir, args.write.force, args.write.dry_run)?;
    if let (Some(written), true) = (written, args.run_make) {
        layout.finish_create_webhook(dir, &request, &written)?;
    }
    Ok(())
}

/// Plans `request` in the project at `dir`, PROJECT's new content included.
pub(crate) fn plan(
    layout: &dyn Layout,
    dir: &Path,
    project: &mut Project,
    request: &WebhookRequest,
) -> Result<Plan> {
    let mut plan = layout.plan_create_webhook(dir, &mut project.file, request)?;
    project.file.cli_version = Some(env!("CARGO_PKG_VERSION").to_string());
    plan.push(Change::Write {
        path: project::FILE_NAME.into(),
        contents: project.render()?,
    });
    Ok(plan)
}

/// Checks the flags and turns them into a request.
fn request_from_args(args: &WebhookArgs) -> Result<WebhookRequest> {
    super::validate_resource(&args.api)?;
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
    Ok(WebhookRequest {
        group: args.api.group.clone(),
        version: args.api.version.clone(),
        kind: args.api.kind.clone(),
        plural: args.api.plural.clone(),
        defaulting: args.defaulting,
        validation: args.programmatic_validation,
        conversion: args.conversion,
        spokes: args.spoke.clone(),
        defaulting_path: args.defaulting_path.clone(),
        validation_path: args.validation_path.clone(),
        external: external_api(&args.external)?,
        force: args.write.force,
    })
}
