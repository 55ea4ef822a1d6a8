//! kubebuilder itself, for the tests that compare with it or continue its
//! projects: the release kubebuilder-rs follows (and the one before it),
//! installed once from the Go module proxy and cached beside the other tools.

use super::shared_tools_bin;
use std::path::PathBuf;
use std::time::Instant;

/// The release before the reference: its projects name their webhook types
/// `<Kind>CustomDefaulter` and `<Kind>CustomValidator`, and kubebuilder-rs
/// still continues them.
pub const PREVIOUS_KUBEBUILDER_VERSION: &str = "v4.15.0";

/// The kubebuilder release kubebuilder-rs follows: the `kubebuilder` key of
/// `scaffolds/go/v4/versions.toml`, which `scripts/check-versions` reads too.
pub fn reference_version() -> String {
    let text = include_str!("../../../scaffolds/go/v4/versions.toml");
    let doc: toml_edit::DocumentMut = text.parse().expect("versions.toml is TOML");
    doc.get("kubebuilder")
        .and_then(|item| item.as_str())
        .expect("versions.toml has a string `kubebuilder`")
        .to_string()
}

/// The reference release's binary (see [`kubebuilder_release`]).
pub fn kubebuilder_binary() -> PathBuf {
    kubebuilder_release(&reference_version())
}

/// The binary of kubebuilder `version`, installed from the module proxy the
/// first time (`go install`, which stamps the version it prints and writes
/// as PROJECT's `cliVersion`) and cached with the other tools afterwards:
/// the tool cache kubebuilder-rs itself uses for `alpha update`.
pub fn kubebuilder_release(version: &str) -> PathBuf {
    let cached = shared_tools_bin().join(format!("kubebuilder-{version}"));
    if cached.is_file() {
        eprintln!("ok  kubebuilder {version} from the cache");
        return cached;
    }
    let started = Instant::now();
    let bin =
        kubebuilder_rs::tools::kubebuilder_release(version).unwrap_or_else(|err| panic!("{err:#}"));
    eprintln!(
        "ok  installed kubebuilder {version}  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    bin
}
