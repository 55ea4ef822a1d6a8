//! `kubebuilder-rs init`: turn an empty directory into a new project.

use crate::cli::InitArgs;
use crate::layouts::{self, InitOptions, Layout, License};
use crate::machinery::{Change, Plan};
use crate::naming;
use crate::project::{self, Project, ProjectFile};
use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// Runs `init` in `dir`.
pub fn run(args: &InitArgs, dir: &Path) -> Result<()> {
    let layout = layouts::find(&args.write.plugins)?;
    let mut options = options_from_args(args, dir)?;
    if dir.join(project::FILE_NAME).exists() {
        bail!(
            "{} already has a PROJECT file: the project is initialised; use `create api` to extend it",
            dir.display()
        );
    }
    let repo = layout.prepare_init(&options)?;
    options.repo = Some(repo);
    let plan = plan(layout, &options)?;
    if super::carry_out(&plan, dir, args.write.force, args.write.dry_run)?.is_some() {
        layout.finish_init(dir, &options)?;
        println!("{}", layout.next_steps_after_init());
    }
    Ok(())
}

/// Plans every file of a new project, the PROJECT file included, for options
/// whose repository is known (see [`Layout::prepare_init`]).
pub(crate) fn plan(layout: &dyn Layout, options: &InitOptions) -> Result<Plan> {
    let project = ProjectFile {
        version: project::PROJECT_VERSION.to_string(),
        domain: Some(options.domain.clone()),
        layout: vec![layout.key().to_string()],
        project_name: Some(options.project_name.clone()),
        repo: options.repo.clone(),
        cli_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        multigroup: options.multigroup.then_some(true),
        namespaced: options.namespaced.then_some(true),
        ..ProjectFile::default()
    };
    let mut plan = layout.plan_init(options, &project)?;
    plan.push(Change::Create {
        path: project::FILE_NAME.into(),
        contents: Project::new(project).render()?,
    });
    Ok(plan)
}

/// Checks the flags and turns them into layout-independent options.
fn options_from_args(args: &InitArgs, dir: &Path) -> Result<InitOptions> {
    if args.project_version != project::PROJECT_VERSION {
        bail!(
            "unsupported --project-version {:?}: only 3 is supported",
            args.project_version
        );
    }
    naming::validate_domain(&args.domain)?;
    let project_name = match &args.project_name {
        Some(name) => name.clone(),
        None => directory_name(dir)?,
    };
    naming::validate_project_name(&project_name)?;
    if let Some(repo) = &args.repo {
        naming::validate_go_module_path(repo)?;
    }
    Ok(InitOptions {
        dir: dir.to_path_buf(),
        domain: args.domain.clone(),
        repo: args.repo.clone(),
        project_name,
        owner: args.owner.clone(),
        license: license(args)?,
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        skip_toolchain_check: args.skip_go_version_check,
        fetch_deps: args.fetch_deps,
    })
}

/// The license chosen by `--license` or `--license-file`.
fn license(args: &InitArgs) -> Result<License> {
    license_choice(&args.license, args.license_file.as_deref())
}

/// The license named by a `--license` value, or read from a `--license-file`,
/// which wins when both are given.
pub(crate) fn license_choice(name: &str, file: Option<&Path>) -> Result<License> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read --license-file {}: {e}", path.display()))?;
        return Ok(License::Custom(text));
    }
    match name {
        "apache2" => Ok(License::Apache2),
        "none" => Ok(License::None),
        other => bail!("unknown --license {other:?}: use apache2 or none, or --license-file"),
    }
}

/// The name of `dir`, the default project name.
fn directory_name(dir: &Path) -> Result<String> {
    let absolute = std::path::absolute(dir).context("cannot resolve the current directory")?;
    absolute
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .context("the current directory has no name; pass --project-name")
}
