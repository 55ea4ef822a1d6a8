//! Path globs: `*` matches within one path segment, `**` any number of
//! whole segments (none included).

use std::path::Path;

/// Whether `path` (relative, `/`-separated) matches `pattern`.
pub fn matches(pattern: &str, path: &Path) -> bool {
    let text = path.to_string_lossy();
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = text.split('/').collect();
    segments_match(&pattern, &path)
}

fn segments_match(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments_match(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((segment, tail)) => {
                segment_matches(first.as_bytes(), segment.as_bytes()) && segments_match(rest, tail)
            }
            None => false,
        },
    }
}

fn segment_matches(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|skip| segment_matches(rest, &text[skip..])),
        Some((c, rest)) => text.first() == Some(c) && segment_matches(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let m = |p: &str, s: &str| matches(p, Path::new(s));
        assert!(m("**/zz_generated.*", "api/v1/zz_generated.deepcopy.txt"));
        assert!(m("**/zz_generated.*", "zz_generated.deepcopy.txt"));
        assert!(m("config/crd/bases/**", "config/crd/bases/a.yaml"));
        assert!(!m("config/crd/bases/**", "config/crd/a.yaml"));
        assert!(m("deps.lock", "deps.lock"));
        assert!(!m("deps.lock", "sub/deps.lock"));
        assert!(!m("*.txt", "a/b.txt"));
        assert!(m("dist/*", "dist/install.yaml"));
    }
}
