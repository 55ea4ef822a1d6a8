//! The rule for two insertions at one place: where the user and the scaffold
//! both only added lines at the same point of a file, and the file's type
//! says that what was added there means the same in either order, both are
//! kept without conflict markers, the scaffold's lines first, then the
//! user's.
//!
//! A file type declares this with an [`OrderFree`] rule, which reads one
//! side's inserted lines at the point and answers with the names of the
//! units they hold (a target, a list item, an import path), or `None` when
//! they are not a run of whole order-free units there. The two sides'
//! names must be disjoint: the same name on both sides (one variable
//! assigned twice, one import added twice) is a case where order matters,
//! and stays a conflict.
//!
//! The rules for files every layout has (a `Makefile`, a kustomization, an
//! ignore file) are here, known by file name; a layout adds rules for its
//! own languages through
//! [`MergeOptions::order_free`](super::MergeOptions::order_free).

mod kustomize;
mod makefile;

use std::path::Path;

pub use kustomize::KustomizeLists;
pub use makefile::MakefileRules;

/// Where both sides inserted: the ancestor's lines before and after the point.
#[derive(Debug, Clone, Copy)]
pub struct Point<'a> {
    /// The ancestor's lines before the point.
    pub before: &'a [&'a str],
    /// The ancestor's lines from the point on.
    pub after: &'a [&'a str],
}

impl Point<'_> {
    /// The nearest line before the point that is not blank.
    pub fn line_before(&self) -> Option<&str> {
        self.before
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .copied()
    }

    /// The nearest line from the point on that is not blank.
    pub fn line_after(&self) -> Option<&str> {
        self.after.iter().find(|l| !l.trim().is_empty()).copied()
    }
}

/// A file type's knowledge of which insertions commute.
pub trait OrderFree: Sync {
    /// Whether the rule applies to the file at `path`.
    fn handles(&self, path: &Path) -> bool;

    /// The names of the units `inserted` holds when, put at `point`, it is a
    /// run of whole units whose order among other such units does not
    /// matter; `None` otherwise.
    fn units(&self, point: &Point, inserted: &[&str]) -> Option<Vec<String>>;
}

/// Patterns of `.gitignore`, `.dockerignore` and `.helmignore`: a pattern
/// that excludes commutes with any other; a `!` pattern (re-including what
/// an earlier one excluded) does not.
pub struct IgnorePatterns;

impl OrderFree for IgnorePatterns {
    fn handles(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| matches!(n, ".gitignore" | ".dockerignore" | ".helmignore"))
    }

    fn units(&self, _point: &Point, inserted: &[&str]) -> Option<Vec<String>> {
        let patterns: Vec<&str> = inserted
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        if patterns.iter().any(|p| p.starts_with('!')) {
            return None;
        }
        Some(patterns.into_iter().map(str::to_owned).collect())
    }
}

/// The rules for files every layout has, known by name.
pub const BUILT_IN: [&dyn OrderFree; 3] = [&MakefileRules, &KustomizeLists, &IgnorePatterns];

/// The leading whitespace of `line`, in bytes.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point<'a>(before: &'a [&'a str], after: &'a [&'a str]) -> Point<'a> {
        Point { before, after }
    }

    #[test]
    fn ignore_patterns_without_negation_are_units() {
        let rule = IgnorePatterns;
        assert!(rule.handles(Path::new(".dockerignore")));
        assert!(rule.handles(Path::new("sub/.gitignore")));
        assert!(!rule.handles(Path::new("gitignore.txt")));
        let at = point(&["bin/\n"], &[]);
        assert_eq!(
            rule.units(&at, &["# mine\n", "*.swp\n", "\n", "tmp/\n"]),
            Some(vec!["*.swp".to_owned(), "tmp/".to_owned()])
        );
        assert_eq!(rule.units(&at, &["*.log\n", "!keep.log\n"]), None);
    }

    #[test]
    fn nearest_lines_skip_blank_ones() {
        let at = point(&["a\n", "\n"], &["  \n", "b\n"]);
        assert_eq!(at.line_before(), Some("a\n"));
        assert_eq!(at.line_after(), Some("b\n"));
        assert_eq!(point(&[], &[]).line_after(), None);
    }
}
