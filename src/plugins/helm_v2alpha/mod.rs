//! `helm.kubebuilder.io/v2-alpha` (short `helm/v2-alpha`): a Helm chart of
//! the project, built from its kustomize output with
//! `edit --plugins helm/v2-alpha [--manifests dist/install.yaml] [--output-dir dist] [--force]`.
//!
//! The chart goes to `<output-dir>/chart/`: every object of the manifests
//! file becomes a template in the folder of its area (`crd/`, `rbac/`,
//! `webhook/`, `cert-manager/`, …) with the release's names and namespace,
//! switched by values; the manager's Deployment and metrics Service, the
//! helpers, NOTES.txt and the default network policies and ServiceMonitor
//! come from this plugin's own templates; values.yaml holds the manager's
//! settings read from the output. The project also gets Helm targets in its
//! Makefile and `.github/workflows/test-chart.yml`; where the layout is not
//! Go's, `make install-helm` runs `hack/install-helm.sh` (helm from PATH, else
//! its release archive fetched and checksum-checked) and nothing needs Go.
//!
//! Re-running rewrites the templates built from the output. Chart.yaml is
//! never rewritten; values.yaml, `.helmignore`, `_helpers.tpl`, NOTES.txt,
//! the network policies, the ServiceMonitor and the workflow are kept unless
//! `--force` is given (declared in `scaffolds/helm/v2-alpha/edit/files.toml`),
//! and a kept values.yaml only gains the sections it lacks. PROJECT records
//! `manifests` and `output` under the plugin's key; later runs use them
//! when the flags are not given. A missing default `dist/install.yaml` is
//! built first with `make manifests generate build-installer`.
//!
//! The plugin reads only `config/`'s output, so it serves every layout whose
//! manifests are kustomize/v2's.

mod manifests;
mod objects;
mod values;

use super::chain::Chain;
use super::flags::args_of;
use super::{EditContext, EditHook, Output, Plugin, Role, Toolchain};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::steps::{Progress, Step};
use crate::machinery::{Change, Context, Source, Syntax, Templates};
use crate::project::ProjectFile;
use anyhow::{Result, bail};
use manifests::Manifests;
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};
use values::Values;

/// The plugin's key.
pub const KEY: &str = "helm.kubebuilder.io/v2-alpha";

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "helm/v2-alpha";

/// The kustomize output `make build-installer` writes.
const DEFAULT_MANIFESTS: &str = "dist/install.yaml";

/// The folder the chart folder goes to.
const DEFAULT_OUTPUT: &str = "dist";

/// The helm release `make install-helm` builds.
const HELM_VERSION: &str = "v3.22.0";

/// The chart's values, relative to the chart folder.
const VALUES_FILE: &str = "values.yaml";

/// The helm/v2-alpha plugin.
pub struct Helm;

impl Plugin for Helm {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("helm/v2-alpha")
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    joins!(edit: EditHook);
}

/// The plugin's flags on `edit`.
#[derive(Debug, Clone, clap::Args)]
struct HelmOptions {
    #[arg(
        long,
        value_name = "manifests",
        help = "helm/v2-alpha: the kustomize output the chart is built from [default: dist/install.yaml, or what PROJECT records]"
    )]
    manifests: Option<String>,
    #[arg(
        long,
        value_name = "output-dir",
        help = "helm/v2-alpha: the folder the chart/ folder goes to [default: dist, or what PROJECT records]"
    )]
    output_dir: Option<String>,
}

/// What the chart is planned from when the kustomize output is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    /// Build it first (`edit`).
    Build,
    /// Leave the chart out (`alpha generate`'s replay, in a tree whose
    /// toolchain has not run yet).
    Skip,
}

impl EditHook for Helm {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<HelmOptions>()
    }

    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        self.plan_chart(ctx, out, Missing::Build)
    }

    fn plan_replay(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        self.plan_chart(ctx, out, Missing::Skip)
    }

    /// For `alpha generate --make`: builds the kustomize output the chart is
    /// made from (`make build-installer`), when PROJECT names the default
    /// manifests file and the Makefile has the target; `alpha generate` then
    /// runs the plugin again to write the chart.
    fn build_replay_inputs(&self, dir: &Path, project: &ProjectFile) -> Result<()> {
        let manifests = project
            .plugin_section::<Section>(KEY)?
            .and_then(|section| section.manifests);
        if manifests.is_some_and(|m| m != DEFAULT_MANIFESTS) {
            return Ok(());
        }
        if !has_make_target(Source::Dir(dir), "build-installer")? {
            return Ok(());
        }
        Progress::new().run(dir, &Step::new("make", &["build-installer"]))
    }
}

impl Helm {
    /// Plans the chart and the project's Helm files; `missing` says what to
    /// do when the kustomize output does not exist.
    fn plan_chart(&self, ctx: &EditContext, out: &mut Output, missing: Missing) -> Result<()> {
        let settings = Settings::resolve(ctx)?;
        let name = chart_name(ctx.project)?;
        let templates = Templates::load_with(TEMPLATE_DIR, &["edit"], Syntax::Brackets)?;
        let mut context = Context::new();
        context.insert("name", &name);
        context.insert("chart_dir", &settings.chart_dir());
        context.insert("helm_version", HELM_VERSION);
        let go = builds_with_go(ctx.chain);
        context.insert("go", &go);
        let manifests = match manifests_text(ctx, &settings, out, missing)? {
            Some(text) => Some(Manifests::parse(&text, &settings.manifests)?),
            None => None,
        };
        let values = manifests
            .as_ref()
            .map(|manifests| Values::from_manifests(manifests, &name))
            .transpose()?;
        let webhooks = match &values {
            Some(values) => values.webhook,
            None => ctx.project.resources.iter().any(|r| r.webhooks.is_some()),
        };
        context.insert("webhooks", &webhooks);
        plan_project_files(ctx, &templates, &context, go, out)?;
        if let (Some(manifests), Some(values)) = (manifests, values) {
            context.insert("v", &values);
            plan_chart(ctx, &settings, &manifests, &templates, context, out, &name)?;
            out.notes.push(format!(
                "The chart is in {}. Install it with `make helm-deploy IMG=<image>`; run `make build-installer` and this command again after changing APIs, webhooks or config/.",
                settings.chart_dir()
            ));
        }
        out.record(KEY, &settings.section())?;
        Ok(())
    }
}

/// The make targets that build the default kustomize output, in order.
const BUILD_TARGETS: &[&str] = &["manifests", "generate", "build-installer"];

/// The kustomize output the chart is planned from. When the default file is
/// missing, `make manifests generate build-installer` builds it first, as
/// kubebuilder does; a dry run only says so. `None` when there is nothing to
/// plan from: a dry run that would build it, or `alpha generate` before its
/// make step.
fn manifests_text(
    ctx: &EditContext,
    settings: &Settings,
    out: &mut Output,
    missing: Missing,
) -> Result<Option<String>> {
    let path = Path::new(&settings.manifests);
    if let Some(text) = read_if_present(ctx.files, path)? {
        return Ok(Some(text));
    }
    if missing == Missing::Skip {
        return Ok(None);
    }
    if settings.manifests != DEFAULT_MANIFESTS || !has_make_target(ctx.files, "build-installer")? {
        bail!(
            "{} does not exist: run `make build-installer` first (the chart is built from its kustomize output), or name the file with --manifests",
            settings.manifests
        );
    }
    if ctx.settings.dry_run {
        out.notes.push(format!(
            "{} does not exist: without --dry-run, `make {}` runs first to build it, and the chart is planned from its output.",
            settings.manifests,
            BUILD_TARGETS.join(" ")
        ));
        return Ok(None);
    }
    let Some(dir) = ctx.files.dir() else {
        bail!(
            "{} does not exist, and `make build-installer` runs only in the project's directory",
            settings.manifests
        );
    };
    let progress = Progress::new();
    for target in BUILD_TARGETS {
        progress.run(dir, &Step::new("make", &[target]))?;
    }
    match read_if_present(ctx.files, path)? {
        Some(text) => Ok(Some(text)),
        None => bail!(
            "`make build-installer` did not write {}: check its recipe in the Makefile, or name the kustomize output with --manifests",
            settings.manifests
        ),
    }
}

/// Whether the project's Makefile has a rule for `target`.
fn has_make_target(files: Source, target: &str) -> Result<bool> {
    let makefile = read_if_present(files, Path::new("Makefile"))?.unwrap_or_default();
    let rule = format!("{target}:");
    Ok(makefile.lines().any(|l| l.starts_with(&rule)))
}

/// Where the chart comes from and goes to.
#[derive(Debug, Clone)]
struct Settings {
    /// The manifests file, relative to the project.
    manifests: String,
    /// The folder holding `chart/`, relative to the project.
    output: String,
}

impl Settings {
    /// The flags given, else what PROJECT records, else the defaults.
    fn resolve(ctx: &EditContext) -> Result<Self> {
        let options: HelmOptions = ctx.flags.get()?;
        let recorded: Section = ctx.project.plugin_section(KEY)?.unwrap_or_default();
        let pick = |given: Option<String>, flag: &str, recorded: Option<String>, default: &str| {
            let value = given.or(recorded).unwrap_or_else(|| default.to_string());
            check_inside(flag, &value)?;
            Ok::<_, anyhow::Error>(value.trim_end_matches('/').to_string())
        };
        Ok(Self {
            manifests: pick(
                options.manifests,
                "manifests",
                recorded.manifests,
                DEFAULT_MANIFESTS,
            )?,
            output: pick(
                options.output_dir,
                "output-dir",
                recorded.output,
                DEFAULT_OUTPUT,
            )?,
        })
    }

    /// The chart folder, relative to the project.
    fn chart_dir(&self) -> String {
        format!("{}/chart", self.output)
    }

    /// A file of the chart, relative to the project.
    fn chart_path(&self, relative: &str) -> PathBuf {
        Path::new(&self.chart_dir()).join(relative)
    }

    /// The PROJECT section that records them.
    fn section(&self) -> Section {
        Section {
            manifests: Some(self.manifests.clone()),
            output: Some(self.output.clone()),
        }
    }
}

/// The plugin's PROJECT section: the manifests file and the output folder
/// last used, which later runs take when the flags are not given.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Section {
    /// The manifests file, relative to the project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    manifests: Option<String>,
    /// The folder holding `chart/`, relative to the project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

/// Refuses a path that is empty, absolute or leaves the project.
fn check_inside(flag: &str, value: &str) -> Result<()> {
    let path = Path::new(value);
    let escapes = path.components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    });
    if value.trim().is_empty() || escapes {
        bail!("--{flag} {value:?} is not allowed: give a relative path inside the project");
    }
    Ok(())
}

/// The chart's name: the project name.
fn chart_name(project: &ProjectFile) -> Result<String> {
    match project.project_name.as_deref() {
        Some(name) if !name.is_empty() => Ok(name.to_string()),
        _ => bail!("PROJECT has no `projectName`, which names the chart; add it"),
    }
}

/// Whether the project is built with Go (or its chain has no language
/// layout). A Go project's `make install-helm` builds helm with `go
/// install`; any other fetches helm's release archive with
/// `hack/install-helm.sh`, and its chart workflow sets up no Go.
fn builds_with_go(chain: &Chain) -> bool {
    chain
        .layout()
        .is_none_or(|layout| layout.toolchain() == Some(Toolchain::Go))
}

/// The folder of the files a project whose layout is not Go's gets besides:
/// the script `make install-helm` runs.
const WITHOUT_GO_DIR: &str = "edit/project-without-go";

/// The Makefile's Helm targets (once: a Makefile that has `helm-deploy`
/// keeps its own), the chart's workflow and, outside Go, the script that
/// fetches helm.
fn plan_project_files(
    ctx: &EditContext,
    templates: &Templates,
    context: &Context,
    go: bool,
    out: &mut Output,
) -> Result<()> {
    let makefile = read_if_present(ctx.files, Path::new("Makefile"))?;
    let has_targets = |text: &String| text.lines().any(|l| l.starts_with("helm-deploy:"));
    if makefile.as_ref().is_some_and(|text| !has_targets(text)) {
        out.plan.push(Change::Append {
            path: "Makefile".into(),
            text: templates.render("edit/makefile/helm-targets.mk.jinja", context)?,
        });
    }
    let force = ctx.settings.force;
    let folders = if go {
        &["edit/project"][..]
    } else {
        &["edit/project", WITHOUT_GO_DIR]
    };
    for folder in folders {
        templates.plan_tree_with(folder, context, &[], &mut out.plan, |file, plan| {
            file.forced(force).plan(plan)
        })?;
    }
    Ok(())
}

/// Every file of the chart named `name`.
fn plan_chart(
    ctx: &EditContext,
    settings: &Settings,
    manifests: &Manifests,
    templates: &Templates,
    context: Context,
    out: &mut Output,
    name: &str,
) -> Result<()> {
    let converted = objects::templates(manifests, name)?;
    let taken = |relative: &str| {
        converted
            .iter()
            .any(|t| format!("templates/{}", t.path) == relative)
    };
    let force = ctx.settings.force;
    templates.plan_tree_with(
        "edit/chart",
        &context,
        &[],
        &mut out.plan,
        |mut file, plan| {
            let relative = file.template.to_string_lossy().into_owned();
            if taken(&relative) {
                return Ok(());
            }
            file.path = settings.chart_path(&relative);
            if relative == VALUES_FILE {
                let contents = file.render()?;
                plan.push(values_change(ctx, file.path, contents)?);
                return Ok(());
            }
            file.forced(force).plan(plan)
        },
    )?;
    for template in converted {
        out.plan.push(Change::Write {
            path: settings.chart_path(&format!("templates/{}", template.path)),
            contents: template.contents,
        });
    }
    Ok(())
}

/// values.yaml: written when missing or with `--force`; otherwise the
/// user's file is kept and gains only the top-level sections it lacks.
fn values_change(ctx: &EditContext, path: PathBuf, contents: String) -> Result<Change> {
    let existing = read_if_present(ctx.files, &path)?;
    let Some(existing) = existing.filter(|_| !ctx.settings.force) else {
        return Ok(Change::Write { path, contents });
    };
    let missing = missing_sections(&existing, &contents);
    Ok(if missing.is_empty() {
        Change::CreateIfMissing { path, contents }
    } else {
        Change::Append {
            path,
            text: missing,
        }
    })
}

/// The blocks of `fresh` (separated by blank lines) whose top-level key
/// `existing` does not have, each with its comment lines.
fn missing_sections(existing: &str, fresh: &str) -> String {
    let has_key = |key: &str| {
        existing
            .lines()
            .any(|line| line.starts_with(&format!("{key}:")))
    };
    let mut out = String::new();
    for block in fresh.split("\n\n") {
        let key = block
            .lines()
            .find(|line| line.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
            .and_then(|line| line.split(':').next());
        if key.is_some_and(|key| !has_key(key)) {
            out.push('\n');
            out.push_str(block.trim_end());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_values_file_gains_only_missing_sections() {
        let existing = "manager:\n  replicas: 3\n\ncrd:\n  enabled: true\n";
        let fresh = "# top\n\n## The manager.\nmanager:\n  replicas: 1\n\n## Webhooks.\nwebhook:\n  enabled: true\n\ncrd:\n  enabled: false\n";
        assert_eq!(
            missing_sections(existing, fresh),
            "\n## Webhooks.\nwebhook:\n  enabled: true\n"
        );
        assert_eq!(missing_sections(fresh, fresh), "");
    }

    #[test]
    fn paths_must_stay_inside_the_project() {
        for bad in ["/tmp/x", "../x", "a/../../b", ""] {
            let error = check_inside("output-dir", bad).unwrap_err().to_string();
            assert!(error.starts_with("--output-dir"), "{error}");
        }
        check_inside("output-dir", "charts/main").unwrap();
    }
}
