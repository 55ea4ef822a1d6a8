//! Records the git commit the binary is built from, for `kubebuilder-rs
//! version`, and rebuilds when a template under `scaffolds/` is added or
//! changed (the templates are embedded in the binary).

use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|commit| !commit.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=KUBEBUILDER_RS_COMMIT={commit}");
    println!("cargo:rerun-if-changed=scaffolds");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
}
