//! Items of a kustomization's lists whose order kustomize does not depend
//! on: `resources`, `patches`, `components`, `crds` and `configurations`.
//! An inserted run of whole items (`- …` with the lines indented below
//! each), at the items' indentation, between two items of such a list or at
//! its end, is order-free; each item's text is its name.

use super::{OrderFree, Point, indent};
use std::path::Path;

/// The order-free rule of `kustomization.yaml` files.
pub struct KustomizeLists;

/// The top-level keys whose lists are order-free.
const LISTS: &[&str] = &[
    "resources",
    "patches",
    "components",
    "crds",
    "configurations",
];

impl OrderFree for KustomizeLists {
    fn handles(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| matches!(n, "kustomization.yaml" | "kustomization.yml"))
    }

    fn units(&self, point: &Point, inserted: &[&str]) -> Option<Vec<String>> {
        let code: Vec<&str> = inserted.iter().copied().filter(|l| is_code(l)).collect();
        let items_at = indent(code.first()?);
        let items = items(&code, items_at)?;
        (in_list(point.before, items_at) && list_goes_on(point.after, items_at)).then_some(items)
    }
}

/// Whether `line` is neither blank nor a comment.
fn is_code(line: &str) -> bool {
    let text = line.trim();
    !text.is_empty() && !text.starts_with('#')
}

/// Whether `line` starts a list item at indentation `at`.
fn is_item(line: &str, at: usize) -> bool {
    indent(line) == at && line.trim_start().starts_with("- ")
}

/// The items of `code` (lines without comments), each with the lines
/// indented below it; `None` unless it is only whole items at `at`.
fn items(code: &[&str], at: usize) -> Option<Vec<String>> {
    let mut items: Vec<String> = Vec::new();
    for line in code {
        if is_item(line, at) {
            items.push(line.trim().to_owned());
        } else if indent(line) > at {
            items.last_mut()?.push_str(line.trim());
        } else {
            return None;
        }
    }
    Some(items)
}

/// Whether the code before the point ends inside an order-free list whose
/// items are at `at`: items (and their deeper lines) back to the list's key.
fn in_list(before: &[&str], at: usize) -> bool {
    let key = before
        .iter()
        .rev()
        .filter(|l| is_code(l))
        .find(|l| !(is_item(l, at) || indent(l) > at));
    key.is_some_and(|key| {
        indent(key) == 0
            && LISTS
                .iter()
                .any(|name| key.trim_end() == format!("{name}:"))
    })
}

/// Whether the code after the point goes on with an item at `at`, leaves
/// the list (less indented, or a key at the top level), or ends.
fn list_goes_on(after: &[&str], at: usize) -> bool {
    match after.iter().find(|l| is_code(l)) {
        None => true,
        Some(next) => {
            is_item(next, at)
                || indent(next) < at
                || (indent(next) == 0 && !next.trim_start().starts_with('-'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "namespace: x\nresources:\n- ../crd\n#- ../webhook\n- ../rbac\npatches:\n- path: a.yaml\n  target:\n    kind: Deployment\n";

    fn units(at: usize, inserted: &str) -> Option<Vec<String>> {
        let base: Vec<&str> = BASE.split_inclusive('\n').collect();
        let lines: Vec<&str> = inserted.split_inclusive('\n').collect();
        let point = Point {
            before: &base[..at],
            after: &base[at..],
        };
        KustomizeLists.units(&point, &lines)
    }

    #[test]
    fn whole_items_of_an_order_free_list_are_units() {
        assert_eq!(
            units(5, "# mine\n- ../extra\n"),
            Some(vec!["- ../extra".to_owned()])
        );
        assert_eq!(
            units(9, "- path: b.yaml\n  target:\n    kind: Service\n"),
            Some(vec!["- path: b.yamltarget:kind: Service".to_owned()])
        );
        assert_eq!(units(3, "- ../extra\n"), Some(vec!["- ../extra".into()]));
    }

    #[test]
    fn other_places_and_partial_items_are_not() {
        assert_eq!(units(1, "- ../extra\n"), None, "no list key before");
        assert_eq!(units(7, "- path: b.yaml\n"), None, "inside an item");
        assert_eq!(units(5, "  kind: Service\n"), None, "not an item");
        assert_eq!(units(5, "images:\n- name: x\n"), None, "a new key");
        let plain = ["labels:\n", "- a\n"];
        let point = Point {
            before: &plain,
            after: &[],
        };
        assert_eq!(
            KustomizeLists.units(&point, &["- b\n"]),
            None,
            "not order-free"
        );
    }
}
