//! One resource model, shared by every command and plugin: what identifies
//! an API (group, version, kind), its plural and scope, and where its type
//! comes from. Plugins derive their own views from it (the Go plugin its
//! import paths and aliases). The model knows nothing of the PROJECT file:
//! reading a resource from its PROJECT entry, and recording it there, belong
//! to the project module, which builds on this one.

pub mod core_types;
pub mod naming;
pub mod plural;

use core_types::CoreGroup;
use serde::Serialize;

/// Where a resource's type comes from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// Scaffolded in this project.
    Own,
    /// A Kubernetes built-in type.
    Core(CoreGroup),
    /// A type from another module.
    External(ExternalApi),
}

/// A type from another module (PROJECT's `external`, `path`, `domain`, `module`).
#[derive(Debug, Clone)]
pub struct ExternalApi {
    /// Import path of the package holding the type.
    pub path: String,
    /// Domain of the type's group.
    pub domain: String,
    /// Module (with an optional `@version`) that provides it.
    pub module: String,
}

/// A resource as every plugin sees it (`resource.*` in templates).
#[derive(Debug, Clone, Serialize)]
pub struct Resource {
    /// Group without the domain (`crew`; `core`, `apps` for built-in types).
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
    /// The type is namespace-scoped.
    pub namespaced: bool,
    /// Where the type comes from.
    #[serde(skip)]
    pub origin: Origin,
    /// A Kubernetes built-in type.
    pub core: bool,
    /// A type from another module.
    pub external: bool,
    /// The package of the type, as PROJECT's `path` records it: set by the
    /// layout plugin (a Go import path for go/v4), or from PROJECT.
    pub path: Option<String>,
}

impl Resource {
    /// Sets where the type comes from, and the domain and full group that
    /// follow from it (`project_domain` for the project's own types).
    pub fn set_origin(&mut self, origin: Origin, project_domain: &str) {
        let (domain, qualified_group) = match &origin {
            Origin::Own => (
                project_domain.to_string(),
                join_domain(&self.group, project_domain),
            ),
            Origin::Core(core) => (core.domain.clone(), core.api_group.clone()),
            Origin::External(external) => {
                self.path = Some(external.path.clone());
                (
                    external.domain.clone(),
                    join_domain(&self.group, &external.domain),
                )
            }
        };
        self.domain = domain;
        self.qualified_group = qualified_group;
        self.core = matches!(origin, Origin::Core(_));
        self.external = matches!(origin, Origin::External(_));
        self.origin = origin;
    }

    /// `group/version Kind`, for messages.
    pub fn gvk(&self) -> String {
        format!("{}/{} {}", self.group, self.version, self.kind)
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
