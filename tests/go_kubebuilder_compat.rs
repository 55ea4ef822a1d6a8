//! kubebuilder v4.15.0 and kubebuilder-rs continuing each other's projects.
//!
//! Each scenario starts a project with one tool (`init`, a few APIs, maybe a
//! webhook), then runs `create api` and `create webhook` variants with the
//! other tool: defaulting, validation, both at once and in two calls, custom
//! paths, conversion with a spoke, a cluster-scoped kind, built-in kinds
//! (core/v1 Pod, apps/v1 Deployment) and an external type, in a single-group
//! and a multigroup project. The continued project must then build, render
//! its manifests, pass `make test` (envtest) and, for `config/default`,
//! `kustomize build`. Every command runs with `--make=false`; the checks do
//! what a user does next (`go mod tidy`, `make manifests generate`).
//!
//! kubebuilder is built from the Go module proxy at the first run and cached
//! beside the other tools (`$KUBEBUILDER_RS_CACHE/tools-bin`). Needs Go, the
//! module proxy and KUBEBUILDER_ASSETS, so it is ignored by a plain
//! `cargo test` and run by `scripts/test-all`.

mod common;

use common::kubebuilder::kubebuilder_binary;
use common::{kb, persistent_project_dir, shared_tools_bin, stderr, stdout, words};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const EXTERNAL: &str = "--group cert-manager --version v1 --kind Certificate --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain io --external-api-module github.com/cert-manager/cert-manager@v1.18.2";

/// Which tool runs a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Kubebuilder,
    KubebuilderRs,
}

impl Tool {
    /// The other tool.
    fn other(self) -> Tool {
        match self {
            Tool::Kubebuilder => Tool::KubebuilderRs,
            Tool::KubebuilderRs => Tool::Kubebuilder,
        }
    }

    /// The name printed in logs.
    fn name(self) -> &'static str {
        match self {
            Tool::Kubebuilder => "kubebuilder",
            Tool::KubebuilderRs => "kubebuilder-rs",
        }
    }
}

/// A project started by `first` and continued by the other tool.
struct Scenario {
    /// Directory and Go module name.
    name: &'static str,
    first: Tool,
    multigroup: bool,
    /// Commands of `first` after `init`.
    started: Vec<String>,
    /// Commands of the other tool, counted in the summary.
    continued: Vec<String>,
}

/// What a direction's scenarios came to.
#[derive(Default)]
struct Tally {
    worked: usize,
    commands: usize,
    failures: Vec<String>,
}

/// `create api` with these flags; `--resource` and `--controller` are
/// spelled out unless given, or kubebuilder asks for them on the terminal.
fn api(flags: &str) -> String {
    let mut line = format!("create api {flags}");
    for flag in ["--resource", "--controller"] {
        if !flags.contains(flag) {
            line.push(' ');
            line.push_str(flag);
        }
    }
    line
}

/// `create webhook` with these flags.
fn webhook(flags: &str) -> String {
    format!("create webhook {flags}")
}

/// The single-group scenario started by `first`: kinds of one group, one
/// webhook already there, then every variant from the other tool.
fn single_group(first: Tool, name: &'static str) -> Scenario {
    let mut continued = vec![
        webhook("--group crew --version v1 --kind Captain --programmatic-validation"),
        webhook("--group crew --version v1 --kind FirstMate --conversion --spoke v2"),
        api("--group crew --version v1 --kind Admiral --namespaced=false"),
        webhook(
            "--group crew --version v1 --kind Admiral --defaulting --programmatic-validation --defaulting-path=/default-admiral --validation-path=/check-admiral",
        ),
        api("--group core --version v1 --kind Pod --resource=false --controller"),
        webhook("--group core --version v1 --kind Pod --defaulting"),
        api("--group apps --version v1 --kind Deployment --resource=false --controller"),
        webhook("--group apps --version v1 --kind Deployment --programmatic-validation"),
        api(&format!("{EXTERNAL} --resource=false --controller")),
    ];
    // kubebuilder registers only the first kind of a webhook package in its
    // test suite's scheme, so an external kind's webhook next to an own
    // kind's fails `make test` in kubebuilder's own projects too.
    if first == Tool::Kubebuilder {
        continued.push(webhook(&format!("{EXTERNAL} --defaulting")));
    }
    Scenario {
        name,
        first,
        multigroup: false,
        started: vec![
            api("--group crew --version v1 --kind Captain"),
            api("--group crew --version v1 --kind FirstMate"),
            api("--group crew --version v2 --kind FirstMate --controller=false"),
            webhook("--group crew --version v1 --kind Captain --defaulting"),
        ],
        continued,
    }
}

/// The multigroup scenario started by `first`: no webhook yet, so the other
/// tool switches on the webhook parts of `config/default` itself. Built-in
/// and external kinds get webhooks without `create api` here (the
/// single-group scenario has their `create api`), which keeps the number of
/// envtest suites, and the time, down.
fn multigroup(first: Tool, name: &'static str) -> Scenario {
    Scenario {
        name,
        first,
        multigroup: true,
        started: vec![
            api("--group ship --version v1 --kind Frigate --controller=false"),
            api("--group crew --version v1 --kind Captain"),
            api("--group crew --version v2 --kind Captain --controller=false"),
        ],
        continued: vec![
            webhook("--group ship --version v1 --kind Frigate --defaulting"),
            webhook("--group ship --version v1 --kind Frigate --programmatic-validation"),
            webhook("--group crew --version v1 --kind Captain --conversion --spoke v2"),
            api(
                "--group foo.policy --version v1 --kind HealthCheckPolicy --namespaced=false --controller=false",
            ),
            webhook(
                "--group foo.policy --version v1 --kind HealthCheckPolicy --defaulting --programmatic-validation",
            ),
            webhook("--group apps --version v1 --kind Deployment --defaulting"),
            webhook(&format!("{EXTERNAL} --programmatic-validation")),
        ],
    }
}

/// Runs one command of `tool` in `dir`; prints how it went and returns
/// `None` when it worked, or its output when it failed.
fn run_tool(tool: Tool, kubebuilder: &Path, dir: &Path, line: &str) -> Option<String> {
    let started = Instant::now();
    let args = words(line);
    let output = match tool {
        Tool::Kubebuilder => Command::new(kubebuilder)
            .args(&args)
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run kubebuilder"),
        Tool::KubebuilderRs => kb(dir).args(&args).output().expect("run kubebuilder-rs"),
    };
    let text = format!("{}{}", stdout(&output), stderr(&output));
    let warnings = text.lines().filter(|l| l.contains("WARN")).count();
    let status = if output.status.success() {
        "ok "
    } else {
        "FAILED"
    };
    eprintln!(
        "{status} {} {line}  ({:.1}s{})",
        tool.name(),
        started.elapsed().as_secs_f64(),
        if warnings > 0 {
            format!(", {warnings} warnings")
        } else {
            String::new()
        }
    );
    (!output.status.success()).then_some(text)
}

/// Runs `program args` in `dir` with the shared tools and the test control
/// plane; returns its standard output when it worked, or all its output
/// when it failed.
fn run_check(dir: &Path, program: &str, args: &[&str]) -> Result<String, String> {
    let started = Instant::now();
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("LOCALBIN", shared_tools_bin())
        // kubebuilder's Makefile asks setup-envtest for the control plane;
        // with this it answers with KUBEBUILDER_ASSETS instead of downloading.
        .env("ENVTEST_USE_ENV", "true")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let status = if output.status.success() {
        "ok "
    } else {
        "FAILED"
    };
    eprintln!(
        "{status} {program} {}  ({:.1}s)",
        args.join(" "),
        started.elapsed().as_secs_f64()
    );
    if output.status.success() {
        Ok(stdout(&output))
    } else {
        Err(format!("{}{}", stdout(&output), stderr(&output)))
    }
}

/// The webhook objects of a rendered `config/default` that lack the
/// cert-manager CA injection annotation: the webhook configurations, and
/// CRDs converted by a webhook.
fn without_ca_injection(yaml: &str) -> Vec<String> {
    yaml.split("\n---\n")
        .filter(|doc| {
            doc.contains("kind: MutatingWebhookConfiguration")
                || doc.contains("kind: ValidatingWebhookConfiguration")
                || (doc.contains("kind: CustomResourceDefinition")
                    && doc.contains("strategy: Webhook"))
        })
        .filter(|doc| !doc.contains("cert-manager.io/inject-ca-from:"))
        .map(|doc| {
            let kind = doc.lines().find(|l| l.starts_with("kind: ")).unwrap_or("?");
            let name = doc
                .lines()
                .find(|l| l.starts_with("  name: "))
                .unwrap_or("?")
                .trim();
            format!("{kind} {name}")
        })
        .collect()
}

/// Creates the scenario's project with its first tool.
fn start(scenario: &Scenario, kubebuilder: &Path, dir: &Path) -> Vec<String> {
    let repo = format!("example.com/{}", scenario.name);
    let mut init = format!(
        "init --domain example.com --repo {repo} --fetch-deps=false --skip-go-version-check"
    );
    let mut lines = Vec::new();
    match (scenario.first, scenario.multigroup) {
        (Tool::KubebuilderRs, true) => init.push_str(" --multigroup"),
        (Tool::Kubebuilder, true) => lines.push("edit --multigroup".to_string()),
        _ => {}
    }
    lines.insert(0, init);
    lines.extend(
        scenario
            .started
            .iter()
            .map(|line| format!("{line} --make=false")),
    );
    lines
        .iter()
        .filter_map(|line| {
            run_tool(scenario.first, kubebuilder, dir, line)
                .map(|output| format!("{} {line}: {output}", scenario.first.name()))
        })
        .collect()
}

/// What a user runs next, and the checks: build, manifests, the rendered
/// default overlay, and the tests against the control plane. The overlay
/// must inject the CA into every webhook object when kubebuilder-rs
/// continued the project; kubebuilder only warns where it cannot, so for
/// its continuations the objects left out are printed.
fn check(dir: &Path, continued_by: Tool) -> Vec<String> {
    let kustomize = shared_tools_bin().join("kustomize");
    let checks: [(&str, &[&str]); 5] = [
        ("go", &["mod", "tidy"]),
        ("make", &["manifests", "generate"]),
        ("go", &["build", "./..."]),
        (kustomize.to_str().unwrap(), &["build", "config/default"]),
        ("make", &["test"]),
    ];
    let mut failures = Vec::new();
    for (program, args) in checks {
        match run_check(dir, program, args) {
            Err(output) => {
                failures.push(format!("{program} {}: {output}", args.join(" ")));
                break;
            }
            Ok(yaml) if args[0] == "build" && args[1] == "config/default" => {
                let missing = without_ca_injection(&yaml);
                if missing.is_empty() {
                    continue;
                }
                eprintln!("    no CA injection for: {}", missing.join(", "));
                if continued_by == Tool::KubebuilderRs {
                    failures.push(format!("no CA injection for {}", missing.join(", ")));
                }
            }
            Ok(_) => {}
        }
    }
    failures
}

/// Runs a scenario and adds its figures to `tally`.
fn run_scenario(scenario: &Scenario, kubebuilder: &Path, tally: &mut Tally) {
    let dir = persistent_project_dir(scenario.name);
    eprintln!("\n== {} ({})", scenario.name, dir.display());
    let failed_start = start(scenario, kubebuilder, &dir);
    assert!(
        failed_start.is_empty(),
        "starting {} failed:\n{}",
        scenario.name,
        failed_start.join("\n")
    );
    let tool = scenario.first.other();
    for line in &scenario.continued {
        tally.commands += 1;
        let full = format!("{line} --make=false");
        match run_tool(tool, kubebuilder, &dir, &full) {
            None => tally.worked += 1,
            Some(output) => tally.failures.push(format!(
                "{}: {} {line}: {output}",
                scenario.name,
                tool.name()
            )),
        }
    }
    tally.failures.extend(
        check(&dir, tool)
            .into_iter()
            .map(|failure| format!("{}: {failure}", scenario.name)),
    );
}

/// Runs both scenarios of a direction, prints the summary line and fails
/// with every failure's output.
fn run_direction(first: Tool, names: (&'static str, &'static str)) {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let started = Instant::now();
    let kubebuilder = kubebuilder_binary();
    let mut tally = Tally::default();
    for scenario in [single_group(first, names.0), multigroup(first, names.1)] {
        run_scenario(&scenario, &kubebuilder, &mut tally);
    }
    eprintln!(
        "\n{} projects continued by {}: {} of {} commands; checks {} ({:.0}s)",
        first.name(),
        first.other().name(),
        tally.worked,
        tally.commands,
        if tally.failures.is_empty() {
            "passed"
        } else {
            "FAILED"
        },
        started.elapsed().as_secs_f64()
    );
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally.failures.join("\n\n")
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn kubebuilder_projects_continued_by_kubebuilder_rs() {
    run_direction(Tool::Kubebuilder, ("kb-single", "kb-multi"));
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn kubebuilder_rs_projects_continued_by_kubebuilder() {
    run_direction(Tool::KubebuilderRs, ("rs-single", "rs-multi"));
}
