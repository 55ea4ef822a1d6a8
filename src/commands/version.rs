//! `kubebuilder-rs version`.

use crate::plugins::PLUGINS;
use crate::project::cli_version::{self, COMMIT, SCAFFOLD_DIGEST};

/// Prints the tool's version and commit, the `cliVersion` it writes with
/// its scaffold digest, and the versions each language layout scaffolds.
pub fn run() {
    println!(
        "kubebuilder-rs {} (commit {COMMIT})",
        env!("CARGO_PKG_VERSION")
    );
    println!(
        "cliVersion: {} (scaffold digest {SCAFFOLD_DIGEST})",
        cli_version::current()
    );
    for layout in PLUGINS.iter().filter_map(|plugin| plugin.layout()) {
        println!("Scaffolds ({} layout):", layout.name());
        for (what, version) in layout.versions() {
            println!("  {what:<20}{version}");
        }
    }
}
