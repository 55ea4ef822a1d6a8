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
//! 3. Order-free rule (asked first): if both sides only inserted lines, at
//!    one point, and the file type's [`OrderFree`] rule reads each side's
//!    lines there as whole units whose order does not matter, with no unit
//!    named on both sides, the result is the scaffold's lines, then the
//!    user's.
//!
//! What is left conflicts. In the `Merge` style a conflict is then refined as
//! git's default (`XDL_MERGE_ZEALOUS_ALNUM`): split where its two sides share
//! lines, and conflicts separated by at most three lines, or by lines without
//! a letter or digit, joined. The `Diff3` style writes each conflict whole.

use super::comments::{Syntax, code_of};
use super::diff3::{Conflict, Piece, changes, lines, merge};
use super::order_free::{BUILT_IN, OrderFree, Point};
use super::{ConflictStyle, MergeOptions};
use std::path::Path;

/// The outcome of a line merge.
pub struct TextMerge {
    /// The merged text (markers included).
    pub text: String,
    /// How many conflicts were written with markers.
    pub conflicts: usize,
    /// How many regions the order-free rule resolved.
    pub order_free: usize,
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
pub fn same_code(path: &Path, ancestor: &str, upgrade: &str, options: &MergeOptions) -> bool {
    let Some(syntax) = Syntax::for_path(path, &options.slash_comments) else {
        return false;
    };
    let (a, u) = (lines(ancestor), lines(upgrade));
    let (a_code, u_code) = (syntax.code_lines(&a), syntax.code_lines(&u));
    code_of(&a, &a_code, 0..a.len()) == code_of(&u, &u_code, 0..u.len())
}

/// A piece of the merged text before it is written.
enum Block<'a> {
    /// Lines merged cleanly; true when both sides have them as they are
    /// (git joins conflicts only across such lines).
    Clean(Vec<&'a str>, bool),
    /// Lines in conflict: the original's, the ancestor's, the upgrade's.
    Conflict(Vec<&'a str>, Vec<&'a str>, Vec<&'a str>),
}

/// Merges the texts of the file at `path` (LF line ends).
pub fn merge_text(
    path: &Path,
    ancestor: &str,
    original: &str,
    upgrade: &str,
    options: &MergeOptions,
) -> TextMerge {
    let syntax = Syntax::for_path(path, &options.slash_comments);
    let base = lines(ancestor);
    let upgrade_lines = lines(upgrade);
    let sides = Sides {
        base_code: syntax.map(|s| s.code_lines(&base)),
        upgrade_code: syntax.map(|s| s.code_lines(&upgrade_lines)),
        base,
        original: lines(original),
        upgrade: upgrade_lines,
    };
    let rule = order_free_rule(path, options);
    let (mut blocks, mut order_free) = (Vec::new(), 0);
    for piece in merge(&sides.base, &sides.original, &sides.upgrade) {
        blocks.push(match piece {
            Piece::Base(r) => Block::Clean(sides.base[r].to_vec(), true),
            Piece::Original(r) => Block::Clean(sides.original[r].to_vec(), false),
            Piece::Upgrade(r) => Block::Clean(sides.upgrade[r].to_vec(), false),
            Piece::Conflict(c) => match rule.and_then(|rule| both_inserted(&sides, &c, rule)) {
                Some(lines) => {
                    order_free += 1;
                    Block::Clean(lines, false)
                }
                None => resolve_conflict(&sides, &c),
            },
        });
    }
    if options.style == ConflictStyle::Merge {
        blocks = join_close_conflicts(blocks.into_iter().flat_map(refine).collect());
    }
    let mut merged = write(&blocks, options);
    merged.order_free = order_free;
    merged
}

/// The order-free rule for the file at `path`: a built-in one, else the
/// first of the layouts'.
fn order_free_rule<'a>(path: &Path, options: &MergeOptions<'a>) -> Option<&'a dyn OrderFree> {
    BUILT_IN
        .into_iter()
        .chain(options.order_free.iter().copied())
        .find(|rule| rule.handles(path))
}

/// Rule 3: both sides only inserted, at one point, units `rule` reads as
/// order-free and no unit on both sides: the scaffold's lines, then the
/// user's.
fn both_inserted<'a>(
    sides: &Sides<'a>,
    c: &Conflict,
    rule: &dyn OrderFree,
) -> Option<Vec<&'a str>> {
    if !c.base.is_empty() {
        return None;
    }
    let point = Point {
        before: &sides.base[..c.base.start],
        after: &sides.base[c.base.start..],
    };
    let (ours, theirs) = (
        &sides.original[c.original.clone()],
        &sides.upgrade[c.upgrade.clone()],
    );
    if theirs.last().is_some_and(|l| !l.ends_with('\n')) {
        return None;
    }
    let (mine, yours) = (rule.units(&point, ours)?, rule.units(&point, theirs)?);
    if mine.iter().any(|unit| yours.contains(unit)) {
        return None;
    }
    Some(theirs.iter().chain(ours).copied().collect())
}

/// A conflicting region, resolved by rule 1 or 2 or left in conflict.
fn resolve_conflict<'a>(sides: &Sides<'a>, c: &Conflict) -> Block<'a> {
    if comment_only(sides, c) {
        Block::Clean(sides.original[c.original.clone()].to_vec(), false)
    } else if let Some(lines) = insertions_into_upgrade(sides, c) {
        Block::Clean(lines, false)
    } else {
        Block::Conflict(
            sides.original[c.original.clone()].to_vec(),
            sides.base[c.base.clone()].to_vec(),
            sides.upgrade[c.upgrade.clone()].to_vec(),
        )
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

/// As git's zealous merge: a conflict split where its two sides share
/// lines, the shared lines written once (its ancestor lines are dropped: this
/// is for the `Merge` style only).
fn refine(block: Block) -> Vec<Block> {
    let Block::Conflict(ours, _, theirs) = block else {
        return vec![block];
    };
    let mut out = Vec::new();
    let mut position = (0, 0);
    for change in changes(&ours, &theirs) {
        out.push(Block::Clean(
            ours[position.0..change.base.start].to_vec(),
            true,
        ));
        out.push(Block::Conflict(
            ours[change.base.clone()].to_vec(),
            Vec::new(),
            theirs[change.side.clone()].to_vec(),
        ));
        position = (change.base.end, change.side.end);
    }
    out.push(Block::Clean(ours[position.0..].to_vec(), true));
    out
}

/// As git: two conflicts separated by at most three clean lines, or by clean
/// lines without a letter or digit, become one.
fn join_close_conflicts(blocks: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for block in blocks {
        match block {
            Block::Clean(lines, _) if lines.is_empty() => {}
            Block::Conflict(ours, base, theirs) => {
                let gap = match out.as_slice() {
                    [.., Block::Conflict(..), Block::Clean(gap, true)] if joinable(gap) => {
                        Some(gap.clone())
                    }
                    _ => None,
                };
                if let Some(gap) = gap {
                    out.pop();
                    if let Some(Block::Conflict(o, _, t)) = out.last_mut() {
                        o.extend(gap.iter().chain(&ours));
                        t.extend(gap.iter().chain(&theirs));
                    }
                } else {
                    out.push(Block::Conflict(ours, base, theirs));
                }
            }
            clean => out.push(clean),
        }
    }
    out
}

fn joinable(gap: &[&str]) -> bool {
    gap.len() <= 3 || !gap.iter().any(|l| l.chars().any(char::is_alphanumeric))
}

/// The text of the blocks, conflicts with git's markers.
fn write(blocks: &[Block], options: &MergeOptions) -> TextMerge {
    let mut out = TextMerge {
        text: String::new(),
        conflicts: 0,
        order_free: 0,
    };
    for block in blocks {
        match block {
            Block::Clean(lines, _) => push(&mut out.text, lines),
            Block::Conflict(ours, base, theirs) => {
                marker(&mut out.text, '<', &options.original_label);
                push_closed(&mut out.text, ours);
                if options.style == ConflictStyle::Diff3 {
                    marker(&mut out.text, '|', &options.ancestor_label);
                    push_closed(&mut out.text, base);
                }
                marker(&mut out.text, '=', "");
                push_closed(&mut out.text, theirs);
                marker(&mut out.text, '>', &options.upgrade_label);
                out.conflicts += 1;
            }
        }
    }
    out
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
