//! `scripts/check-versions` against a stand-in `go` command that answers
//! from canned release lists, so the test needs no network: which pins it
//! calls current or behind (and by how much), that pre-releases do not count,
//! the notes about a newer Go and Kubernetes' etcd, and whether kubebuilder
//! has a release newer than the one kubebuilder-rs follows.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A `go` that prints `$STUB/versions/<module>` for `go list -m -versions`
/// and points `go mod download -json` at `$STUB/mods/<module>@<version>.mod`.
const STUB_GO: &str = r#"#!/usr/bin/env bash
set -eu
key() { printf '%s' "$1" | tr '/' '_'; }
case "$1 $2 $3" in
"list -m -versions")
    file="$STUB/versions/$(key "$4")"
    [ -f "$file" ] || { echo "go: module $4: not found" >&2; exit 1; }
    printf '%s %s\n' "$4" "$(cat "$file")" ;;
"mod download -json")
    mod="$STUB/mods/$(key "${4%@*}")@${4#*@}.mod"
    [ -f "$mod" ] || { echo '{"Error": "not found"}'; exit 1; }
    printf '{\n\t"GoMod": "%s"\n}\n' "$mod" ;;
*) echo "stub go: unexpected arguments: $*" >&2; exit 2 ;;
esac
"#;

/// The pins of the versions file the script reads in these tests.
const VERSIONS_TOML: &str = r#"go = "1.26.0"
controller_runtime = "v0.24.1"
k8s_api = "v0.37.2"
kubernetes = "1.37.2"
etcd = "v3.7.0"
controller_tools = "v0.23.0"
kustomize = "v5.8.2"
golangci_lint = "v2.15.0"
ginkgo = "v2.34.0"
gomega = "v1.44.0"
kubebuilder = "v4.16.0"
"#;

/// Release lists by module, as the proxy would list them.
const RELEASES: &[(&str, &str)] = &[
    (
        "golang.org/toolchain",
        "v0.0.1-go1.26.8.linux-amd64 v0.0.1-go1.27rc1.linux-amd64 v0.0.1-go1.26.8.darwin-arm64",
    ),
    (
        "sigs.k8s.io/controller-runtime",
        "v0.24.0 v0.24.1 v0.25.0-rc.0 v0.25.0 v0.25.2 v0.26.0-alpha.1",
    ),
    ("k8s.io/api", "v0.37.1 v0.37.2 v0.38.0-alpha.0"),
    ("k8s.io/kubernetes", "v1.37.2"),
    ("go.etcd.io/etcd/server/v3", "v3.7.0 v3.7.1 v3.8.0-alpha.0"),
    ("sigs.k8s.io/controller-tools", "v0.23.0"),
    ("sigs.k8s.io/kustomize/kustomize/v5", "v5.8.1 v5.8.2 v5.8.3"),
    ("github.com/golangci/golangci-lint/v2", "v2.15.0 v3.0.0"),
    ("github.com/onsi/ginkgo/v2", "v2.34.0"),
    ("github.com/onsi/gomega", "v1.44.0"),
    (
        "sigs.k8s.io/kubebuilder/v4",
        "v4.15.0 v4.16.0 v4.17.0-rc.1 v4.17.0",
    ),
];

/// go.mod files the stub serves for `go mod download -json`.
const MODS: &[(&str, &str)] = &[
    (
        "sigs.k8s.io/kustomize/kustomize/v5@v5.8.3",
        "module sigs.k8s.io/kustomize/kustomize/v5\n\ngo 1.27.0\n",
    ),
    (
        "sigs.k8s.io/controller-runtime@v0.25.2",
        "module sigs.k8s.io/controller-runtime\n\ngo 1.26.0\n",
    ),
    (
        "k8s.io/kubernetes@v1.37.2",
        "module k8s.io/kubernetes\n\ngo 1.26.0\n\nrequire (\n\tgo.etcd.io/etcd/server/v3 v3.7.0 // indirect\n)\n",
    ),
];

/// A directory with the stub `go`, its data and the versions file.
struct Stub {
    dir: tempfile::TempDir,
}

impl Stub {
    fn new(releases: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["bin", "versions", "mods"] {
            std::fs::create_dir(root.join(sub)).unwrap();
        }
        let go = root.join("bin/go");
        std::fs::write(&go, STUB_GO).unwrap();
        std::fs::set_permissions(&go, std::fs::Permissions::from_mode(0o755)).unwrap();
        for (module, versions) in releases {
            std::fs::write(root.join("versions").join(key(module)), versions).unwrap();
        }
        for (module_version, text) in MODS {
            let (module, version) = module_version.split_once('@').unwrap();
            let name = format!("{}@{version}.mod", key(module));
            std::fs::write(root.join("mods").join(name), text).unwrap();
        }
        std::fs::write(root.join("versions.toml"), VERSIONS_TOML).unwrap();
        Self { dir }
    }

    /// Runs the script with the stub first on PATH.
    fn run(&self) -> Output {
        let root = self.dir.path();
        let path = format!(
            "{}:{}",
            root.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new(script())
            .arg(root.join("versions.toml"))
            .env("PATH", path)
            .env("STUB", root)
            .output()
            .unwrap()
    }
}

/// The stub's file name for a module path.
fn key(module: &str) -> String {
    module.replace('/', "_")
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-versions")
}

/// The output line of pin `key`.
fn line<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(key))
        .unwrap_or_else(|| panic!("no line for {key} in:\n{stdout}"))
}

#[test]
fn reports_each_pin_as_current_or_behind_by_how_much() {
    let output = Stub::new(RELEASES).run();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expect = [
        ("go", "1.26.8", "current"),
        (
            "controller_runtime",
            "v0.25.2",
            "behind by a minor release (2 newer)",
        ),
        ("k8s_api", "v0.37.2", "current"),
        ("controller_tools", "v0.23.0", "current"),
        (
            "golangci_lint",
            "v3.0.0",
            "behind by a major release (1 newer)",
        ),
        ("etcd", "v3.7.1", "behind by a patch release (1 newer)"),
    ];
    for (key, newest, status) in expect {
        let text = line(&stdout, key);
        assert!(
            text.contains(newest) && text.contains(status),
            "{key}: want newest {newest} and {status:?}, got:\n{text}"
        );
    }
    assert!(
        line(&stdout, "kustomize").contains("v5.8.3 needs go 1.27.0 (go pin: 1.26.0)"),
        "{stdout}"
    );
    assert!(
        line(&stdout, "etcd").contains("Kubernetes v1.37.2 requires v3.7.0"),
        "{stdout}"
    );
    assert!(
        !line(&stdout, "controller_runtime").contains("needs go"),
        "{stdout}"
    );
    let kubebuilder = line(&stdout, "kubebuilder");
    assert!(
        kubebuilder.contains("v4.17.0")
            && kubebuilder.contains("behind by a minor release (1 newer)")
            && kubebuilder
                .contains("kubebuilder-rs follows v4.16.0: compare its scaffold with v4.17.0"),
        "{stdout}"
    );
}

#[test]
fn says_nothing_more_when_kubebuilder_has_no_newer_release() {
    let releases: Vec<_> = RELEASES
        .iter()
        .map(|&(module, versions)| match module {
            "sigs.k8s.io/kubebuilder/v4" => (module, "v4.15.0 v4.16.0 v4.17.0-alpha.1"),
            _ => (module, versions),
        })
        .collect();
    let output = Stub::new(&releases).run();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{stdout}");
    let kubebuilder = line(&stdout, "kubebuilder");
    assert!(
        kubebuilder.contains("current") && !kubebuilder.contains("follows"),
        "{stdout}"
    );
}

#[test]
fn a_module_the_proxy_does_not_list_is_an_error() {
    let releases: Vec<_> = RELEASES
        .iter()
        .filter(|(module, _)| *module != "k8s.io/api")
        .copied()
        .collect();
    let output = Stub::new(&releases).run();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "exit 0 without k8s.io/api");
    assert!(
        stderr.contains("cannot list the versions of k8s.io/api"),
        "{stderr}"
    );
}
