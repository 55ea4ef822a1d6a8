//! `kubebuilder-rs create api`: an API type and/or a controller.

use super::{carry_out, plan_project_file, project_chain};
use crate::cli::ApiArgs;
use crate::plugins::{ApiContext, Chain, Flags, Hook, Output};
use crate::project::Project;
use crate::project::bookkeeping::{self, ApiOptions};
use crate::resource::{Resource, naming};
use anyhow::{Result, bail};
use std::io::IsTerminal;
use std::path::Path;

/// Runs `create api` in `dir`.
pub fn run(args: &ApiArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    let mut project = Project::load(dir)?;
    let chain = project_chain(&project.file, plugins, Hook::CreateApi, flags)?;
    super::validate_resource(&args.api)?;
    let mut hooks = chain.iter().filter_map(|p| p.create_api());
    let asks = !hooks.any(|hook| hook.scaffolds_api_and_controller());
    // An external type gets no API type unless asked; whether the request
    // creates one then decides between a built-in and an own group.
    let external = resource(&chain, &project, args, flags, true)?.external;
    let mut options = options_from_args(args, external, asks)?;
    for hook in chain.iter().filter_map(|p| p.create_api()) {
        hook.shape_options(flags, &mut options)?;
    }
    let resource = resource(&chain, &project, args, flags, options.resource)?;
    options.ssa |= options.resource && records_ssa(&project, &resource);
    let out = plan(&chain, dir, &mut project, &resource, &options, flags)?;
    let Some(written) = carry_out(&out.plan, dir, args.write.force, args.write.dry_run)? else {
        return Ok(());
    };
    for note in &out.notes {
        println!("\n{note}");
    }
    super::after_write(
        &chain,
        Hook::CreateApi,
        dir,
        flags,
        &written,
        Some(&resource),
    )?;
    Ok(())
}

/// The resource the flags name, as the chain's plugins shape it; whether
/// the request `creates_api` decides between a built-in and an own group
/// (see [`Resource::new`]).
fn resource(
    chain: &Chain,
    project: &Project,
    args: &ApiArgs,
    flags: &Flags,
    creates_api: bool,
) -> Result<Resource> {
    let api = &args.api;
    let mut resource = Resource::new(
        &project.file,
        &api.group,
        &api.version,
        &api.kind,
        api.plural.as_deref(),
        creates_api,
    );
    resource.namespaced = args.namespaced;
    for hook in chain.iter().filter_map(|p| p.create_api()) {
        hook.shape_resource(&project.file, flags, &mut resource)?;
    }
    Ok(resource)
}

/// Checks `options` for `resource` against PROJECT, runs every plugin of
/// `chain`, and records the resource: the plan, PROJECT's new content
/// included, and the plugins' notes.
pub(crate) fn plan(
    chain: &Chain,
    dir: &Path,
    project: &mut Project,
    resource: &Resource,
    options: &ApiOptions,
    flags: &Flags,
) -> Result<Output> {
    bookkeeping::check_api(&project.file, resource, options)?;
    let mut out = Output::default();
    let ctx = ApiContext {
        chain,
        dir,
        project: &project.file,
        resource,
        options,
        flags,
    };
    for hook in chain.iter().filter_map(|p| p.create_api()) {
        hook.plan(&ctx, &mut out)?;
    }
    bookkeeping::record_api(&mut project.file, resource, options);
    plan_project_file(project, &mut out, false)?;
    Ok(out)
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

/// Whether PROJECT records `resource` as created with `--ssa`: scaffolding
/// its type again keeps it (apply configurations cannot be turned off).
fn records_ssa(project: &Project, resource: &Resource) -> bool {
    bookkeeping::entry(&project.file, resource)
        .and_then(|entry| entry.api.as_ref())
        .is_some_and(|api| api.ssa == Some(true))
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
