//! `kubebuilder-rs create webhook`: defaulting, validating and conversion webhooks.

use super::project_chain;
use crate::cli::WebhookArgs;
use crate::ops::ResourceSpec;
use crate::ops::create_webhook::WebhookRequest;
use crate::plugins::{Flags, Hook};
use crate::project::Project;
use crate::project::bookkeeping::WebhookOptions;
use crate::resource::naming;
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `create webhook` in `dir`.
pub fn run(args: &WebhookArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    let name = super::resource_name(&args.api, true)?;
    let options = options_from_args(args)?;
    let project = Project::load(dir)?;
    let request = WebhookRequest {
        chain: project_chain(&project.file, plugins, Hook::CreateWebhook, flags)?,
        resource: ResourceSpec::Named(name),
        options,
        flags: flags.clone(),
    };
    crate::ops::create_webhook::run(dir, project, &request, super::write_mode(&args.write))
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
