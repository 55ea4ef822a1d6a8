//! Places in a Go file found from its code, for files without a scaffold marker.
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

/// A place in a Go file, found from its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
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
const NAMES: &[(&str, Place, &str)] = &[
    (
        "start-of-imports",
        Place::StartOfImports,
        "an `import (` block",
    ),
    (
        "end-of-imports",
        Place::EndOfImports,
        "an `import (` … `)` block",
    ),
    (
        "end-of-webhook-builder",
        Place::EndOfWebhookBuilder,
        "a `Complete()` line ending a `NewWebhookManagedBy(` chain",
    ),
    (
        "end-of-describe",
        Place::EndOfDescribe,
        "a `})` line closing a top-level `Describe(`",
    ),
    (
        "end-of-var-block",
        Place::EndOfVarBlock,
        "a `var (` … `)` block inside a top-level `Describe(`",
    ),
    (
        "end-of-before-each",
        Place::EndOfBeforeEach,
        "a `BeforeEach(func() {` … `})` inside a top-level `Describe(`",
    ),
    ("end-of-file", Place::EndOfFile, "an end"),
];

impl Place {
    /// The place called `name` in a fragment manifest.
    pub fn named(name: &str) -> Option<Self> {
        NAMES
            .iter()
            .find(|(known, ..)| *known == name)
            .map(|(_, place, _)| *place)
    }

    /// What the Go code must hold for this place to exist, for messages.
    pub fn describe(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, place, _)| *place == self)
            .map_or("", |(.., description)| description)
    }

    /// Every name a manifest may use, for error messages.
    pub fn names() -> String {
        NAMES
            .iter()
            .map(|(name, ..)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Inserts `fragment` (ending with a newline) at this place of `text`,
    /// leaving every other byte as it was. Fails when the file's code has no
    /// such place.
    pub(crate) fn insert(self, text: &mut String, fragment: &str) -> Result<(), ()> {
        if self == Place::EndOfFile {
            let mut addition = String::from(if text.ends_with('\n') { "\n" } else { "\n\n" });
            addition.push_str(fragment.trim_end_matches('\n'));
            addition.push('\n');
            text.push_str(&addition);
            return Ok(());
        }
        let at = self.locate(text).ok_or(())?;
        text.insert_str(at, fragment);
        Ok(())
    }

    /// The start of the line the fragment goes above.
    fn locate(self, text: &str) -> Option<usize> {
        let lines = line_starts(text);
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
            let close = position(open + 1, &|line| line.trim() == closing)?;
            Some(lines[close].0)
        };
        match self {
            Place::StartOfImports => imports.map(|i| lines.get(i + 1).map_or(text.len(), |l| l.0)),
            Place::EndOfImports => {
                let close = position(imports? + 1, &|line| line.trim_end() == ")")?;
                Some(lines[close].0)
            }
            Place::EndOfWebhookBuilder => {
                let chain = position(0, &|line| line.contains("NewWebhookManagedBy("))?;
                let complete = position(chain, &|line| line.trim() == "Complete()")?;
                Some(lines[complete].0)
            }
            Place::EndOfDescribe => {
                let describe = describe()?;
                let close = lines[describe..]
                    .iter()
                    .rposition(|(_, line)| line.trim_end() == "})")?;
                Some(lines[describe + close].0)
            }
            Place::EndOfVarBlock => block_end(&|line| line.trim() == "var (", ")"),
            Place::EndOfBeforeEach => block_end(
                &|line| line.trim_start().starts_with("BeforeEach(func() {"),
                "})",
            ),
            Place::EndOfFile => Some(text.len()),
        }
    }
}

/// Every line of `text` with the byte offset it starts at.
fn line_starts(text: &str) -> Vec<(usize, &str)> {
    let mut start = 0;
    text.split_inclusive('\n')
        .map(|line| {
            let entry = (start, line);
            start += line.len();
            entry
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "package v1\n\nimport (\n\tctrl \"sigs.k8s.io/controller-runtime\"\n)\n\nfunc Setup(mgr ctrl.Manager) error {\n\treturn ctrl.NewWebhookManagedBy(mgr, &x{}).\n\t\tWithDefaulter(&d{}).\n\t\tComplete()\n}\n";

    fn inserted(place: Place, fragment: &str) -> String {
        let mut text = FILE.to_string();
        place.insert(&mut text, fragment).unwrap();
        text
    }

    #[test]
    fn imports_open_and_close_the_import_block() {
        assert!(
            inserted(Place::StartOfImports, "\t\"context\"\n")
                .contains("import (\n\t\"context\"\n\tctrl")
        );
        assert!(inserted(Place::EndOfImports, "\t\"a/b\"\n").contains("runtime\"\n\t\"a/b\"\n)\n"));
    }

    #[test]
    fn builder_steps_go_above_complete() {
        assert!(
            inserted(Place::EndOfWebhookBuilder, "\t\tWithValidator(&v{}).\n")
                .contains("WithDefaulter(&d{}).\n\t\tWithValidator(&v{}).\n\t\tComplete()")
        );
    }

    #[test]
    fn the_end_of_the_file_is_one_blank_line_away() {
        assert!(
            inserted(Place::EndOfFile, "type T struct{}\n\n").ends_with("}\n\ntype T struct{}\n")
        );
    }

    #[test]
    fn specs_go_inside_the_last_describe() {
        let mut text =
            "var _ = Describe(\"X\", func() {\n\tIt(\"a\", func() {\n\t})\n})\n".to_string();
        Place::EndOfDescribe
            .insert(&mut text, "\tIt(\"b\", nil)\n")
            .unwrap();
        assert_eq!(
            text,
            "var _ = Describe(\"X\", func() {\n\tIt(\"a\", func() {\n\t})\n\tIt(\"b\", nil)\n})\n"
        );
    }

    #[test]
    fn shared_spec_variables_go_into_the_describes_var_block_and_before_each() {
        let mut text = "var _ = Describe(\"X\", func() {\n\tvar (\n\t\tobj *T\n\t)\n\n\tBeforeEach(func() {\n\t\tobj = &T{}\n\t})\n})\n".to_string();
        Place::EndOfVarBlock.insert(&mut text, "\t\tv V\n").unwrap();
        Place::EndOfBeforeEach
            .insert(&mut text, "\t\tv = V{}\n")
            .unwrap();
        assert_eq!(
            text,
            "var _ = Describe(\"X\", func() {\n\tvar (\n\t\tobj *T\n\t\tv V\n\t)\n\n\tBeforeEach(func() {\n\t\tobj = &T{}\n\t\tv = V{}\n\t})\n})\n"
        );
        let mut bare = "var _ = Describe(\"X\", func() {\n})\n".to_string();
        assert!(Place::EndOfVarBlock.insert(&mut bare, "x\n").is_err());
        assert!(Place::EndOfBeforeEach.insert(&mut bare, "x\n").is_err());
    }

    #[test]
    fn a_missing_place_fails_and_names_round_trip() {
        let mut text = "package v1\n".to_string();
        assert!(Place::EndOfImports.insert(&mut text, "x\n").is_err());
        assert!(Place::EndOfWebhookBuilder.insert(&mut text, "x\n").is_err());
        for (name, place, description) in NAMES {
            assert_eq!(Place::named(name), Some(*place));
            assert_eq!(place.describe(), *description);
        }
    }
}
