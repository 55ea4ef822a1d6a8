//! The command sequence a PROJECT file stands for: `init` with its layout
//! chain, then for each resource in PROJECT order its `create api` commands
//! (the API type with its first controller, then any further controller)
//! and its `create webhook`, and last an `edit --plugins` for each optional
//! plugin PROJECT's `plugins:` records. An optional plugin whose section
//! records resources with their `create api` flags (deploy-image/v1-alpha)
//! is instead added to the `create api` of each of those resources.
//!
//! The one place PROJECT is turned into commands: `alpha generate` runs
//! each step as the request of its operation ([`request`]), the plugins'
//! typed options given by their hooks (`replay_options`); external plugins
//! get each step's flags as kubebuilder forwards them ([`command_line`]);
//! and `alpha update` has kubebuilder run the steps for a project
//! kubebuilder made (its `ancestor` module renders them as kubebuilder's
//! command lines).
//!
//! When a webhook runs is PROJECT's secret (see [`Order`]); either way it
//! waits until every API it needs exists: a conversion webhook on a hub
//! version comes right after the last of its spoke versions.

use super::ResourceSpec;
use super::create_api::ApiRequest;
use super::create_webhook::WebhookRequest;
use super::init::{InitOptions, InitRequest};
use crate::plugins::{Chain, Flags, Given, Hook, License, ReplaySettings, Role};
use crate::project::bookkeeping::{ApiOptions, WebhookOptions};
use crate::project::{ProjectFile, ResourceEntry};
use anyhow::{Context as _, Result};

/// One command of the sequence.
#[derive(Debug, Clone)]
pub enum Step {
    /// `init` (its plugins' options: [`request`]).
    Init(InitOptions),
    /// `create api` for a resource entry of PROJECT, with the optional
    /// plugins that took part in it.
    CreateApi(ResourceEntry, ApiOptions, Vec<ApiPlugin>),
    /// `create webhook` for a resource entry of PROJECT.
    CreateWebhook(ResourceEntry, WebhookOptions),
    /// `edit --plugins <key>` for an optional plugin.
    AddPlugin(&'static str),
}

/// An optional plugin added to a `create api`, with the options it took.
#[derive(Debug, Clone)]
pub struct ApiPlugin {
    /// The plugin's key.
    pub key: &'static str,
    /// Its typed options.
    pub options: Given,
}

/// A step as the request of its operation.
#[derive(Debug, Clone)]
pub enum Request {
    /// `init`.
    Init(InitRequest),
    /// `create api`.
    CreateApi(ApiRequest),
    /// `create webhook`.
    CreateWebhook(WebhookRequest),
    /// `edit --plugins <key>`, the plugin's PROJECT section as recorded.
    AddPlugin(&'static str),
}

/// When the `create webhook` commands ran. PROJECT records the resources in
/// the order they were created but not when their webhooks were, and
/// kubebuilder writes a controller's and a webhook's set-up at the same
/// place in `cmd/main.go`, so the order shows in the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Each resource's webhooks right after its APIs (the book's tutorials;
    /// `alpha generate`).
    WebhooksWithTheirApi,
    /// Every webhook after every API (kubebuilder's own `alpha generate`).
    WebhooksLast,
}

/// The steps that re-create `project`, its webhooks in `order`. `license`
/// is the header the project has now (kept as it is), or `None` for init's
/// default.
pub fn steps(project: &ProjectFile, license: Option<License>, order: Order) -> Result<Vec<Step>> {
    let mut steps = vec![Step::Init(init_options(project, license)?)];
    let mut waiting: Vec<&ResourceEntry> = Vec::new();
    let mut created: Vec<&ResourceEntry> = Vec::new();
    for entry in &project.resources {
        let mut plugins = api_plugins(project, entry)?;
        for options in api_requests(entry) {
            // The plugins scaffolded the API type, so they join its request.
            let with = if options.resource {
                std::mem::take(&mut plugins)
            } else {
                Vec::new()
            };
            steps.push(Step::CreateApi(entry.clone(), options, with));
        }
        created.push(entry);
        if entry.webhooks.is_some() {
            waiting.push(entry);
        }
        if order == Order::WebhooksLast {
            continue;
        }
        waiting.retain(|webhook| {
            let ready = spokes_exist(webhook, &created);
            if ready {
                steps.push(webhook_step(webhook));
            }
            !ready
        });
    }
    // A spoke missing from PROJECT: let create webhook say what is wrong.
    steps.extend(waiting.into_iter().map(webhook_step));
    steps.extend(optional_plugins(project).into_iter().map(Step::AddPlugin));
    Ok(steps)
}

/// The request of `step` in a project of `chain` re-created from
/// `project`: the plugins' typed options their hooks give for it, and the
/// command line external plugins get; `settings` reach init's plugins.
pub fn request(
    step: &Step,
    chain: &Chain,
    project: &ProjectFile,
    settings: &ReplaySettings,
) -> Result<Request> {
    let forwarded = command_line(step, project);
    Ok(match step {
        Step::Init(options) => Request::Init(InitRequest {
            chain: chain.clone(),
            options: options.clone(),
            flags: Flags::replayed(Hook::Init, init_plugin_options(project, chain, settings)?)
                .forwarding(forwarded),
        }),
        Step::CreateApi(entry, options, plugins) => {
            let mut chain = chain.clone();
            for plugin in plugins {
                chain = chain.with_extra(plugin.key)?;
            }
            let given = plugins.iter().map(|p| p.options.clone()).collect();
            Request::CreateApi(ApiRequest {
                chain,
                resource: ResourceSpec::Recorded(Box::new(entry.clone())),
                options: options.clone(),
                flags: Flags::replayed(Hook::CreateApi, given).forwarding(forwarded),
            })
        }
        Step::CreateWebhook(entry, options) => Request::CreateWebhook(WebhookRequest {
            chain: chain.clone(),
            resource: ResourceSpec::Recorded(Box::new(entry.clone())),
            options: options.clone(),
            flags: Flags::replayed(Hook::CreateWebhook, Vec::new()).forwarding(forwarded),
        }),
        Step::AddPlugin(key) => Request::AddPlugin(key),
    })
}

/// The text of `step` that its outcome depends on, for the keys of a
/// replay's checkpoints ([`crate::machinery::checkpoints`]): all of it but
/// the `webhooks` of a `create api`'s entry, which `create api` does not
/// read, so that a webhook added to a resource leaves its API's step as it
/// was. PROJECT's top-level keys and sections, which steps read too, are
/// the checkpoints' salt.
pub fn fingerprint(step: &Step) -> String {
    match step {
        Step::CreateApi(entry, options, plugins) => {
            let mut entry = entry.clone();
            entry.webhooks = None;
            format!(
                "{:?}",
                Step::CreateApi(entry, options.clone(), plugins.clone())
            )
        }
        other => format!("{other:?}"),
    }
}

/// The flags of the command line `step` stands for, as external plugins get
/// them (the command line `kubebuilder alpha generate` runs for it, less
/// its license and toolchain flags); init's come from `project`'s top-level
/// keys, as kubebuilder's.
fn command_line(step: &Step, project: &ProjectFile) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let mut flag = |name: &str, value: Option<&str>| {
        args.push(format!("--{name}"));
        args.extend(value.map(str::to_string));
    };
    match step {
        Step::Init(options) => {
            flag("domain", Some(&options.domain));
            if let Some(repo) = project.repo.as_deref().filter(|repo| !repo.is_empty()) {
                flag("repo", Some(repo));
            }
            flag("project-name", Some(&options.project_name));
            if options.multigroup {
                flag("multigroup", None);
            }
            if options.namespaced {
                flag("namespaced", None);
            }
        }
        Step::CreateApi(entry, options, _) => {
            gvk_flags(entry, &mut flag);
            let on = |yes: bool| if yes { "true" } else { "false" };
            flag(&format!("resource={}", on(options.resource)), None);
            flag(&format!("controller={}", on(options.controller)), None);
            if let Some(name) = &options.controller_name {
                flag("controller-name", Some(name));
            }
        }
        Step::CreateWebhook(entry, options) => {
            gvk_flags(entry, &mut flag);
            for (on, name) in [
                (options.defaulting, "defaulting"),
                (options.validation, "programmatic-validation"),
                (options.conversion, "conversion"),
            ] {
                if on {
                    flag(name, None);
                }
            }
            if !options.spokes.is_empty() {
                flag("spoke", Some(&options.spokes.join(",")));
            }
        }
        Step::AddPlugin(_) => {}
    }
    args
}

/// `--group`, `--version` and `--kind` of `entry` (`--plural` first when
/// PROJECT records one).
fn gvk_flags(entry: &ResourceEntry, flag: &mut impl FnMut(&str, Option<&str>)) {
    if let Some(plural) = &entry.plural {
        flag("plural", Some(plural));
    }
    if let Some(group) = entry.group.as_deref().filter(|group| !group.is_empty()) {
        flag("group", Some(group));
    }
    flag("version", Some(&entry.version));
    flag("kind", Some(&entry.kind));
}

/// The optional plugins recorded under PROJECT's `plugins:` that this tool
/// knows and re-creates with `edit --plugins`, in key order.
pub fn optional_plugins(project: &ProjectFile) -> Vec<&'static str> {
    project
        .plugins
        .keys()
        .filter_map(|key| key.as_str())
        .filter_map(crate::plugins::by_key)
        .filter(|plugin| plugin.role() == Role::Optional && plugin.edit().is_some())
        .map(|plugin| plugin.key())
        .collect()
}

/// The optional plugins whose PROJECT sections say they scaffolded `entry`.
fn api_plugins(project: &ProjectFile, entry: &ResourceEntry) -> Result<Vec<ApiPlugin>> {
    let mut plugins = Vec::new();
    for plugin in crate::plugins::PLUGINS {
        let Some(hook) = plugin.create_api() else {
            continue;
        };
        if let Some(options) = hook.replay_options(project, entry)? {
            plugins.push(ApiPlugin {
                key: plugin.key(),
                options,
            });
        }
    }
    Ok(plugins)
}

/// `init`'s options from PROJECT's top-level keys.
fn init_options(project: &ProjectFile, license: Option<License>) -> Result<InitOptions> {
    let domain = project
        .domain
        .clone()
        .context("PROJECT has no `domain`, which init needs; add it")?;
    let project_name = project
        .project_name
        .clone()
        .context("PROJECT has no `projectName`, which init needs; add it")?;
    Ok(InitOptions {
        domain,
        project_name,
        owner: None,
        license: license.unwrap_or(License::Apache2),
        multigroup: project.multigroup == Some(true),
        namespaced: project.namespaced == Some(true),
    })
}

/// The typed options of `init`'s plugins, as each plugin of the chain
/// gives them for `project`; `settings` reach them.
fn init_plugin_options(
    project: &ProjectFile,
    chain: &Chain,
    settings: &ReplaySettings,
) -> Result<Vec<Given>> {
    let mut given = Vec::new();
    for hook in chain.iter().filter_map(|p| p.init()) {
        given.extend(hook.replay_options(project, settings)?);
    }
    Ok(given)
}

/// The `create api` options for one resource: its API type together with
/// its first controller, then one per further controller.
fn api_requests(entry: &ResourceEntry) -> Vec<ApiOptions> {
    let api = entry.api.as_ref().filter(|api| api.crd_version.is_some());
    let names = entry.controller_names();
    let mut requests = Vec::new();
    let mut names = names.iter();
    if api.is_some() {
        let first = names.next();
        requests.push(api_request(entry, true, first.map(String::as_str)));
    }
    for name in names {
        requests.push(api_request(entry, false, Some(name)));
    }
    requests
}

/// One `create api`: the API type when `resource`, and a controller named
/// `controller` if one is given.
fn api_request(entry: &ResourceEntry, resource: bool, controller: Option<&str>) -> ApiOptions {
    let default_name = entry.kind.to_ascii_lowercase();
    ApiOptions {
        resource,
        controller: controller.is_some(),
        controller_name: controller
            .filter(|name| *name != default_name)
            .map(str::to_string),
        ssa: entry.api.as_ref().is_some_and(|api| api.ssa == Some(true)),
        force: false,
    }
}

/// The `create webhook` step recorded in a resource's `webhooks`.
fn webhook_step(entry: &ResourceEntry) -> Step {
    let webhooks = entry.webhooks.clone().unwrap_or_default();
    let options = WebhookOptions {
        defaulting: webhooks.defaulting == Some(true),
        validation: webhooks.validation == Some(true),
        conversion: webhooks.conversion == Some(true),
        spokes: webhooks.spoke,
        defaulting_path: webhooks.defaulting_path,
        validation_path: webhooks.validation_path,
        force: false,
    };
    Step::CreateWebhook(entry.clone(), options)
}

/// Whether every spoke version of `entry`'s conversion webhook has been
/// created already.
fn spokes_exist(entry: &ResourceEntry, created: &[&ResourceEntry]) -> bool {
    let spokes = entry
        .webhooks
        .as_ref()
        .map(|w| w.spoke.as_slice())
        .unwrap_or_default();
    spokes.iter().all(|spoke| {
        created
            .iter()
            .any(|c| c.group == entry.group && c.kind == entry.kind && &c.version == spoke)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Project;

    const SKIP_CHECK: ReplaySettings = ReplaySettings {
        skip_toolchain_check: true,
    };

    fn names(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|step| match step {
                Step::Init(o) => format!("init {}", o.project_name),
                Step::CreateApi(e, r, plugins) => format!(
                    "api {}/{}/{} resource={} controller={:?}{}",
                    e.group.as_deref().unwrap_or_default(),
                    e.version,
                    e.kind,
                    r.resource,
                    r.controller
                        .then(|| r.controller_name.clone().unwrap_or_default()),
                    plugins
                        .iter()
                        .map(|p| format!(" --plugins {}", p.key))
                        .collect::<String>()
                ),
                Step::CreateWebhook(e, r) => format!(
                    "webhook {}/{}/{} d={} v={} c={} spokes={:?}",
                    e.group.as_deref().unwrap_or_default(),
                    e.version,
                    e.kind,
                    r.defaulting,
                    r.validation,
                    r.conversion,
                    r.spokes
                ),
                Step::AddPlugin(key) => format!("edit --plugins {key}"),
            })
            .collect()
    }

    const PROJECT: &str = "\
domain: my.domain
layout:
- go.kubebuilder.io/v4
plugins:
  grafana.kubebuilder.io/v1-alpha: {}
  example.com/unknown/v1: {}
projectName: ship
repo: example.com/ship
resources:
- api:
    crdVersion: v1
    namespaced: true
  controllers:
  - name: captain
  - name: captain-backup
  group: crew
  kind: Captain
  version: v1
  webhooks:
    defaulting: true
    webhookVersion: v1
- api:
    crdVersion: v1
    namespaced: true
  controller: true
  group: crew
  kind: FirstMate
  version: v1
  webhooks:
    conversion: true
    spoke:
    - v2
    webhookVersion: v1
- api:
    crdVersion: v1
  group: crew
  kind: FirstMate
  version: v2
- core: true
  group: core
  kind: Pod
  path: k8s.io/api/core/v1
  version: v1
  webhooks:
    validation: true
    webhookVersion: v1
version: \"3\"
";

    #[test]
    fn steps_follow_project_order_and_wait_for_spokes() {
        let project = Project::parse(PROJECT).unwrap().file;
        let steps = steps(&project, None, Order::WebhooksWithTheirApi).unwrap();
        assert_eq!(
            names(&steps),
            [
                "init ship",
                "api crew/v1/Captain resource=true controller=Some(\"\")",
                "api crew/v1/Captain resource=false controller=Some(\"captain-backup\")",
                "webhook crew/v1/Captain d=true v=false c=false spokes=[]",
                "api crew/v1/FirstMate resource=true controller=Some(\"\")",
                "api crew/v2/FirstMate resource=true controller=None",
                "webhook crew/v1/FirstMate d=false v=false c=true spokes=[\"v2\"]",
                "webhook core/v1/Pod d=false v=true c=false spokes=[]",
                "edit --plugins grafana.kubebuilder.io/v1-alpha",
            ]
        );
    }

    #[test]
    fn webhooks_last_come_after_every_api_in_project_order() {
        let project = Project::parse(PROJECT).unwrap().file;
        let steps = steps(&project, None, Order::WebhooksLast).unwrap();
        let names = names(&steps);
        let first_webhook = names.iter().position(|n| n.starts_with("webhook")).unwrap();
        let last_api = names.iter().rposition(|n| n.starts_with("api")).unwrap();
        assert!(last_api < first_webhook, "{names:#?}");
        assert_eq!(
            names[first_webhook..],
            [
                "webhook crew/v1/Captain d=true v=false c=false spokes=[]",
                "webhook crew/v1/FirstMate d=false v=false c=true spokes=[\"v2\"]",
                "webhook core/v1/Pod d=false v=true c=false spokes=[]",
                "edit --plugins grafana.kubebuilder.io/v1-alpha",
            ]
        );
    }

    #[test]
    fn a_resource_recorded_by_deploy_image_is_created_with_the_plugin() {
        let text = PROJECT.replace(
            "plugins:\n",
            "plugins:\n  deploy-image.go.kubebuilder.io/v1-alpha:\n    resources:\n    - domain: my.domain\n      group: crew\n      kind: FirstMate\n      options:\n        containerPort: \"8080\"\n        image: nginx:1.27\n      version: v1\n",
        );
        let project = Project::parse(&text).unwrap().file;
        let names = names(&steps(&project, None, Order::WebhooksWithTheirApi).unwrap());
        assert!(
            names.contains(&"api crew/v1/FirstMate resource=true controller=Some(\"\") --plugins deploy-image.go.kubebuilder.io/v1-alpha".to_string()),
            "{names:#?}"
        );
        assert!(names.contains(&"api crew/v2/FirstMate resource=true controller=None".to_string()));
        assert!(
            !names
                .iter()
                .any(|n| n.contains("edit --plugins deploy-image")),
            "{names:#?}"
        );
    }

    #[test]
    fn a_project_without_repo_is_refused() {
        let text = PROJECT.replace("repo: example.com/ship\n", "");
        let project = Project::parse(&text).unwrap().file;
        let chain = Chain::from_layout(&project.layout).unwrap();
        let err = init_plugin_options(&project, &chain, &SKIP_CHECK)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no `repo`"), "{err}");
    }
}
