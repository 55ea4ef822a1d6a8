//! An external plugin as a plugin of the chain. The only file of this module
//! that knows the crate's plugin interface: each command hook calls
//! [`scaffold`] with what the command's context holds.

use super::protocol::{API_VERSION, Request};
use super::{External, chain_seen_by, run, universe};
use crate::machinery::{Plan, Source};
use crate::plugins::{
    ApiContext, CreateApiHook, CreateWebhookHook, EditContext, EditHook, Hook, InitContext,
    InitHook, Output, Plugin, Role, WebhookContext,
};
use crate::project::{ProjectFile, bookkeeping};
use anyhow::{Context as _, Result, bail};
use std::sync::Mutex;

/// An external plugin in a chain.
#[derive(Debug)]
pub struct ExternalPlugin {
    /// The plugin found on disk.
    pub found: &'static External,
}

/// The external plugins made into chain plugins so far, one per key.
static MADE: Mutex<Vec<&'static ExternalPlugin>> = Mutex::new(Vec::new());

/// The chain plugin for the external plugin `found`, made once per process
/// (kept for the process, as the built-in plugins are).
pub fn chain_plugin(found: &'static External) -> &'static dyn Plugin {
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(plugin) = made.iter().find(|p| p.found.key == found.key) {
        return *plugin;
    }
    let plugin: &'static ExternalPlugin = Box::leak(Box::new(ExternalPlugin { found }));
    made.push(plugin);
    plugin
}

impl Plugin for ExternalPlugin {
    fn key(&self) -> &'static str {
        &self.found.key
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    joins!(
        init: InitHook,
        create_api: CreateApiHook,
        create_webhook: CreateWebhookHook,
        edit: EditHook,
    );
}

impl InitHook for ExternalPlugin {
    fn plan(&self, ctx: &InitContext, project: &ProjectFile, out: &mut Output) -> Result<()> {
        let mut project = project.clone();
        if project.cli_version.is_none() {
            project.cli_version = Some(crate::project::cli_version::current());
        }
        scaffold(
            self.found,
            Hook::Init,
            ctx.flags.forwarded(),
            ctx.files,
            &project,
            &mut out.plan,
        )
    }
}

// PROJECT as sent records the resource already, as kubebuilder's does once
// its language plugin ran.
impl CreateApiHook for ExternalPlugin {
    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        let mut project = ctx.project.clone();
        bookkeeping::record_api(&mut project, ctx.resource, ctx.options);
        scaffold(
            self.found,
            Hook::CreateApi,
            ctx.flags.forwarded(),
            ctx.files,
            &project,
            &mut out.plan,
        )
    }
}

impl CreateWebhookHook for ExternalPlugin {
    fn plan(&self, ctx: &WebhookContext, out: &mut Output) -> Result<()> {
        let mut project = ctx.project.clone();
        bookkeeping::record_webhook(&mut project, ctx.resource, ctx.options);
        scaffold(
            self.found,
            Hook::CreateWebhook,
            ctx.flags.forwarded(),
            ctx.files,
            &project,
            &mut out.plan,
        )
    }
}

impl EditHook for ExternalPlugin {
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        scaffold(
            self.found,
            Hook::Edit,
            ctx.flags.forwarded(),
            ctx.files,
            ctx.project,
            &mut out.plan,
        )
    }
}

/// Runs `plugin` for `command`, with the command line's flags `args`, in
/// the project `files`, whose PROJECT is `project`, and adds the files it
/// returns to `plan`. The plugin runs in the project's directory: a
/// project in memory is refused.
pub fn scaffold(
    plugin: &External,
    command: Hook,
    args: &[String],
    files: Source,
    project: &ProjectFile,
    plan: &mut Plan,
) -> Result<()> {
    let Some(dir) = files.dir() else {
        bail!(
            "the external plugin {} runs in the project's directory, and this project is in memory",
            plugin.key
        );
    };
    let chain = chain_seen_by(&plugin.key, &project.layout);
    let mut config = project.clone();
    config.layout = chain.clone();
    let config = serde_json::to_value(&config).context("cannot encode PROJECT for a plugin")?;
    let sent = universe::gather(dir, plan)?;
    let request = Request {
        api_version: API_VERSION,
        args: args.to_vec(),
        command: command.command().to_string(),
        universe: sent.clone(),
        plugin_chain: chain,
        config: Some(config),
    };
    let response = run::call(&plugin.key, &plugin.path, dir, &request, run::timeout()?)?;
    universe::into_plan(&plugin.key, dir, &sent, response.universe, plan)
}
