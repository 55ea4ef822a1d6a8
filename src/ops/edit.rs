//! `edit`: change the settings of an existing project, or add optional
//! plugins to it.

use super::{Write, carry_out, plan_project_file};
use crate::machinery::{Change, Rewrite, Source};
use crate::plugins::{Chain, EditContext, EditSettings, Flags, Hook, Output};
use crate::project::{Project, ProjectFile};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// A request for `edit`.
#[derive(Debug, Clone)]
pub struct EditRequest {
    /// The project's chain, with the optional plugins the request adds.
    pub chain: Chain,
    /// The settings to change.
    pub settings: EditSettings,
    /// The plugins' options.
    pub flags: Flags,
}

/// Changes what `request` asks in `project`, loaded from `dir`, through
/// every plugin of its chain, and prints the plugins' notes (or that
/// nothing changed).
pub fn run(dir: &Path, mut project: Project, request: &EditRequest) -> Result<()> {
    let EditRequest {
        chain,
        settings,
        flags,
    } = request;
    let settings_before = project.render()?;
    let original = project.file.clone();
    let mut out = Output::default();
    let files = Source::Dir(dir);
    let ctx = EditContext {
        chain,
        files,
        project: &original,
        settings,
        flags,
    };
    for hook in chain.iter().filter_map(|p| p.edit()) {
        hook.plan(&ctx, &mut out)?;
    }
    if let Some(target) = settings.multigroup {
        project.file.multigroup = target.then_some(true);
    }
    if let Some(target) = settings.namespaced {
        edit_namespaced(chain, files, &original, target, settings.force, &mut out)?;
        project.file.namespaced = target.then_some(true);
    }
    for (key, config) in out.configs.drain(..) {
        crate::project::bookkeeping::record_plugin(&mut project.file, key, config);
    }
    let mut printed = false;
    if !out.plan.changes().is_empty() || project.render()? != settings_before {
        plan_project_file(&mut project, &mut out, false)?;
        let write = Write {
            force: false,
            dry_run: settings.dry_run,
        };
        carry_out(&out.plan, dir, write)?;
        printed = true;
    }
    if !printed && out.notes.is_empty() {
        out.notes.push(format!(
            "The project already has {}: nothing to change.",
            chain.keys.join(",")
        ));
    }
    for note in &out.notes {
        if printed {
            println!();
        }
        println!("{note}");
        printed = true;
    }
    Ok(())
}

/// Plans `edit --plugins <key>` in a project of `chain` with no setting
/// changed, for `alpha generate`:
/// the plugin's files and its PROJECT section. `section` is what the original
/// PROJECT records for the plugin (its settings), if anything.
pub fn plan_added_plugin(
    chain: &Chain,
    key: &str,
    section: Option<serde_norway::Value>,
    files: Source,
    project: &mut Project,
) -> Result<crate::machinery::Plan> {
    let hook = crate::plugins::by_key(key)
        .and_then(|plugin| plugin.edit())
        .ok_or_else(|| anyhow::anyhow!("unknown plugin {key:?}"))?;
    if let Some(section) = section {
        crate::project::bookkeeping::record_plugin(&mut project.file, key, section);
    }
    let mut out = Output::default();
    let original = project.file.clone();
    let flags = Flags::defaults(Hook::Edit);
    let chain = chain.clone().with_extra(key)?;
    let ctx = EditContext {
        chain: &chain,
        files,
        project: &original,
        settings: &EditSettings::default(),
        flags: &flags,
    };
    hook.plan_replay(&ctx, &mut out)?;
    plan_project_file(project, &mut out, false)?;
    Ok(out.plan)
}

/// `--namespaced`: with `force`, plans the rewrites every plugin of the
/// chain needs; without it, only names the files.
fn edit_namespaced(
    chain: &Chain,
    files: Source,
    project: &ProjectFile,
    target: bool,
    force: bool,
    out: &mut Output,
) -> Result<()> {
    let mode = if target { "namespaced" } else { "cluster-wide" };
    let recorded = (project.namespaced == Some(true)) == target;
    let mut rewrites = Vec::new();
    for hook in chain.iter().filter_map(|p| p.edit()) {
        rewrites.extend(hook.namespace_rewrites(files, project, target)?);
    }
    rewrites.sort_by(|a, b| a.path.cmp(&b.path));
    if recorded && rewrites.is_empty() {
        out.notes.push(format!(
            "The project is already {mode}: --namespaced={target} changes nothing."
        ));
        return Ok(());
    }
    if !force {
        out.notes.push(unforced_note(&rewrites, recorded, target));
        return Ok(());
    }
    for rewrite in rewrites {
        let contents = rewrite.contents.map_err(|e| {
            anyhow::anyhow!(
                "cannot switch {} to a {mode} manager: {e}; make that change by hand, or restore the scaffolded lines",
                rewrite.path.display()
            )
        })?;
        out.plan.push(Change::Write {
            path: rewrite.path,
            contents,
        });
    }
    out.notes
        .push(namespaced_note(chain, files, project, target));
    Ok(())
}

/// The note for `--namespaced` without `--force`: the files that still follow
/// the other mode, and how to rewrite them.
fn unforced_note(rewrites: &[Rewrite], recorded: bool, target: bool) -> String {
    let mode = if target { "namespaced" } else { "cluster-wide" };
    let recorded = if recorded {
        "already records"
    } else {
        "now records"
    };
    if rewrites.is_empty() {
        return format!("PROJECT {recorded} a {mode} manager; no file needs rewriting.");
    }
    let mut note =
        format!("PROJECT {recorded} a {mode} manager. These files still follow the other mode:");
    for rewrite in rewrites {
        let _ = write!(note, "\n  {}", rewrite.path.display());
    }
    let flag = if target {
        "--namespaced"
    } else {
        "--namespaced=false"
    };
    let _ = write!(
        note,
        "\nRun `kubebuilder-rs edit {flag} --force` to rewrite them (lines you changed in them must be rewritten by hand)."
    );
    note
}

/// What the user still has to do after a switch of `--namespaced`.
fn namespaced_note(chain: &Chain, files: Source, project: &ProjectFile, target: bool) -> String {
    let mut note = "Run `make manifests` to regenerate config/rbac/role.yaml from the controllers' RBAC markers.".to_string();
    if target {
        note.push_str(
            "\nThe manager now watches only the namespaces in WATCH_NAMESPACE: run it locally with `WATCH_NAMESPACE=<namespace> make run`.",
        );
        let has_webhooks = project.resources.iter().any(|r| r.webhooks.is_some())
            || chain
                .layout()
                .is_some_and(|layout| files.is_dir(Path::new(layout.webhook_dir())));
        if has_webhooks {
            note.push_str(
                "\nWebhooks stay cluster-wide: the API server sends them objects from every namespace. Add a namespaceSelector or objectSelector to the webhook configurations so they match the namespaces the manager watches.",
            );
        }
    }
    note
}
