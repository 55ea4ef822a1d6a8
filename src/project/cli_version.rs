//! PROJECT's `cliVersion`: which tool and which version made the project.
//!
//! kubebuilder writes its release (`4.16.0`). kubebuilder-rs writes
//! `kubebuilder-rs/<version>+g<commit>.s<scaffold digest>`: the prefix makes
//! kubebuilder's own `alpha update` refuse it as an invalid version instead of
//! looking for a kubebuilder release, and the digest changes whenever the
//! scaffold does. Every kubebuilder-rs build before this form wrote `0.1.0`.

use std::cmp::Ordering;

/// The prefix of the `cliVersion` kubebuilder-rs writes.
const PREFIX: &str = "kubebuilder-rs/";

/// The commit this binary was built from (`unknown` without git), set by build.rs.
pub const COMMIT: &str = env!("KUBEBUILDER_RS_COMMIT");

/// The digest of the scaffold this binary writes (12 hex digits), set by build.rs.
pub const SCAFFOLD_DIGEST: &str = env!("KUBEBUILDER_RS_SCAFFOLD");

/// Who made a project, as its `cliVersion` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A kubebuilder release, `v`-prefixed (`v4.16.0`).
    Kubebuilder(String),
    /// kubebuilder-rs with this form: its package version, commit (when the
    /// build knew it) and scaffold digest.
    KubebuilderRs {
        /// The crate version, e.g. `0.1.0`.
        version: String,
        /// The commit the build came from.
        commit: Option<String>,
        /// The digest of the scaffold it writes.
        digest: String,
    },
    /// A kubebuilder-rs build from before this form (`0.x`).
    KubebuilderRsLegacy(String),
    /// Anything else (`(devel)`, an empty string).
    Unknown(String),
}

impl Origin {
    /// A short name for the version, fit for a branch name: `v4.16.0` for
    /// kubebuilder, `<version>-<digest>` for kubebuilder-rs, the version for
    /// a legacy kubebuilder-rs, and the value made branch-safe otherwise.
    pub fn label(&self) -> String {
        match self {
            Origin::Kubebuilder(version) | Origin::KubebuilderRsLegacy(version) => version.clone(),
            Origin::KubebuilderRs {
                version, digest, ..
            } => format!("{version}-{digest}"),
            Origin::Unknown(raw) => branch_safe(raw),
        }
    }

    /// Whether the project was made by a kubebuilder-rs writing the scaffold
    /// this build writes (same digest, whatever the commit): its ancestor is
    /// this build's scaffold, so there is nothing to update.
    pub fn has_current_scaffold(&self) -> bool {
        matches!(self, Origin::KubebuilderRs { digest, .. } if digest == SCAFFOLD_DIGEST)
    }
}

/// Reads a `cliVersion` value (or a `--from-version`).
pub fn parse(value: &str) -> Origin {
    let value = value.trim();
    if let Some(rest) = value.strip_prefix(PREFIX) {
        return parse_own(rest).unwrap_or_else(|| Origin::Unknown(value.to_string()));
    }
    let bare = value.strip_prefix('v').unwrap_or(value);
    match release_numbers(bare) {
        Some([0, _, _]) => Origin::KubebuilderRsLegacy(bare.to_string()),
        Some(_) => Origin::Kubebuilder(format!("v{bare}")),
        None => Origin::Unknown(value.to_string()),
    }
}

/// The `cliVersion` this build writes.
pub fn current() -> String {
    format_own(env!("CARGO_PKG_VERSION"), COMMIT, SCAFFOLD_DIGEST)
}

/// The label (see [`Origin::label`]) of this build.
pub fn current_label() -> String {
    parse(&current()).label()
}

/// Orders two kubebuilder releases (`v4.7.0`, `4.16.0`) by their
/// `major.minor.patch`; `None` if either is not a release.
pub fn compare_releases(a: &str, b: &str) -> Option<Ordering> {
    let numbers = |v: &str| release_numbers(v.strip_prefix('v').unwrap_or(v));
    Some(numbers(a)?.cmp(&numbers(b)?))
}

/// The kubebuilder-rs form for a build of `version` from `commit` (no `g`
/// part when it is `unknown`) writing the scaffold `digest`.
fn format_own(version: &str, commit: &str, digest: &str) -> String {
    if commit == "unknown" || commit.is_empty() {
        format!("{PREFIX}{version}+s{digest}")
    } else {
        format!("{PREFIX}{version}+g{commit}.s{digest}")
    }
}

/// Reads `<version>+g<commit>.s<digest>` (the `g` part optional).
fn parse_own(rest: &str) -> Option<Origin> {
    let (version, build) = rest.split_once('+')?;
    release_numbers(version)?;
    let mut commit = None;
    let mut digest = None;
    for part in build.split('.') {
        let (slot, hex) = match part.split_at_checked(1)? {
            ("g", hex) if commit.is_none() => (&mut commit, hex),
            ("s", hex) if digest.is_none() => (&mut digest, hex),
            _ => return None,
        };
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        *slot = Some(hex.to_string());
    }
    Some(Origin::KubebuilderRs {
        version: version.to_string(),
        commit,
        digest: digest?,
    })
}

/// The `major.minor.patch` of a semantic version without its `v`, which may
/// carry a `-pre-release` (and a `+build` part); `None` for anything else.
fn release_numbers(version: &str) -> Option<[u64; 3]> {
    let (core, suffix) = match version.find(['-', '+']) {
        Some(at) => version.split_at(at),
        None => (version, ""),
    };
    let valid_suffix = suffix
        .get(1..)
        .is_none_or(|rest| !rest.is_empty() && rest.bytes().all(is_semver_suffix_byte));
    if !valid_suffix {
        return None;
    }
    let mut numbers = [0; 3];
    let mut parts = core.split('.');
    for number in &mut numbers {
        let part = parts.next()?;
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *number = part.parse().ok()?;
    }
    parts.next().is_none().then_some(numbers)
}

/// Whether `byte` may appear in a pre-release or build suffix.
fn is_semver_suffix_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'+')
}

/// `raw` as a piece of a git branch name: letters, digits, `.`, `_` and
/// `-` kept, runs of anything else (and `..`) made one `-`, no leading or
/// trailing `.`/`-`, no `.lock` ending; `unknown` when nothing is left.
fn branch_safe(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
            c
        } else {
            '-'
        };
        let doubled = matches!((out.chars().last(), c), (Some('-'), '-') | (Some('.'), '.'));
        if !doubled {
            out.push(c);
        }
    }
    let mut out = out.trim_matches(['.', '-']).to_string();
    while let Some(stem) = out.strip_suffix(".lock") {
        out = stem.trim_end_matches(['.', '-']).to_string();
    }
    if out.is_empty() {
        "unknown".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubebuilder_releases_get_their_v() {
        for value in ["4.16.0", "v4.16.0", " 4.16.0\n"] {
            assert_eq!(
                parse(value),
                Origin::Kubebuilder("v4.16.0".into()),
                "{value:?}"
            );
        }
        assert_eq!(
            parse("4.7.0-rc.1"),
            Origin::Kubebuilder("v4.7.0-rc.1".into())
        );
        assert_eq!(parse("v4.16.0").label(), "v4.16.0");
    }

    #[test]
    fn zero_versions_are_kubebuilder_rs_before_the_new_form() {
        assert_eq!(parse("0.1.0"), Origin::KubebuilderRsLegacy("0.1.0".into()));
        assert_eq!(parse("v0.3.1"), Origin::KubebuilderRsLegacy("0.3.1".into()));
        assert_eq!(parse("0.1.0").label(), "0.1.0");
    }

    #[test]
    fn the_own_form_round_trips_with_and_without_a_commit() {
        let with = format_own("0.2.0", "1a2b3c4d5e6f", "0123456789ab");
        assert_eq!(with, "kubebuilder-rs/0.2.0+g1a2b3c4d5e6f.s0123456789ab");
        assert_eq!(
            parse(&with),
            Origin::KubebuilderRs {
                version: "0.2.0".into(),
                commit: Some("1a2b3c4d5e6f".into()),
                digest: "0123456789ab".into(),
            }
        );
        let without = format_own("0.2.0", "unknown", "0123456789ab");
        assert_eq!(without, "kubebuilder-rs/0.2.0+s0123456789ab");
        assert_eq!(
            parse(&without),
            Origin::KubebuilderRs {
                version: "0.2.0".into(),
                commit: None,
                digest: "0123456789ab".into(),
            }
        );
        assert_eq!(parse(&with).label(), "0.2.0-0123456789ab");
    }

    #[test]
    fn this_build_writes_the_own_form_with_its_digest() {
        let value = current();
        assert!(value.starts_with("kubebuilder-rs/"), "{value}");
        assert_eq!(SCAFFOLD_DIGEST.len(), 12);
        assert!(SCAFFOLD_DIGEST.bytes().all(|b| b.is_ascii_hexdigit()));
        let Origin::KubebuilderRs {
            version, digest, ..
        } = parse(&value)
        else {
            panic!("{value} does not parse as kubebuilder-rs");
        };
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        assert_eq!(digest, SCAFFOLD_DIGEST);
        assert_eq!(
            current_label(),
            format!("{}-{SCAFFOLD_DIGEST}", env!("CARGO_PKG_VERSION"))
        );
        assert!(parse(&value).has_current_scaffold());
        let other_commit = format_own("0.0.9", "0000000000aa", SCAFFOLD_DIGEST);
        assert!(parse(&other_commit).has_current_scaffold());
        let other_scaffold = format_own(env!("CARGO_PKG_VERSION"), COMMIT, "000000000000");
        assert!(!parse(&other_scaffold).has_current_scaffold());
        assert!(!parse("4.16.0").has_current_scaffold());
    }

    /// kubebuilder's `alpha update` prefixes a `v` and checks semantic
    /// versioning; the `/` makes our form fail that check.
    #[test]
    fn the_own_form_is_no_semantic_version_even_with_a_v() {
        let value = format!("v{}", current());
        assert_eq!(release_numbers(value.trim_start_matches('v')), None);
        assert!(value.contains('/'));
    }

    #[test]
    fn anything_else_is_unknown_and_labelled_branch_safe() {
        for (value, label) in [
            ("(devel)", "devel"),
            ("", "unknown"),
            ("  ", "unknown"),
            ("4.16", "4.16"),
            ("4.16.0.1", "4.16.0.1"),
            ("04.x.0", "04.x.0"),
            ("kubebuilder-rs/0.2.0", "kubebuilder-rs-0.2.0"),
            ("kubebuilder-rs/0.2.0+gabc", "kubebuilder-rs-0.2.0-gabc"),
            ("kubebuilder-rs/0.2.0+sXYZ", "kubebuilder-rs-0.2.0-sXYZ"),
            ("kubebuilder-rs/0.2.0+s12.q3", "kubebuilder-rs-0.2.0-s12.q3"),
            ("a..b~c^d:e", "a.b-c-d-e"),
            ("-x.lock", "x"),
        ] {
            let origin = parse(value);
            assert_eq!(origin, Origin::Unknown(value.trim().into()), "{value:?}");
            assert_eq!(origin.label(), label, "{value:?}");
        }
    }

    #[test]
    fn releases_compare_by_their_numbers() {
        assert_eq!(compare_releases("v4.6.9", "v4.7.0"), Some(Ordering::Less));
        assert_eq!(
            compare_releases("4.16.0", "v4.7.0"),
            Some(Ordering::Greater)
        );
        assert_eq!(compare_releases("v4.7.0", "4.7.0"), Some(Ordering::Equal));
        assert_eq!(compare_releases("(devel)", "v4.7.0"), None);
    }
}
