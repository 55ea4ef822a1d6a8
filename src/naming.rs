//! Validation of the names users type: domains, project names, Go module paths.
//!
//! Every error names the flag, the rejected value and what is allowed, on one line.

use anyhow::{Result, bail};

/// Longest DNS-1123 subdomain.
const MAX_SUBDOMAIN: usize = 253;
/// Longest DNS-1123 label.
const MAX_LABEL: usize = 63;

/// Whether `s` is a DNS-1123 label: lowercase letters, digits and `-`,
/// starting and ending with a letter or digit, at most 63 characters.
pub fn is_dns1123_label(s: &str) -> bool {
    let bytes = s.as_bytes();
    !s.is_empty()
        && s.len() <= MAX_LABEL
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

/// Whether `s` is a DNS-1123 subdomain: DNS-1123 labels joined by dots, at
/// most 253 characters.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= MAX_SUBDOMAIN && s.split('.').all(is_dns1123_label)
}

/// Checks a value of `--domain`.
pub fn validate_domain(domain: &str) -> Result<()> {
    if !is_dns1123_subdomain(domain) {
        bail!(
            "invalid --domain {domain:?}: must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit, e.g. example.com)"
        );
    }
    Ok(())
}

/// Checks a project name (from `--project-name` or the directory's name).
pub fn validate_project_name(name: &str) -> Result<()> {
    if !is_dns1123_label(name) {
        bail!(
            "invalid project name {name:?}: must be a DNS-1123 label (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit); pass --project-name"
        );
    }
    Ok(())
}

/// Checks a Go module path given with `--repo` or found in `go.mod`: elements
/// separated by `/`, each made of ASCII letters, digits and `-._~`, none empty,
/// none starting or ending with a dot; the first element lowercase and not
/// starting with `-`.
pub fn validate_go_module_path(path: &str) -> Result<()> {
    if let Some(reason) = go_module_path_problem(path) {
        bail!(
            "invalid --repo {path:?}: {reason}; a Go module path looks like github.com/example/my-operator"
        );
    }
    Ok(())
}

/// What is wrong with a Go module path, if anything.
fn go_module_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("it is empty");
    }
    if path.starts_with('/') || path.ends_with('/') {
        return Some("it must not start or end with '/'");
    }
    for element in path.split('/') {
        if element.is_empty() {
            return Some("it must not contain '//'");
        }
        if element.starts_with('.') || element.ends_with('.') {
            return Some("no path element may start or end with '.'");
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
        if !element.chars().all(allowed) {
            return Some("only ASCII letters, digits, '-', '.', '_', '~' and '/' are allowed");
        }
    }
    let first = path.split('/').next().unwrap_or_default();
    if first.starts_with('-') {
        return Some("the first element must not start with '-'");
    }
    if first.chars().any(|c| c.is_ascii_uppercase()) {
        return Some("the first element (the host) must be lowercase");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert!(is_dns1123_label("my-project"));
        assert!(is_dns1123_label("a1"));
        for bad in ["", "-a", "a-", "My", "a_b", "a.b", &"a".repeat(64)] {
            assert!(!is_dns1123_label(bad), "{bad}");
        }
    }

    #[test]
    fn subdomains() {
        assert!(is_dns1123_subdomain("my.domain"));
        assert!(is_dns1123_subdomain("example.com"));
        for bad in ["", "a..b", ".a", "a.", "Example.com", "a_b.com"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
    }

    #[test]
    fn module_paths() {
        for good in [
            "example.com/guestbook",
            "github.com/Org/Repo.v2",
            "local",
            "a.b/c~d_e",
        ] {
            assert!(validate_go_module_path(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "/abs",
            "a//b",
            "a/",
            "with space/x",
            "Example.com/x",
            "-x/y",
            "a/.b",
        ] {
            assert!(validate_go_module_path(bad).is_err(), "{bad}");
        }
    }
}
