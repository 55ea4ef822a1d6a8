//! `init`: a new project in a directory that holds none.

use super::{Write, after_write, carry_out, plan_project_file};
use crate::machinery::{Plan, Source};
use crate::plugins::{Chain, Flags, Hook, InitContext, License, Output};
use crate::project::{self, Project, ProjectFile};
use anyhow::{Result, bail};
use std::path::Path;

/// What `init` is asked for, its values checked.
#[derive(Debug, Clone)]
pub struct InitOptions {
    /// Domain of the API groups.
    pub domain: String,
    /// Project name (a DNS-1123 label).
    pub project_name: String,
    /// Copyright owner for license headers.
    pub owner: Option<String>,
    /// License header for source files.
    pub license: License,
    /// Organise APIs by group.
    pub multigroup: bool,
    /// The manager watches only its own namespaces.
    pub namespaced: bool,
}

/// A request for `init`.
#[derive(Debug, Clone)]
pub struct InitRequest {
    /// The plugins that make the project (its layout).
    pub chain: Chain,
    /// The project's settings.
    pub options: InitOptions,
    /// The plugins' options.
    pub flags: Flags,
}

/// Makes the project `request` describes in `dir`, runs the plugins'
/// post-steps and prints the next steps.
pub fn run(dir: &Path, request: &InitRequest, write: Write) -> Result<()> {
    check_not_initialised(dir)?;
    let plan = plan(Source::Dir(dir), request)?;
    let Some(written) = carry_out(&plan, dir, write)? else {
        return Ok(());
    };
    let chain = &request.chain;
    after_write(chain, Hook::Init, dir, &request.flags, &written, None)?;
    let mut hooks = chain.iter().filter_map(|p| p.init());
    if let Some(text) = hooks.find_map(|hook| hook.next_steps()) {
        println!("{text}");
    }
    Ok(())
}

/// The files whose presence means `dir` is a project already.
const INITIALISED_BY: [&str; 3] = [project::FILE_NAME, "Makefile", "cmd/main.go"];

/// Refuses a directory that holds a PROJECT file, or a Makefile or
/// `cmd/main.go` that is not a plain file (a link, say, that init's write
/// would follow). Links are not followed, so a link to nothing counts too.
fn check_not_initialised(dir: &Path) -> Result<()> {
    for name in INITIALISED_BY {
        let Ok(meta) = std::fs::symlink_metadata(dir.join(name)) else {
            continue;
        };
        let kind = meta.file_type();
        if kind.is_symlink() || kind.is_dir() {
            let what = if kind.is_dir() {
                "a directory"
            } else {
                "a symbolic link"
            };
            bail!(
                "{} is {what}; init writes a plain file there: remove it, or run init in a new directory",
                dir.join(name).display()
            );
        }
        if name == project::FILE_NAME {
            bail!(
                "{} already has a PROJECT file: the project is initialised; use `create api` to extend it",
                dir.display()
            );
        }
    }
    Ok(())
}

/// Plans every file of the new project in `files`, the PROJECT file
/// included: each plugin of the chain prepares, then plans its files.
pub fn plan(files: Source, request: &InitRequest) -> Result<Plan> {
    let InitRequest {
        chain,
        options,
        flags,
    } = request;
    // A chain of external plugins only records no settings, as kubebuilder:
    // its built-in plugins record them.
    let settings = chain
        .iter()
        .any(|p| crate::plugins::by_key(p.key()).is_some());
    let mut file = ProjectFile {
        version: project::PROJECT_VERSION.to_string(),
        domain: settings.then(|| options.domain.clone()),
        layout: chain.layout_keys(),
        project_name: settings.then(|| options.project_name.clone()),
        multigroup: (settings && options.multigroup).then_some(true),
        namespaced: (settings && options.namespaced).then_some(true),
        ..ProjectFile::default()
    };
    let ctx = InitContext {
        chain,
        files,
        owner: options.owner.as_deref(),
        license: &options.license,
        flags,
    };
    for hook in chain.iter().filter_map(|p| p.init()) {
        hook.prepare(&ctx, &mut file)?;
    }
    let mut out = Output::default();
    for hook in chain.iter().filter_map(|p| p.init()) {
        hook.plan(&ctx, &file, &mut out)?;
    }
    let mut project = Project::new(file);
    plan_project_file(&mut project, &mut out, true)?;
    Ok(out.plan)
}
