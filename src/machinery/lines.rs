//! Whole lines: the one rule by which the machinery finds a line, a marker
//! line or a block of lines in a file's text.
//!
//! - A *line* runs from a line start (the start of the text, or just after a
//!   `\n`) up to and including its `\n`; the last line may lack the `\n`.
//! - A line *reads* `x` when it is `x` once its surrounding whitespace is
//!   taken off: its indentation, trailing blanks and its line end, `\n` or
//!   `\r\n`. So a line of a CRLF file reads as the same line with LF.
//! - A line is a *comment* of sign `s` (`//` or `#`) when, once its
//!   indentation is taken off, it starts with `s`; what follows the sign is
//!   the comment's text. A line starting with `///` or `##` is thus a comment
//!   too, whose text starts with `/` or `#`.
//! - A *marker line* of `m` is a comment line, of either sign, whose text is
//!   `m` and nothing else once trimmed: `+kubebuilder:scaffold:webhook` never
//!   matches a `+kubebuilder:scaffold:webhook-builder` line.
//! - A *block* of lines stands in a text where its bytes occur starting at a
//!   line start and ending at a line end: the block ends with `\n`, or the
//!   text ends right after it, or a `\n` follows it. Blocks are compared byte
//!   for byte, so a caller that edits a CRLF file converts it to LF first (as
//!   [`Plan::resolve`](super::Plan::resolve) does). The empty block stands at
//!   every empty line, which includes the end of an empty text or of one that
//!   ends with `\n`.

/// The signs that start a comment line.
pub const COMMENT_SIGNS: [&str; 2] = ["//", "#"];

/// Every line of `text` (its `\n` included) with the byte offset it starts at.
pub fn with_starts(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |line| {
        let entry = (start, line);
        start += line.len();
        entry
    })
}

/// Whether `line` reads `expected` (see the module's rule).
pub fn reads(line: &str, expected: &str) -> bool {
    line.trim() == expected
}

/// The text after the comment sign `sign` when `line` is a comment of that
/// sign, untrimmed; `None` otherwise.
pub fn after_sign<'a>(line: &'a str, sign: &str) -> Option<&'a str> {
    line.trim().strip_prefix(sign)
}

/// The trimmed text of a comment line of either sign; `None` for a line
/// that is not a comment.
pub fn comment_text(line: &str) -> Option<&str> {
    COMMENT_SIGNS
        .iter()
        .find_map(|sign| after_sign(line, sign))
        .map(str::trim)
}

/// Whether `line` is a marker line of `marker`.
pub fn is_marker_line(line: &str, marker: &str) -> bool {
    comment_text(line) == Some(marker)
}

/// Where the first marker line of `marker` in `text` starts.
pub fn marker_line(text: &str, marker: &str) -> Option<usize> {
    with_starts(text)
        .find(|(_, line)| is_marker_line(line, marker))
        .map(|(start, _)| start)
}

/// Every offset where `block` stands in `text` as whole lines, in order.
pub fn block_starts<'a>(text: &'a str, block: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(block).map(|(at, _)| at).filter(|&at| {
        let end = at + block.len();
        (at == 0 || text.as_bytes()[at - 1] == b'\n')
            && (block.ends_with('\n') || end == text.len() || text.as_bytes()[end] == b'\n')
    })
}

/// Where `block` first stands in `text` as whole lines.
pub fn find_block(text: &str, block: &str) -> Option<usize> {
    block_starts(text, block).next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_with_their_offsets() {
        let lines: Vec<_> = with_starts("a\r\nbc\nd").collect();
        assert_eq!(lines, [(0, "a\r\n"), (3, "bc\n"), (6, "d")]);
        assert!(reads("\t)\r\n", ")") && !reads("\t) x\n", ")"));
    }

    #[test]
    fn marker_lines_are_whole_comment_lines_of_either_sign() {
        assert!(is_marker_line("\t// +m\r\n", "+m"));
        assert!(is_marker_line("  #   +m  \n", "+m"));
        assert!(!is_marker_line("// +m-more\n", "+m"));
        assert!(!is_marker_line("x // +m\n", "+m"));
        assert!(!is_marker_line("+m\n", "+m"));
        assert_eq!(marker_line("a\n# +m\n", "+m"), Some(2));
        assert_eq!(after_sign("  //x\n", "//"), Some("x"));
        assert_eq!(comment_text("## note\n"), Some("# note"));
    }

    #[test]
    fn blocks_stand_from_a_line_start_to_a_line_end() {
        assert_eq!(find_block("a\nbc\n", "bc\n"), Some(2));
        assert_eq!(find_block("a\nbc", "bc"), Some(2));
        assert_eq!(find_block("a\nbc\nd", "bc"), Some(2));
        assert_eq!(find_block("a\nbcd\n", "bc"), None);
        assert_eq!(find_block("abc\n", "bc\n"), None);
        assert_eq!(block_starts("x\nx\n", "x\n").count(), 2);
        assert_eq!(find_block("abc\n", ""), Some(4));
        assert_eq!(find_block("abc", ""), None);
    }
}
