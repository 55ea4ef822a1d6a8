//! `kubebuilder-rs version`.

use crate::plugins::go_v4::versions;
use crate::project::cli_version::{self, COMMIT, SCAFFOLD_DIGEST};

/// Prints the tool's version and commit, the `cliVersion` it writes with
/// its scaffold digest, and the versions it scaffolds.
pub fn run() {
    let v = versions();
    println!(
        "kubebuilder-rs {} (commit {COMMIT})",
        env!("CARGO_PKG_VERSION")
    );
    println!(
        "cliVersion: {} (scaffold digest {SCAFFOLD_DIGEST})",
        cli_version::current()
    );
    println!("Scaffolds (go/v4 layout):");
    println!("  Go                  {}", v.go);
    println!("  controller-runtime  {}", v.controller_runtime);
    println!(
        "  Kubernetes API      {} (k8s.io/api, apimachinery, client-go)",
        v.k8s_api
    );
    println!("  controller-tools    {}", v.controller_tools);
    println!("  kustomize           {}", v.kustomize);
    println!("  golangci-lint       {}", v.golangci_lint);
    println!("  envtest Kubernetes  {}", v.kubernetes);
}
