//! One module per command: each turns its command line into a typed
//! request (the chain resolved, the flags checked, questions asked) and
//! makes one call to its operation in [`crate::ops`].

pub mod alpha_generate;
pub mod alpha_update;
pub mod completion;
pub mod create_api;
pub mod create_webhook;
pub mod edit;
pub mod init;
pub mod version;

use crate::cli::{ResourceArgs, WriteArgs};
use crate::ops::{ResourceName, Write};
use crate::plugins::{Chain, Flags, Hook, Plugin};
use crate::project::ProjectFile;
use crate::resource::naming;
use anyhow::{Result, bail};

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
    let layout = Chain::of_project(project)?;
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

/// The API the flags of a `create` command name, its names checked;
/// `namespaced` is `create api`'s scope.
fn resource_name(args: &ResourceArgs, namespaced: bool) -> Result<ResourceName> {
    naming::validate_group(&args.group)?;
    naming::validate_version(&args.version)?;
    naming::validate_kind(&args.kind)?;
    if let Some(plural) = &args.plural {
        naming::validate_plural(plural)?;
    }
    Ok(ResourceName {
        group: args.group.clone(),
        version: args.version.clone(),
        kind: args.kind.clone(),
        plural: args.plural.clone(),
        namespaced,
    })
}

/// How the command writes, from `--force` and `--dry-run`.
fn write_mode(args: &WriteArgs) -> Write {
    Write {
        force: args.force,
        dry_run: args.dry_run,
    }
}
