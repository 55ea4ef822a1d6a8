//! `grafana.kubebuilder.io/v1-alpha` (short `grafana/v1-alpha`): Grafana
//! dashboards for the manager's metrics, added to a project with
//! `edit --plugins grafana/v1-alpha`.
//!
//! Every `edit` it takes part in writes the two fixed dashboards again,
//! writes `grafana/custom-metrics/config.yaml` only when it is missing (the
//! file is the user's), and renders `custom-metrics-dashboard.json` from the
//! metrics that file lists. The fixed dashboards leave out what the
//! project's manager cannot feed (a Rust manager has no `go_*` metrics).
//! PROJECT records `grafana.kubebuilder.io/v1-alpha: {}`
//! under `plugins:`.

mod config;

use super::{EditContext, EditHook, Output, Plugin, Role};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::{Change, Context, Source, Templates};
use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The plugin's key.
pub const KEY: &str = "grafana.kubebuilder.io/v1-alpha";

/// The plugin's PROJECT section: empty (`{}`), as kubebuilder records it;
/// the plugin keeps no settings.
#[derive(Debug, Serialize, Deserialize)]
struct Section {}

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "grafana/v1-alpha";

/// The file a user lists custom metrics in.
const CONFIG_PATH: &str = "grafana/custom-metrics/config.yaml";

/// The dashboard rendered from that file.
const CUSTOM_DASHBOARD_PATH: &str = "grafana/custom-metrics/custom-metrics-dashboard.json";

/// The grafana/v1-alpha plugin.
pub struct Grafana;

impl Plugin for Grafana {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("grafana/v1-alpha")
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    joins!(edit: EditHook);
}

impl EditHook for Grafana {
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        let templates = Templates::load(TEMPLATE_DIR, &["edit", "custom"])?;
        // A panel (or query) that reads a metric the project's manager does
        // not export, such as a Go runtime's `go_*` in a Rust manager, is
        // left out: the layout plugin tells which it exports.
        let layout = ctx.project.layout.clone();
        let mut context = Context::new();
        context.insert_test("exported", move |name| {
            super::manager_exports_metric(&layout, name)
        });
        templates.plan_tree("edit", &context, &[], &mut out.plan)?;
        if let Some(dashboard) = custom_dashboard(ctx.files, &templates)? {
            out.plan.push(Change::Write {
                path: CUSTOM_DASHBOARD_PATH.into(),
                contents: dashboard,
            });
        }
        out.record(KEY, &Section {})?;
        Ok(())
    }

    fn user_files(&self) -> &'static [&'static str] {
        &[CONFIG_PATH]
    }
}

/// The custom-metrics dashboard for the metrics the project's config.yaml
/// lists; `None` while it lists none (or does not exist yet).
fn custom_dashboard(files: Source, templates: &Templates) -> Result<Option<String>> {
    let Some(text) = read_if_present(files, Path::new(CONFIG_PATH))? else {
        return Ok(None);
    };
    let metrics = config::parse_custom_metrics(&text)
        .with_context(|| format!("{CONFIG_PATH} cannot be read"))?;
    if metrics.is_empty() {
        return Ok(None);
    }
    let mut context = Context::new();
    context.insert("metrics", &metrics);
    let name = "custom/custom-metrics-dashboard.json.jinja";
    templates.render(name, &context).map(Some)
}
