//! `kubebuilder-rs init`: turn an empty directory into a new project.

use crate::cli::InitArgs;
use crate::ops::init::{InitOptions, InitRequest};
use crate::plugins::{Chain, Flags, License};
use crate::project;
use crate::resource::naming;
use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// Runs `init` in `dir` with the chain named by `plugins`.
pub fn run(args: &InitArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    let chain = Chain::parse(plugins.unwrap_or(crate::plugins::chain::DEFAULT_CHAIN))?;
    flags.check_chain(&chain)?;
    let request = InitRequest {
        chain,
        options: options_from_args(args, dir)?,
        flags: flags.clone(),
    };
    crate::ops::init::run(dir, &request, super::write_mode(&args.write))
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
