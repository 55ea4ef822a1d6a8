//! One module per command: each parses its flags, runs the plugins of the
//! project's chain into one plan, records the result in PROJECT, and carries
//! the plan out.

pub mod alpha_generate;
pub mod alpha_update;
pub mod completion;
pub mod create_api;
pub mod create_webhook;
pub mod edit;
pub mod init;
mod replay;
pub mod version;

use crate::cli::ResourceArgs;
use crate::machinery::{Change, Plan};
use crate::plugins::{AfterWrite, Chain, Flags, Hook, Output, Plugin};
use crate::project::{self, Project, ProjectFile, bookkeeping};
use crate::resource::Resource;
use crate::resource::naming;
use anyhow::{Result, bail};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Resolves `plan` against `dir`, then prints it (`dry_run`) or writes it.
/// Returns the files written (relative to `dir`), or `None` for a dry run.
pub fn carry_out(
    plan: &Plan,
    dir: &Path,
    force: bool,
    dry_run: bool,
) -> Result<Option<Vec<PathBuf>>> {
    let resolved = plan.resolve(dir, force)?;
    if dry_run {
        print!("{}", resolved.describe());
        println!("(dry run: nothing was written)");
        return Ok(None);
    }
    let report = resolved.apply()?;
    let mut out = std::io::stdout().lock();
    for (path, action) in &report.written {
        writeln!(out, "{:<9} {}", action.label(), path.display())?;
    }
    Ok(Some(
        report.written.into_iter().map(|(path, _)| path).collect(),
    ))
}

/// The chain of the project, with the optional plugins `--plugins` adds for
/// `hook`'s command; refuses plugin flags for plugins the chain does not
/// run, and on `edit`, which adds the plugins to the project, a plugin that
/// takes no part in it (a create command runs the plugins it names that
/// take part in it, and skips the others).
fn project_chain(
    project: &ProjectFile,
    plugins: Option<&str>,
    hook: Hook,
    flags: &Flags,
) -> Result<Chain> {
    let layout = Chain::from_layout(&project.layout)?;
    let mut chain = layout.clone();
    if let Some(spec) = plugins {
        chain = chain.with_extra(spec)?;
    }
    let refused = chain
        .iter()
        .filter(|p| !layout.contains(p.key()))
        .find(|p| hook == Hook::Edit && !takes_part(*p, hook));
    if let Some(plugin) = refused {
        bail!(
            "--plugins {}: the plugin takes part in {} only, so `edit` cannot add it to the project; name it on that command instead",
            plugin.short_name().unwrap_or(plugin.key()),
            commands_of(plugin).join(" and "),
        );
    }
    flags.check_chain(&chain)?;
    Ok(chain)
}

/// Whether `plugin` has a hook for `hook`'s command.
fn takes_part(plugin: &dyn Plugin, hook: Hook) -> bool {
    match hook {
        Hook::Init => plugin.init().is_some(),
        Hook::CreateApi => plugin.create_api().is_some(),
        Hook::CreateWebhook => plugin.create_webhook().is_some(),
        Hook::Edit => plugin.edit().is_some(),
    }
}

/// The commands `plugin` takes part in, quoted.
fn commands_of(plugin: &dyn Plugin) -> Vec<String> {
    [Hook::Init, Hook::CreateApi, Hook::CreateWebhook, Hook::Edit]
        .into_iter()
        .filter(|hook| takes_part(plugin, *hook))
        .map(|hook| format!("`{}`", hook.command()))
        .collect()
}

/// Records the plugins' sections in PROJECT and plans its new content at
/// the end of `out.plan` (as a new file when `create`). A new PROJECT gets
/// this build's `cliVersion`; later commands keep the one that made the
/// project, as kubebuilder does.
fn plan_project_file(project: &mut Project, out: &mut Output, create: bool) -> Result<()> {
    for (key, config) in out.configs.drain(..) {
        bookkeeping::record_plugin(&mut project.file, key, config);
    }
    if create {
        project.file.cli_version = Some(project::cli_version::current());
    }
    let path = project::FILE_NAME.into();
    let contents = project.render()?;
    out.plan.push(if create {
        Change::Create { path, contents }
    } else {
        Change::Write { path, contents }
    });
    Ok(())
}

/// Runs every plugin's post-steps after `hook`'s command wrote `written`.
fn after_write(
    chain: &Chain,
    hook: Hook,
    dir: &Path,
    flags: &Flags,
    written: &[PathBuf],
    resource: Option<&Resource>,
) -> Result<()> {
    let ctx = AfterWrite {
        chain,
        dir,
        flags,
        written,
        resource,
    };
    for plugin in chain.iter() {
        match hook {
            Hook::Init => plugin.init().map(|h| h.after_write(&ctx)),
            Hook::CreateApi => plugin.create_api().map(|h| h.after_write(&ctx)),
            Hook::CreateWebhook => plugin.create_webhook().map(|h| h.after_write(&ctx)),
            Hook::Edit => None,
        }
        .transpose()?;
    }
    Ok(())
}

/// Checks the group, version, kind and plural given to a `create` command.
fn validate_resource(args: &ResourceArgs) -> Result<()> {
    naming::validate_group(&args.group)?;
    naming::validate_version(&args.version)?;
    naming::validate_kind(&args.kind)?;
    if let Some(plural) = &args.plural {
        naming::validate_plural(plural)?;
    }
    Ok(())
}
