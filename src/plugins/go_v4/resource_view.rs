//! How a resource looks to go/v4 templates: the shared [`Resource`] plus
//! where its Go type lives, its import alias and path, and its group as
//! RBAC and webhook markers write it.

use crate::resource::{Origin, Resource};
use serde::Serialize;

/// The resource, as go/v4 templates see it (`resource.*`).
#[derive(Debug, Serialize)]
pub struct ResourceView {
    /// Every field of the shared model.
    #[serde(flatten)]
    pub resource: Resource,
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
    /// Server-side-apply configurations are generated.
    pub ssa: bool,
    /// Created without `--ssa` in a package where another kind has it: the
    /// kind opts out of the package's apply configurations.
    pub ac_opt_out: bool,
}

impl ResourceView {
    /// The view of `resource` in a project with module `repo`.
    pub fn new(resource: &Resource, repo: &str, multigroup: bool, ssa: bool) -> Self {
        let import_path = resource
            .path
            .clone()
            .unwrap_or_else(|| package_path(resource, repo, multigroup));
        let rbac_group = if resource.qualified_group.is_empty() {
            "core".to_string()
        } else {
            resource.qualified_group.clone()
        };
        Self {
            import_alias: format!("{}{}", go_identifier(&resource.group), resource.version),
            group_alias: go_identifier(&resource.group),
            api_root: import_path
                .strip_suffix(&resource.version)
                .unwrap_or(&import_path)
                .to_string(),
            webhook_group: resource.qualified_group.clone(),
            rbac_group,
            import_path,
            ssa,
            ac_opt_out: false,
            resource: resource.clone(),
        }
    }
}

/// The Go package of the resource's type: `<repo>/api/[<group>/]<version>`
/// for the project's own types, `k8s.io/api/<package>/<version>` for
/// built-in ones, the given path for external ones.
pub fn package_path(resource: &Resource, repo: &str, multigroup: bool) -> String {
    match &resource.origin {
        Origin::Own => {
            let group_dir = if multigroup {
                format!("{}/", resource.group)
            } else {
                String::new()
            };
            format!("{repo}/api/{group_dir}{}", resource.version)
        }
        Origin::Core(core) => format!("k8s.io/api/{}/{}", core.package, resource.version),
        Origin::External(external) => external.path.clone(),
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
    use crate::project::ProjectFile;

    fn project() -> ProjectFile {
        ProjectFile {
            domain: Some("example.com".into()),
            ..ProjectFile::default()
        }
    }

    #[test]
    fn own_types_live_under_api() {
        let resource = Resource::new(
            &project(),
            "foo.policy",
            "v1",
            "HealthCheckPolicy",
            None,
            true,
        );
        let view = ResourceView::new(&resource, "example.com/x", true, false);
        assert_eq!(view.import_path, "example.com/x/api/foo.policy/v1");
        assert_eq!(view.import_alias, "foopolicyv1");
        assert_eq!(view.api_root, "example.com/x/api/foo.policy/");
    }

    #[test]
    fn core_types_use_k8s_io_api() {
        let resource = Resource::new(&project(), "core", "v1", "Pod", None, false);
        let view = ResourceView::new(&resource, "example.com/x", false, false);
        assert_eq!(view.import_path, "k8s.io/api/core/v1");
        assert_eq!(view.rbac_group, "core");
        assert_eq!(view.webhook_group, "");
        assert_eq!(view.import_alias, "corev1");
    }
}
