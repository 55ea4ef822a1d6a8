//! Validation of the names users type: domains, project names, Go module
//! paths, and the group, version and kind of an API.
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

/// Checks a value of `--group`: a DNS-1123 subdomain such as `crew` or `foo.policy`.
pub fn validate_group(group: &str) -> Result<()> {
    if !is_dns1123_subdomain(group) {
        bail!(
            "invalid --group {group:?}: must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', e.g. crew or foo.policy)"
        );
    }
    Ok(())
}

/// Checks a value of `--version`: `v` and a number, optionally followed by
/// `alpha` or `beta` and a number (`v1`, `v1alpha1`, `v2beta3`).
pub fn validate_version(version: &str) -> Result<()> {
    if !is_api_version(version) {
        bail!(
            "invalid --version {version:?}: must look like v1, v1alpha1 or v2beta3 (v, a number, then optionally alpha or beta and a number)"
        );
    }
    Ok(())
}

/// Whether `s` is a Kubernetes API version name.
fn is_api_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let major_len = rest.chars().take_while(char::is_ascii_digit).count();
    if major_len == 0 || rest.starts_with('0') {
        return false;
    }
    let tail = &rest[major_len..];
    if tail.is_empty() {
        return true;
    }
    let Some(number) = tail
        .strip_prefix("alpha")
        .or_else(|| tail.strip_prefix("beta"))
    else {
        return false;
    };
    !number.is_empty() && !number.starts_with('0') && number.chars().all(|c| c.is_ascii_digit())
}

/// Checks a value of `--kind`: PascalCase (an uppercase ASCII letter, then
/// letters and digits) whose lowercase form is a DNS-1035 label.
pub fn validate_kind(kind: &str) -> Result<()> {
    let pascal = kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    let lower = kind.to_ascii_lowercase();
    if !pascal || !is_dns1035_label(&lower) {
        bail!(
            "invalid --kind {kind:?}: must be PascalCase (an uppercase letter, then letters and digits, at most 63 characters, e.g. FirstMate)"
        );
    }
    Ok(())
}

/// Whether `s` is a DNS-1035 label: a DNS-1123 label that starts with a letter.
pub fn is_dns1035_label(s: &str) -> bool {
    is_dns1123_label(s) && s.starts_with(|c: char| c.is_ascii_lowercase())
}

/// Checks a value of `--plural`: a DNS-1123 label in lowercase.
pub fn validate_plural(plural: &str) -> Result<()> {
    if !is_dns1123_label(plural) {
        bail!(
            "invalid --plural {plural:?}: must be lowercase letters, digits and '-' (a DNS-1123 label, e.g. people)"
        );
    }
    Ok(())
}

/// Checks a value of `--controller-name`: a DNS-1123 label such as `captain-backup`.
pub fn validate_controller_name(name: &str) -> Result<()> {
    if !is_dns1123_label(name) || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        bail!(
            "invalid --controller-name {name:?}: must be lowercase letters, digits and '-', starting with a letter (e.g. captain-backup)"
        );
    }
    Ok(())
}

/// Checks a custom webhook path given with `flag`: it starts with `/` and
/// holds only characters a URL path can carry unescaped.
pub fn validate_url_path(flag: &str, path: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "/-._~".contains(c);
    if !path.starts_with('/') || path.len() < 2 || !path.chars().all(allowed) || path.contains("//")
    {
        bail!(
            "invalid {flag} {path:?}: must start with '/' and hold only letters, digits, '-', '.', '_', '~' and single '/' (e.g. /mutate-captain)"
        );
    }
    Ok(())
}

/// `captain-backup` → `CaptainBackup`.
pub fn pascal_case(name: &str) -> String {
    name.split(['-', '_', '.'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The 32-bit FNV-1a hash of `text`. Its hex form, like kubebuilder's, makes
/// the leader-election ID unique per project (`398fa3b3.my.domain`).
pub fn fnv1a_32(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
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
    fn versions() {
        for good in ["v1", "v2", "v1alpha1", "v2beta3", "v10"] {
            assert!(validate_version(good).is_ok(), "{good}");
        }
        for bad in [
            "1", "v", "v0", "V1", "v1alpha", "v1gamma1", "v1beta01", "v1.2",
        ] {
            assert!(validate_version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn kinds() {
        for good in ["Captain", "FirstMate", "HealthCheckPolicy", "V2Thing"] {
            assert!(validate_kind(good).is_ok(), "{good}");
        }
        for bad in [
            "captain",
            "First_Mate",
            "First-Mate",
            "",
            "9Lives",
            &format!("A{}", "b".repeat(63)),
        ] {
            assert!(validate_kind(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pascal_case_joins_parts() {
        assert_eq!(pascal_case("captain-backup"), "CaptainBackup");
        assert_eq!(pascal_case("foo.policy"), "FooPolicy");
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
