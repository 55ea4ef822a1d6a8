//! Which lines of a file are comments or blank, by the comment syntax its
//! name implies; the merge ignores a scaffold change made only there.
//! Directive comments (`//go:build`, `//nolint`, `// +kubebuilder:…`,
//! `# +kubebuilder:scaffold:…`, a `#!` line) count as code: tools read them.

use std::path::Path;

/// A file type's comment syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `// …` lines and `/* … */` blocks (Go, Rust).
    Slash,
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
    /// The syntax of the file at `path`, `None` when unknown.
    pub fn for_path(path: &Path) -> Option<Self> {
        let name = path.file_name()?.to_str()?;
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(extension, "go" | "rs") {
            Some(Syntax::Slash)
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
                Syntax::Hash => hash_code(line.trim()),
                Syntax::Slash => slash_code(line.trim(), &mut in_block),
            })
            .collect()
    }
}

/// Whether a trimmed line of a `#` file holds code.
fn hash_code(line: &str) -> bool {
    match line.strip_prefix('#') {
        None => !line.is_empty(),
        Some(rest) => rest.starts_with('!') || rest.trim_start().starts_with('+'),
    }
}

/// Whether a trimmed line of a `//` file holds code; tracks `/* … */` blocks
/// that start at the beginning of a line.
fn slash_code(line: &str, in_block: &mut bool) -> bool {
    if *in_block {
        return match line.find("*/") {
            Some(at) => {
                *in_block = false;
                !line[at + 2..].trim().is_empty()
            }
            None => false,
        };
    }
    if let Some(rest) = line.strip_prefix("//") {
        return is_directive(rest);
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
fn is_directive(rest: &str) -> bool {
    rest.starts_with("go:") || rest.starts_with("nolint") || rest.trim_start().starts_with('+')
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

    fn flags(syntax: Syntax, text: &str) -> Vec<bool> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        syntax.code_lines(&lines)
    }

    #[test]
    fn syntax_by_name() {
        assert_eq!(Syntax::for_path(Path::new("a/b.go")), Some(Syntax::Slash));
        assert_eq!(Syntax::for_path(Path::new("src/x.rs")), Some(Syntax::Slash));
        assert_eq!(Syntax::for_path(Path::new("Makefile")), Some(Syntax::Hash));
        assert_eq!(
            Syntax::for_path(Path::new("config/a.yaml")),
            Some(Syntax::Hash)
        );
        assert_eq!(
            Syntax::for_path(Path::new(".golangci.yml")),
            Some(Syntax::Hash)
        );
        assert_eq!(Syntax::for_path(Path::new("PROJECT")), Some(Syntax::Hash));
        assert_eq!(Syntax::for_path(Path::new("README.md")), None);
    }

    #[test]
    fn slash_lines_and_blocks() {
        let text = "// a\nx := 1 // trailing\n/* one */\n/*\n * inside\n*/\n\n//go:build e2e\n// +kubebuilder:rbac\ny\n";
        assert_eq!(
            flags(Syntax::Slash, text),
            vec![
                false, true, false, false, false, false, false, true, true, true
            ]
        );
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
