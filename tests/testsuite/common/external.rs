//! The test-only external plugin `acmeconventions/v1` (a Python 3 script
//! under tests/fixtures/external-plugins) and how tests run commands with it.

use super::kb;
use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The plugin's key.
pub const KEY: &str = "acmeconventions/v1";

/// The root directory holding the test plugin, for `EXTERNAL_PLUGINS_PATH`.
pub fn plugins_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/external-plugins")
}

/// Panics, saying what to install, unless python3 runs (the plugin is a
/// Python 3 script; the README's test command needs it).
pub fn require_python() {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    assert!(
        ok,
        "python3 is needed by the external plugin tests: install it (apt-get install python3)"
    );
}

/// kubebuilder-rs in `dir`, finding the test plugin, with none of its
/// misbehaviour knobs set.
pub fn kb_ext(dir: &Path) -> Command {
    require_python();
    let mut cmd = kb(dir);
    cmd.env("EXTERNAL_PLUGINS_PATH", plugins_root())
        .env_remove("ACME_MISBEHAVE")
        .env_remove("ACME_RECORD")
        .env_remove("KUBEBUILDER_RS_PLUGIN_TIMEOUT");
    cmd
}
