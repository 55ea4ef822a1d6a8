//! `edit` for go/v4: switch a project between single-group and multigroup,
//! between a cluster-wide and a namespaced manager, and change its license
//! header.
//!
//! Switching `--namespaced` with `--force` rewrites the files whose scaffold
//! depends on it so that the project reads as if `init` had been run in the
//! new mode. Those files may hold the user's code, so they are never
//! overwritten: the two renderings of each template (old mode, new mode) are
//! compared, and only the lines that differ are replaced in the user's file,
//! where they still stand exactly as scaffolded.

use super::{BOILERPLATE_PATH, TEMPLATE_DIR, base_context, boilerplate, read_go_header};
use crate::layouts::{EditPlan, EditRequest, License};
use crate::machinery::{Change, Templates};
use crate::project::{ProjectFile, ResourceEntry};
use anyhow::{Context as _, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Files written by `init` whose content depends on `namespaced`, relative to
/// the project root (their templates are `init/<path>.tera`).
const NAMESPACE_DEPENDENT: &[&str] = &[
    "AGENTS.md",
    "README.md",
    "cmd/main.go",
    "config/manager/manager.yaml",
    "config/rbac/role.yaml",
    "config/rbac/role_binding.yaml",
];

/// The manager's RBAC rules, the init placeholder or controller-gen's output.
const ROLE_PATH: &str = "config/rbac/role.yaml";

/// Where controllers live; their RBAC markers carry the namespace.
const CONTROLLER_DIR: &str = "internal/controller";

/// Lines of unchanged text kept around each changed region, to place it.
const CONTEXT_LINES: usize = 3;

/// Plans `edit`: records the new settings in `project` and plans the files
/// they change.
pub fn plan(dir: &Path, project: &mut ProjectFile, request: &EditRequest) -> Result<EditPlan> {
    let original = project.clone();
    let mut out = EditPlan::default();
    if let Some(target) = request.multigroup {
        edit_multigroup(dir, project, target, &mut out);
    }
    if let Some(target) = request.namespaced {
        edit_namespaced(dir, &original, project, target, request.force, &mut out)?;
    }
    if let Some(license) = &request.license {
        edit_license(dir, license, request.owner.as_deref(), &mut out)?;
    }
    Ok(out)
}

/// `--multigroup`: only PROJECT changes; the note lists the moves that bring
/// the existing files into the new layout.
fn edit_multigroup(dir: &Path, project: &mut ProjectFile, target: bool, out: &mut EditPlan) {
    let layout = if target { "multigroup" } else { "single-group" };
    if (project.multigroup == Some(true)) == target {
        out.notes.push(format!(
            "The project is already {layout}: --multigroup={target} changes nothing."
        ));
        return;
    }
    project.multigroup = target.then_some(true);
    let mut note = format!(
        "PROJECT now records a {layout} layout: APIs created from now on go to {}.",
        if target {
            "api/<group>/<version>/, their controllers to internal/controller/<group>/"
        } else {
            "api/<version>/, their controllers to internal/controller/"
        }
    );
    let moves = layout_moves(dir, &project.resources, target);
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
    dir: &Path,
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
            format!("internal/webhook/{old}{version}/"),
            format!("internal/webhook/{new}{version}/"),
        ));
    }
    // Stable: within a kind of move, the order of PROJECT.
    candidates.sort_by_key(|(kind, _, _)| *kind);
    let mut moves: Vec<(String, String)> = Vec::new();
    for (_, from, to) in candidates {
        if dir.join(&from).exists() && !moves.iter().any(|(f, _)| *f == from) {
            moves.push((from, to));
        }
    }
    moves
}

/// `--namespaced`: records the mode, and with `force` rewrites the files that
/// depend on it; without `force` only names them.
fn edit_namespaced(
    dir: &Path,
    original: &ProjectFile,
    project: &mut ProjectFile,
    target: bool,
    force: bool,
    out: &mut EditPlan,
) -> Result<()> {
    let mode = if target { "namespaced" } else { "cluster-wide" };
    let recorded = (original.namespaced == Some(true)) == target;
    let rewrites = namespace_rewrites(dir, original, target)?;
    project.namespaced = target.then_some(true);
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
    out.notes.push(namespaced_note(dir, project, target));
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
fn namespaced_note(dir: &Path, project: &ProjectFile, target: bool) -> String {
    let mut note = format!(
        "Run `make manifests` to regenerate {ROLE_PATH} from the controllers' RBAC markers."
    );
    if target {
        note.push_str(
            "\nThe manager now watches only the namespaces in WATCH_NAMESPACE: run it locally with `WATCH_NAMESPACE=<namespace> make run`.",
        );
        let has_webhooks = project.resources.iter().any(|r| r.webhooks.is_some())
            || dir.join("internal/webhook").is_dir();
        if has_webhooks {
            note.push_str(
                "\nWebhooks stay cluster-wide: the API server sends them objects from every namespace. Add a namespaceSelector or objectSelector to the webhook configurations so they match the namespaces the manager watches.",
            );
        }
    }
    note
}

/// A file `--namespaced` needs to change: its new content, or why it cannot
/// be changed automatically.
struct Rewrite {
    /// Path relative to the project root.
    path: PathBuf,
    /// The rewritten content, or the reason it cannot be computed.
    contents: Result<String, String>,
}

/// Every file that must change to put the project in the `target` mode
/// (files already in that mode are left out).
fn namespace_rewrites(dir: &Path, project: &ProjectFile, target: bool) -> Result<Vec<Rewrite>> {
    let namespace = format!(
        "{}-system",
        project
            .project_name
            .as_deref()
            .context("PROJECT has no projectName, so the manager's namespace is unknown; add projectName to PROJECT")?
    );
    let templates = Templates::load(TEMPLATE_DIR, &["init"])?;
    let header = read_go_header(dir);
    let context_in = |namespaced: bool| {
        let mut mode = project.clone();
        mode.namespaced = namespaced.then_some(true);
        base_context(&mode, &header)
    };
    let (from_context, to_context) = (context_in(!target)?, context_in(target)?);
    let mut rewrites = Vec::new();
    for path in NAMESPACE_DEPENDENT {
        let Some(current) = read_if_present(dir, Path::new(path))? else {
            continue;
        };
        let name = format!("init/{path}.tera");
        let old = templates.render(&name, &from_context)?;
        let new = templates.render(&name, &to_context)?;
        let mut contents = apply_template_change(&current, &old, &new);
        if *path == ROLE_PATH && contents.is_err() {
            contents = switch_generated_role(&current, target, &namespace);
        }
        push_if_changed(&mut rewrites, path.into(), &current, contents);
    }
    for path in go_files(&dir.join(CONTROLLER_DIR))? {
        let relative = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
        let current = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", relative.display()))?;
        let contents = Ok(scope_rbac_markers(&current, target, &namespace));
        push_if_changed(&mut rewrites, relative, &current, contents);
    }
    Ok(rewrites)
}

/// Adds a rewrite unless it leaves the file as it is.
fn push_if_changed(
    rewrites: &mut Vec<Rewrite>,
    path: PathBuf,
    current: &str,
    contents: Result<String, String>,
) {
    if contents.as_deref() != Ok(current) {
        rewrites.push(Rewrite { path, contents });
    }
}

/// The file's text, or `None` when it does not exist.
fn read_if_present(dir: &Path, path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(dir.join(path)) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    }
}

/// Every `.go` file below `root`, sorted; none when `root` does not exist.
fn go_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => bail!("cannot list {}: {e}", dir.display()),
        };
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "go") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Applies to `text` the change that turns the rendering `old` into `new`,
/// unless `text` already reads as `new` in every changed region (then it is
/// returned as it is, so applying the change twice is harmless).
fn apply_template_change(text: &str, old: &str, new: &str) -> Result<String, String> {
    if replay(text, new, old).is_ok() {
        return Ok(text.to_string());
    }
    replay(text, old, new)
}

/// Replays on `text` the line changes from `old` to `new`.
///
/// Each changed region, with up to [`CONTEXT_LINES`] unchanged lines around
/// it, must stand in `text` exactly once, as whole lines; it is then
/// replaced by its new form. Fails, naming the first line of a region that
/// cannot be placed, without changing anything.
fn replay(text: &str, old: &str, new: &str) -> Result<String, String> {
    let diff = similar::TextDiff::from_lines(old, new);
    let old_lines: Vec<&str> = diff.iter_old_slices().collect();
    let new_lines: Vec<&str> = diff.iter_new_slices().collect();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let before = old_lines[old_range.clone()].concat();
        let after = new_lines[new_range.clone()].concat();
        let Some(at) = find_once(text, &before) else {
            let first_line = before.lines().find(|line| !line.trim().is_empty());
            return Err(format!(
                "the lines around {:?} differ from what was scaffolded",
                first_line.unwrap_or_default()
            ));
        };
        edits.push((at, at + before.len(), after));
    }
    splice(text, edits)
}

/// The position of the only occurrence of `block` in `text` as whole lines;
/// `None` when it is missing, ambiguous or empty.
fn find_once(text: &str, block: &str) -> Option<usize> {
    if block.is_empty() {
        return None;
    }
    let mut found = text.match_indices(block).map(|(at, _)| at).filter(|&at| {
        let end = at + block.len();
        (at == 0 || text.as_bytes()[at - 1] == b'\n')
            && (end == text.len() || block.ends_with('\n'))
    });
    let at = found.next()?;
    found.next().is_none().then_some(at)
}

/// Replaces the regions `(start, end, replacement)` of `text`; they must not
/// overlap.
fn splice(text: &str, mut edits: Vec<(usize, usize, String)>) -> Result<String, String> {
    edits.sort_by_key(|(start, _, _)| *start);
    let mut result = String::with_capacity(text.len());
    let mut done = 0;
    for (start, end, replacement) in edits {
        if start < done {
            return Err("two changed regions overlap".to_string());
        }
        result.push_str(&text[done..start]);
        result.push_str(&replacement);
        done = end;
    }
    result.push_str(&text[done..]);
    Ok(result)
}

/// Switches controller-gen's output for the manager role between a
/// ClusterRole and a Role in `namespace` (its first document only).
fn switch_generated_role(text: &str, namespaced: bool, namespace: &str) -> Result<String, String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let kind_at = lines
        .iter()
        .position(|line| line.starts_with("kind:"))
        .filter(|&i| matches!(lines[i].trim_end(), "kind: ClusterRole" | "kind: Role"))
        .ok_or("it holds neither the scaffolded role nor controller-gen's ClusterRole or Role")?;
    let name_at = lines[kind_at..]
        .iter()
        .position(|line| line.trim_end() == "  name: manager-role")
        .map(|i| i + kind_at)
        .ok_or("its first document has no `  name: manager-role`")?;
    let namespace_line = format!("  namespace: {namespace}\n");
    let has_namespace = lines.get(name_at + 1) == Some(&namespace_line.as_str());
    lines[kind_at] = if namespaced {
        "kind: Role\n"
    } else {
        "kind: ClusterRole\n"
    };
    match (namespaced, has_namespace) {
        (true, false) => lines.insert(name_at + 1, &namespace_line),
        (false, true) => {
            lines.remove(name_at + 1);
        }
        _ => {}
    }
    Ok(lines.concat())
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
    dir: &Path,
    license: &License,
    owner: Option<&str>,
    out: &mut EditPlan,
) -> Result<()> {
    let templates = Templates::load(TEMPLATE_DIR, &["licenses"])?;
    let contents = boilerplate(&templates, license, owner)?;
    let current = read_if_present(dir, Path::new(BOILERPLATE_PATH))?;
    if current.as_deref() == Some(contents.as_str()) {
        out.notes.push(format!(
            "{BOILERPLATE_PATH} already holds that license header."
        ));
        return Ok(());
    }
    out.plan.push(Change::Write {
        path: BOILERPLATE_PATH.into(),
        contents,
    });
    out.notes.push(format!(
        "Existing Go files keep their header; files scaffolded from now on and the code `make generate` writes use the new {BOILERPLATE_PATH}."
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_listed_init_files_depend_on_namespaced() {
        let templates = Templates::load(TEMPLATE_DIR, &["init"]).unwrap();
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
        let differ: Vec<String> = templates
            .tree("init")
            .into_iter()
            .filter(|t| {
                templates.render(&t.name, &cluster).unwrap()
                    != templates.render(&t.name, &scoped).unwrap()
            })
            .map(|t| t.output.to_string_lossy().into_owned())
            .collect();
        assert_eq!(differ, NAMESPACE_DEPENDENT);
    }

    #[test]
    fn a_change_is_placed_among_other_lines_and_can_be_undone() {
        let old = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "a\nb\nc\nX\nd\ne\nf\ng\n";
        let user = "0\na\nb\nc\nd\ne\nf\ng\nmine\n";
        let there = apply_template_change(user, old, new).unwrap();
        assert_eq!(there, "0\na\nb\nc\nX\nd\ne\nf\ng\nmine\n");
        assert_eq!(apply_template_change(&there, old, new).unwrap(), there);
        assert_eq!(apply_template_change(&there, new, old).unwrap(), user);
    }

    #[test]
    fn a_change_whose_lines_were_edited_is_refused() {
        let old = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "a\nb\nc\nX\nd\ne\nf\ng\n";
        let err = apply_template_change("a\nb\nC\nd\ne\nf\ng\n", old, new).unwrap_err();
        assert!(err.contains("\"a\""), "{err}");
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

    #[test]
    fn generated_role_switches_kind_and_namespace() {
        let cluster = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules:\n- apiGroups:\n  - apps\n";
        let role = switch_generated_role(cluster, true, "p-system").unwrap();
        assert_eq!(
            role,
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: manager-role\n  namespace: p-system\nrules:\n- apiGroups:\n  - apps\n"
        );
        assert_eq!(
            switch_generated_role(&role, false, "p-system").unwrap(),
            cluster
        );
        assert!(switch_generated_role("kind: Secret\n", true, "p-system").is_err());
    }
}
