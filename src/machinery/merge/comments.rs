//! Which lines of a file are comments or blank, by the comment syntax its
//! name implies; the merge ignores a scaffold change made only there.
//! Directive comments (`// +kubebuilder:…`, `# +kubebuilder:scaffold:…`, a
//! `#!` line, and the directives a layout registers for its language) count
//! as code: tools read them. Files with `#` comments are known here by name;
//! the layouts register their source files, whose comments are `//` lines
//! (see [`SlashComments`]). Lines are read by the whole-line rule of
//! [`lines`].

use crate::machinery::lines;
use std::path::Path;

/// Files whose comments are `// …` lines and `/* … */` blocks, as a layout
/// registers them for the merge (see
/// [`MergeOptions::slash_comments`](super::MergeOptions::slash_comments)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlashComments {
    /// The extension of the files' names, without the dot.
    pub extension: &'static str,
    /// What, right after `//`, makes a comment a directive its tools read
    /// (counted as code). A comment whose text starts with `+` always is.
    pub directives: &'static [&'static str],
}

/// A file type's comment syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `// …` lines and `/* … */` blocks, with the directives a layout
    /// registered.
    Slash(&'static [&'static str]),
    /// `# …` lines (YAML, Makefile, Dockerfile, TOML, shell, ignore files, PROJECT).
    Hash,
}

/// File names (whole) with `#` comments.
const HASH_NAMES: &[&str] = &[
    "Makefile",
    "Dockerfile",
    "Containerfile",
    "PROJECT",
    ".gitignore",
    ".dockerignore",
    ".helmignore",
];

/// Extensions with `#` comments.
const HASH_EXTENSIONS: &[&str] = &["yaml", "yml", "toml", "sh", "bash", "mk", "cfg", "conf"];

impl Syntax {
    /// The syntax of the file at `path`, `None` when unknown; `slash` are
    /// the files with `//` comments the layouts registered.
    pub fn for_path(path: &Path, slash: &[SlashComments]) -> Option<Self> {
        let name = path.file_name()?.to_str()?;
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if let Some(registered) = slash.iter().find(|s| s.extension == extension) {
            Some(Syntax::Slash(registered.directives))
        } else if HASH_NAMES.contains(&name)
            || HASH_EXTENSIONS.contains(&extension)
            || name.starts_with("Dockerfile.")
        {
            Some(Syntax::Hash)
        } else {
            None
        }
    }

    /// For each line: whether it holds code (neither blank nor only a comment).
    pub fn code_lines(self, lines: &[&str]) -> Vec<bool> {
        let mut in_block = false;
        lines
            .iter()
            .map(|line| match self {
                Syntax::Hash => hash_code(line),
                Syntax::Slash(directives) => slash_code(line, directives, &mut in_block),
            })
            .collect()
    }
}

/// Whether a line of a `#` file holds code.
fn hash_code(line: &str) -> bool {
    match lines::after_sign(line, "#") {
        None => !line.trim().is_empty(),
        Some(rest) => rest.starts_with('!') || rest.trim_start().starts_with('+'),
    }
}

/// Whether a line of a `//` file holds code; tracks `/* … */` blocks that
/// start at the beginning of a line.
fn slash_code(line: &str, directives: &[&str], in_block: &mut bool) -> bool {
    let line = line.trim();
    if *in_block {
        return match line.find("*/") {
            Some(at) => {
                *in_block = false;
                !line[at + 2..].trim().is_empty()
            }
            None => false,
        };
    }
    if let Some(rest) = lines::after_sign(line, "//") {
        return is_directive(rest, directives);
    }
    if let Some(rest) = line.strip_prefix("/*") {
        return match rest.find("*/") {
            Some(at) => !rest[at + 2..].trim().is_empty(),
            None => {
                *in_block = true;
                false
            }
        };
    }
    !line.is_empty()
}

/// Whether the text after `//` makes the comment a directive a tool reads.
fn is_directive(rest: &str, directives: &[&str]) -> bool {
    directives.iter().any(|d| rest.starts_with(d)) || rest.trim_start().starts_with('+')
}

/// The code lines of `lines` in `range`, without trailing whitespace.
pub fn code_of<'a>(
    lines: &[&'a str],
    code: &[bool],
    range: std::ops::Range<usize>,
) -> Vec<&'a str> {
    range
        .filter(|&i| code[i])
        .map(|i| lines[i].trim_end())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layout's source files, for the tests.
    const SOURCE: SlashComments = SlashComments {
        extension: "src",
        directives: &["tool:", "lint"],
    };

    fn flags(syntax: Syntax, text: &str) -> Vec<bool> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        syntax.code_lines(&lines)
    }

    #[test]
    fn syntax_by_name() {
        let slash = Some(Syntax::Slash(SOURCE.directives));
        assert_eq!(Syntax::for_path(Path::new("a/b.src"), &[SOURCE]), slash);
        assert_eq!(Syntax::for_path(Path::new("a/b.src"), &[]), None);
        let hash = |name: &str| Syntax::for_path(Path::new(name), &[SOURCE]);
        assert_eq!(hash("Makefile"), Some(Syntax::Hash));
        assert_eq!(hash("config/a.yaml"), Some(Syntax::Hash));
        assert_eq!(hash(".linter.yml"), Some(Syntax::Hash));
        assert_eq!(hash("PROJECT"), Some(Syntax::Hash));
        assert_eq!(hash("README.md"), None);
    }

    #[test]
    fn slash_lines_and_blocks() {
        let text = "// a\nx := 1 // trailing\n/* one */\n/*\n * inside\n*/\n\n//tool:build e2e\n// +kubebuilder:rbac\ny\n//lint\n// tool:no\n";
        assert_eq!(
            flags(Syntax::Slash(SOURCE.directives), text),
            vec![
                false, true, false, false, false, false, false, true, true, true, true, false
            ]
        );
        assert_eq!(flags(Syntax::Slash(&[]), "//tool:build\n"), vec![false]);
    }

    #[test]
    fn hash_lines() {
        let text = "# c\n\na: 1\n#!/bin/sh\n# +kubebuilder:scaffold:x\n  # indented\n";
        assert_eq!(
            flags(Syntax::Hash, text),
            vec![false, false, true, true, true, false]
        );
    }
}
