//! The command sequence a PROJECT file stands for: `init`, then for each
//! resource in PROJECT order its `create api` commands (the API type with its
//! first controller, then any further controller) and its `create webhook`.
//!
//! A webhook waits until every API it needs exists: a conversion webhook on a
//! hub version is scaffolded right after the last of its spoke versions.

use crate::layouts::{ApiRequest, ExternalApi, InitOptions, License, WebhookRequest};
use crate::project::{ProjectFile, ResourceEntry};
use anyhow::{Context as _, Result};
use std::path::Path;

/// One command of the sequence.
#[derive(Debug, Clone)]
pub enum Step {
    /// `init`.
    Init(InitOptions),
    /// `create api`.
    CreateApi(ApiRequest),
    /// `create webhook`.
    CreateWebhook(WebhookRequest),
}

/// The steps that re-create `project` in `dir`. `license` is the header the
/// project has now (kept as it is), or `None` for init's default;
/// `skip_toolchain_check` is init's `--skip-go-version-check`.
pub fn steps(
    project: &ProjectFile,
    dir: &Path,
    license: Option<License>,
    skip_toolchain_check: bool,
) -> Result<Vec<Step>> {
    let init = init_options(project, dir, license, skip_toolchain_check)?;
    let mut steps = vec![Step::Init(init)];
    let mut waiting: Vec<&ResourceEntry> = Vec::new();
    let mut created: Vec<&ResourceEntry> = Vec::new();
    for entry in &project.resources {
        steps.extend(api_requests(entry).into_iter().map(Step::CreateApi));
        created.push(entry);
        if entry.webhooks.is_some() {
            waiting.push(entry);
        }
        waiting.retain(|webhook| {
            let ready = spokes_exist(webhook, &created);
            if ready {
                steps.push(Step::CreateWebhook(webhook_request(webhook)));
            }
            !ready
        });
    }
    // A spoke missing from PROJECT: let create webhook say what is wrong.
    steps.extend(
        waiting
            .into_iter()
            .map(|entry| Step::CreateWebhook(webhook_request(entry))),
    );
    Ok(steps)
}

/// `init`'s options from PROJECT's top-level keys.
fn init_options(
    project: &ProjectFile,
    dir: &Path,
    license: Option<License>,
    skip_toolchain_check: bool,
) -> Result<InitOptions> {
    let repo = project
        .repo
        .clone()
        .context("PROJECT has no `repo` (the Go module path), which init needs; add it")?;
    let domain = project
        .domain
        .clone()
        .context("PROJECT has no `domain`, which init needs; add it")?;
    let project_name = project
        .project_name
        .clone()
        .context("PROJECT has no `projectName`, which init needs; add it")?;
    Ok(InitOptions {
        dir: dir.to_path_buf(),
        domain,
        repo: Some(repo),
        project_name,
        owner: None,
        license: license.unwrap_or(License::Apache2),
        multigroup: project.multigroup == Some(true),
        namespaced: project.namespaced == Some(true),
        skip_toolchain_check,
        fetch_deps: false,
    })
}

/// The `create api` requests for one resource: its API type together with
/// its first controller, then one request per further controller.
fn api_requests(entry: &ResourceEntry) -> Vec<ApiRequest> {
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

/// One `create api` request: the API type when `resource`, and a controller
/// named `controller` if one is given.
fn api_request(entry: &ResourceEntry, resource: bool, controller: Option<&str>) -> ApiRequest {
    let api = entry.api.as_ref();
    let default_name = entry.kind.to_ascii_lowercase();
    ApiRequest {
        group: entry.group.clone().unwrap_or_default(),
        version: entry.version.clone(),
        kind: entry.kind.clone(),
        plural: entry.plural.clone(),
        resource,
        controller: controller.is_some(),
        namespaced: api.is_some_and(|api| api.namespaced == Some(true)),
        controller_name: controller
            .filter(|name| *name != default_name)
            .map(str::to_string),
        ssa: api.is_some_and(|api| api.ssa == Some(true)),
        external: external_api(entry),
        force: false,
    }
}

/// The `create webhook` request recorded in a resource's `webhooks`.
fn webhook_request(entry: &ResourceEntry) -> WebhookRequest {
    let webhooks = entry.webhooks.clone().unwrap_or_default();
    WebhookRequest {
        group: entry.group.clone().unwrap_or_default(),
        version: entry.version.clone(),
        kind: entry.kind.clone(),
        plural: entry.plural.clone(),
        defaulting: webhooks.defaulting == Some(true),
        validation: webhooks.validation == Some(true),
        conversion: webhooks.conversion == Some(true),
        spokes: webhooks.spoke,
        defaulting_path: webhooks.defaulting_path,
        validation_path: webhooks.validation_path,
        external: external_api(entry),
        force: false,
    }
}

/// The external type of an `external: true` resource.
fn external_api(entry: &ResourceEntry) -> Option<ExternalApi> {
    (entry.external == Some(true)).then(|| ExternalApi {
        path: entry.path.clone().unwrap_or_default(),
        domain: entry.domain.clone().unwrap_or_default(),
        module: entry.module.clone().unwrap_or_default(),
    })
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

    fn names(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|step| match step {
                Step::Init(o) => format!("init {}", o.project_name),
                Step::CreateApi(r) => format!(
                    "api {}/{}/{} resource={} controller={:?}",
                    r.group,
                    r.version,
                    r.kind,
                    r.resource,
                    r.controller
                        .then(|| r.controller_name.clone().unwrap_or_default())
                ),
                Step::CreateWebhook(r) => format!(
                    "webhook {}/{}/{} d={} v={} c={} spokes={:?}",
                    r.group, r.version, r.kind, r.defaulting, r.validation, r.conversion, r.spokes
                ),
            })
            .collect()
    }

    const PROJECT: &str = "\
domain: my.domain
layout:
- go.kubebuilder.io/v4
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
        let steps = steps(&project, Path::new("/tmp/ship"), None, true).unwrap();
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
            ]
        );
    }

    #[test]
    fn a_project_without_repo_is_refused() {
        let text = PROJECT.replace("repo: example.com/ship\n", "");
        let project = Project::parse(&text).unwrap().file;
        let err = steps(&project, Path::new("/tmp/x"), None, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no `repo`"), "{err}");
    }
}
