//! The merge of `go.mod` for `alpha update`: the user's file, with the
//! scaffold's changes of the `go` and `toolchain` directives and of its
//! `require` versions applied (unless the user already requires a newer
//! release). A module the scaffold dropped stays, the
//! user's `replace` and `exclude` stay, and the formatting is the user's;
//! the post-steps' `go mod tidy` settles the rest.

use crate::machinery::merge::FileMerger;
use crate::project::cli_version::compare_releases;
use std::collections::BTreeMap;
use std::path::Path;

/// go/v4's merger of `go.mod`.
pub struct GoModMerger;

impl FileMerger for GoModMerger {
    fn handles(&self, path: &Path) -> bool {
        path == Path::new("go.mod")
    }

    fn merge(&self, ancestor: &str, original: &str, upgrade: &str) -> Option<String> {
        let (a, u) = (GoMod::parse(ancestor)?, GoMod::parse(upgrade)?);
        let mut o = GoMod::parse(original)?;
        for directive in ["go", "toolchain"] {
            let new = u.directives.get(directive).map(|&at| u.value(at));
            let old = a.directives.get(directive).map(|&at| a.value(at));
            if let Some(new) = new.filter(|&new| Some(new) != old) {
                o.set_directive(directive, new);
            }
        }
        let mut missing = Vec::new();
        for (module, &at) in &u.requires {
            let version = u.value(at);
            if a.requires.get(module).map(|&at| a.value(at)) == Some(version)
                || o.requires_newer(module, version)
            {
                continue;
            }
            if !o.set_require(module, version) {
                missing.push(format!("{module} {version}"));
            }
        }
        o.add_requires(&missing);
        Some(o.text(original.ends_with('\n')))
    }
}

/// The directive keywords go.mod knows.
const KEYWORDS: &[&str] = &[
    "module",
    "go",
    "toolchain",
    "godebug",
    "require",
    "replace",
    "exclude",
    "retract",
    "tool",
    "ignore",
];

/// A parsed go.mod: its lines, and where the parts this merge edits are.
struct GoMod {
    lines: Vec<String>,
    /// `go`, `toolchain` and `module` by keyword: the line index.
    directives: BTreeMap<String, usize>,
    /// Required modules: the line index of (the last) requirement.
    requires: BTreeMap<String, usize>,
    /// The index of the closing `)` of the first `require ( … )` block.
    require_block_end: Option<usize>,
}

impl GoMod {
    /// Parses `text`; `None` on anything this merge does not understand.
    fn parse(text: &str) -> Option<Self> {
        let mut mod_file = GoMod {
            lines: text.lines().map(str::to_owned).collect(),
            directives: BTreeMap::new(),
            requires: BTreeMap::new(),
            require_block_end: None,
        };
        let mut block: Option<String> = None;
        for (index, line) in mod_file.lines.iter().enumerate() {
            let fields: Vec<&str> = code(line).split_whitespace().collect();
            if let Some(keyword) = &block {
                match fields.as_slice() {
                    [")"] => {
                        if keyword == "require" && mod_file.require_block_end.is_none() {
                            mod_file.require_block_end = Some(index);
                        }
                        block = None;
                    }
                    [module, _] if keyword == "require" => {
                        mod_file.requires.insert(unquote(module), index);
                    }
                    _ if keyword == "require" && !fields.is_empty() => return None,
                    _ => {}
                }
                continue;
            }
            match fields.as_slice() {
                [] => {}
                [keyword, ..] if !KEYWORDS.contains(keyword) => return None,
                [keyword, "("] => block = Some((*keyword).to_owned()),
                ["require", module, _] => {
                    mod_file.requires.insert(unquote(module), index);
                }
                ["require", ..] => return None,
                [keyword @ ("go" | "toolchain" | "module"), _] => {
                    mod_file.directives.insert((*keyword).to_owned(), index);
                }
                ["go" | "toolchain" | "module", ..] => return None,
                _ => {}
            }
        }
        block.is_none().then_some(mod_file)
    }

    /// The last field (a version, or a directive's value) of line `at`.
    fn value(&self, at: usize) -> &str {
        code(&self.lines[at])
            .split_whitespace()
            .last()
            .unwrap_or("")
    }

    /// Sets directive `keyword` to `value`, adding it after the `module`
    /// line (or the `go` line, for `toolchain`) when missing.
    fn set_directive(&mut self, keyword: &str, value: &str) {
        if let Some(&at) = self.directives.get(keyword) {
            self.replace_value(at, value);
            return;
        }
        let after = ["go", "module"]
            .iter()
            .filter(|k| **k != keyword)
            .find_map(|k| self.directives.get(*k).copied());
        let at = after.map_or(0, |a| a + 1);
        self.insert_line(at, format!("{keyword} {value}"));
        self.directives.insert(keyword.to_owned(), at);
    }

    /// Whether `module` is required at a release newer than `version` (a
    /// user who moved past the scaffold's pin keeps their version).
    fn requires_newer(&self, module: &str, version: &str) -> bool {
        self.requires.get(module).is_some_and(|&at| {
            compare_releases(self.value(at), version) == Some(std::cmp::Ordering::Greater)
        })
    }

    /// Sets the version `module` is required at; false when it is not required.
    fn set_require(&mut self, module: &str, version: &str) -> bool {
        let Some(&at) = self.requires.get(module) else {
            return false;
        };
        self.replace_value(at, version);
        true
    }

    /// Adds requirements (`module version`) to the first require block, or
    /// in a new block at the end.
    fn add_requires(&mut self, missing: &[String]) {
        if missing.is_empty() {
            return;
        }
        match self.require_block_end {
            Some(end) => {
                for (i, line) in missing.iter().enumerate() {
                    self.lines.insert(end + i, format!("\t{line}"));
                }
            }
            None => {
                self.lines.push(String::new());
                self.lines.push("require (".to_owned());
                self.lines.extend(missing.iter().map(|l| format!("\t{l}")));
                self.lines.push(")".to_owned());
            }
        }
    }

    /// Replaces the last field of line `at` (before any comment) with `value`.
    fn replace_value(&mut self, at: usize, value: &str) {
        let line = &self.lines[at];
        let code_part = code(line).trim_end();
        let start = code_part.rfind(char::is_whitespace).map_or(0, |s| s + 1);
        self.lines[at] = format!("{}{value}{}", &line[..start], &line[code_part.len()..]);
    }

    /// Inserts a line, shifting the recorded indices after it.
    fn insert_line(&mut self, at: usize, line: String) {
        self.lines.insert(at, line);
        let shift = |i: &mut usize| {
            if *i >= at {
                *i += 1;
            }
        };
        self.directives.values_mut().for_each(shift);
        self.requires.values_mut().for_each(shift);
        if let Some(end) = self.require_block_end.as_mut() {
            shift(end);
        }
    }

    fn text(&self, final_newline: bool) -> String {
        let mut text = self.lines.join("\n");
        if final_newline {
            text.push('\n');
        }
        text
    }
}

/// A line without its `//` comment.
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// A module path without the quotes go.mod allows around it.
fn unquote(module: &str) -> String {
    module.trim_matches('"').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANCESTOR: &str = "module example.com/op

go 1.23.0

godebug default=go1.23

require (
\tgithub.com/onsi/ginkgo/v2 v2.22.0
\tk8s.io/api v0.32.1
\tsigs.k8s.io/controller-runtime v0.20.4
\tgithub.com/old/thing v1.0.0
)

require (
\tgithub.com/beorn7/perks v1.0.1 // indirect
)
";

    const USER: &str = "module example.com/op

go 1.23.0

godebug default=go1.23

require (
\tgithub.com/onsi/ginkgo/v2 v2.22.0
\tgithub.com/user/lib v0.3.0 // mine
\tk8s.io/api v0.32.1
\tsigs.k8s.io/controller-runtime v0.20.4
\tgithub.com/old/thing v1.0.0
)

require (
\tgithub.com/beorn7/perks v1.0.1 // indirect
)

replace github.com/user/lib => ../lib
";

    const UPGRADE: &str = "module example.com/op

go 1.24.0

toolchain go1.24.5

require (
\tgithub.com/onsi/ginkgo/v2 v2.22.0
\tk8s.io/api v0.33.0
\tsigs.k8s.io/controller-runtime v0.21.0
\tgithub.com/new/dep v1.2.3
)

require github.com/beorn7/perks v1.0.2 // indirect
";

    const MERGED: &str = "module example.com/op

go 1.24.0
toolchain go1.24.5

godebug default=go1.23

require (
\tgithub.com/onsi/ginkgo/v2 v2.22.0
\tgithub.com/user/lib v0.3.0 // mine
\tk8s.io/api v0.33.0
\tsigs.k8s.io/controller-runtime v0.21.0
\tgithub.com/old/thing v1.0.0
\tgithub.com/new/dep v1.2.3
)

require (
\tgithub.com/beorn7/perks v1.0.2 // indirect
)

replace github.com/user/lib => ../lib
";

    #[test]
    fn applies_the_scaffolds_pins_to_the_users_go_mod() {
        let merged = GoModMerger.merge(ANCESTOR, USER, UPGRADE);
        assert_eq!(merged.as_deref(), Some(MERGED));
    }

    #[test]
    fn keeps_the_users_versions_the_scaffold_did_not_move() {
        let user = USER.replace("ginkgo/v2 v2.22.0", "ginkgo/v2 v2.23.4");
        let merged = GoModMerger.merge(ANCESTOR, &user, UPGRADE).unwrap();
        assert!(merged.contains("ginkgo/v2 v2.23.4\n"), "{merged}");
    }

    #[test]
    fn keeps_a_users_release_newer_than_the_scaffolds_pin() {
        let a = "module m\n\nrequire a.io/x v1.0.0\n";
        let o = "module m\n\nrequire a.io/x v1.5.0\n";
        let u = "module m\n\nrequire a.io/x v1.1.0\n";
        assert_eq!(GoModMerger.merge(a, o, u).as_deref(), Some(o));
        let older = "module m\n\nrequire a.io/x v1.0.5\n";
        let merged = GoModMerger.merge(a, older, u).unwrap();
        assert!(merged.contains("a.io/x v1.1.0"), "{merged}");
    }

    #[test]
    fn single_line_requires_and_a_new_block() {
        let a = "module m\n\ngo 1.22\n\nrequire a.io/x v1.0.0\n";
        let o = "module m\n\ngo 1.22\n\nrequire a.io/x v1.0.0 // pinned\n";
        let u = "module m\n\ngo 1.22\n\nrequire a.io/x v1.1.0\nrequire b.io/y v0.1.0\n";
        let merged = GoModMerger.merge(a, o, u).unwrap();
        assert_eq!(
            merged,
            "module m\n\ngo 1.22\n\nrequire a.io/x v1.1.0 // pinned\n\nrequire (\n\tb.io/y v0.1.0\n)\n"
        );
    }

    #[test]
    fn unparsable_go_mod_falls_back() {
        let bad = "module m\nrequire (\n\ta.io/x\n)\n";
        assert_eq!(GoModMerger.merge(bad, "module m\n", "module m\n"), None);
        assert_eq!(
            GoModMerger.merge("module m\n", "module m\nrequire (\n", "module m\n"),
            None
        );
        assert_eq!(
            GoModMerger.merge("module m\n", "frobnicate x\n", "module m\n"),
            None
        );
    }

    #[test]
    fn the_go_plugin_offers_it() {
        use crate::plugins::UpdateHook as _;
        let mergers = super::super::GoBase.file_mergers();
        assert!(mergers.iter().any(|m| m.handles(Path::new("go.mod"))));
    }

    #[test]
    fn handles_only_go_mod() {
        assert!(GoModMerger.handles(Path::new("go.mod")));
        assert!(!GoModMerger.handles(Path::new("api/go.mod")));
        assert!(!GoModMerger.handles(Path::new("go.sum")));
    }
}
