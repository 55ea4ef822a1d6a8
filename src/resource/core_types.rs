//! Kubernetes built-in types, from `core-types.toml` beside this file
//! (embedded at build time).

use anyhow::{Result, bail};
use std::sync::OnceLock;

/// A built-in API group as typed on the command line (`apps`, `core`, `rbac`).
#[derive(Debug, Clone)]
pub struct CoreGroup {
    /// The API group name (`apps`, `rbac.authorization.k8s.io`; empty for core).
    pub api_group: String,
    /// The group's package in the Kubernetes API sources (`apps`, `core`,
    /// `rbac`): `k8s.io/api/<package>` for Go.
    pub package: String,
}

/// The built-in group typed as `group`, if it is one.
pub fn core_group(group: &str) -> Option<CoreGroup> {
    let table = table();
    let entry = table.get(group)?.as_table()?;
    Some(CoreGroup {
        api_group: entry.get("group")?.as_str()?.to_string(),
        package: entry.get("package")?.as_str()?.to_string(),
    })
}

/// Checks that `kind` exists at `version` in the built-in `group`.
pub fn check_core_kind(group: &str, version: &str, kind: &str) -> Result<()> {
    let table = table();
    let kinds: Vec<String> = table
        .get(group)
        .and_then(|entry| entry.get(version))
        .and_then(|item| item.as_array())
        .map(|array| {
            array
                .iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if kinds.is_empty() {
        bail!(
            "{group}/{version} is not a version of the built-in group {group:?} in k8s.io/api; use a version it has, or another group for your own API"
        );
    }
    if !kinds.iter().any(|k| k == kind) {
        bail!(
            "{kind} is not a kind of the built-in group {group}/{version}; it has: {}",
            kinds.join(", ")
        );
    }
    Ok(())
}

/// The parsed table, parsed once per process.
fn table() -> &'static toml_edit::Table {
    static TABLE: OnceLock<toml_edit::Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("core-types.toml")
            .parse::<toml_edit::DocumentMut>()
            .expect("src/resource/core-types.toml is valid TOML")
            .as_table()
            .clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_core_kinds() {
        assert!(check_core_kind("apps", "v1", "Deployment").is_ok());
        assert!(check_core_kind("core", "v1", "Pod").is_ok());
        let err = check_core_kind("apps", "v1", "Deploymint")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Deploymint") && err.contains("Deployment"),
            "{err}"
        );
        assert!(check_core_kind("apps", "v9", "Deployment").is_err());
        assert_eq!(core_group("core").unwrap().api_group, "");
        assert_eq!(
            core_group("rbac").unwrap().api_group,
            "rbac.authorization.k8s.io"
        );
        assert!(core_group("crew").is_none());
    }

    #[test]
    fn the_table_follows_k8s_io_api_v0_37() {
        assert!(check_core_kind("scheduling", "v1alpha3", "CompositePodGroup").is_ok());
        assert!(check_core_kind("scheduling", "v1beta1", "Workload").is_ok());
        assert!(check_core_kind("scheduling", "v1alpha2", "PodGroup").is_err());
        assert!(check_core_kind("certificates", "v1", "PodCertificateRequest").is_ok());
        assert!(check_core_kind("resource", "v1", "DeviceTaintRule").is_ok());
        // Groups new in v0.37 stay free for a project's own API.
        assert!(core_group("lifecycle").is_none());
        assert!(core_group("storagemigration").is_none());
    }
}
