//! `kubebuilder-rs edit`: change the settings of an existing project, or
//! add an optional plugin to it.

use super::init::license_choice;
use super::project_chain;
use crate::cli::EditArgs;
use crate::ops::edit::EditRequest;
use crate::plugins::{EditSettings, Flags, Hook, License, Role};
use crate::project::Project;
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `edit` in `dir`; `plugins` names optional plugins to add.
pub fn run(args: &EditArgs, plugins: Option<&str>, flags: &Flags, dir: &Path) -> Result<()> {
    let settings = settings_from_args(args)?;
    let project = Project::load(dir)?;
    let chain = project_chain(&project.file, plugins, Hook::Edit, flags)?;
    let has_optional = chain.iter().any(|p| p.role() == Role::Optional);
    if is_empty(&settings) && plugins.is_none() && !has_optional {
        bail!(
            "nothing to edit: pass --multigroup, --namespaced, --license, --owner, --license-file or --plugins"
        );
    }
    let request = EditRequest {
        chain,
        settings,
        flags: flags.clone(),
    };
    crate::ops::edit::run(dir, project, &request)
}

/// Checks the flags and turns them into the settings to change.
fn settings_from_args(args: &EditArgs) -> Result<EditSettings> {
    let license = match (&args.license, &args.license_file, &args.owner) {
        (None, None, None) => None,
        (None, None, Some(_)) => Some(License::Apache2),
        (name, file, _) => Some(license_choice(
            name.as_deref().unwrap_or("apache2"),
            file.as_deref(),
        )?),
    };
    Ok(EditSettings {
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        license,
        owner: args.owner.clone(),
        force: args.force,
        dry_run: args.dry_run,
    })
}

/// Whether `settings` change nothing. Without one, `edit` runs only
/// the optional plugins of the chain (those of PROJECT's `layout` and those
/// `--plugins` names), as kubebuilder does.
fn is_empty(settings: &EditSettings) -> bool {
    settings.multigroup.is_none() && settings.namespaced.is_none() && settings.license.is_none()
}
