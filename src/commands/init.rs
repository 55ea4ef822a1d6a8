//! `kubebuilder-rs init`: turn an empty directory into a new project.

use super::{carry_out, plan_project_file};
use crate::cli::InitArgs;
use crate::machinery::Plan;
use crate::plugins::{Chain, Flags, Hook, InitContext, License, Output};
use crate::project::{self, Project, ProjectFile};
use crate::resource::naming;
use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// What `init` was asked for, after the flags were checked; the plugins'
/// own flags come separately.
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

/// Runs `init` in `dir` with the chain named by `plugins`.
pub fn run(args: &InitArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    let chain = Chain::parse(plugins.unwrap_or(crate::plugins::chain::DEFAULT_CHAIN))?;
    flags.check_chain(&chain)?;
    let options = options_from_args(args, dir)?;
    check_not_initialised(dir)?;
    let plan = plan(&chain, &options, flags, dir)?;
    let Some(written) = carry_out(&plan, dir, args.write.force, args.write.dry_run)? else {
        return Ok(());
    };
    super::after_write(&chain, Hook::Init, dir, flags, &written, None)?;
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

/// Plans every file of a new project in `dir`, the PROJECT file included:
/// each plugin of `chain` prepares, then plans its files.
pub(crate) fn plan(
    chain: &Chain,
    options: &InitOptions,
    flags: &Flags,
    dir: &Path,
) -> Result<Plan> {
    // A chain of external plugins only records no settings, as kubebuilder:
    // its built-in plugins record them.
    let settings = chain
        .iter()
        .any(|p| crate::plugins::by_key(p.key()).is_some());
    let mut file = ProjectFile {
        version: project::PROJECT_VERSION.to_string(),
        domain: settings.then(|| options.domain.clone()),
        layout: chain.keys.clone(),
        project_name: settings.then(|| options.project_name.clone()),
        multigroup: (settings && options.multigroup).then_some(true),
        namespaced: (settings && options.namespaced).then_some(true),
        ..ProjectFile::default()
    };
    let ctx = InitContext {
        chain,
        dir,
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

/// Checks the flags and turns them into options.
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
    Ok(InitOptions {
        domain: args.domain.clone(),
        project_name,
        owner: args.owner.clone(),
        license: license(args)?,
        multigroup: args.multigroup,
        namespaced: args.namespaced,
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
