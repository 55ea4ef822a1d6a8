//! The dependency versions go/v4 scaffolds, read from the embedded
//! `scaffolds/go/v4/versions.toml` (the one place they are pinned).

use crate::machinery::embedded_text;
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::sync::OnceLock;

/// Versions written into generated projects.
#[derive(Debug, Clone, Serialize)]
pub struct Versions {
    /// Go version for go.mod, e.g. `1.26.0`.
    pub go: String,
    /// Go major.minor, e.g. `1.26`, for images and CI.
    pub go_minor: String,
    /// sigs.k8s.io/controller-runtime.
    pub controller_runtime: String,
    /// k8s.io/api, apimachinery and client-go.
    pub k8s_api: String,
    /// Kubernetes release of the test control plane.
    pub kubernetes: String,
    /// etcd release of the test control plane.
    pub etcd: String,
    /// controller-gen.
    pub controller_tools: String,
    /// kustomize.
    pub kustomize: String,
    /// golangci-lint.
    pub golangci_lint: String,
    /// Ginkgo v2.
    pub ginkgo: String,
    /// Gomega.
    pub gomega: String,
}

/// The pinned versions, parsed once.
pub fn versions() -> &'static Versions {
    static VERSIONS: OnceLock<Versions> = OnceLock::new();
    VERSIONS.get_or_init(|| parse().expect("scaffolds/go/v4/versions.toml is valid"))
}

/// Parses the embedded versions file.
fn parse() -> Result<Versions> {
    let text = embedded_text("go/v4/versions.toml").context("versions.toml is not embedded")?;
    let doc: toml_edit::DocumentMut = text.parse().context("versions.toml is not TOML")?;
    let get = |key: &str| -> Result<String> {
        doc.get(key)
            .and_then(|item| item.as_str())
            .map(str::to_string)
            .with_context(|| format!("versions.toml has no string {key}"))
    };
    let go = get("go")?;
    let go_minor = go.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
    Ok(Versions {
        go_minor,
        go,
        controller_runtime: get("controller_runtime")?,
        k8s_api: get("k8s_api")?,
        kubernetes: get("kubernetes")?,
        etcd: get("etcd")?,
        controller_tools: get("controller_tools")?,
        kustomize: get("kustomize")?,
        golangci_lint: get("golangci_lint")?,
        ginkgo: get("ginkgo")?,
        gomega: get("gomega")?,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn versions_file_parses_and_pins_the_expected_lines() {
        let v = super::versions();
        assert_eq!(v.go_minor, "1.26");
        assert!(v.controller_runtime.starts_with("v0.25."));
        assert!(v.k8s_api.starts_with("v0.37."));
        assert!(v.kubernetes.starts_with("1.37."));
    }
}
