//! Makefile blocks: rules (with their recipes), variable assignments,
//! `define … endef` and balanced conditionals, inserted at the file's top
//! level after its first rule (so neither side's block becomes the default
//! goal). Their order does not matter unless both sides name the same
//! target or variable, which the names returned make a conflict.

use super::{OrderFree, Point};
use std::path::Path;

/// The order-free rule of `Makefile`s and `*.mk` files.
pub struct MakefileRules;

impl OrderFree for MakefileRules {
    fn handles(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == "Makefile")
            || path.extension().is_some_and(|e| e == "mk")
    }

    fn units(&self, point: &Point, inserted: &[&str]) -> Option<Vec<String>> {
        if !at_top_level(point) {
            return None;
        }
        blocks(inserted)
    }
}

/// Whether `point` is at the top level, after a rule: not in a `define`,
/// a continued line or a recipe, and not before the first rule.
fn at_top_level(point: &Point) -> bool {
    let mut in_define = false;
    let mut has_rule = false;
    for line in point.before {
        let word = first_word(line);
        if in_define {
            in_define = word != "endef";
        } else if word == "define" {
            in_define = true;
        } else if !line.starts_with('\t') && rule_targets(line).is_some() {
            has_rule = true;
        }
    }
    let continued = point.before.last().is_some_and(|l| continues(l));
    let in_recipe = point.after.first().is_some_and(|l| l.starts_with('\t'));
    has_rule && !in_define && !continued && !in_recipe
}

/// The names a run of whole top-level constructs defines, `None` when
/// `lines` are not one.
fn blocks(lines: &[&str]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let (mut in_define, mut in_rule, mut conditionals) = (false, false, 0usize);
    let mut previous_continues = false;
    for line in lines {
        let continued = std::mem::replace(&mut previous_continues, continues(line));
        let word = first_word(line);
        let passive = continued || line.trim().is_empty() || line.trim_start().starts_with('#');
        if in_define {
            in_define = word != "endef";
        } else if passive {
            continue;
        } else if line.starts_with('\t') {
            if !in_rule {
                return None;
            }
        } else if word == "define" {
            names.push(second_word(line)?.to_owned());
            in_define = true;
        } else if matches!(word, "ifeq" | "ifneq" | "ifdef" | "ifndef") {
            conditionals += 1;
        } else if word == "else" {
            conditionals.checked_sub(1)?;
        } else if word == "endif" {
            conditionals = conditionals.checked_sub(1)?;
        } else if let Some(name) = assigned(line) {
            names.push(name);
            in_rule = false;
        } else if let Some(targets) = rule_targets(line) {
            names.extend(targets);
            in_rule = true;
        } else {
            return None;
        }
    }
    (!in_define && conditionals == 0 && !previous_continues).then_some(names)
}

/// The first word of `line` (empty for a blank line).
fn first_word(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

fn second_word(line: &str) -> Option<&str> {
    line.split_whitespace().nth(1)
}

/// Whether `line` goes on in the next one (ends with a backslash).
fn continues(line: &str) -> bool {
    line.trim_end_matches(['\n', '\r']).ends_with('\\')
}

/// The variable `line` assigns (`=`, `:=`, `::=`, `?=`, `+=`, `!=`), with
/// `export` or `override` before it.
fn assigned(line: &str) -> Option<String> {
    let line = line
        .trim_start()
        .trim_start_matches("export ")
        .trim_start_matches("override ");
    let at = line.find('=')?;
    let name = line[..at].trim_end_matches([':', '?', '+', '!']).trim();
    let simple = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '$' | '(' | ')'));
    (simple && !line[..at].contains(": ")).then(|| name.to_owned())
}

/// The targets of a rule line (`a b: prerequisites`); special targets such
/// as `.PHONY`, which only add to a list, name nothing.
fn rule_targets(line: &str) -> Option<Vec<String>> {
    let at = line.find(':')?;
    if line[at + 1..].starts_with('=') {
        return None;
    }
    let targets: Vec<String> = line[..at]
        .split_whitespace()
        .filter(|t| !t.starts_with('.'))
        .map(str::to_owned)
        .collect();
    (!line[..at].trim().is_empty()).then_some(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &[&str] = &[
        "X ?= 1\n",
        ".PHONY: all\n",
        "all: build ## Build.\n",
        "\tgo build\n",
        "define tool\n",
        "echo $(1)\n",
        "endef\n",
    ];

    fn units(before: &[&str], after: &[&str], inserted: &str) -> Option<Vec<String>> {
        let lines: Vec<&str> = inserted.split_inclusive('\n').collect();
        MakefileRules.units(&Point { before, after }, &lines)
    }

    #[test]
    fn rules_variables_and_defines_are_units() {
        let block = "\n.PHONY: report\nreport: all ## Report.\n\t@echo a \\\n\t  b\nY := $(X) \\\n  2\ndefine more\nx: y\nendef\nifeq ($(X),1)\nZ = 3\nelse\nZ = 4\nendif\n";
        assert_eq!(
            units(BASE, &[], block),
            Some(
                ["report", "Y", "more", "Z", "Z"]
                    .map(str::to_owned)
                    .to_vec()
            )
        );
        assert_eq!(
            units(BASE, &[], "export GOFLAGS = -mod=mod\n"),
            Some(vec!["GOFLAGS".to_owned()])
        );
    }

    #[test]
    fn points_inside_a_construct_or_before_the_first_rule_are_not_order_free() {
        let block = "x:\n\techo x\n";
        assert_eq!(units(&BASE[..4], &BASE[4..], block), Some(vec!["x".into()]));
        assert_eq!(units(&BASE[..3], &BASE[3..], block), None, "in a recipe");
        assert_eq!(units(&BASE[..5], &BASE[5..], block), None, "in a define");
        assert_eq!(units(&BASE[..1], &BASE[1..], block), None, "default goal");
        assert_eq!(units(&["a: b \\\n"], &[], block), None, "continued");
    }

    #[test]
    fn partial_constructs_are_not_units() {
        assert_eq!(units(BASE, &[], "\techo stray recipe\n"), None);
        assert_eq!(units(BASE, &[], "define open\nx\n"), None);
        assert_eq!(units(BASE, &[], "ifdef X\nY = 1\n"), None);
        assert_eq!(units(BASE, &[], "Y = 1 \\\n"), None);
        assert_eq!(units(BASE, &[], "$(error nope)\n"), None);
    }
}
