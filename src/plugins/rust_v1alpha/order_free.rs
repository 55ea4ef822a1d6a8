//! Rust insertions whose order does not matter, for `alpha update`'s merge:
//! one-line `mod` and `use` items (`pub mod fleet;`, `use std::fmt;`), with
//! their doc comments and attributes, where no attribute or doc comment
//! just before the point would attach to the first of them. Each is named
//! by the item without its visibility, so the same module or import added
//! by both sides stays a conflict.

use crate::machinery::merge::{OrderFree, Point};
use std::path::Path;

/// rust/v1-alpha's order-free rule of `.rs` files.
pub struct ModAndUseItems;

impl OrderFree for ModAndUseItems {
    fn handles(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "rs")
    }

    fn units(&self, point: &Point, inserted: &[&str]) -> Option<Vec<String>> {
        if point.line_before().is_some_and(|l| attaches(l.trim())) {
            return None;
        }
        let mut items = Vec::new();
        let mut pending = false;
        for line in inserted.iter().map(|l| l.trim()) {
            if line.is_empty() || (line.starts_with("//") && !attaches(line)) {
                continue;
            }
            if attaches(line) {
                pending = true;
                continue;
            }
            items.push(item(line)?);
            pending = false;
        }
        (!pending).then_some(items)
    }
}

/// Whether `line` (trimmed) attaches to the item after it: an outer
/// attribute or a doc comment.
fn attaches(line: &str) -> bool {
    line.starts_with("#[") || (line.starts_with("///") && !line.starts_with("////"))
}

/// A one-line `mod` or `use` item without its visibility, or `None`.
fn item(line: &str) -> Option<String> {
    let code = line.split(" //").next().unwrap_or(line).trim();
    let code = code.strip_suffix(';')?;
    let code = strip_visibility(code);
    let one_line = !code.contains(['{', '}']) || code.starts_with("use ");
    let balanced = code.matches('{').count() == code.matches('}').count();
    let is_item = code.starts_with("mod ") || code.starts_with("use ");
    (is_item && one_line && balanced).then(|| code.to_owned())
}

/// `code` without a leading `pub`, `pub(crate)`, `pub(super)` or
/// `pub(in …)`.
fn strip_visibility(code: &str) -> &str {
    let Some(rest) = code.strip_prefix("pub") else {
        return code;
    };
    match rest.strip_prefix('(') {
        Some(scoped) => scoped.split_once(')').map_or(code, |(_, r)| r.trim_start()),
        None if rest.starts_with(' ') => rest.trim_start(),
        None => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(before: &[&str], inserted: &str) -> Option<Vec<String>> {
        let lines: Vec<&str> = inserted.split_inclusive('\n').collect();
        let point = Point {
            before,
            after: &["pub mod webhook;\n"],
        };
        ModAndUseItems.units(&point, &lines)
    }

    #[test]
    fn mod_and_use_lines_are_named_without_visibility() {
        let before = ["pub mod api;\n"];
        assert_eq!(
            units(
                &before,
                "/// Our ships.\npub mod ships;\n#[cfg(test)]\nmod fixtures;\npub(crate) use std::fmt;\nuse a::{b, c};\n"
            ),
            Some(
                ["mod ships", "mod fixtures", "use std::fmt", "use a::{b, c}"]
                    .map(str::to_owned)
                    .to_vec()
            )
        );
    }

    #[test]
    fn other_items_dangling_attributes_and_attached_points_are_not() {
        let before = ["pub mod api;\n"];
        assert_eq!(units(&before, "fn f() {}\n"), None);
        assert_eq!(units(&before, "use a::{\n"), None);
        assert_eq!(units(&before, "pub mod ships;\n#[cfg(test)]\n"), None);
        assert_eq!(units(&["#[cfg(test)]\n"], "mod ships;\n"), None);
        assert_eq!(units(&["/// Docs.\n"], "mod ships;\n"), None);
        assert_eq!(
            units(&["// A note.\n"], "mod ships;\n"),
            Some(vec!["mod ships".into()])
        );
    }
}
