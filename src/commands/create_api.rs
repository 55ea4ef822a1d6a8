//! `kubebuilder-rs create api`: an API type and/or a controller.

use super::project_chain;
use crate::cli::ApiArgs;
use crate::ops::ResourceSpec;
use crate::ops::create_api::{ApiRequest, resource};
use crate::plugins::{Flags, Hook};
use crate::project::Project;
use crate::project::bookkeeping::ApiOptions;
use crate::resource::naming;
use anyhow::{Result, bail};
use std::io::IsTerminal;
use std::path::Path;

/// Runs `create api` in `dir`.
pub fn run(args: &ApiArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    let project = Project::load(dir)?;
    let chain = project_chain(&project.file, plugins, Hook::CreateApi, flags)?;
    let spec = ResourceSpec::Named(super::resource_name(&args.api, args.namespaced)?);
    let asks = !chain
        .iter()
        .filter_map(|p| p.create_api())
        .any(|hook| hook.scaffolds_api_and_controller());
    // An external type gets no API type unless asked; whether the request
    // creates one then decides between a built-in and an own group.
    let external = resource(&chain, &project.file, &spec, flags, true)?.external;
    let mut options = options_from_args(args, external, asks)?;
    for hook in chain.iter().filter_map(|p| p.create_api()) {
        hook.shape_options(flags, &mut options)?;
    }
    let request = ApiRequest {
        chain,
        resource: spec,
        options,
        flags: flags.clone(),
    };
    crate::ops::create_api::run(dir, project, &request, super::write_mode(&args.write))
}

/// Checks the flags and turns them into options; an external type gets no
/// API type unless asked. Without `asks`, a missing `--resource` or
/// `--controller` means yes rather than a prompt.
fn options_from_args(args: &ApiArgs, external: bool, asks: bool) -> Result<ApiOptions> {
    let answer = |question: &str| if asks { ask(question) } else { Ok(true) };
    if let Some(name) = &args.controller_name {
        naming::validate_controller_name(name)?;
    }
    let create_resource = match (args.resource, external) {
        (Some(value), _) => value,
        (None, true) => false,
        (None, false) => answer("Create Resource [y/n]")?,
    };
    let controller = match args.controller {
        Some(value) => value,
        None => answer("Create Controller [y/n]")?,
    };
    if !create_resource && !controller {
        bail!("nothing to scaffold: --resource=false and --controller=false; ask for at least one");
    }
    Ok(ApiOptions {
        resource: create_resource,
        controller,
        controller_name: args.controller_name.clone(),
        ssa: false,
        force: args.write.force,
    })
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
