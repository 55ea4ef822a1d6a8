//! `create api`: an API type and/or a controller in a project.

use super::{ResourceSpec, Write, after_write, carry_out, plan_project_file};
use crate::machinery::Source;
use crate::plugins::{ApiContext, Chain, Flags, Hook, Output};
use crate::project::bookkeeping::{self, ApiOptions};
use crate::project::{Project, ProjectFile};
use crate::resource::Resource;
use anyhow::Result;
use std::path::Path;

/// A request for `create api`.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// The project's chain, with the optional plugins the request adds.
    pub chain: Chain,
    /// The API.
    pub resource: ResourceSpec,
    /// What to scaffold for it.
    pub options: ApiOptions,
    /// The plugins' options.
    pub flags: Flags,
}

/// Scaffolds what `request` asks for in `project`, loaded from `dir`, prints the
/// plugins' notes and runs their post-steps.
pub fn run(dir: &Path, mut project: Project, request: &ApiRequest, write: Write) -> Result<()> {
    let (out, resource) = plan(Source::Dir(dir), &mut project, request)?;
    let Some(written) = carry_out(&out.plan, dir, write)? else {
        return Ok(());
    };
    for note in &out.notes {
        println!("\n{note}");
    }
    let (chain, flags) = (&request.chain, &request.flags);
    after_write(
        chain,
        Hook::CreateApi,
        dir,
        flags,
        &written,
        Some(&resource),
    )
}

/// Checks `request` against PROJECT, runs every plugin of its chain, and
/// records the resource in `project`: the plan, PROJECT's new content
/// included, and the plugins' notes; with the resource as planned.
pub fn plan(
    files: Source,
    project: &mut Project,
    request: &ApiRequest,
) -> Result<(Output, Resource)> {
    let ApiRequest {
        chain,
        flags,
        options,
        ..
    } = request;
    let resource = resource(
        chain,
        &project.file,
        &request.resource,
        flags,
        options.resource,
    )?;
    let mut options = options.clone();
    options.ssa |= options.resource && records_ssa(&project.file, &resource);
    bookkeeping::check_api(&project.file, &resource, &options)?;
    let mut out = Output::default();
    let ctx = ApiContext {
        chain,
        files,
        project: &project.file,
        resource: &resource,
        options: &options,
        flags,
    };
    for hook in chain.iter().filter_map(|p| p.create_api()) {
        hook.plan(&ctx, &mut out)?;
    }
    bookkeeping::record_api(&mut project.file, &resource, &options);
    plan_project_file(project, &mut out, false)?;
    Ok((out, resource))
}

/// The resource `spec` names in `project`, as the chain's plugins shape it;
/// whether the request `creates_api` decides between a built-in and an own
/// group for a named one (see [`Resource::new`]).
pub fn resource(
    chain: &Chain,
    project: &ProjectFile,
    spec: &ResourceSpec,
    flags: &Flags,
    creates_api: bool,
) -> Result<Resource> {
    let mut resource = match spec {
        ResourceSpec::Named(name) => {
            let mut resource = Resource::new(
                project,
                &name.group,
                &name.version,
                &name.kind,
                name.plural.as_deref(),
                creates_api,
            );
            resource.namespaced = name.namespaced;
            resource
        }
        ResourceSpec::Recorded(entry) => {
            Resource::from_entry(entry, project.domain.as_deref().unwrap_or_default())
        }
    };
    for hook in chain.iter().filter_map(|p| p.create_api()) {
        hook.shape_resource(project, flags, &mut resource)?;
    }
    Ok(resource)
}

/// Whether PROJECT records `resource` as created with `--ssa`: scaffolding
/// its type again keeps it (apply configurations cannot be turned off).
fn records_ssa(project: &ProjectFile, resource: &Resource) -> bool {
    bookkeeping::entry(project, resource)
        .and_then(|entry| entry.api.as_ref())
        .is_some_and(|api| api.ssa == Some(true))
}
