//! The line merge of one text file: diff3, then two resolution rules for
//! conflicting regions, then git-style conflict markers for what is left.
//!
//! Rules, in order, for a region both sides changed differently:
//! 1. Comment rule: if the ancestor's and the upgrade's lines of the region
//!    differ only in comment and blank lines (syntax by file name), the
//!    scaffold changed nothing that matters there: the user's lines win.
//! 2. Insertion rule: if the user only inserted lines (every ancestor line of
//!    the region kept) at points the scaffold did not rewrite (not strictly
//!    inside a scaffold change, not where the scaffold inserts too), and none
//!    of those lines already appears in the scaffold's lines of the region,
//!    the result is the scaffold's text with the user's lines inserted at
//!    their points, in order.

use super::comments::{Syntax, code_of};
use super::diff3::{Conflict, Piece, lines, merge};
use super::{ConflictStyle, MergeOptions};
use std::path::Path;

/// The outcome of a line merge.
pub struct TextMerge {
    /// The merged text (markers included).
    pub text: String,
    /// How many conflicts were written with markers.
    pub conflicts: usize,
}

/// The three texts, split into lines, with their code flags.
struct Sides<'a> {
    base: Vec<&'a str>,
    original: Vec<&'a str>,
    upgrade: Vec<&'a str>,
    base_code: Option<Vec<bool>>,
    upgrade_code: Option<Vec<bool>>,
}

/// Whether `ancestor` and `upgrade` hold the same code lines (comments and
/// blank lines ignored), for the file at `path`; false for unknown types.
pub fn same_code(path: &Path, ancestor: &str, upgrade: &str) -> bool {
    let Some(syntax) = Syntax::for_path(path) else {
        return false;
    };
    let (a, u) = (lines(ancestor), lines(upgrade));
    let (a_code, u_code) = (syntax.code_lines(&a), syntax.code_lines(&u));
    code_of(&a, &a_code, 0..a.len()) == code_of(&u, &u_code, 0..u.len())
}

/// Merges the texts of the file at `path` (LF line ends).
pub fn merge_text(
    path: &Path,
    ancestor: &str,
    original: &str,
    upgrade: &str,
    options: &MergeOptions,
) -> TextMerge {
    let syntax = Syntax::for_path(path);
    let base = lines(ancestor);
    let upgrade_lines = lines(upgrade);
    let sides = Sides {
        base_code: syntax.map(|s| s.code_lines(&base)),
        upgrade_code: syntax.map(|s| s.code_lines(&upgrade_lines)),
        base,
        original: lines(original),
        upgrade: upgrade_lines,
    };
    let mut out = TextMerge {
        text: String::new(),
        conflicts: 0,
    };
    for piece in merge(&sides.base, &sides.original, &sides.upgrade) {
        match piece {
            Piece::Base(r) => push(&mut out.text, &sides.base[r]),
            Piece::Original(r) => push(&mut out.text, &sides.original[r]),
            Piece::Upgrade(r) => push(&mut out.text, &sides.upgrade[r]),
            Piece::Conflict(c) => resolve_conflict(&sides, &c, options, &mut out),
        }
    }
    out
}

/// Writes a conflicting region, resolved by a rule or with markers.
fn resolve_conflict(sides: &Sides, c: &Conflict, options: &MergeOptions, out: &mut TextMerge) {
    if comment_only(sides, c) {
        push(&mut out.text, &sides.original[c.original.clone()]);
    } else if let Some(lines) = insertions_into_upgrade(sides, c) {
        push(&mut out.text, &lines);
    } else {
        write_markers(sides, c, options, out);
    }
}

/// Rule 1: ancestor and upgrade differ only in comments and blank lines.
fn comment_only(sides: &Sides, c: &Conflict) -> bool {
    match (&sides.base_code, &sides.upgrade_code) {
        (Some(a), Some(u)) => {
            code_of(&sides.base, a, c.base.clone()) == code_of(&sides.upgrade, u, c.upgrade.clone())
        }
        _ => false,
    }
}

/// Rule 2: the upgrade's lines with the user's pure insertions put in.
fn insertions_into_upgrade<'a>(sides: &Sides<'a>, c: &Conflict) -> Option<Vec<&'a str>> {
    if c.original_changes.iter().any(|o| !o.base.is_empty()) {
        return None;
    }
    let theirs = &c.upgrade_changes;
    for o in &c.original_changes {
        let p = o.base.start;
        let clash = theirs.iter().any(|u| {
            (u.base.start < p && p < u.base.end) || (u.base.is_empty() && u.base.start == p)
        });
        let inserted = &sides.original[o.side.clone()];
        let replacement = &sides.upgrade[c.upgrade.clone()];
        let repeated = inserted
            .iter()
            .any(|l| !l.trim().is_empty() && replacement.contains(l));
        if clash || repeated {
            return None;
        }
    }
    let mut out = Vec::new();
    let mut position = c.base.start;
    let (mut mine, mut yours) = (
        c.original_changes.iter().peekable(),
        theirs.iter().peekable(),
    );
    loop {
        let take_mine = match (mine.peek(), yours.peek()) {
            (Some(o), Some(u)) => o.base.start <= u.base.start,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if take_mine {
            let o = mine.next()?;
            out.extend_from_slice(&sides.base[position..o.base.start]);
            out.extend_from_slice(&sides.original[o.side.clone()]);
            position = o.base.start;
        } else {
            let u = yours.next()?;
            out.extend_from_slice(&sides.base[position..u.base.start]);
            out.extend_from_slice(&sides.upgrade[u.side.clone()]);
            position = u.base.end;
        }
    }
    out.extend_from_slice(&sides.base[position..c.base.end]);
    Some(out)
}

/// Writes the region with git's markers; in `Merge` style the lines both
/// sides share at its start and end are written once, outside the markers.
fn write_markers(sides: &Sides, c: &Conflict, options: &MergeOptions, out: &mut TextMerge) {
    let ours = &sides.original[c.original.clone()];
    let theirs = &sides.upgrade[c.upgrade.clone()];
    let (head, tail) = match options.style {
        ConflictStyle::Merge => shared_ends(ours, theirs),
        ConflictStyle::Diff3 => (0, 0),
    };
    push(&mut out.text, &ours[..head]);
    marker(&mut out.text, '<', &options.original_label);
    push_closed(&mut out.text, &ours[head..ours.len() - tail]);
    if options.style == ConflictStyle::Diff3 {
        marker(&mut out.text, '|', &options.ancestor_label);
        push_closed(&mut out.text, &sides.base[c.base.clone()]);
    }
    marker(&mut out.text, '=', "");
    push_closed(&mut out.text, &theirs[head..theirs.len() - tail]);
    marker(&mut out.text, '>', &options.upgrade_label);
    push(&mut out.text, &ours[ours.len() - tail..]);
    out.conflicts += 1;
}

/// How many lines `a` and `b` share at their start and (after that) at their end.
fn shared_ends(a: &[&str], b: &[&str]) -> (usize, usize) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (head, tail)
}

/// A marker line: seven `sign`s, then ` label` when there is one.
fn marker(text: &mut String, sign: char, label: &str) {
    text.extend(std::iter::repeat_n(sign, 7));
    if !label.is_empty() {
        text.push(' ');
        text.push_str(label);
    }
    text.push('\n');
}

fn push(text: &mut String, lines: &[&str]) {
    lines.iter().for_each(|l| text.push_str(l));
}

/// Pushes `lines`, ending with a newline even when the file's last line lacks one.
fn push_closed(text: &mut String, lines: &[&str]) {
    push(text, lines);
    if lines.last().is_some_and(|l| !l.ends_with('\n')) {
        text.push('\n');
    }
}
