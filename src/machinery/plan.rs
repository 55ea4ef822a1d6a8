//! Planning file changes and resolving them against the disk.

use super::commented::Block;
use super::lines;
use super::places::Place;
use super::source::Source;
use super::tree::Tree;
use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// One intended change to one file of the project, relative to its root.
#[derive(Debug, Clone)]
pub enum Change {
    /// Write a new file. An existing file is a conflict unless the plan is forced.
    Create { path: PathBuf, contents: String },
    /// Write a file only when it does not exist yet; an existing one is kept.
    CreateIfMissing { path: PathBuf, contents: String },
    /// Insert `fragment` just above the first marker line of `marker` (see
    /// [`lines`]); in a file without that marker, at the `fallback` place
    /// found from its code, if any.
    /// Nothing happens when the file already holds the fragment (see
    /// [`holds_fragment`]).
    Insert {
        path: PathBuf,
        marker: String,
        fragment: String,
        fallback: Option<&'static dyn Place>,
    },
    /// Switch on a commented-out block: `text` is the block as it should read,
    /// and the file must hold its YAML lines each prefixed by a single `#`,
    /// whatever the comments around them (see [`Block`]); with `above`, the
    /// block right above that marker. Nothing happens when the block is
    /// already switched on.
    Uncomment {
        path: PathBuf,
        text: String,
        above: Option<String>,
    },
    /// Remove the lines `text` from a file if it holds them (at a line start).
    RemoveLines { path: PathBuf, text: String },
    /// Replace the whole lines `old` by `new`, leaving every other byte as
    /// it was. Nothing happens when the file already holds `new`; a file
    /// that holds neither is an error.
    Replace {
        path: PathBuf,
        old: String,
        new: String,
    },
    /// Add `text` at the end of an existing file, unless the file already
    /// holds it (see [`holds_lines`]); for lists that have no scaffold marker.
    Append { path: PathBuf, text: String },
    /// Write a file the tool owns (the PROJECT file), whatever it holds now.
    Write { path: PathBuf, contents: String },
}

impl Change {
    /// The file this change is about.
    pub fn path(&self) -> &Path {
        match self {
            Change::Create { path, .. }
            | Change::CreateIfMissing { path, .. }
            | Change::Insert { path, .. }
            | Change::Append { path, .. }
            | Change::Uncomment { path, .. }
            | Change::RemoveLines { path, .. }
            | Change::Replace { path, .. }
            | Change::Write { path, .. } => path,
        }
    }
}

/// An ordered list of changes that a command wants to make.
#[derive(Debug, Default)]
pub struct Plan {
    changes: Vec<Change>,
}

impl Plan {
    /// An empty plan.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a change at the end of the plan.
    pub fn push(&mut self, change: Change) {
        self.changes.push(change);
    }

    /// The content planned so far for the whole file at `path` (by a
    /// create or a write), if any.
    pub fn planned_contents(&self, path: &Path) -> Option<&str> {
        let at = self.last_whole_file(path)?;
        match &self.changes[at] {
            Change::Create { contents, .. }
            | Change::CreateIfMissing { contents, .. }
            | Change::Write { contents, .. } => Some(contents),
            _ => None,
        }
    }

    /// Gives the file an earlier plugin of the chain planned to write at
    /// `path` (its last such change) the content `contents` instead (a
    /// plugin that fills in another plugin's scaffold, such as
    /// deploy-image/v1-alpha); plans a new file when none is planned there.
    pub fn fill_in(&mut self, path: PathBuf, contents: String) {
        self.replace_planned(path, contents, |path, contents| Change::Create {
            path,
            contents,
        });
    }

    /// Gives the whole file at `path` the content `contents`: in place of
    /// the content planned for it (see [`Plan::planned_contents`]), or as a
    /// write of the file that is there.
    pub fn rewrite(&mut self, path: PathBuf, contents: String) {
        self.replace_planned(path, contents, |path, contents| Change::Write {
            path,
            contents,
        });
    }

    /// The content of the last whole-file change planned at `path` becomes
    /// `contents`; without one, `otherwise` is planned.
    fn replace_planned(
        &mut self,
        path: PathBuf,
        contents: String,
        otherwise: fn(PathBuf, String) -> Change,
    ) {
        let planned = self
            .last_whole_file(&path)
            .and_then(|at| match &mut self.changes[at] {
                Change::Create { contents, .. }
                | Change::CreateIfMissing { contents, .. }
                | Change::Write { contents, .. } => Some(contents),
                _ => None,
            });
        match planned {
            Some(planned) => *planned = contents,
            None => self.push(otherwise(path, contents)),
        }
    }

    /// Where the last create or write of the whole file at `path` stands.
    fn last_whole_file(&self, path: &Path) -> Option<usize> {
        self.changes.iter().rposition(|change| {
            matches!(
                change,
                Change::Create { .. } | Change::CreateIfMissing { .. } | Change::Write { .. }
            ) && change.path() == path
        })
    }

    /// The changes, in the order they were planned.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Works out the final content of every file the plan touches, reading the
    /// current files under `root`. Fails, without touching anything, on the
    /// first conflict or missing marker. With `force`, existing files may be
    /// overwritten by [`Change::Create`].
    pub fn resolve(&self, root: &Path, force: bool) -> Result<Resolved> {
        let files = self.resolve_files(Source::Dir(root), force)?;
        check_parents(root, &files)?;
        check_links(root, &files)?;
        Ok(Resolved {
            root: root.to_path_buf(),
            files,
        })
    }

    /// [`Plan::resolve`] against files in memory, which the result is
    /// applied to with [`Resolved::apply_in_memory`].
    pub fn resolve_in_memory(&self, tree: &Tree, force: bool) -> Result<Resolved> {
        Ok(Resolved {
            root: PathBuf::new(),
            files: self.resolve_files(Source::Memory(tree), force)?,
        })
    }

    /// The final content of every file the plan touches, read from `source`.
    fn resolve_files(&self, source: Source, force: bool) -> Result<Vec<ResolvedFile>> {
        let mut files: Vec<ResolvedFile> = Vec::new();
        let mut index: BTreeMap<PathBuf, usize> = BTreeMap::new();
        for change in &self.changes {
            let path = change.path().to_path_buf();
            let slot = match index.get(&path) {
                Some(&slot) => slot,
                None => {
                    let before = read_existing(source, &path)?;
                    let crlf = before.as_deref().is_some_and(has_crlf_endings);
                    files.push(ResolvedFile {
                        after: before.as_ref().map(|text| text.replace("\r\n", "\n")),
                        before,
                        path: path.clone(),
                        crlf,
                    });
                    index.insert(path.clone(), files.len() - 1);
                    files.len() - 1
                }
            };
            apply_change(&mut files[slot], change, force)?;
        }
        for file in files.iter_mut().filter(|f| f.crlf) {
            file.after = file.after.take().map(|text| text.replace('\n', "\r\n"));
        }
        Ok(files)
    }
}

/// Applies one change to the planned content of its file.
fn apply_change(file: &mut ResolvedFile, change: &Change, force: bool) -> Result<()> {
    let path = file.path.display();
    match change {
        Change::Create { contents, .. } => {
            if file.after.is_some() && !force {
                bail!("{path} already exists; pass --force to overwrite it");
            }
            file.after = Some(contents.clone());
        }
        Change::CreateIfMissing { contents, .. } => {
            if file.after.is_none() {
                file.after = Some(contents.clone());
            }
        }
        Change::Write { contents, .. } => file.after = Some(contents.clone()),
        Change::Insert {
            marker,
            fragment,
            fallback,
            ..
        } => {
            let Some(current) = file.after.as_mut() else {
                bail!("{path} does not exist, so code cannot be inserted at its marker {marker}");
            };
            insert(current, marker, fragment, *fallback)
                .map_err(|()| missing_marker(&file.path, marker, *fallback))?;
        }
        Change::Append { text, .. } => {
            let Some(current) = file.after.as_mut() else {
                bail!("{path} does not exist, so it cannot be extended");
            };
            if !holds_lines(current, text) {
                if !current.is_empty() && !current.ends_with('\n') {
                    current.push('\n');
                }
                current.push_str(text);
            }
        }
        Change::Uncomment { text, above, .. } => {
            uncomment(file, &Block::new(text, above.as_deref()))?;
        }
        Change::Replace { old, new, .. } => {
            let Some(current) = file.after.as_mut() else {
                bail!("{path} does not exist, so it cannot be edited");
            };
            if !holds_lines(current, new) {
                let Some(at) = lines::find_block(current, old) else {
                    bail!(
                        "{path} no longer holds the text this command edits: {old:?}; restore it or make the change by hand"
                    );
                };
                current.replace_range(at..at + old.len(), new);
            }
        }
        Change::RemoveLines { text, .. } => {
            if let Some(current) = file.after.as_mut()
                && let Some(at) = lines::find_block(current, text)
            {
                current.replace_range(at..at + text.len(), "");
            }
        }
    }
    Ok(())
}

/// Switches `block` on in a planned file, unless it is on already (see
/// [`Change::Uncomment`]).
fn uncomment(file: &mut ResolvedFile, block: &Block) -> Result<()> {
    let path = file.path.display();
    let Some(current) = file.after.as_mut() else {
        bail!("{path} does not exist, so it cannot be edited");
    };
    if !block.is_live_in(current) {
        let Some(switched) = block.switch_on(current) else {
            bail!(
                "{path} no longer holds the text this command edits: {:?}; restore it or make the change by hand",
                block.first_line_commented()
            );
        };
        *current = switched;
    }
    Ok(())
}

/// The error for a marker that is not in a file that must be edited.
fn missing_marker(path: &Path, marker: &str, fallback: Option<&dyn Place>) -> anyhow::Error {
    let instead = fallback
        .map(|place| format!(", and its code lacks {} to use instead", place.describe()))
        .unwrap_or_default();
    anyhow::anyhow!(
        "{} has no scaffold marker `{marker}`{instead}; restore that marker line where the tool should insert code",
        path.display()
    )
}

/// Inserts `fragment` above the first marker line of `marker` (see
/// [`lines`]) or, in a file without one, at the `fallback` place,
/// unless the fragment is blank or already there (see [`holds_fragment`]).
/// Every other byte is left as it was. Fails when neither the marker nor
/// the place is found.
fn insert(
    text: &mut String,
    marker: &str,
    fragment: &str,
    fallback: Option<&dyn Place>,
) -> Result<(), ()> {
    let mut insertion = fragment.to_string();
    if !insertion.ends_with('\n') {
        insertion.push('\n');
    }
    if fragment.trim().is_empty() || holds_fragment(text, &insertion) {
        return Ok(());
    }
    match (lines::marker_line(text, marker), fallback) {
        (Some(line_start), _) => text.insert_str(line_start, &insertion),
        (None, Some(place)) if place.insert(text, &insertion) => {}
        (None, _) => return Err(()),
    }
    Ok(())
}

/// Whether `text` already holds an inserted `fragment`: as whole lines (see
/// [`holds_lines`]), not counting blank lines that open or close the
/// fragment, which only space it from its neighbours. A fragment with a
/// scaffold marker of its own may have had code inserted at that marker
/// since: it is held when its parts, each starting at a marker line, stand
/// in that order.
fn holds_fragment(text: &str, fragment: &str) -> bool {
    let start = fragment.len() - fragment.trim_start_matches('\n').len();
    let core = fragment[start..].trim_end_matches('\n');
    let mut from = 0;
    for part in parts_at_markers(core) {
        match lines::find_block(&text[from..], part) {
            Some(at) => from += at + part.len(),
            None => return false,
        }
    }
    true
}

/// `block` cut before each of its scaffold marker lines.
fn parts_at_markers(block: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in block.split_inclusive('\n') {
        let marker = lines::comment_text(line).is_some_and(|t| t.starts_with(SCAFFOLD_MARKER));
        if marker && offset > start {
            parts.push(block[start..offset].trim_end_matches('\n'));
            start = offset;
        }
        offset += line.len();
    }
    parts.push(&block[start..]);
    parts
}

/// What every scaffold marker's comment starts with.
const SCAFFOLD_MARKER: &str = "+kubebuilder:scaffold:";

/// The rule for "already there" of insert and append: `text` holds `block`
/// as whole lines (see [`lines`]). Uncomment compares YAML instead (see
/// [`Block`]).
fn holds_lines(text: &str, block: &str) -> bool {
    lines::find_block(text, block).is_some()
}

/// Whether every line of `text` ends in CRLF (a file written on Windows).
/// Such a file is edited with LF endings and written back with CRLF, so
/// inserted lines match the rest; a file with mixed endings is left as is.
fn has_crlf_endings(text: &str) -> bool {
    let lines = text.matches('\n').count();
    lines > 0 && text.matches("\r\n").count() == lines
}

/// Reads the file at `path` of `source` if it exists. A directory or
/// unreadable file where a file is expected is an error.
fn read_existing(source: Source, path: &Path) -> Result<Option<String>> {
    match source.read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Some(text)),
            Err(_) => bail!("{} is not a UTF-8 text file", source.shown(path).display()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bail!("cannot read {}: {e}", source.shown(path).display()),
    }
}

/// Checks that every file's parent is, or can become, a directory, and that
/// files to be changed are writable.
fn check_parents(root: &Path, files: &[ResolvedFile]) -> Result<()> {
    for file in files.iter().filter(|f| f.is_changed()) {
        let full = root.join(&file.path);
        let mut parent = full.parent();
        while let Some(dir) = parent {
            if let Ok(meta) = fs::metadata(dir) {
                if !meta.is_dir() {
                    bail!(
                        "cannot write {}: {} is a file, not a directory",
                        file.path.display(),
                        dir.display()
                    );
                }
                break;
            }
            parent = dir.parent();
        }
        if let Ok(meta) = fs::metadata(&full)
            && meta.permissions().readonly()
        {
            bail!(
                "cannot write {}: the file is read-only",
                file.path.display()
            );
        }
    }
    Ok(())
}

/// Refuses to write a file whose path goes through a symbolic link that
/// leads outside `root` (or nowhere): the write would land outside the
/// project. Links that stay inside the project are followed as usual.
fn check_links(root: &Path, files: &[ResolvedFile]) -> Result<()> {
    let Ok(inside) = fs::canonicalize(root) else {
        // A root that does not exist yet holds no links.
        return Ok(());
    };
    for file in files.iter().filter(|f| f.is_changed()) {
        let mut current = root.to_path_buf();
        for part in file.path.components() {
            current.push(part);
            match fs::symlink_metadata(&current) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    check_link_target(&current, &inside, root, &file.path)?;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    Ok(())
}

/// Checks that the symbolic link `link` resolves to a path inside `inside`
/// (the project root, resolved); `path` is the file being written.
fn check_link_target(link: &Path, inside: &Path, root: &Path, path: &Path) -> Result<()> {
    let shown = link.strip_prefix(root).unwrap_or(link).display();
    match fs::canonicalize(link) {
        Ok(target) if target.starts_with(inside) => Ok(()),
        Ok(target) => bail!(
            "cannot write {}: {shown} is a symbolic link to {}, outside the project; nothing was written",
            path.display(),
            target.display()
        ),
        Err(_) => bail!(
            "cannot write {}: {shown} is a symbolic link to a missing path; nothing was written",
            path.display()
        ),
    }
}

/// A plan resolved against the disk: the content of every file before and after.
#[derive(Debug)]
pub struct Resolved {
    /// The project root the paths are relative to.
    pub root: PathBuf,
    /// Every file the plan mentions, in first-mention order.
    pub files: Vec<ResolvedFile>,
}

/// One file of a resolved plan.
#[derive(Debug, Clone)]
pub struct ResolvedFile {
    /// Path relative to the project root.
    pub path: PathBuf,
    /// Content on disk now, if the file exists.
    pub before: Option<String>,
    /// Content after the plan is applied.
    pub after: Option<String>,
    /// The file's lines end in CRLF, and keep doing so.
    pub crlf: bool,
}

/// What applying a plan does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// The file is new.
    Create,
    /// The file exists and its content changes.
    Update,
    /// The file stays as it is.
    Unchanged,
}

impl ResolvedFile {
    /// What applying the plan does to this file.
    pub fn action(&self) -> Action {
        match (&self.before, &self.after) {
            (None, Some(_)) => Action::Create,
            (Some(before), Some(after)) if before != after => Action::Update,
            _ => Action::Unchanged,
        }
    }

    /// Whether applying the plan writes this file.
    pub fn is_changed(&self) -> bool {
        self.action() != Action::Unchanged
    }
}

impl Action {
    /// The word printed for this action in plans and reports.
    pub fn label(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Unchanged => "unchanged",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_goes_above_the_marker_and_keeps_every_other_byte() {
        let mut text = "a\n\t// +kubebuilder:scaffold:x\nb\n".to_string();
        insert(&mut text, "+kubebuilder:scaffold:x", "\tnew()", None).unwrap();
        assert_eq!(text, "a\n\tnew()\n\t// +kubebuilder:scaffold:x\nb\n");
    }

    #[test]
    fn fill_in_replaces_the_planned_content_or_plans_the_file() {
        let mut plan = Plan::new();
        plan.push(Change::Create {
            path: "a.txt".into(),
            contents: "old".into(),
        });
        plan.fill_in("a.txt".into(), "new".into());
        plan.fill_in("b.txt".into(), "b".into());
        let contents: Vec<(String, String)> = plan
            .changes()
            .iter()
            .map(|change| match change {
                Change::Create { path, contents } => (path.display().to_string(), contents.clone()),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(
            contents,
            [("a.txt".into(), "new".into()), ("b.txt".into(), "b".into())]
        );
    }

    #[test]
    fn insert_is_idempotent() {
        let mut text = "\tnew()\n// +kubebuilder:scaffold:x\n".to_string();
        let before = text.clone();
        insert(&mut text, "+kubebuilder:scaffold:x", "\tnew()\n", None).unwrap();
        assert_eq!(text, before);
    }

    #[test]
    fn blank_lines_around_a_fragment_do_not_make_it_new() {
        let mut text =
            "import (\n\tcrewv1 \"x/api/v1\"\n\t// +kubebuilder:scaffold:imports\n)\n".to_string();
        let before = text.clone();
        insert(
            &mut text,
            "+kubebuilder:scaffold:imports",
            "\n\tcrewv1 \"x/api/v1\"\n",
            None,
        )
        .unwrap();
        assert_eq!(text, before);
    }

    /// A place for the tests: above the first line that reads `)`.
    struct BeforeClose;

    impl Place for BeforeClose {
        fn name(&self) -> &'static str {
            "before-close"
        }
        fn describe(&self) -> &'static str {
            "a `)` line"
        }
        fn insert(&self, text: &mut String, fragment: &str) -> bool {
            let found = lines::with_starts(text).find(|(_, line)| lines::reads(line, ")"));
            let Some((at, _)) = found else {
                return false;
            };
            text.insert_str(at, fragment);
            true
        }
    }

    #[test]
    fn without_its_marker_a_fragment_goes_to_the_fallback_place() {
        let mut text = "list (\n\tone\n)\n".to_string();
        insert(
            &mut text,
            "+kubebuilder:scaffold:x",
            "\ttwo",
            Some(&BeforeClose),
        )
        .unwrap();
        assert_eq!(text, "list (\n\tone\n\ttwo\n)\n");
        let mut none = "nothing\n".to_string();
        assert!(
            insert(
                &mut none,
                "+kubebuilder:scaffold:x",
                "y",
                Some(&BeforeClose)
            )
            .is_err()
        );
        let err = missing_marker(Path::new("f"), "+m", Some(&BeforeClose)).to_string();
        assert!(err.contains("lacks a `)` line"), "{err}");
        let mut held = "nothing to see\n- manifests.yaml\n".to_string();
        assert!(
            insert(
                &mut held,
                "+kubebuilder:scaffold:x",
                "- manifests.yaml",
                None
            )
            .is_ok()
        );
    }

    #[test]
    fn a_fragment_with_its_own_marker_is_held_after_code_went_in_there() {
        let fragment =
            "if on {\n    let x = 1;\n    // +kubebuilder:scaffold:inner\n    go(x);\n}\n";
        let mut text = "begin\n# +kubebuilder:scaffold:outer\nend\n".to_string();
        insert(&mut text, "+kubebuilder:scaffold:outer", fragment, None).unwrap();
        insert(
            &mut text,
            "+kubebuilder:scaffold:inner",
            "    set(x);\n",
            None,
        )
        .unwrap();
        let before = text.clone();
        insert(&mut text, "+kubebuilder:scaffold:outer", fragment, None).unwrap();
        assert_eq!(text, before, "inserted a second time");
        // Its parts out of order, or one missing, are not the fragment.
        let swapped =
            "    // +kubebuilder:scaffold:inner\n    go(x);\n}\nif on {\n    let x = 1;\n";
        assert!(!holds_fragment(swapped, fragment));
        assert!(!holds_fragment("if on {\n    let x = 1;\n", fragment));
    }

    #[test]
    fn insert_without_marker_fails() {
        let mut text = "nothing here\n".to_string();
        assert!(insert(&mut text, "+kubebuilder:scaffold:x", "y", None).is_err());
    }

    #[test]
    fn replace_matches_whole_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("k.yaml"),
            "resources:\n##- ../crd\n#- ../crd\n",
        )
        .unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Uncomment {
            path: "k.yaml".into(),
            text: "- ../crd\n".into(),
            above: None,
        });
        let resolved = plan.resolve(dir.path(), false).unwrap();
        assert_eq!(
            resolved.files[0].after.as_deref(),
            Some("resources:\n##- ../crd\n- ../crd\n")
        );
    }

    #[test]
    fn replace_swaps_whole_lines_once_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let text = "a: b\n\tone two\n\tone two three\nend";
        fs::write(dir.path().join("f"), text).unwrap();
        let mut plan = Plan::new();
        let replace = Change::Replace {
            path: "f".into(),
            old: "\tone two three".into(),
            new: "\tone two four three".into(),
        };
        plan.push(replace.clone());
        plan.push(replace);
        let resolved = plan.resolve(dir.path(), false).unwrap();
        assert_eq!(
            resolved.files[0].after.as_deref(),
            Some("a: b\n\tone two\n\tone two four three\nend")
        );

        let mut plan = Plan::new();
        plan.push(Change::Replace {
            path: "f".into(),
            old: "\tone".into(),
            new: "\tuno".into(),
        });
        let error = plan.resolve(dir.path(), false).unwrap_err().to_string();
        assert!(error.contains("no longer holds"), "{error}");
    }

    #[test]
    fn an_edit_keeps_crlf_line_endings() {
        let dir = tempfile::tempdir().unwrap();
        let text = "a\r\n// +kubebuilder:scaffold:x\r\nb\r\n";
        fs::write(dir.path().join("main.txt"), text).unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Insert {
            path: "main.txt".into(),
            marker: "+kubebuilder:scaffold:x".into(),
            fragment: "one\ntwo\n".into(),
            fallback: None,
        });
        let resolved = plan.resolve(dir.path(), false).unwrap();
        assert_eq!(
            resolved.files[0].after.as_deref(),
            Some("a\r\none\r\ntwo\r\n// +kubebuilder:scaffold:x\r\nb\r\n")
        );
        let again = resolved.files[0].after.clone().unwrap();
        fs::write(dir.path().join("main.txt"), &again).unwrap();
        let resolved = plan.resolve(dir.path(), false).unwrap();
        assert!(
            !resolved.files[0].is_changed(),
            "inserting twice changes nothing"
        );
        assert!(!has_crlf_endings("a\r\nb\n") && !has_crlf_endings("none"));
    }

    #[test]
    fn markers_match_whole_comment_lines_only() {
        let mut text =
            "\t// +kubebuilder:scaffold:webhook-builder\n# +kubebuilder:scaffold:webhook\n"
                .to_string();
        insert(&mut text, "+kubebuilder:scaffold:webhook", "x", None).unwrap();
        assert_eq!(
            text,
            "\t// +kubebuilder:scaffold:webhook-builder\nx\n# +kubebuilder:scaffold:webhook\n"
        );
        assert!(
            insert(
                &mut "// +kubebuilder:scaffold:webhooks\n".to_string(),
                "+kubebuilder:scaffold:webhook",
                "x",
                None
            )
            .is_err()
        );
    }

    #[test]
    fn a_block_is_there_only_as_whole_lines() {
        assert!(holds_lines("a\nbc\n", "bc\n"));
        assert!(holds_lines("a\nbc", "bc"));
        assert!(!holds_lines("a\nbcd\n", "bc"));
        assert!(!holds_lines("abc\n", "bc\n"));
    }

    #[test]
    fn create_over_existing_file_is_a_conflict_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f"), "old").unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Create {
            path: "f".into(),
            contents: "new".into(),
        });
        let err = plan.resolve(dir.path(), false).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        let resolved = plan.resolve(dir.path(), true).unwrap();
        assert_eq!(resolved.files[0].action(), Action::Update);
    }

    #[cfg(unix)]
    #[test]
    fn writing_through_a_link_that_leaves_the_project_is_refused() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("inner")).unwrap();
        symlink(dir.path().join("inner"), dir.path().join("near")).unwrap();
        symlink(outside.path(), dir.path().join("config")).unwrap();
        fs::write(outside.path().join("x.txt"), "old").unwrap();
        symlink(outside.path().join("x.txt"), dir.path().join("x.txt")).unwrap();
        symlink(dir.path().join("gone"), dir.path().join("dangling.txt")).unwrap();
        let plan_for = |path: &str| {
            let mut plan = Plan::new();
            plan.push(Change::Write {
                path: path.into(),
                contents: "new".into(),
            });
            plan.resolve(dir.path(), false)
        };
        assert!(plan_for("near/file.yaml").is_ok());
        for (path, needle) in [
            ("config/rbac/role.yaml", "config is a symbolic link to"),
            ("x.txt", "outside the project"),
            ("dangling.txt", "a missing path"),
        ] {
            let err = plan_for(path).unwrap_err().to_string();
            assert!(err.contains(needle), "{path}: {err}");
        }
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[test]
    fn missing_marker_names_file_and_marker() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("main.txt"), "first line\n").unwrap();
        let mut plan = Plan::new();
        plan.push(Change::Insert {
            path: "main.txt".into(),
            marker: "+kubebuilder:scaffold:imports".into(),
            fragment: "x".into(),
            fallback: None,
        });
        let err = plan.resolve(dir.path(), false).unwrap_err().to_string();
        assert!(
            err.contains("main.txt") && err.contains("+kubebuilder:scaffold:imports"),
            "{err}"
        );
    }
}
