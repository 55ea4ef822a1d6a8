//! `kubebuilder-rs version`.

use crate::plugins::go_v4::versions;

/// The commit the binary was built from, set by build.rs.
const COMMIT: &str = env!("KUBEBUILDER_RS_COMMIT");

/// Prints the tool's version and commit, and the versions it scaffolds.
pub fn run() {
    let v = versions();
    println!(
        "kubebuilder-rs {} (commit {COMMIT})",
        env!("CARGO_PKG_VERSION")
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
