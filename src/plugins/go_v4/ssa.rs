//! `create api --ssa` (server-side apply) beyond the new type's own files.
//! controller-gen writes apply configurations for every kind of a package
//! whose package comment holds `+kubebuilder:ac:generate=true`, so the
//! package gets that marker, the package's kinds created without `--ssa`
//! opt out with `+kubebuilder:ac:generate=false`, and the project's first
//! `--ssa` API adds the `applyconfiguration` generator to `make manifests`.

use super::types_file;
use crate::machinery::rewrite::read_if_present;
use crate::machinery::{Change, Plan, Source};
use crate::plugins::{ApiContext, Output};
use crate::project::{ProjectFile, ResourceEntry};
use crate::resource::Resource;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The marker that turns apply configurations off for one kind; any
/// `+kubebuilder:ac:generate` marker of a kind is its own choice.
const OPT_OUT: (&str, &str) = (
    "// +kubebuilder:ac:generate=false",
    "+kubebuilder:ac:generate",
);

/// The generators of `make manifests` that the apply configurations join.
const MANIFEST_GENERATORS: &str = "rbac:roleName=manager-role crd webhook";

/// The generator of apply configurations, as `make manifests` runs it.
const APPLY_GENERATOR: &str = "applyconfiguration:headerFile=\"hack/boilerplate.go.txt\"";

/// The help of our `manifests` target, before and after the first `--ssa` API.
const MANIFESTS_HELP: (&str, &str) = (
    "## Regenerate CRDs, RBAC roles and webhook configurations from the code markers.",
    "## Regenerate CRDs, RBAC roles, webhook configurations and apply configurations from the code markers.",
);

/// Whether another kind of `resource`'s group and version was created with
/// `--ssa`: a kind created there without it opts out.
pub fn package_has_ssa(project: &ProjectFile, resource: &Resource) -> bool {
    others(project, resource).any(|entry| same_package(entry, resource) && has_ssa(entry))
}

/// Plans the edits of an `--ssa` API to files other than its own: the
/// package marker (an existing `groupversion_info.go` gets it right below
/// `+kubebuilder:object:generate=true`, where a new one is rendered with
/// it), the opt-outs of the package's other kinds, and, for the project's
/// first `--ssa` API, the `manifests` target of the Makefile. Kinds of the
/// package that PROJECT does not record, and a Makefile whose `manifests`
/// target is not as scaffolded, are left alone with a note.
pub fn plan(ctx: &ApiContext, group_dir: &str, out: &mut Output) -> Result<()> {
    let resource = ctx.resource;
    let package: PathBuf = ["api", group_dir, &resource.version]
        .iter()
        .filter(|s| !s.is_empty())
        .collect();
    out.plan.push(Change::Insert {
        path: package.join("groupversion_info.go"),
        marker: format!("+groupName={}", resource.qualified_group),
        fragment: "// +kubebuilder:ac:generate=true".into(),
        fallback: None,
    });
    let known = plan_opt_outs(ctx, group_dir, &mut out.plan)?;
    if let Some(note) = untracked_kinds_note(ctx.files, &package, &known) {
        out.notes.push(note);
    }
    if !others(ctx.project, resource).any(has_ssa)
        && let Some(note) = plan_makefile(ctx.files, &mut out.plan)?
    {
        out.notes.push(note);
    }
    Ok(())
}

/// Plans the opt-out marker, above the first `+kubebuilder:object:root=true`
/// (where a new types file has it), for each kind of the package that
/// PROJECT records without `--ssa` and whose types file has no
/// `+kubebuilder:ac:generate` marker yet. Returns the types files of every
/// kind of the package that PROJECT records, this one included.
fn plan_opt_outs(ctx: &ApiContext, group_dir: &str, plan: &mut Plan) -> Result<Vec<PathBuf>> {
    let resource = ctx.resource;
    let mut known = vec![types_file(group_dir, &resource.version, &resource.kind)];
    for entry in others(ctx.project, resource).filter(|e| same_package(e, resource)) {
        let path = types_file(group_dir, &entry.version, &entry.kind);
        known.push(path.clone());
        if entry.api.is_none() || has_ssa(entry) {
            continue;
        }
        let Some(text) = read_if_present(ctx.files, &path)? else {
            continue;
        };
        if !text.contains(OPT_OUT.1) {
            plan.push(Change::Insert {
                path,
                marker: "+kubebuilder:object:root=true".into(),
                fragment: OPT_OUT.0.into(),
                fallback: None,
            });
        }
    }
    Ok(known)
}

/// A note naming the types files of `package` that are not in `known`.
fn untracked_kinds_note(files: Source, package: &Path, known: &[PathBuf]) -> Option<String> {
    let mut untracked: Vec<String> = files
        .list(package)
        .ok()?
        .into_iter()
        .map(|(name, _)| package.join(name))
        .filter(|path| path.to_string_lossy().ends_with("_types.go") && !known.contains(path))
        .map(|path| path.display().to_string())
        .collect();
    if untracked.is_empty() {
        return None;
    }
    untracked.sort();
    Some(format!(
        "Not recorded in PROJECT, so left without an opt-out: {}. controller-gen now writes apply configurations for their kinds too; add `{}` above a kind's `+kubebuilder:object:root=true` to leave it out.",
        untracked.join(", "),
        OPT_OUT.0
    ))
}

/// Adds the apply configuration generator to the `manifests` target of the
/// Makefile, unless the Makefile already generates them (the word
/// `applyconfiguration` anywhere, as in the `generate` target of projects
/// made before). Returns a note when the target is not as scaffolded.
fn plan_makefile(files: Source, plan: &mut Plan) -> Result<Option<String>> {
    let path = Path::new("Makefile");
    let Some(text) = read_if_present(files, path)? else {
        return Ok(None);
    };
    let text = text.replace("\r\n", "\n");
    if text.contains("applyconfiguration") {
        return Ok(None);
    }
    let edits = manifests_with_apply_configurations(&text);
    if edits.is_empty() {
        return Ok(Some(format!(
            "The Makefile's `manifests` target does not run `{MANIFEST_GENERATORS}` as scaffolded, so it was left as it is: add `{APPLY_GENERATOR}` to its controller-gen command to generate the apply configurations."
        )));
    }
    for (old, new) in edits {
        plan.push(Change::Replace {
            path: path.into(),
            old,
            new,
        });
    }
    Ok(None)
}

/// The line edits that make the `manifests` target of `makefile` generate
/// apply configurations: its first recipe line that runs the scaffolded
/// generators, and its help when it is ours.
fn manifests_with_apply_configurations(makefile: &str) -> Vec<(String, String)> {
    let mut lines = makefile
        .lines()
        .skip_while(|line| !line.starts_with("manifests:"));
    let Some(target) = lines.next() else {
        return Vec::new();
    };
    let Some(recipe) = lines
        .take_while(|line| line.starts_with('\t'))
        .find(|line| line.contains(&format!("{MANIFEST_GENERATORS} ")))
    else {
        return Vec::new();
    };
    let mut edits = vec![(
        recipe.to_string(),
        recipe.replacen(
            MANIFEST_GENERATORS,
            &format!("{MANIFEST_GENERATORS} {APPLY_GENERATOR}"),
            1,
        ),
    )];
    if target.ends_with(MANIFESTS_HELP.0) {
        edits.push((
            target.to_string(),
            target.replacen(MANIFESTS_HELP.0, MANIFESTS_HELP.1, 1),
        ));
    }
    edits
}

/// The PROJECT entries of other kinds (or versions) than `resource`'s.
fn others<'a>(
    project: &'a ProjectFile,
    resource: &'a Resource,
) -> impl Iterator<Item = &'a ResourceEntry> {
    project
        .resources
        .iter()
        .filter(|entry| !entry.is(&resource.group, &resource.version, &resource.kind))
}

/// Whether `entry` is of `resource`'s group and version.
fn same_package(entry: &ResourceEntry, resource: &Resource) -> bool {
    entry.group.as_deref().unwrap_or_default() == resource.group
        && entry.version == resource.version
}

/// Whether `entry`'s API was created with `--ssa`.
fn has_ssa(entry: &ResourceEntry) -> bool {
    entry.api.as_ref().is_some_and(|api| api.ssa == Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_gets_the_generator_and_our_help() {
        let makefile = format!(
            "generate: x\n\tgen {MANIFEST_GENERATORS} paths=a\nmanifests: controller-gen {}\n\t\"$(CONTROLLER_GEN)\" {MANIFEST_GENERATORS} paths=\"./...\"\n\nother:\n",
            MANIFESTS_HELP.0
        );
        let edits = manifests_with_apply_configurations(&makefile);
        assert_eq!(
            edits,
            vec![
                (
                    format!("\t\"$(CONTROLLER_GEN)\" {MANIFEST_GENERATORS} paths=\"./...\""),
                    format!(
                        "\t\"$(CONTROLLER_GEN)\" {MANIFEST_GENERATORS} {APPLY_GENERATOR} paths=\"./...\""
                    ),
                ),
                (
                    format!("manifests: controller-gen {}", MANIFESTS_HELP.0),
                    format!("manifests: controller-gen {}", MANIFESTS_HELP.1),
                ),
            ]
        );
    }

    #[test]
    fn a_changed_manifests_target_gets_no_edit() {
        let makefile = "manifests: controller-gen ## Mine.\n\t$(CONTROLLER_GEN) crd paths=./...\n";
        assert!(manifests_with_apply_configurations(makefile).is_empty());
        let other_help = format!("manifests: ## Theirs.\n\tgen {MANIFEST_GENERATORS} paths=x\n");
        assert_eq!(manifests_with_apply_configurations(&other_help).len(), 1);
    }
}
