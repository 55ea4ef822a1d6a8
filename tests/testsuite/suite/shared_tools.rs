//! The tools the slow tests' projects install into the shared tools
//! directory, built once before the two slow lanes start.
//!
//! On a new machine both lanes would otherwise build the same tools at the
//! same time (golangci-lint alone takes minutes): kubebuilder's releases,
//! helm and actionlint, and what each project's Makefile installs into its
//! `LOCALBIN` (controller-gen, kustomize, setup-envtest, golangci-lint at the
//! versions it pins), for a kubebuilder-rs project and one of each
//! kubebuilder release the tests continue. Each of those projects then gets
//! an API and webhooks and its imports, tests' included, are compiled, so
//! that Go's build cache holds each pinned controller-runtime before the
//! lanes start.
//! `scripts/test-all` runs this file in the background, beside the fast
//! tests and the control plane's build, and then gives the other lanes hard
//! links to what it installed. Needs Go and the module proxy.

use crate::common;
use crate::common::kubebuilder::{
    PREVIOUS_KUBEBUILDER_VERSION, kubebuilder_release, reference_version,
};
use crate::common::{empty_project_dir, kb, kb_ok, output_ok, shared_tools_bin, words};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// The Makefile variables naming the pinned tools, with the binary each one
/// installs as `<binary>-<version>` in `LOCALBIN`. (setup-envtest is
/// installed too, but only when the `setup-envtest` link is missing: the
/// slow tests hand every project KUBEBUILDER_ASSETS, so any version does.)
const PINNED_TOOLS: [(&str, &str); 2] = [
    ("CONTROLLER_TOOLS_VERSION", "controller-gen"),
    ("KUSTOMIZE_VERSION", "kustomize"),
];

/// The make targets that install a kubebuilder-rs project's tools.
const OUR_TOOL_TARGETS: &str = "controller-gen kustomize envtest golangci-lint";

/// Those of a kubebuilder project, whose tests never lint it: its
/// golangci-lint target replaces the shared `golangci-lint` link with a file,
/// so each project type would rebuild it for the other.
const KUBEBUILDER_TOOL_TARGETS: &str = "controller-gen kustomize envtest";

#[test]
#[ignore = "needs Go and the module proxy; run by the README's test command before the slow lanes"]
fn the_tools_both_lanes_install_are_built_once() {
    let tools = shared_tools_bin();
    for version in [
        reference_version(),
        PREVIOUS_KUBEBUILDER_VERSION.to_string(),
    ] {
        let kubebuilder = kubebuilder_release(&version);
        let printed = output_ok(
            Command::new(&kubebuilder).arg("version"),
            &tools,
            "kubebuilder",
            &["version"],
        );
        assert!(
            printed.contains(&version),
            "kubebuilder-{version} reports: {printed}"
        );
        let (_tmp, dir) = empty_project_dir("warm-up");
        let init = words("init --domain example.com --repo example.com/warm-up");
        output_ok(
            Command::new(&kubebuilder)
                .args(&init)
                .current_dir(&dir)
                .env("LOCALBIN", &tools),
            &dir,
            "kubebuilder",
            &init,
        );
        install_project_tools(&dir, &tools, KUBEBUILDER_TOOL_TARGETS);
        for line in API_AND_WEBHOOK {
            let args = words(line);
            output_ok(
                Command::new(&kubebuilder)
                    .args(&args)
                    .current_dir(&dir)
                    .env("LOCALBIN", &tools),
                &dir,
                "kubebuilder",
                &args,
            );
        }
        compile_go_dependencies(&dir);
    }

    let (_tmp, dir) = empty_project_dir("warm-up");
    kb_ok(
        &dir,
        &words("init --domain example.com --repo example.com/warm-up"),
    );
    install_project_tools(&dir, &tools, OUR_TOOL_TARGETS);
    for line in API_AND_WEBHOOK {
        let args = words(line);
        let output = kb(&dir)
            .args(&args)
            .env("LOCALBIN", &tools)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "kubebuilder-rs {line}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    compile_go_dependencies(&dir);
    let lint = Command::new(tools.join("golangci-lint"))
        .arg("version")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        lint.status.success(),
        "golangci-lint version: {}",
        String::from_utf8_lossy(&lint.stderr)
    );

    let helm = common::helm::newest_helm_release();
    assert!(helm.starts_with(&tools), "{}", helm.display());
    let actionlint = common::actionlint::actionlint();
    assert!(actionlint.starts_with(&tools), "{}", actionlint.display());
}

/// What gives each warm-up project an API with a controller and webhooks,
/// so that its packages import what the slow tests' projects import.
const API_AND_WEBHOOK: [&str; 2] = [
    "create api --group ship --version v1 --kind Frigate --resource --controller",
    "create webhook --group ship --version v1 --kind Frigate --defaulting --programmatic-validation",
];

/// Compiles every package the Go project in `dir` imports, its tests'
/// imports included, into Go's build cache. Each kind of project pins its own
/// controller-runtime and client-go; compiled here, one after the other, the
/// lanes find them built instead of compiling the same ones at the same time
/// on a new machine (Go's cache does not share work in progress between
/// processes). `go vet` compiles the imported packages as `go build` and `go
/// test` do (the same cache entries) but links nothing and runs no test, so
/// with a warm cache it costs seconds.
fn compile_go_dependencies(dir: &Path) {
    let args = ["vet", "./..."];
    output_ok(
        Command::new("go").args(args).current_dir(dir),
        dir,
        "go",
        &args,
    );
}

/// Runs the project's tool `targets` with `tools` as `LOCALBIN` and checks
/// that each pinned tool is there at the version the Makefile names, and runs.
fn install_project_tools(dir: &Path, tools: &Path, targets: &str) {
    let targets = words(targets);
    output_ok(
        Command::new("make")
            .args(&targets)
            .current_dir(dir)
            .env("LOCALBIN", tools),
        dir,
        "make",
        &targets,
    );
    for (variable, binary) in PINNED_TOOLS {
        let version = make_variable(dir, variable);
        let installed = tools.join(format!("{binary}-{version}"));
        let mode = std::fs::metadata(&installed)
            .unwrap_or_else(|err| panic!("{variable} {version}: {}: {err}", installed.display()))
            .permissions()
            .mode();
        assert!(
            mode & 0o111 != 0,
            "{} is not executable",
            installed.display()
        );
    }
}

/// The value make gives the Makefile variable `name` in `dir` (kubebuilder's
/// Makefiles compute some versions from go.mod).
fn make_variable(dir: &Path, name: &str) -> String {
    let rule = format!("kubebuilder-rs-print: ; @echo $({name})");
    let args = [
        "-s",
        "--no-print-directory",
        "--eval",
        &rule,
        "kubebuilder-rs-print",
    ];
    let value = output_ok(
        Command::new("make").args(args).current_dir(dir),
        dir,
        "make",
        &args,
    );
    let value = value.lines().next().unwrap_or_default().trim().to_string();
    assert!(!value.is_empty(), "the Makefile sets no {name}");
    value
}
