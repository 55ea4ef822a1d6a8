//! `kubebuilder-rs edit`: change the settings of an existing project.

use super::init::license_choice;
use crate::cli::EditArgs;
use crate::layouts::{self, EditRequest, Layout, License};
use crate::machinery::Change;
use crate::project::{self, Project};
use anyhow::{Result, bail};
use std::path::Path;

/// Runs `edit` in `dir`.
pub fn run(args: &EditArgs, dir: &Path) -> Result<()> {
    let request = request_from_args(args)?;
    let mut project = Project::load(dir)?;
    let layout = layouts::from_project(&project.file)?;
    if let Some(plugins) = &args.plugins {
        check_plugins(plugins, layout)?;
    }
    if is_empty(&request) {
        println!(
            "{} is already the project's layout: nothing to change.",
            layout.short_name()
        );
        return Ok(());
    }

    let settings_before = project.render()?;
    let edit = layout.plan_edit(dir, &mut project.file, &request)?;
    let mut plan = edit.plan;
    let mut printed = false;
    if !plan.changes().is_empty() || project.render()? != settings_before {
        project.file.cli_version = Some(env!("CARGO_PKG_VERSION").to_string());
        plan.push(Change::Write {
            path: project::FILE_NAME.into(),
            contents: project.render()?,
        });
        super::carry_out(&plan, dir, false, args.dry_run)?;
        printed = true;
    }
    for note in &edit.notes {
        if printed {
            println!();
        }
        println!("{note}");
        printed = true;
    }
    Ok(())
}

/// Checks the flags and turns them into a request. Without any setting to
/// change, only `--plugins` naming the project's own layout is accepted.
fn request_from_args(args: &EditArgs) -> Result<EditRequest> {
    let license = match (&args.license, &args.license_file, &args.owner) {
        (None, None, None) => None,
        (None, None, Some(_)) => Some(License::Apache2),
        (name, file, _) => Some(license_choice(
            name.as_deref().unwrap_or("apache2"),
            file.as_deref(),
        )?),
    };
    let request = EditRequest {
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        license,
        owner: args.owner.clone(),
        force: args.force,
    };
    if is_empty(&request) && args.plugins.is_none() {
        bail!(
            "nothing to edit: pass --multigroup, --namespaced, --license, --owner or --license-file"
        );
    }
    Ok(request)
}

/// Whether the request changes no setting.
fn is_empty(request: &EditRequest) -> bool {
    request.multigroup.is_none() && request.namespaced.is_none() && request.license.is_none()
}

/// Refuses any plugin but the project's own layout: `edit` has no optional
/// plugins to add yet.
fn check_plugins(plugins: &str, layout: &dyn Layout) -> Result<()> {
    let names = plugins.split(',').map(str::trim).filter(|s| !s.is_empty());
    for name in names {
        if name != layout.short_name() && name != layout.key() {
            bail!(
                "unknown plugin {name:?} for edit: no optional plugin exists yet; only the project's layout {} ({}) is accepted",
                layout.short_name(),
                layout.key()
            );
        }
    }
    Ok(())
}
