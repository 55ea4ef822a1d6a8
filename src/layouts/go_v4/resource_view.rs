//! How a resource looks to go/v4 templates: where its Go type lives, its
//! qualified group, import alias and path, plural.

use super::core_types::CoreGroup;
use crate::layouts::ExternalApi;
use crate::plural::pluralize;
use serde::Serialize;

/// Where a resource's Go type comes from.
pub enum Origin {
    /// Scaffolded in this project under `api/`.
    Own,
    /// A Kubernetes built-in type from k8s.io/api.
    Core(CoreGroup),
    /// A type from another Go module.
    External(ExternalApi),
}

/// What identifies a resource and shapes its CRD.
pub struct ResourceSpec<'a> {
    /// API group without the domain.
    pub group: &'a str,
    /// API version.
    pub version: &'a str,
    /// Kind, in PascalCase.
    pub kind: &'a str,
    /// Plural given by the user or recorded in PROJECT.
    pub plural: Option<String>,
    /// The CRD is namespace-scoped.
    pub namespaced: bool,
    /// Server-side-apply configurations are generated.
    pub ssa: bool,
}

/// The resource, as templates see it (`resource.*`).
#[derive(Debug, Serialize)]
pub struct ResourceView {
    /// Group without the domain (`crew`).
    pub group: String,
    /// Version (`v1`).
    pub version: String,
    /// Kind (`FirstMate`).
    pub kind: String,
    /// Lowercased kind (`firstmate`).
    pub kind_lower: String,
    /// Plural (`firstmates`).
    pub plural: String,
    /// The plural was given rather than computed.
    pub custom_plural: bool,
    /// Domain of the group (empty for built-in types).
    pub domain: String,
    /// Full API group (`crew.example.com`; empty for the core group).
    pub qualified_group: String,
    /// Group as written in RBAC markers (`core` for the core group).
    pub rbac_group: String,
    /// Group as written in webhook markers (empty for the core group).
    pub webhook_group: String,
    /// Go import alias of the type's package (`crewv1`).
    pub import_alias: String,
    /// Go import path of the type's package.
    pub import_path: String,
    /// The import alias without the version (`crew`): the alias of another
    /// version of the group is this followed by that version.
    pub group_alias: String,
    /// The import path without the version, ending in `/`: the path of
    /// another version of the group is this followed by that version.
    pub api_root: String,
    /// The CRD is namespace-scoped.
    pub namespaced: bool,
    /// Server-side-apply configurations are generated.
    pub ssa: bool,
    /// A Kubernetes built-in type.
    pub core: bool,
    /// A type from another module.
    pub external: bool,
}

impl ResourceView {
    /// Builds the view of `spec` in a project with module `repo` and `domain`.
    pub fn new(
        spec: &ResourceSpec,
        origin: &Origin,
        repo: &str,
        domain: &str,
        multigroup: bool,
    ) -> Self {
        let kind_lower = spec.kind.to_ascii_lowercase();
        let plural = spec
            .plural
            .clone()
            .unwrap_or_else(|| pluralize(&kind_lower));
        let (resource_domain, qualified_group, import_path) = match origin {
            Origin::Own => {
                let group_dir = if multigroup {
                    format!("{}/", spec.group)
                } else {
                    String::new()
                };
                (
                    domain.to_string(),
                    join_domain(spec.group, domain),
                    format!("{repo}/api/{group_dir}{}", spec.version),
                )
            }
            Origin::Core(core) => (
                String::new(),
                core.api_group.clone(),
                format!("k8s.io/api/{}/{}", core.package, spec.version),
            ),
            Origin::External(external) => (
                external.domain.clone(),
                join_domain(spec.group, &external.domain),
                external.path.clone(),
            ),
        };
        let rbac_group = if qualified_group.is_empty() {
            "core".to_string()
        } else {
            qualified_group.clone()
        };
        Self {
            group: spec.group.to_string(),
            version: spec.version.to_string(),
            kind: spec.kind.to_string(),
            import_alias: format!("{}{}", go_identifier(spec.group), spec.version),
            group_alias: go_identifier(spec.group),
            api_root: import_path
                .strip_suffix(spec.version)
                .unwrap_or(&import_path)
                .to_string(),
            kind_lower,
            plural,
            custom_plural: spec.plural.is_some(),
            domain: resource_domain,
            webhook_group: qualified_group.clone(),
            qualified_group,
            rbac_group,
            import_path,
            namespaced: spec.namespaced,
            ssa: spec.ssa,
            core: matches!(origin, Origin::Core(_)),
            external: matches!(origin, Origin::External(_)),
        }
    }
}

/// `group.domain`, or the group alone when there is no domain.
fn join_domain(group: &str, domain: &str) -> String {
    if domain.is_empty() {
        group.to_string()
    } else {
        format!("{group}.{domain}")
    }
}

/// A group name made into a Go identifier: `foo.policy` → `foopolicy`.
pub fn go_identifier(group: &str) -> String {
    group
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(group: &'a str, kind: &'a str) -> ResourceSpec<'a> {
        ResourceSpec {
            group,
            version: "v1",
            kind,
            plural: None,
            namespaced: true,
            ssa: false,
        }
    }

    #[test]
    fn own_types_live_under_api() {
        let view = ResourceView::new(
            &spec("foo.policy", "HealthCheckPolicy"),
            &Origin::Own,
            "example.com/x",
            "example.com",
            true,
        );
        assert_eq!(view.import_path, "example.com/x/api/foo.policy/v1");
        assert_eq!(view.import_alias, "foopolicyv1");
        assert_eq!(view.qualified_group, "foo.policy.example.com");
        assert_eq!(view.plural, "healthcheckpolicies");
    }

    #[test]
    fn core_types_use_k8s_io_api() {
        let core = CoreGroup {
            api_group: String::new(),
            package: "core".into(),
        };
        let view = ResourceView::new(
            &spec("core", "Pod"),
            &Origin::Core(core),
            "example.com/x",
            "example.com",
            false,
        );
        assert_eq!(view.import_path, "k8s.io/api/core/v1");
        assert_eq!(view.rbac_group, "core");
        assert_eq!(view.webhook_group, "");
        assert_eq!(view.import_alias, "corev1");
    }
}
