//! A resource entry of the PROJECT file: one group/version/kind, with what
//! was scaffolded for it (API type, controllers, webhooks).

use serde::{Deserialize, Serialize};
use serde_norway::Mapping;

/// One entry of PROJECT's `resources` list. Unknown keys are kept in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceEntry {
    /// The API type (CRD) scaffolded for the resource, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiEntry>,
    /// A single controller was scaffolded, named after the kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// Controllers by name, when there is more than one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerEntry>,
    /// A Kubernetes built-in type from k8s.io/api.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<bool>,
    /// Domain of the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// A type from another Go module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<bool>,
    /// API group, without the domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Kind, in PascalCase.
    pub kind: String,
    /// Go module providing an external type, with an optional `@version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Go import path of the package holding the type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Plural, when it is not the computed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plural: Option<String>,
    /// API version.
    pub version: String,
    /// Webhooks scaffolded for the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhooks: Option<WebhooksEntry>,
    /// Keys this tool does not interpret.
    #[serde(flatten)]
    pub extra: Mapping,
}

/// The `api` part of a resource entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiEntry {
    /// CRD API version, `v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crd_version: Option<String>,
    /// The CRD is namespace-scoped (absent means cluster-scoped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespaced: Option<bool>,
    /// Server-side-apply configurations are generated for the type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssa: Option<bool>,
    /// Keys this tool does not interpret.
    #[serde(flatten)]
    pub extra: Mapping,
}

/// One named controller of a resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ControllerEntry {
    /// The controller's name, e.g. `captain-backup`.
    pub name: String,
    /// Keys this tool does not interpret.
    #[serde(flatten)]
    pub extra: Mapping,
}

/// The `webhooks` part of a resource entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhooksEntry {
    /// A conversion webhook; this version is the hub.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversion: Option<bool>,
    /// A defaulting (mutating) webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaulting: Option<bool>,
    /// Custom path of the defaulting webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaulting_path: Option<String>,
    /// Versions converted to and from the hub.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spoke: Vec<String>,
    /// A validating webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<bool>,
    /// Custom path of the validating webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_path: Option<String>,
    /// Admission webhook API version, `v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_version: Option<String>,
    /// Keys this tool does not interpret.
    #[serde(flatten)]
    pub extra: Mapping,
}

impl ResourceEntry {
    /// Whether this entry is for `group`/`version`/`kind`.
    pub fn is(&self, group: &str, version: &str, kind: &str) -> bool {
        self.group.as_deref().unwrap_or_default() == group
            && self.version == version
            && self.kind == kind
    }

    /// Names of the controllers scaffolded for this resource; a plain
    /// `controller: true` counts as one named after the lowercased kind.
    pub fn controller_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.controllers.iter().map(|c| c.name.clone()).collect();
        if self.controller == Some(true) && names.is_empty() {
            names.push(self.kind.to_ascii_lowercase());
        }
        names
    }

    /// Records a controller named `name`: `controller: true` for the first
    /// one named after the kind, a `controllers` list once there are several.
    pub fn add_controller(&mut self, name: &str) {
        let mut names = self.controller_names();
        if names.iter().any(|n| n == name) {
            return;
        }
        names.push(name.to_string());
        if names.len() == 1 && name == self.kind.to_ascii_lowercase() {
            self.controller = Some(true);
            self.controllers.clear();
        } else {
            self.controller = None;
            self.controllers = names
                .into_iter()
                .map(|name| ControllerEntry {
                    name,
                    extra: Mapping::new(),
                })
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_controller_turns_the_flag_into_a_list() {
        let mut entry = ResourceEntry {
            kind: "Captain".into(),
            ..Default::default()
        };
        entry.add_controller("captain");
        assert_eq!(entry.controller, Some(true));
        entry.add_controller("captain-backup");
        assert_eq!(entry.controller, None);
        assert_eq!(entry.controller_names(), ["captain", "captain-backup"]);
    }
}
