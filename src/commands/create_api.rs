//! `kubebuilder-rs create api`: an API type and/or a controller.

use crate::cli::{ApiArgs, ExternalApiArgs};
use crate::layouts::{self, ApiRequest, ExternalApi, Layout};
use crate::machinery::{Change, Plan};
use crate::naming;
use crate::project::{self, Project};
use anyhow::{Result, bail};
use std::io::IsTerminal;
use std::path::Path;

/// Runs `create api` in `dir`.
pub fn run(args: &ApiArgs, dir: &Path) -> Result<()> {
    let mut project = Project::load(dir)?;
    let layout = layouts::from_project(&project.file)?;
    layouts::find(&args.write.plugins)?;
    let request = request_from_args(args)?;
    let plan = plan(layout, dir, &mut project, &request)?;
    let written = super::carry_out(&plan, dir, args.write.force, args.write.dry_run)?;
    if let (Some(written), true) = (written, args.run_make) {
        layout.finish_create_api(dir, &request, &written)?;
    }
    Ok(())
}

/// Plans `request` in the project at `dir`, PROJECT's new content included.
pub(crate) fn plan(
    layout: &dyn Layout,
    dir: &Path,
    project: &mut Project,
    request: &ApiRequest,
) -> Result<Plan> {
    let mut plan = layout.plan_create_api(dir, &mut project.file, request)?;
    project.file.cli_version = Some(env!("CARGO_PKG_VERSION").to_string());
    plan.push(Change::Write {
        path: project::FILE_NAME.into(),
        contents: project.render()?,
    });
    Ok(plan)
}

/// Checks the flags and turns them into a request.
fn request_from_args(args: &ApiArgs) -> Result<ApiRequest> {
    super::validate_resource(&args.api)?;
    if let Some(name) = &args.controller_name {
        naming::validate_controller_name(name)?;
    }
    let external = external_api(&args.external)?;
    let resource = match (args.resource, &external) {
        (Some(value), _) => value,
        (None, Some(_)) => false,
        (None, None) => ask("Create Resource [y/n]")?,
    };
    let controller = match args.controller {
        Some(value) => value,
        None => ask("Create Controller [y/n]")?,
    };
    if !resource && !controller {
        bail!("nothing to scaffold: --resource=false and --controller=false; ask for at least one");
    }
    if resource && external.is_some() {
        bail!(
            "an external API's type lives in its own module: pass --resource=false with --external-api-path"
        );
    }
    Ok(ApiRequest {
        group: args.api.group.clone(),
        version: args.api.version.clone(),
        kind: args.api.kind.clone(),
        plural: args.api.plural.clone(),
        resource,
        controller,
        namespaced: args.namespaced,
        controller_name: args.controller_name.clone(),
        ssa: args.ssa,
        external,
        force: args.write.force,
    })
}

/// The external API described by `--external-api-path`, `-domain` and
/// `-module`, if any.
pub(crate) fn external_api(args: &ExternalApiArgs) -> Result<Option<ExternalApi>> {
    let (path, domain, module) = (
        &args.external_api_path,
        &args.external_api_domain,
        &args.external_api_module,
    );
    match (path, module) {
        (None, None) => {
            if domain.is_some() {
                bail!("--external-api-domain needs --external-api-path and --external-api-module");
            }
            Ok(None)
        }
        (Some(path), None) => bail!(
            "--external-api-path {path:?} needs --external-api-module (the Go module that provides it, e.g. github.com/cert-manager/cert-manager@v1.18.2)"
        ),
        (None, Some(module)) => {
            bail!(
                "--external-api-module {module:?} needs --external-api-path (the Go package of the type)"
            )
        }
        (Some(path), Some(module)) => {
            let module_path = module.split('@').next().unwrap_or_default();
            naming::validate_go_module_path(path)
                .and_then(|()| naming::validate_go_module_path(module_path))
                .map_err(|e| {
                    anyhow::anyhow!("{}", e.to_string().replace("--repo", "--external-api-*"))
                })?;
            let domain = domain.clone().unwrap_or_default();
            if !domain.is_empty() && !naming::is_dns1123_subdomain(&domain) {
                bail!(
                    "invalid --external-api-domain {domain:?}: must be a DNS-1123 subdomain (e.g. io or example.com)"
                );
            }
            Ok(Some(ExternalApi {
                path: path.clone(),
                domain,
                module: module.clone(),
            }))
        }
    }
}

/// Asks a yes/no question when a terminal is attached; answers yes otherwise.
fn ask(question: &str) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Ok(true);
    }
    Ok(dialoguer::Confirm::new()
        .with_prompt(question)
        .default(true)
        .interact()?)
}
