//! The crate versions the Rust layout scaffolds, read from the embedded
//! `scaffolds/rust/v1-alpha/versions.toml` (the one place they are pinned).

use crate::machinery::embedded_text;
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The pinned versions and the k8s-openapi modules.
#[derive(Debug, Clone)]
pub struct Versions {
    /// Version requirement by key (`kube` → `5.0.0`), as templates see them.
    pub crates: BTreeMap<String, String>,
    /// The `<package>/<version>` modules k8s-openapi has under `api`.
    pub k8s_openapi_modules: Vec<String>,
}

impl Versions {
    /// The version pinned under `key`; panics on a key the file lacks, which
    /// a unit test rules out for every key the plugin uses.
    pub fn get(&self, key: &str) -> &str {
        self.crates
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("versions.toml pins no {key}"))
    }
}

/// The pinned versions, parsed once.
pub fn versions() -> &'static Versions {
    static VERSIONS: OnceLock<Versions> = OnceLock::new();
    VERSIONS.get_or_init(|| parse().expect("scaffolds/rust/v1-alpha/versions.toml is valid"))
}

/// Parses the embedded versions file.
fn parse() -> Result<Versions> {
    let text =
        embedded_text("rust/v1-alpha/versions.toml").context("versions.toml is not embedded")?;
    let doc: toml_edit::DocumentMut = text.parse().context("versions.toml is not TOML")?;
    let mut crates = BTreeMap::new();
    let mut k8s_openapi_modules = Vec::new();
    for (key, item) in doc.iter() {
        if let Some(version) = item.as_str() {
            crates.insert(key.to_string(), version.to_string());
        } else if let Some(array) = item.as_array() {
            k8s_openapi_modules = array
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
        } else {
            bail!("versions.toml: {key} is neither a version nor a list");
        }
    }
    Ok(Versions {
        crates,
        k8s_openapi_modules,
    })
}

#[cfg(test)]
mod tests {
    use super::versions;

    #[test]
    fn the_stack_is_pinned_in_one_file() {
        let v = versions();
        assert_eq!(v.get("kube"), "5.0.0");
        assert_eq!(v.get("k8s_openapi"), "0.29.0");
        assert_eq!(v.get("k8s_openapi_feature"), "v1_37");
        assert!(v.k8s_openapi_modules.iter().any(|m| m == "apps/v1"));
        assert!(v.k8s_openapi_modules.iter().any(|m| m == "core/v1"));
    }
}
