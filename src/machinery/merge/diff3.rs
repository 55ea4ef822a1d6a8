//! A line-level three-way merge (diff3) on `similar`'s line diffs of the
//! ancestor against each side. Changes of the two sides that overlap or
//! touch form one group; a group changed by one side only (or identically by
//! both) merges cleanly, any other is a conflict, kept as structured ranges so
//! the caller can resolve it by rule before it is written with markers.

use similar::{Algorithm, DiffTag, capture_diff_slices};
use std::ops::Range;

/// One side's change against the ancestor: ancestor lines `base` replaced by
/// the side's lines `side`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The ancestor's lines replaced.
    pub base: Range<usize>,
    /// The side's lines put in their place.
    pub side: Range<usize>,
}

/// A region both sides changed differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The ancestor's lines of the region.
    pub base: Range<usize>,
    /// The original's (user's) lines of the region.
    pub original: Range<usize>,
    /// The upgrade's lines of the region.
    pub upgrade: Range<usize>,
    /// The original's changes inside the region.
    pub original_changes: Vec<Change>,
    /// The upgrade's changes inside the region.
    pub upgrade_changes: Vec<Change>,
}

/// A piece of the merged file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Lines taken from the ancestor (both sides kept them).
    Base(Range<usize>),
    /// Lines taken from the original.
    Original(Range<usize>),
    /// Lines taken from the upgrade.
    Upgrade(Range<usize>),
    /// A conflict.
    Conflict(Conflict),
}

/// The lines of `text`, each with its line terminator (the last may lack it).
pub fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The changes that turn `base` into `side`, adjacent ones joined.
pub fn changes(base: &[&str], side: &[&str]) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, base, side) {
        let (tag, b, s) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.base.end == b.start && last.side.end == s.start => {
                last.base.end = b.end;
                last.side.end = s.end;
            }
            _ => out.push(Change { base: b, side: s }),
        }
    }
    out
}

/// A side's changes being walked in order, with the line offset of the
/// changes already passed.
struct Walk {
    changes: Vec<Change>,
    next: usize,
    delta: isize,
}

impl Walk {
    fn new(changes: Vec<Change>) -> Self {
        Self {
            changes,
            next: 0,
            delta: 0,
        }
    }

    fn peek(&self) -> Option<&Change> {
        self.changes.get(self.next)
    }

    /// Takes the next change if it starts at or before `end` (touching counts).
    fn take_if_touching(&mut self, end: usize) -> Option<Change> {
        let change = self.peek().filter(|c| c.base.start <= end)?.clone();
        self.next += 1;
        self.delta += change.side.len() as isize - change.base.len() as isize;
        Some(change)
    }

    fn at(&self, base: usize, delta: isize) -> usize {
        (base as isize + delta) as usize
    }
}

/// Merges `original` and `upgrade`, both changed from `base`, into pieces.
pub fn merge(base: &[&str], original: &[&str], upgrade: &[&str]) -> Vec<Piece> {
    let mut ours = Walk::new(changes(base, original));
    let mut theirs = Walk::new(changes(base, upgrade));
    let mut pieces = Vec::new();
    let mut position = 0;
    loop {
        let start = match (ours.peek(), theirs.peek()) {
            (Some(a), Some(b)) => a.base.start.min(b.base.start),
            (Some(a), None) => a.base.start,
            (None, Some(b)) => b.base.start,
            (None, None) => break,
        };
        if position < start {
            pieces.push(Piece::Base(position..start));
        }
        let (ours_before, theirs_before) = (ours.delta, theirs.delta);
        let mut end = start;
        let (mut mine, mut yours) = (Vec::new(), Vec::new());
        loop {
            if let Some(change) = ours.take_if_touching(end) {
                end = end.max(change.base.end);
                mine.push(change);
            } else if let Some(change) = theirs.take_if_touching(end) {
                end = end.max(change.base.end);
                yours.push(change);
            } else {
                break;
            }
        }
        let original_range = ours.at(start, ours_before)..ours.at(end, ours.delta);
        let upgrade_range = theirs.at(start, theirs_before)..theirs.at(end, theirs.delta);
        pieces.push(resolve(
            Conflict {
                base: start..end,
                original: original_range,
                upgrade: upgrade_range,
                original_changes: mine,
                upgrade_changes: yours,
            },
            original,
            upgrade,
        ));
        position = end;
    }
    if position < base.len() {
        pieces.push(Piece::Base(position..base.len()));
    }
    pieces
}

/// A group changed by one side, or by both alike, merges cleanly.
fn resolve(group: Conflict, original: &[&str], upgrade: &[&str]) -> Piece {
    if group.upgrade_changes.is_empty() {
        Piece::Original(group.original)
    } else if group.original_changes.is_empty()
        || original[group.original.clone()] == upgrade[group.upgrade.clone()]
    {
        Piece::Upgrade(group.upgrade)
    } else {
        Piece::Conflict(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_join_adjacent_operations() {
        let base = lines("a\nb\nc\n");
        let side = lines("x\ny\nc\nd\n");
        assert_eq!(
            changes(&base, &side),
            vec![
                Change {
                    base: 0..2,
                    side: 0..2
                },
                Change {
                    base: 3..3,
                    side: 3..4
                }
            ]
        );
    }

    #[test]
    fn separate_changes_merge_and_touching_ones_conflict() {
        let base = lines("a\nb\nc\nd\ne\n");
        let original = lines("A\nb\nc\nd\ne\n");
        let upgrade = lines("a\nb\nc\nd\nE\n");
        let pieces = merge(&base, &original, &upgrade);
        assert!(!pieces.iter().any(|p| matches!(p, Piece::Conflict(_))));
        let upgrade = lines("a\nB\nc\nd\ne\n");
        let pieces = merge(&base, &original, &upgrade);
        assert!(pieces.iter().any(|p| matches!(p, Piece::Conflict(_))));
    }
}
