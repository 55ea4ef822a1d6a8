//! The resource a PROJECT entry records: the resource model
//! ([`Resource`]) read from the PROJECT file.

use super::{ProjectFile, ResourceEntry};
use crate::resource::core_types;
use crate::resource::{ExternalApi, Origin, Resource, plural};

impl Resource {
    /// The resource `group`/`version`/`kind` of `project`, as its PROJECT
    /// entry records it if it has one; `plural` overrides the recorded or
    /// computed plural. Without an entry the type is the project's own,
    /// except that a request that creates no API type (`creates_api` false)
    /// for a group kubebuilder counts as built-in names the built-in type,
    /// as kubebuilder decides.
    pub fn new(
        project: &ProjectFile,
        group: &str,
        version: &str,
        kind: &str,
        plural: Option<&str>,
        creates_api: bool,
    ) -> Self {
        let domain = project.domain.as_deref().unwrap_or_default();
        let entry = project
            .resources
            .iter()
            .find(|r| r.is(group, version, kind))
            .cloned()
            .unwrap_or_else(|| unrecorded_entry(group, version, kind, creates_api));
        let mut resource = Self::from_entry(&entry, domain);
        if let Some(plural) = plural {
            resource.plural = plural.to_string();
            resource.custom_plural = true;
        }
        resource
    }

    /// The resource a PROJECT entry records, in a project whose domain is
    /// `project_domain`: a built-in type when the entry says `core: true`,
    /// an external one when it says `external: true`, the project's own
    /// otherwise. An entry without an API type counts as namespace-scoped.
    pub fn from_entry(entry: &ResourceEntry, project_domain: &str) -> Self {
        let group = entry.group.clone().unwrap_or_default();
        let origin = if entry.external == Some(true) {
            Origin::External(ExternalApi {
                path: entry.path.clone().unwrap_or_default(),
                domain: entry.domain.clone().unwrap_or_default(),
                module: entry.module.clone().unwrap_or_default(),
            })
        } else if entry.core == Some(true) {
            Origin::Core(core_types::recorded_core_group(&group))
        } else {
            Origin::Own
        };
        let kind_lower = entry.kind.to_ascii_lowercase();
        let mut resource = Self {
            plural: entry
                .plural
                .clone()
                .unwrap_or_else(|| plural::pluralize(&kind_lower)),
            custom_plural: entry.plural.is_some(),
            group,
            version: entry.version.clone(),
            kind: entry.kind.clone(),
            kind_lower,
            domain: String::new(),
            qualified_group: String::new(),
            namespaced: entry
                .api
                .as_ref()
                .is_none_or(|api| api.namespaced == Some(true)),
            origin: Origin::Own,
            core: false,
            external: false,
            path: entry.path.clone(),
        };
        resource.set_origin(origin, project_domain);
        resource
    }
}

/// The entry a request for `group`/`version`/`kind` stands for when PROJECT
/// records none: the project's own type, or, when no API type is created
/// (`creates_api` false) and kubebuilder counts the group as built-in, the
/// built-in type.
pub fn unrecorded_entry(
    group: &str,
    version: &str,
    kind: &str,
    creates_api: bool,
) -> ResourceEntry {
    ResourceEntry {
        group: Some(group.to_string()),
        version: version.to_string(),
        kind: kind.to_string(),
        core: (!creates_api && core_types::core_group(group).is_some()).then_some(true),
        ..ResourceEntry::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Project;

    fn project() -> ProjectFile {
        Project::parse(
            "domain: example.com\nresources:\n- external: true\n  domain: io\n  group: cert-manager\n  kind: Certificate\n  module: github.com/cert-manager/cert-manager\n  path: github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1\n  version: v1\n- api:\n    crdVersion: v1\n  group: crew\n  kind: Admiral\n  plural: admirales\n  version: v1\nversion: \"3\"\n",
        )
        .unwrap()
        .file
    }

    #[test]
    fn own_types_take_the_project_domain() {
        let r = Resource::new(
            &project(),
            "foo.policy",
            "v1",
            "HealthCheckPolicy",
            None,
            true,
        );
        assert_eq!(r.qualified_group, "foo.policy.example.com");
        assert_eq!(r.plural, "healthcheckpolicies");
        assert!(r.namespaced && !r.core && !r.external);
    }

    #[test]
    fn recorded_plural_scope_and_origin_are_used() {
        let admiral = Resource::new(&project(), "crew", "v1", "Admiral", None, true);
        assert_eq!(admiral.plural, "admirales");
        assert!(admiral.custom_plural && !admiral.namespaced);
        let cert = Resource::new(&project(), "cert-manager", "v1", "Certificate", None, true);
        assert!(cert.external);
        assert_eq!(cert.qualified_group, "cert-manager.io");
        let pod = Resource::new(&project(), "core", "v1", "Pod", None, false);
        assert!(pod.core);
        assert_eq!(pod.qualified_group, "");
    }

    #[test]
    fn a_listed_group_is_built_in_only_when_no_api_type_is_created() {
        let project = Project::parse(
            "domain: tutorial.kubebuilder.io\nresources:\n- api:\n    crdVersion: v1\n  domain: tutorial.kubebuilder.io\n  group: batch\n  kind: CronJob\n  version: v1\n- core: true\n  domain: k8s.io\n  group: rbac.authorization\n  kind: Role\n  version: v1\nversion: \"3\"\n",
        )
        .unwrap()
        .file;
        let own = |r: &Resource| matches!(r.origin, Origin::Own);
        // The book's CronJob: its own API, created or recorded.
        let cronjob = Resource::new(&project, "batch", "v2", "CronJob", None, true);
        assert!(own(&cronjob));
        assert_eq!(cronjob.qualified_group, "batch.tutorial.kubebuilder.io");
        assert!(own(&Resource::new(
            &project, "batch", "v1", "CronJob", None, false
        )));
        // A controller for Job, with no API recorded: the built-in type.
        let job = Resource::new(&project, "batch", "v1", "Job", None, false);
        assert!(job.core);
        assert_eq!(
            (job.qualified_group.as_str(), job.domain.as_str()),
            ("batch", "")
        );
        // Recorded as built-in by kubebuilder.
        let role = Resource::new(&project, "rbac.authorization", "v1", "Role", None, false);
        assert!(role.core);
        assert_eq!(role.qualified_group, "rbac.authorization.k8s.io");
        // Not in kubebuilder's list.
        assert!(own(&Resource::new(
            &project, "rbac", "v1", "Role", None, false
        )));
    }
}
