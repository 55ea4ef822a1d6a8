//! `edit` for go/v4: the Go side of switching a project between
//! single-group and multigroup, between a cluster-wide and a namespaced
//! manager, and of changing its license header. PROJECT's settings are
//! recorded by the command; this module plans the Go files and notes.

use super::{
    BOILERPLATE_PATH, TEMPLATE_DIR, WEBHOOK_DIR, YEAR_PLACEHOLDER, base_context, read_go_header,
};
use crate::machinery::rewrite::{self, Rewrite, push_if_changed};
use crate::machinery::{Source, Templates};
use crate::plugins::{EditContext, License, Output, plan_boilerplate_edit};
use crate::project::{ProjectFile, ResourceEntry};
use anyhow::{Context as _, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Files written by go/v4's `init` whose content depends on `namespaced`,
/// relative to the project root (their templates are `init/<path>.jinja`).
pub(super) const NAMESPACE_DEPENDENT: &[&str] = &["AGENTS.md", "README.md", "cmd/main.go"];

/// Where controllers live; their RBAC markers carry the namespace.
const CONTROLLER_DIR: &str = "internal/controller";

/// Plans the Go side of `edit`: the moves a layout switch needs (as a
/// note) and a new license header.
pub fn plan(ctx: &EditContext, out: &mut Output) -> Result<()> {
    if let Some(target) = ctx.settings.multigroup {
        edit_multigroup(ctx.files, ctx.project, target, out);
    }
    if let Some(license) = &ctx.settings.license {
        edit_license(ctx.files, license, ctx.settings.owner.as_deref(), out)?;
    }
    Ok(())
}

/// `--multigroup`: only PROJECT changes; the note lists the moves that bring
/// the existing files into the new layout.
fn edit_multigroup(files: Source, project: &ProjectFile, target: bool, out: &mut Output) {
    let layout = if target { "multigroup" } else { "single-group" };
    if (project.multigroup == Some(true)) == target {
        out.notes.push(format!(
            "The project is already {layout}: --multigroup={target} changes nothing."
        ));
        return;
    }
    let mut note = format!(
        "PROJECT now records a {layout} layout: APIs created from now on go to {}.",
        if target {
            "api/<group>/<version>/, their controllers to internal/controller/<group>/"
        } else {
            "api/<version>/, their controllers to internal/controller/"
        }
    );
    let moves = layout_moves(files, &project.resources, target);
    if moves.is_empty() {
        note.push_str("\nNo existing file needs to move.");
    } else {
        note.push_str("\nExisting files stay where they are; to finish the switch, move:");
        for (from, to) in &moves {
            let _ = write!(note, "\n  {from} -> {to}");
        }
        note.push_str(
            "\nthen update the import paths (and the package names of moved controllers) in \
             cmd/main.go, the controllers, webhooks and tests, the `path` of each resource in \
             PROJECT, and the layout described in AGENTS.md.",
        );
    }
    if !target && own_groups(&project.resources).len() > 1 {
        note.push_str(
            "\nWarning: the project has APIs in several groups, and a single-group layout has \
             room for one group per version.",
        );
    }
    out.notes.push(note);
}

/// The project's own API resources (neither built-in nor external), with
/// their group.
fn own_resources(resources: &[ResourceEntry]) -> impl Iterator<Item = (&str, &ResourceEntry)> {
    resources
        .iter()
        .filter(|r| r.core != Some(true) && r.external != Some(true))
        .filter_map(|r| Some((r.group.as_deref()?, r)))
}

/// The distinct groups of the project's own APIs.
fn own_groups(resources: &[ResourceEntry]) -> Vec<&str> {
    let mut groups: Vec<&str> = own_resources(resources).map(|(g, _)| g).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

/// The moves, `(from, to)`, that take the existing files of the project's own
/// APIs to the layout chosen by `multigroup`: API packages, controllers, test
/// suites, webhook packages. Only paths on disk are listed, each once.
fn layout_moves(
    files: Source,
    resources: &[ResourceEntry],
    multigroup: bool,
) -> Vec<(String, String)> {
    let mut candidates: Vec<(usize, String, String)> = Vec::new();
    for (group, resource) in own_resources(resources) {
        let version = &resource.version;
        let (old, new) = if multigroup {
            (String::new(), format!("{group}/"))
        } else {
            (format!("{group}/"), String::new())
        };
        let controllers = format!("{CONTROLLER_DIR}/{old}");
        let target = format!("{CONTROLLER_DIR}/{new}");
        candidates.push((
            0,
            format!("api/{old}{version}/"),
            format!("api/{new}{version}/"),
        ));
        for name in resource.controller_names() {
            let stem = name.replace('-', "_");
            for suffix in ["_controller.go", "_controller_test.go"] {
                candidates.push((1, format!("{controllers}{stem}{suffix}"), target.clone()));
            }
        }
        candidates.push((2, format!("{controllers}suite_test.go"), target));
        candidates.push((
            3,
            format!("{WEBHOOK_DIR}/{old}{version}/"),
            format!("{WEBHOOK_DIR}/{new}{version}/"),
        ));
    }
    // Stable: within a kind of move, the order of PROJECT.
    candidates.sort_by_key(|(kind, _, _)| *kind);
    let mut moves: Vec<(String, String)> = Vec::new();
    for (_, from, to) in candidates {
        if files.exists(&from) && !moves.iter().any(|(f, _)| *f == from) {
            moves.push((from, to));
        }
    }
    moves
}

/// The Go files that must change to put the project in the `namespaced`
/// mode: the init files that depend on it, and the controllers' RBAC markers.
pub fn namespace_rewrites(
    files: Source,
    project: &ProjectFile,
    namespaced: bool,
) -> Result<Vec<Rewrite>> {
    let namespace = manager_namespace(project)?;
    let header = read_go_header(files);
    let context_in = |namespaced: bool| {
        let mut mode = project.clone();
        mode.namespaced = namespaced.then_some(true);
        base_context(&mode, &header)
    };
    let (from, to) = (context_in(!namespaced)?, context_in(namespaced)?);
    let mut rewrites = rewrite::init_template_rewrites(
        TEMPLATE_DIR,
        NAMESPACE_DEPENDENT,
        files,
        (&from, &to),
        |_, _| None,
    )?;
    for relative in go_files(files, Path::new(CONTROLLER_DIR))? {
        let current = files
            .read_to_string(&relative)
            .with_context(|| format!("cannot read {}", relative.display()))?;
        let contents = Ok(scope_rbac_markers(&current, namespaced, &namespace));
        push_if_changed(&mut rewrites, relative, &current, contents);
    }
    Ok(rewrites)
}

/// The namespace the manager is deployed to, `<projectName>-system`.
fn manager_namespace(project: &ProjectFile) -> Result<String> {
    let name = project.project_name.as_deref().context(
        "PROJECT has no projectName, so the manager's namespace is unknown; add projectName to PROJECT",
    )?;
    Ok(format!("{name}-system"))
}

/// Every `.go` file below the folder `root` of `source`, sorted; none when
/// `root` does not exist.
fn go_files(source: Source, root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match source.list(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => bail!("cannot list {}: {e}", dir.display()),
        };
        for (name, is_dir) in entries {
            let path = dir.join(name);
            if is_dir {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "go") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Adds `,namespace=<namespace>` after the groups of every RBAC marker that
/// has no namespace (`namespaced`), or removes exactly that text (cluster-wide).
fn scope_rbac_markers(text: &str, namespaced: bool, namespace: &str) -> String {
    let scope = format!(",namespace={namespace}");
    text.split_inclusive('\n')
        .map(|line| {
            if !line.trim_start().starts_with("// +kubebuilder:rbac:") {
                return line.to_string();
            }
            if !namespaced {
                return line.replacen(&scope, "", 1);
            }
            if line.contains("namespace=") {
                return line.to_string();
            }
            match groups_end(line) {
                Some(at) => format!("{}{scope}{}", &line[..at], &line[at..]),
                None => line.to_string(),
            }
        })
        .collect()
}

/// Where the value of `groups=` ends in an RBAC marker line.
fn groups_end(line: &str) -> Option<usize> {
    let start = line.find("groups=")? + "groups=".len();
    let rest = &line[start..];
    let len = rest.find([',', '\n', ' ']).unwrap_or(rest.len());
    Some(start + len)
}

/// `--license`, `--owner`, `--license-file`: hack/boilerplate.go.txt as
/// `init` would write it.
fn edit_license(
    files: Source,
    license: &License,
    owner: Option<&str>,
    out: &mut Output,
) -> Result<()> {
    let templates = Templates::load(TEMPLATE_DIR, &["licenses"])?;
    let contents = license.boilerplate(&templates, YEAR_PLACEHOLDER, owner)?;
    let note = format!(
        "Existing Go files keep their header; files scaffolded from now on and the code `make generate` writes use the new {BOILERPLATE_PATH}."
    );
    plan_boilerplate_edit(files, BOILERPLATE_PATH, contents, note, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_listed_init_files_depend_on_namespaced() {
        let project = ProjectFile {
            repo: Some("example.com/x".into()),
            project_name: Some("x".into()),
            ..ProjectFile::default()
        };
        let namespaced = ProjectFile {
            namespaced: Some(true),
            ..project.clone()
        };
        let cluster = base_context(&project, "").unwrap();
        let scoped = base_context(&namespaced, "").unwrap();
        let differ = rewrite::init_files_that_differ(TEMPLATE_DIR, &cluster, &scoped).unwrap();
        assert_eq!(differ, NAMESPACE_DEPENDENT);
    }

    #[test]
    fn rbac_markers_get_and_lose_the_namespace() {
        let text = "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n\
                    // +kubebuilder:rbac:groups=x,namespace=other,resources=y,verbs=get\n\
                    func f() {}\n";
        let scoped = scope_rbac_markers(text, true, "p-system");
        assert!(scoped.starts_with(
            "// +kubebuilder:rbac:groups=apps,namespace=p-system,resources=deployments,verbs=get\n\
             // +kubebuilder:rbac:groups=x,namespace=other,"
        ));
        assert_eq!(scope_rbac_markers(&scoped, false, "p-system"), text);
    }
}
