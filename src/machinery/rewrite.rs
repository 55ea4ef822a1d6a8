//! Rewriting files a user may have edited, region by region.
//!
//! When a setting changes what a template renders (the manager's namespace
//! scope), the file on disk may hold the user's code, so it is never
//! overwritten: the template is rendered in both settings, and only the
//! regions that differ are replaced in the user's file, where they still
//! stand exactly as scaffolded.

use crate::machinery::{Context, Source, Templates};
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// Lines of unchanged text kept around each changed region, to place it.
const CONTEXT_LINES: usize = 3;

/// A file a setting change needs to rewrite: its new content, or why it
/// cannot be changed automatically.
#[derive(Debug)]
pub struct Rewrite {
    /// Path relative to the project root.
    pub path: PathBuf,
    /// The rewritten content, or the reason it cannot be computed.
    pub contents: Result<String, String>,
}

/// The rewrites that move each file of `files` (paths relative to the
/// project root, rendered from `<template_dir>/init/<path>.jinja`) from its
/// rendering with `from` to its rendering with `to`. Missing files and files
/// already in the new form are left out (read from `source`). `fallback`
/// may offer another way to rewrite a file whose scaffolded regions were
/// changed.
pub fn init_template_rewrites(
    template_dir: &str,
    files: &[&str],
    source: Source,
    (from, to): (&Context, &Context),
    fallback: impl Fn(&str, &str) -> Option<Result<String, String>>,
) -> Result<Vec<Rewrite>> {
    let templates = Templates::load(template_dir, &["init"])?;
    let mut rewrites = Vec::new();
    for path in files {
        let Some(current) = read_if_present(source, Path::new(path))? else {
            continue;
        };
        let name = format!("init/{path}.jinja");
        let old = templates.render(&name, from)?;
        let new = templates.render(&name, to)?;
        let mut contents = apply_template_change(&current, &old, &new);
        if contents.is_err()
            && let Some(other) = fallback(path, &current)
        {
            contents = other;
        }
        push_if_changed(&mut rewrites, (*path).into(), &current, contents);
    }
    Ok(rewrites)
}

/// The outputs of `<template_dir>/init/` whose rendering differs between
/// the two contexts, sorted: the files a setting change must rewrite.
pub fn init_files_that_differ(template_dir: &str, a: &Context, b: &Context) -> Result<Vec<String>> {
    let templates = Templates::load(template_dir, &["init"])?;
    let mut differ = Vec::new();
    for template in templates.tree("init") {
        if templates.render(&template.name, a)? != templates.render(&template.name, b)? {
            differ.push(template.output.to_string_lossy().into_owned());
        }
    }
    Ok(differ)
}

/// Adds a rewrite unless it leaves the file as it is.
pub fn push_if_changed(
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
pub fn read_if_present(source: Source, path: &Path) -> Result<Option<String>> {
    match source.read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    }
}

/// Applies to `text` the change that turns the rendering `old` into `new`,
/// unless `text` already reads as `new` in every changed region (then it is
/// returned as it is, so applying the change twice is harmless).
pub fn apply_template_change(text: &str, old: &str, new: &str) -> Result<String, String> {
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

/// The position of the only place where `block` stands in `text` as whole
/// lines (see [`lines`](super::lines)); `None` when it is missing, ambiguous
/// or empty.
fn find_once(text: &str, block: &str) -> Option<usize> {
    if block.is_empty() {
        return None;
    }
    let mut found = super::lines::block_starts(text, block);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
