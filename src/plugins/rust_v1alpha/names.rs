//! How the Rust layout names things: the crate, its modules and the Rust
//! path of a resource's type. Names that Rust cannot take are refused here,
//! before anything is planned.

use crate::project::ProjectFile;
use crate::resource::{Origin, Resource};
use anyhow::{Result, bail};

pub use crate::resource::naming::fnv1a_32;

/// Words Rust reserves, which no module may be named.
pub(super) const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Crate names that would shadow a crate every project uses.
const TAKEN_CRATE_NAMES: &[&str] = &[
    "alloc",
    "core",
    "proc_macro",
    "std",
    "test",
    "kube",
    "k8s_openapi",
    "serde",
    "tokio",
];

/// The crate's identifier in Rust code: the project name with `-` as `_`.
pub fn crate_ident(project_name: &str) -> String {
    project_name.replace('-', "_")
}

/// Refuses a project name that cannot name a Rust crate.
pub fn check_crate_name(project_name: &str) -> Result<()> {
    let ident = crate_ident(project_name);
    if !ident.starts_with(|c: char| c.is_ascii_lowercase()) {
        bail!(
            "invalid project name {project_name:?} for the rust/v1-alpha layout: the crate is named after it, so it must start with a letter; pass --project-name"
        );
    }
    if KEYWORDS.contains(&ident.as_str()) || TAKEN_CRATE_NAMES.contains(&ident.as_str()) {
        bail!(
            "invalid project name {project_name:?} for the rust/v1-alpha layout: {ident} is a Rust keyword or a crate the project depends on; pass another --project-name"
        );
    }
    Ok(())
}

/// A name made into a Rust module name: lowercase, with `_` for anything
/// else than letters and digits (`foo.policy` → `foo_policy`).
pub fn module_ident(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A PascalCase kind in snake case: `FirstMate` → `first_mate`,
/// `DNSRecord` → `dns_record`.
pub fn snake_case(kind: &str) -> String {
    let chars: Vec<char> = kind.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_is_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The module of a controller named `name`: the kind in snake case for the
/// kind's own controller, else the name with `-` as `_`.
pub fn controller_module(name: &str, resource: &Resource) -> String {
    if name == resource.kind_lower {
        snake_case(&resource.kind)
    } else {
        name.replace('-', "_")
    }
}

/// Refuses a resource whose group, version or kind would make a module
/// name Rust reserves.
pub fn check_resource_modules(resource: &Resource) -> Result<()> {
    for (what, module) in [
        ("group", module_ident(&resource.group)),
        ("version", resource.version.clone()),
        ("kind", snake_case(&resource.kind)),
    ] {
        if KEYWORDS.contains(&module.as_str()) {
            bail!(
                "invalid {what} for the rust/v1-alpha layout: its module would be named {module:?}, a Rust keyword; choose another {what}"
            );
        }
    }
    Ok(())
}

/// The Rust module holding the resource's type, as PROJECT's `path`
/// records it: `<crate>::api::[<group>::]<version>` for the project's own
/// types, `k8s_openapi::api::<package>::<version>` for built-in ones.
pub fn type_module(resource: &Resource, project: &ProjectFile) -> String {
    match &resource.origin {
        Origin::Core(core) => format!("k8s_openapi::api::{}::{}", core.package, resource.version),
        _ => {
            let name = crate_ident(project.project_name.as_deref().unwrap_or_default());
            format!("{name}::{}", own_api_module(resource, project))
        }
    }
}

/// `api::[<group>::]<version>`: the module of the project's own type, from
/// the crate root.
pub fn own_api_module(resource: &Resource, project: &ProjectFile) -> String {
    if project.multigroup == Some(true) {
        format!(
            "api::{}::{}",
            module_ident(&resource.group),
            resource.version
        )
    } else {
        format!("api::{}", resource.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_become_snake_case_modules() {
        assert_eq!(snake_case("Guestbook"), "guestbook");
        assert_eq!(snake_case("FirstMate"), "first_mate");
        assert_eq!(snake_case("DNSRecord"), "dns_record");
        assert_eq!(snake_case("HealthCheckPolicy"), "health_check_policy");
        assert_eq!(snake_case("V2Thing"), "v2_thing");
    }

    #[test]
    fn groups_become_module_names() {
        assert_eq!(module_ident("foo.policy"), "foo_policy");
        assert_eq!(module_ident("ship-yard"), "ship_yard");
    }

    #[test]
    fn crate_names_rust_cannot_take_are_refused() {
        assert!(check_crate_name("guestbook-operator").is_ok());
        for bad in ["1st", "type", "core", "kube"] {
            let err = check_crate_name(bad).unwrap_err().to_string();
            assert!(err.contains(bad) && !err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn keyword_kinds_are_refused() {
        let project = ProjectFile {
            domain: Some("example.com".into()),
            ..ProjectFile::default()
        };
        let resource = Resource::new(&project, "crew", "v1", "Type", None, true);
        let err = check_resource_modules(&resource).unwrap_err().to_string();
        assert!(err.contains("\"type\""), "{err}");
        let resource = Resource::new(&project, "crew", "v1", "Captain", None, true);
        assert!(check_resource_modules(&resource).is_ok());
    }
}
