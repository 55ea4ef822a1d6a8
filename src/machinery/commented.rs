//! Finding a commented-out YAML block by its content, whoever wrote the file.
//!
//! A kustomization scaffolded by kubebuilder and one scaffolded by this tool
//! switch on the same optional blocks (`#- ../webhook`, `# - source: …`),
//! but explain them in different words: prose lines around a block, and
//! comments at the end of its lines (`fieldPath: .metadata.name # …`). A
//! block is therefore recognised by its YAML alone: the lines of the block,
//! in order, each prefixed by one `#`, compared without their trailing
//! comments. Comment-only lines inside a block (`#` or `# # note`) are
//! skipped. Switching a block on removes the first `#` of each of its YAML
//! lines and leaves every other byte of the file, its comments included, as
//! it was.

use super::lines;

/// Whether a block is looked for switched off (`#`-prefixed) or on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Commented,
    Live,
}

/// A block to switch on: its YAML lines as they read once switched on, and
/// optionally the marker it must stand right above.
#[derive(Debug)]
pub(crate) struct Block<'a> {
    lines: Vec<&'a str>,
    above: Option<&'a str>,
}

impl<'a> Block<'a> {
    /// The block `text` (switched on). With `above`, only a block followed by
    /// that marker line counts, with at most the marker's own insertions
    /// (live lines indented deeper than the block) in between: this tells
    /// apart blocks whose YAML is alike, such as a replacement `source`
    /// whose `targets:` list is filled at a marker from one with targets of
    /// its own.
    pub(crate) fn new(text: &'a str, above: Option<&'a str>) -> Self {
        Self {
            lines: text.lines().collect(),
            above,
        }
    }

    /// The block's first line as it reads switched off, to name the block
    /// in messages.
    pub(crate) fn first_line_commented(&self) -> String {
        format!("#{}", self.lines.first().copied().unwrap_or_default())
    }

    /// Whether `text` holds the block switched on.
    pub(crate) fn is_live_in(&self, text: &str) -> bool {
        self.find(text, Form::Live).is_some()
    }

    /// `text` with the block switched on where it stands commented out, or
    /// `None` when it holds no such block.
    pub(crate) fn switch_on(&self, text: &str) -> Option<String> {
        let found = self.find(text, Form::Commented)?;
        let mut out = String::with_capacity(text.len());
        for (index, line) in text.split_inclusive('\n').enumerate() {
            if found.contains(&index) {
                out.push_str(line.strip_prefix('#').unwrap_or(line));
            } else {
                out.push_str(line);
            }
        }
        Some(out)
    }

    /// The indexes of the file lines that hold the block's YAML lines, for
    /// the first place where the whole block stands in `form`.
    fn find(&self, text: &str, form: Form) -> Option<Vec<usize>> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        (0..lines.len()).find_map(|start| {
            let found = self.match_at(&lines, start, form)?;
            let end = found.last().map_or(start, |last| last + 1);
            self.anchored(&lines, end).then_some(found)
        })
    }

    /// The block's YAML lines matched from file line `start` on, skipping
    /// comment-only lines inside the block.
    fn match_at(&self, lines: &[&str], start: usize, form: Form) -> Option<Vec<usize>> {
        let mut found = Vec::with_capacity(self.lines.len());
        let mut index = start;
        for wanted in &self.lines {
            loop {
                let content = content_in(lines.get(index)?, form)?;
                if is_note(content) && !found.is_empty() {
                    index += 1;
                    continue;
                }
                if yaml_of(content) != yaml_of(wanted) {
                    return None;
                }
                found.push(index);
                index += 1;
                break;
            }
        }
        (!found.is_empty()).then_some(found)
    }

    /// Whether the block ending before file line `end` stands where `above`
    /// asks (always true without `above`).
    fn anchored(&self, lines: &[&str], end: usize) -> bool {
        let Some(marker) = self.above else {
            return true;
        };
        let depth = self.lines.first().map_or(0, |line| indentation(line));
        let rest = &lines[end.min(lines.len())..];
        let inserted = rest
            .iter()
            .take_while(|line| {
                content_in(line, Form::Live)
                    .is_some_and(|content| !is_note(content) && indentation(content) > depth)
            })
            .count();
        rest.get(inserted)
            .is_some_and(|line| lines::is_marker_line(line, marker))
    }
}

/// The text of a file line as YAML in `form`: a commented line without its
/// first `#`, or a live line as it is; `None` when the line is not in that form.
fn content_in(line: &str, form: Form) -> Option<&str> {
    match form {
        Form::Commented => line.strip_prefix('#'),
        Form::Live => lines::after_sign(line, "#").is_none().then_some(line),
    }
}

/// Whether a line holds no YAML: blank, or a comment.
fn is_note(content: &str) -> bool {
    content.trim().is_empty() || lines::after_sign(content, "#").is_some()
}

/// A line's YAML: indentation kept, trailing comment and spaces removed.
fn yaml_of(line: &str) -> &str {
    let mut quote = None;
    let mut after_space = true;
    for (at, c) in line.char_indices() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && after_space => return line[..at].trim_end(),
            None => {}
        }
        after_space = c.is_whitespace();
    }
    line.trim_end()
}

/// How many spaces a line starts with.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_comments_and_prose_do_not_matter() {
        let file = "# Prose about the block.\n# - source: # their words\n#     kind: Service\n#     fieldPath: .metadata.name # more words\nnext: 1\n";
        let block = Block::new(
            " - source: # our words\n     kind: Service\n     fieldPath: .metadata.name\n",
            None,
        );
        assert_eq!(
            block.switch_on(file).unwrap(),
            "# Prose about the block.\n - source: # their words\n     kind: Service\n     fieldPath: .metadata.name # more words\nnext: 1\n"
        );
        assert!(block.is_live_in(&block.switch_on(file).unwrap()));
        assert!(!block.is_live_in(file));
    }

    #[test]
    fn yaml_must_match_line_for_line() {
        let block = Block::new("- ../webhook\n", None);
        assert!(
            block
                .switch_on("#- ../webhooks\n#  - ../webhook\n")
                .is_none()
        );
        assert!(block.switch_on("##- ../webhook\n").is_none());
        assert_eq!(
            block.switch_on("#- ../webhook\n").unwrap(),
            "- ../webhook\n"
        );
    }

    #[test]
    fn comment_lines_inside_a_block_are_kept() {
        let block = Block::new("- path: p.yaml\n  target:\n", None);
        assert_eq!(
            block
                .switch_on("#- path: p.yaml\n#  # a note\n#  target:\n")
                .unwrap(),
            "- path: p.yaml\n#  # a note\n  target:\n"
        );
    }

    #[test]
    fn quoted_hashes_are_yaml() {
        assert_eq!(yaml_of("  delimiter: '#' # why"), "  delimiter: '#'");
        assert_eq!(yaml_of("  url: \"a #b\""), "  url: \"a #b\"");
    }

    #[test]
    fn an_anchored_block_is_the_one_above_its_marker() {
        let file = "# - source:\n#   targets:\n#     - select: {kind: Other}\n\n# - source:\n#   targets:\n     - select: {kind: Mine}\n# +kubebuilder:scaffold:m\n";
        let block = Block::new(" - source:\n   targets:\n", Some("+kubebuilder:scaffold:m"));
        let on = block.switch_on(file).unwrap();
        assert_eq!(
            on,
            "# - source:\n#   targets:\n#     - select: {kind: Other}\n\n - source:\n   targets:\n     - select: {kind: Mine}\n# +kubebuilder:scaffold:m\n"
        );
        assert!(block.is_live_in(&on));
        assert!(!Block::new(" - source:\n   targets:\n", None).is_live_in(file));
    }
}
