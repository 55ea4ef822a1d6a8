//! `edit` for the Rust layout. Whether the manager is namespaced is decided
//! when it runs (WATCH_NAMESPACE, which kustomize/v2's manager.yaml sets),
//! and `make manifests` reads PROJECT for the role's kind, so no Rust file
//! depends on `--namespaced`. `--multigroup` changes where later APIs go;
//! a new license header is written to the boilerplate file.

use super::{BOILERPLATE_PATH, TEMPLATE_DIR};
use crate::machinery::clock::current_year;
use crate::machinery::{Source, Templates};
use crate::plugins::{EditContext, License, Output, plan_boilerplate_edit};
use anyhow::Result;

/// Plans the Rust side of `edit`.
pub fn plan(ctx: &EditContext, out: &mut Output) -> Result<()> {
    if let Some(target) = ctx.settings.multigroup
        && (ctx.project.multigroup == Some(true)) != target
    {
        out.notes.push(multigroup_note(target));
    }
    if let Some(license) = &ctx.settings.license {
        edit_license(ctx.files, license, ctx.settings.owner.as_deref(), out)?;
    }
    Ok(())
}

/// What a switch of `--multigroup` means for a Rust project.
fn multigroup_note(target: bool) -> String {
    if target {
        "APIs created from now on go to src/api/<group>/<version>/ and their controllers to \
         src/controller/<group>/; existing modules stay where they are and keep building."
            .to_string()
    } else {
        "APIs created from now on go to src/api/<version>/ and their controllers to \
         src/controller/; existing modules stay where they are and keep building."
            .to_string()
    }
}

/// Writes the boilerplate for a new license header.
fn edit_license(
    files: Source,
    license: &License,
    owner: Option<&str>,
    out: &mut Output,
) -> Result<()> {
    let templates = Templates::load(TEMPLATE_DIR, &["licenses"])?;
    let contents = license.boilerplate(&templates, &current_year().to_string(), owner)?;
    let note = format!(
        "Existing Rust files keep their header; files scaffolded from now on start with the new {BOILERPLATE_PATH}."
    );
    plan_boilerplate_edit(files, BOILERPLATE_PATH, contents, note, out)
}
