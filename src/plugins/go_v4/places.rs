//! Places in a Go file found from its code, for files without a scaffold
//! marker (see [`Place`]).
//!
//! kubebuilder puts no markers in the webhook file and its unit test, and
//! edits them by their code instead. So that either tool can continue the
//! other's files, a fragment bound for one of our markers may name a place
//! to use when the marker is missing (`fallback` in `fragments.toml`):
//!
//! | place | where the fragment goes |
//! | --- | --- |
//! | `start-of-imports` | first thing inside `import (` … `)` |
//! | `end-of-imports` | last thing inside `import (` … `)` |
//! | `end-of-webhook-builder` | above the `Complete()` line that ends the `NewWebhookManagedBy(` chain |
//! | `end-of-describe` | above the `})` that closes the file's last top-level `Describe(` |
//! | `end-of-var-block` | last thing inside the first `var (` … `)` block after a top-level `Describe(` |
//! | `end-of-before-each` | above the `})` that closes the first `BeforeEach(func() {` after a top-level `Describe(` |
//! | `end-of-file` | at the end, after a blank line |
//!
//! Lines are read by the machinery's whole-line rule ([`lines`]); the
//! heuristics below match top-level Go lines from their first column, as
//! gofmt writes them.

use crate::machinery::{Place, lines};

/// Every place, as the create-webhook fragments may name them.
pub static PLACES: &[&dyn Place] = &[
    &GoPlace::StartOfImports,
    &GoPlace::EndOfImports,
    &GoPlace::EndOfWebhookBuilder,
    &GoPlace::EndOfDescribe,
    &GoPlace::EndOfVarBlock,
    &GoPlace::EndOfBeforeEach,
    &GoPlace::EndOfFile,
];

/// A place in a Go file, found from its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoPlace {
    /// Just inside the opening line of the import block.
    StartOfImports,
    /// Just above the line that closes the import block.
    EndOfImports,
    /// Just above the `Complete()` line of the webhook builder chain.
    EndOfWebhookBuilder,
    /// Just above the `})` line that closes the last top-level `Describe`.
    EndOfDescribe,
    /// Just above the `)` line that closes the Describe's `var (` block.
    EndOfVarBlock,
    /// Just above the `})` line that closes the Describe's `BeforeEach`.
    EndOfBeforeEach,
    /// After the last line, separated from it by a blank line.
    EndOfFile,
}

/// Every place: its name in `fragments.toml`, and how messages describe it.
const NAMES: &[(&str, GoPlace, &str)] = &[
    (
        "start-of-imports",
        GoPlace::StartOfImports,
        "an `import (` block",
    ),
    (
        "end-of-imports",
        GoPlace::EndOfImports,
        "an `import (` … `)` block",
    ),
    (
        "end-of-webhook-builder",
        GoPlace::EndOfWebhookBuilder,
        "a `Complete()` line ending a `NewWebhookManagedBy(` chain",
    ),
    (
        "end-of-describe",
        GoPlace::EndOfDescribe,
        "a `})` line closing a top-level `Describe(`",
    ),
    (
        "end-of-var-block",
        GoPlace::EndOfVarBlock,
        "a `var (` … `)` block inside a top-level `Describe(`",
    ),
    (
        "end-of-before-each",
        GoPlace::EndOfBeforeEach,
        "a `BeforeEach(func() {` … `})` inside a top-level `Describe(`",
    ),
    ("end-of-file", GoPlace::EndOfFile, "an end"),
];

impl Place for GoPlace {
    fn name(&self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, place, _)| place == self)
            .map_or("", |(name, ..)| name)
    }

    fn describe(&self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, place, _)| place == self)
            .map_or("", |(.., description)| description)
    }

    fn insert(&self, text: &mut String, fragment: &str) -> bool {
        if *self == GoPlace::EndOfFile {
            let mut addition = String::from(if text.ends_with('\n') { "\n" } else { "\n\n" });
            addition.push_str(fragment.trim_end_matches('\n'));
            addition.push('\n');
            text.push_str(&addition);
            return true;
        }
        let Some(at) = self.locate(text) else {
            return false;
        };
        text.insert_str(at, fragment);
        true
    }
}

impl GoPlace {
    /// The start of the line the fragment goes above.
    fn locate(self, text: &str) -> Option<usize> {
        let lines: Vec<(usize, &str)> = lines::with_starts(text).collect();
        let position = |from: usize, wanted: &dyn Fn(&str) -> bool| {
            lines[from..]
                .iter()
                .position(|(_, line)| wanted(line))
                .map(|i| i + from)
        };
        let imports = position(0, &|line| line.trim_end() == "import (");
        let describe = || {
            position(0, &|line| {
                line.starts_with("var _ = Describe(") || line.starts_with("Describe(")
            })
        };
        // The first line after `opening` (inside the Describe) that closes it.
        let block_end = |opening: &dyn Fn(&str) -> bool, closing: &str| {
            let open = position(describe()?, opening)?;
            let close = position(open + 1, &|line| lines::reads(line, closing))?;
            Some(lines[close].0)
        };
        match self {
            GoPlace::StartOfImports => {
                imports.map(|i| lines.get(i + 1).map_or(text.len(), |l| l.0))
            }
            GoPlace::EndOfImports => {
                let close = position(imports? + 1, &|line| line.trim_end() == ")")?;
                Some(lines[close].0)
            }
            GoPlace::EndOfWebhookBuilder => {
                let chain = position(0, &|line| line.contains("NewWebhookManagedBy("))?;
                let complete = position(chain, &|line| lines::reads(line, "Complete()"))?;
                Some(lines[complete].0)
            }
            GoPlace::EndOfDescribe => {
                let describe = describe()?;
                let close = lines[describe..]
                    .iter()
                    .rposition(|(_, line)| line.trim_end() == "})")?;
                Some(lines[describe + close].0)
            }
            GoPlace::EndOfVarBlock => block_end(&|line| lines::reads(line, "var ("), ")"),
            GoPlace::EndOfBeforeEach => block_end(
                &|line| line.trim_start().starts_with("BeforeEach(func() {"),
                "})",
            ),
            GoPlace::EndOfFile => Some(text.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "package v1\n\nimport (\n\tctrl \"sigs.k8s.io/controller-runtime\"\n)\n\nfunc Setup(mgr ctrl.Manager) error {\n\treturn ctrl.NewWebhookManagedBy(mgr, &x{}).\n\t\tWithDefaulter(&d{}).\n\t\tComplete()\n}\n";

    fn inserted(place: GoPlace, fragment: &str) -> String {
        let mut text = FILE.to_string();
        assert!(place.insert(&mut text, fragment));
        text
    }

    #[test]
    fn imports_open_and_close_the_import_block() {
        assert!(
            inserted(GoPlace::StartOfImports, "\t\"context\"\n")
                .contains("import (\n\t\"context\"\n\tctrl")
        );
        assert!(
            inserted(GoPlace::EndOfImports, "\t\"a/b\"\n").contains("runtime\"\n\t\"a/b\"\n)\n")
        );
    }

    #[test]
    fn builder_steps_go_above_complete() {
        assert!(
            inserted(GoPlace::EndOfWebhookBuilder, "\t\tWithValidator(&v{}).\n")
                .contains("WithDefaulter(&d{}).\n\t\tWithValidator(&v{}).\n\t\tComplete()")
        );
    }

    #[test]
    fn the_end_of_the_file_is_one_blank_line_away() {
        assert!(
            inserted(GoPlace::EndOfFile, "type T struct{}\n\n").ends_with("}\n\ntype T struct{}\n")
        );
    }

    #[test]
    fn specs_go_inside_the_last_describe() {
        let mut text =
            "var _ = Describe(\"X\", func() {\n\tIt(\"a\", func() {\n\t})\n})\n".to_string();
        assert!(GoPlace::EndOfDescribe.insert(&mut text, "\tIt(\"b\", nil)\n"));
        assert_eq!(
            text,
            "var _ = Describe(\"X\", func() {\n\tIt(\"a\", func() {\n\t})\n\tIt(\"b\", nil)\n})\n"
        );
    }

    #[test]
    fn shared_spec_variables_go_into_the_describes_var_block_and_before_each() {
        let mut text = "var _ = Describe(\"X\", func() {\n\tvar (\n\t\tobj *T\n\t)\n\n\tBeforeEach(func() {\n\t\tobj = &T{}\n\t})\n})\n".to_string();
        assert!(GoPlace::EndOfVarBlock.insert(&mut text, "\t\tv V\n"));
        assert!(GoPlace::EndOfBeforeEach.insert(&mut text, "\t\tv = V{}\n"));
        assert_eq!(
            text,
            "var _ = Describe(\"X\", func() {\n\tvar (\n\t\tobj *T\n\t\tv V\n\t)\n\n\tBeforeEach(func() {\n\t\tobj = &T{}\n\t\tv = V{}\n\t})\n})\n"
        );
        let mut bare = "var _ = Describe(\"X\", func() {\n})\n".to_string();
        assert!(!GoPlace::EndOfVarBlock.insert(&mut bare, "x\n"));
        assert!(!GoPlace::EndOfBeforeEach.insert(&mut bare, "x\n"));
    }

    #[test]
    fn a_missing_place_fails_and_names_round_trip() {
        let mut text = "package v1\n".to_string();
        assert!(!GoPlace::EndOfImports.insert(&mut text, "x\n"));
        assert!(!GoPlace::EndOfWebhookBuilder.insert(&mut text, "x\n"));
        assert_eq!(text, "package v1\n");
        for (name, place, description) in NAMES {
            assert_eq!(place.name(), *name);
            assert_eq!(place.describe(), *description);
            assert!(PLACES.iter().any(|p| p.name() == *name));
        }
        assert_eq!(PLACES.len(), NAMES.len());
    }

    #[test]
    fn the_webhook_fragments_name_only_these_places() {
        let fragments =
            crate::machinery::Fragments::load(super::super::TEMPLATE_DIR, "create-webhook")
                .unwrap()
                .with_places(PLACES);
        assert!(fragments.is_ok(), "{:#}", fragments.unwrap_err());
    }
}
