//! `autoupdate.kubebuilder.io/v1-alpha` (short `autoupdate/v1-alpha`):
//! a GitHub Actions workflow, `.github/workflows/auto_update.yml`, that runs
//! `kubebuilder-rs alpha update` once a week and on demand, added with
//! `edit --plugins autoupdate/v1-alpha`. The key is kubebuilder's, so a
//! project keeps it whichever of the two tools continues it.
//!
//! The workflow installs kubebuilder-rs with `cargo install` from
//! [`install_source`], written once at its top, and sets up the toolchains
//! the update's post-steps need: Go for a go/v4 project, Rust for every
//! project (it builds kubebuilder-rs). It is written when missing; a
//! workflow that differs from this version's (the user's edits, or an
//! older scaffold) is kept unless `--force` is given. `alpha update` merges
//! it like any other scaffolded file. PROJECT records
//! `autoupdate.kubebuilder.io/v1-alpha: {}` under `plugins:`.
//!
//! The update needs to know which tool and version made the project, so the
//! plugin refuses a PROJECT without `cliVersion`, as kubebuilder does.

use super::{Chain, EditContext, EditHook, Output, Plugin, Role, Toolchain};
use crate::machinery::rewrite::read_if_present;
use crate::machinery::{Change, Context, Syntax, Templates};
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The plugin's key.
pub const KEY: &str = "autoupdate.kubebuilder.io/v1-alpha";

/// The plugin's PROJECT section: empty (`{}`), as kubebuilder records it;
/// the plugin keeps no settings.
#[derive(Debug, Serialize, Deserialize)]
struct Section {}

/// The git repository kubebuilder-rs is built from (Cargo.toml's `repository`).
pub const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The branch of [`REPOSITORY`] the workflow installs: the newest
/// kubebuilder-rs, whose scaffold the update carries the project to.
pub const BRANCH: &str = "main";

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "autoupdate/v1-alpha";

/// The workflow, relative to the project root.
pub const WORKFLOW: &str = ".github/workflows/auto_update.yml";

/// Printed when the workflow is written: the record the update merges from
/// lives in the user's clone until it is pushed.
const RECORD_NOTE: &str = "The workflow updates the branch it runs on, starting from the untouched scaffold kubebuilder-rs recorded under refs/kubebuilder-rs/ in this clone: push that record with `git push origin 'refs/kubebuilder-rs/*:refs/kubebuilder-rs/*'`, and again after later scaffolding commands (a project kubebuilder made needs none).";

/// The autoupdate/v1-alpha plugin.
pub struct AutoUpdate;

/// The `cargo install` arguments that name where the workflow gets
/// kubebuilder-rs from (its `KUBEBUILDER_RS_SOURCE`).
pub fn install_source() -> String {
    format!("--git {REPOSITORY} --branch {BRANCH}")
}

impl Plugin for AutoUpdate {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("autoupdate/v1-alpha")
    }

    fn role(&self) -> Role {
        Role::Optional
    }

    joins!(edit: EditHook);
}

impl EditHook for AutoUpdate {
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        if ctx
            .project
            .cli_version
            .as_deref()
            .is_none_or(|v| v.trim().is_empty())
        {
            bail!(
                "PROJECT has no cliVersion, which `alpha update` needs to find the scaffold the project was made from: add `cliVersion: <version of the tool that made it>` to PROJECT (for example `cliVersion: 4.16.0` for kubebuilder v4.16.0) and run this command again"
            );
        }
        let contents = workflow(ctx.chain)?;
        let existing = read_if_present(ctx.files, Path::new(WORKFLOW))?;
        match existing {
            Some(text) if text == contents => {}
            Some(_) if !ctx.settings.force => out.notes.push(format!(
                "{WORKFLOW} differs from the workflow this version writes and is kept: run `kubebuilder-rs edit --plugins autoupdate/v1-alpha --force` to rewrite it."
            )),
            _ => {
                out.plan.push(Change::Write {
                    path: WORKFLOW.into(),
                    contents,
                });
                out.notes.push(RECORD_NOTE.to_string());
            }
        }
        out.record(KEY, &Section {})?;
        Ok(())
    }
}

/// The workflow for a project of `chain`, setting up its toolchain.
fn workflow(chain: &Chain) -> Result<String> {
    let templates = Templates::load_with(TEMPLATE_DIR, &["edit"], Syntax::Brackets)?;
    let toolchain = chain.layout().and_then(|layout| layout.toolchain());
    let mut context = Context::new();
    context.insert("source", &install_source());
    context.insert("go", &(toolchain == Some(Toolchain::Go)));
    context.insert("rust", &(toolchain == Some(Toolchain::Cargo)));
    templates.render(&format!("edit/{WORKFLOW}.jinja"), &context)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain `init --plugins <spec>` records.
    fn layout(spec: &str) -> Chain {
        Chain::parse(spec).unwrap()
    }

    #[test]
    fn the_workflow_sets_up_the_toolchains_of_the_layout() {
        let go = workflow(&layout("go/v4")).unwrap();
        assert!(go.contains("actions/setup-go@"), "{go}");
        assert!(!go.contains("--component rustfmt"), "{go}");
        let rust = workflow(&layout("rust/v1-alpha")).unwrap();
        assert!(!rust.contains("actions/setup-go@"), "{rust}");
        assert!(rust.contains("--component rustfmt"), "{rust}");
        for text in [&go, &rust] {
            assert!(text.contains("rustup default stable"), "{text}");
            assert!(!text.contains("\n\n\n"), "{text}");
            assert!(!text.contains("[[") && !text.contains("[%"), "{text}");
        }
    }

    #[test]
    fn the_install_source_is_written_once_and_used_by_cargo_install() {
        let text = workflow(&layout("go/v4")).unwrap();
        let source = install_source();
        assert_eq!(text.matches(source.as_str()).count(), 1, "{text}");
        assert!(text.contains(&format!("KUBEBUILDER_RS_SOURCE: \"{source}\"")));
        assert!(text.contains("cargo install --locked $KUBEBUILDER_RS_SOURCE kubebuilder-rs"));
    }
}
