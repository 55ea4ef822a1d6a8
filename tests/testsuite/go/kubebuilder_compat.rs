//! kubebuilder and kubebuilder-rs continuing each other's projects, and
//! writing the same project for the same commands.
//!
//! Each scenario starts a project with one tool (`init`, a few APIs, maybe a
//! webhook), then runs `create api` and `create webhook` variants with the
//! other tool: defaulting, validation, both at once and in two calls, custom
//! paths, conversion with a spoke, a cluster-scoped kind, an API with
//! `--ssa`, built-in kinds (core/v1 Pod, apps/v1 Deployment) and an external
//! type, in a single-group and a multigroup project. kubebuilder is the
//! release kubebuilder-rs follows (`kubebuilder` in
//! `scaffolds/go/v4/versions.toml`), plus one project started by the release
//! before it (old webhook type names) and continued by kubebuilder-rs. The
//! continued project must then build, render its manifests, pass `make test`
//! (envtest) and, for `config/default`, `kustomize build`; the manager must
//! accept the arguments that output passes it (`--webhook-port` among them
//! when the reference release made `cmd/main.go`). Every command runs with
//! `--make=false`; the checks do what a user does next (`go mod tidy`,
//! `make manifests generate`).
//!
//! `webhook_certs` continues a project whose manager keeps its own webhook
//! certificates (webhook-certs/v1-alpha) with kubebuilder.
//!
//! A third test runs the same commands with each tool in a project of its
//! own and compares what they wrote (see `common::same_scaffold`): it prints
//! every difference it tolerates, and fails on any other.
//!
//! kubebuilder is installed from the Go module proxy at the first run and
//! cached beside the other tools (`$KUBEBUILDER_RS_CACHE/tools-bin`). Needs
//! Go, the module proxy and KUBEBUILDER_ASSETS, so it is ignored by a plain
//! `cargo test` and run by `scripts/test-all`.

mod webhook_certs;

use crate::common::kubebuilder::{
    PREVIOUS_KUBEBUILDER_VERSION, kubebuilder_release, reference_version,
};
use crate::common::same_scaffold::compare;
use crate::common::{kb, persistent_project_dir, shared_tools_bin, stderr, stdout, words};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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
    /// The kubebuilder release that runs kubebuilder's commands.
    release: String,
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
        api("--group crew --version v1 --kind Navigator --ssa"),
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
        release: reference_version(),
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
        release: reference_version(),
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

/// A project of the release before the reference, with a defaulting webhook
/// of the old generation (`CaptainCustomDefaulter`), continued by
/// kubebuilder-rs: validation added to that webhook, an `--ssa` API and a
/// webhook of the current generation beside the old one.
fn previous_release(name: &'static str) -> Scenario {
    Scenario {
        name,
        first: Tool::Kubebuilder,
        release: PREVIOUS_KUBEBUILDER_VERSION.to_string(),
        multigroup: false,
        started: vec![
            api("--group crew --version v1 --kind Captain"),
            webhook("--group crew --version v1 --kind Captain --defaulting"),
        ],
        continued: vec![
            webhook("--group crew --version v1 --kind Captain --programmatic-validation"),
            api("--group crew --version v1 --kind Navigator --ssa"),
            webhook(
                "--group crew --version v1 --kind Navigator --defaulting --programmatic-validation",
            ),
        ],
    }
}

impl Scenario {
    /// Whether kubebuilder's part was run by the reference release, whose
    /// manager takes `--webhook-port` (the previous release's does not).
    fn by_reference(&self) -> bool {
        self.release == reference_version()
    }

    /// `init` (and `edit --multigroup`) and the commands of `first`, each
    /// with `--make=false`.
    fn start_lines(&self) -> Vec<String> {
        let repo = format!("example.com/{}", self.name);
        let mut init = format!(
            "init --domain example.com --repo {repo} --fetch-deps=false --skip-go-version-check"
        );
        let mut lines = Vec::new();
        match (self.first, self.multigroup) {
            (Tool::KubebuilderRs, true) => init.push_str(" --multigroup"),
            (Tool::Kubebuilder, true) => lines.push("edit --multigroup".to_string()),
            _ => {}
        }
        lines.insert(0, init);
        lines.extend(
            self.started
                .iter()
                .map(|line| format!("{line} --make=false")),
        );
        lines
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
    scenario
        .start_lines()
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
/// its continuations the objects left out are printed. The manager must
/// accept the arguments the overlay passes it (see [`manager_flags`]).
fn check(scenario: &Scenario, dir: &Path) -> Vec<String> {
    let continued_by = scenario.first.other();
    let kustomize = shared_tools_bin().join("kustomize");
    let checks: [(&str, &[&str]); 5] = [
        ("go", &["mod", "tidy"]),
        ("make", &["manifests", "generate"]),
        // Every package, and the manager's executable as bin/cmd.
        ("go", &["build", "-o", "bin/", "./..."]),
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
                failures.extend(manager_flags(dir, &yaml, scenario.by_reference()));
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

/// The arguments of the `manager` container in a rendered overlay.
fn manager_args(yaml: &str) -> Vec<String> {
    let container = yaml
        .split("\n---\n")
        .filter_map(|doc| serde_norway::from_str::<serde_norway::Value>(doc).ok())
        .filter(|doc| doc["kind"].as_str() == Some("Deployment"))
        .filter_map(|doc| {
            doc["spec"]["template"]["spec"]["containers"]
                .as_sequence()
                .cloned()
        })
        .flatten()
        .find(|container| container["name"].as_str() == Some("manager"));
    let args = container.and_then(|c| c["args"].as_sequence().cloned());
    args.unwrap_or_default()
        .iter()
        .filter_map(|arg| arg.as_str().map(str::to_string))
        .collect()
}

/// Runs the manager (built by the checks) with the overlay's arguments and `-h`:
/// Go's flag parsing stops with an error at an argument the manager does not
/// define, and exits 0 at `-h` when every one before it is defined, so
/// nothing starts. When the reference release made `cmd/main.go`, the
/// manager also defines `--webhook-port` and the overlay passes it.
fn manager_flags(dir: &Path, yaml: &str, by_reference: bool) -> Vec<String> {
    let args = manager_args(yaml);
    let mut failures = Vec::new();
    let main = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap_or_default();
    if by_reference && !main.contains("\"webhook-port\"") {
        failures.push("cmd/main.go defines no --webhook-port flag".to_string());
    }
    if by_reference && !args.iter().any(|arg| arg.starts_with("--webhook-port=")) {
        failures.push(format!("the overlay passes no --webhook-port: {args:?}"));
    }
    let manager = dir.join("bin/cmd");
    let mut run: Vec<&str> = args.iter().map(String::as_str).collect();
    run.push("-h");
    if let Err(output) = run_check(dir, manager.to_str().unwrap(), &run) {
        failures.push(format!(
            "the manager refuses the overlay's arguments: {output}"
        ));
    }
    failures
}

/// Runs a scenario and adds its figures to `tally`.
fn run_scenario(scenario: &Scenario, tally: &mut Tally) {
    let kubebuilder = kubebuilder_release(&scenario.release);
    let dir = persistent_project_dir(scenario.name);
    eprintln!("\n== {} ({})", scenario.name, dir.display());
    let failed_start = start(scenario, &kubebuilder, &dir);
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
        match run_tool(tool, &kubebuilder, &dir, &full) {
            None => tally.worked += 1,
            Some(output) => tally.failures.push(format!(
                "{}: {} {line}: {output}",
                scenario.name,
                tool.name()
            )),
        }
    }
    tally.failures.extend(
        check(scenario, &dir)
            .into_iter()
            .map(|failure| format!("{}: {failure}", scenario.name)),
    );
}

/// Runs the scenarios of a direction, prints the summary line and fails
/// with every failure's output.
fn run_direction(first: Tool, scenarios: Vec<Scenario>) {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let started = Instant::now();
    let mut tally = Tally::default();
    for scenario in &scenarios {
        run_scenario(scenario, &mut tally);
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
    let first = Tool::Kubebuilder;
    run_direction(
        first,
        vec![
            single_group(first, "kb-single"),
            multigroup(first, "kb-multi"),
            previous_release("kb-previous"),
        ],
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn kubebuilder_rs_projects_continued_by_kubebuilder() {
    let first = Tool::KubebuilderRs;
    run_direction(
        first,
        vec![
            single_group(first, "rs-single"),
            multigroup(first, "rs-multi"),
        ],
    );
}

/// Differences between what the reference kubebuilder and kubebuilder-rs
/// write for the same commands that the comparison accepts, each with why.
/// Keep it short: a difference listed here that no longer occurs fails the
/// test too, so the list stays true.
const TOLERATED: &[(&str, &str)] = &[
    (
        "file only in kubebuilder: go.sum",
        "kubebuilder runs `go mod tidy` after init, create api and create webhook even with \
         --fetch-deps=false and --make=false; kubebuilder-rs runs no Go then, so go.sum comes \
         with the user's first `go mod tidy` or `make`",
    ),
    (
        "file only in kubebuilder-rs: hack/run-with-webhooks/main.go",
        RUN_WITH_WEBHOOKS,
    ),
    (
        "file only in kubebuilder-rs: hack/run-with-webhooks/process_linux.go",
        RUN_WITH_WEBHOOKS,
    ),
    (
        "file only in kubebuilder-rs: hack/run-with-webhooks/process_other.go",
        RUN_WITH_WEBHOOKS,
    ),
];

/// Why kubebuilder-rs's first `create webhook` writes files kubebuilder does not.
const RUN_WITH_WEBHOOKS: &str = "the program behind `make run-with-webhooks` (webhooks served \
     from the developer's machine, docs/webhook-certificates.md), which kubebuilder v4.16 has \
     no counterpart of";

/// Runs `lines` with `tool` in a new project directory `dir`; returns the
/// commands that failed, with their output.
fn run_all(tool: Tool, kubebuilder: &Path, dir: &Path, lines: &[String]) -> Vec<String> {
    std::fs::create_dir_all(dir).expect("create project dir");
    lines
        .iter()
        .filter_map(|line| {
            run_tool(tool, kubebuilder, dir, line)
                .map(|out| format!("{} {line}: {out}", tool.name()))
        })
        .collect()
}

/// Prints what the comparison found, tolerated or not, and returns the
/// failures: untolerated differences and tolerated ones that no longer occur.
fn judge(found: &BTreeMap<String, Vec<&str>>) -> Vec<String> {
    let tolerated: BTreeMap<&str, &str> = TOLERATED.iter().copied().collect();
    eprintln!("\ntolerated differences:");
    for (line, why) in TOLERATED {
        let seen = found.get(*line).map(|names| names.join(", "));
        eprintln!(
            "  {line}  [{}]\n      {why}",
            seen.as_deref().unwrap_or("not seen")
        );
    }
    let mut failures: Vec<String> = TOLERATED
        .iter()
        .filter(|(line, _)| !found.contains_key(*line))
        .map(|(line, _)| format!("tolerated but no longer seen (drop it from TOLERATED): {line}"))
        .collect();
    for (line, scenarios) in found
        .iter()
        .filter(|(line, _)| !tolerated.contains_key(line.as_str()))
    {
        failures.push(format!("{line}  [{}]", scenarios.join(", ")));
    }
    failures
}

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn the_same_commands_write_the_same_files_project_and_go_names() {
    let version = reference_version();
    let kubebuilder = kubebuilder_release(&version);
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut found: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut failed = Vec::new();
    let mut pins = Vec::new();
    for scenario in [
        single_group(Tool::Kubebuilder, "same-single"),
        multigroup(Tool::Kubebuilder, "same-multi"),
    ] {
        let mut lines = scenario.start_lines();
        lines.extend(
            scenario
                .continued
                .iter()
                .map(|l| format!("{l} --make=false")),
        );
        let dir = |tool: Tool| -> PathBuf { tmp.path().join(tool.name()).join(scenario.name) };
        eprintln!("\n== {}", scenario.name);
        for tool in [Tool::Kubebuilder, Tool::KubebuilderRs] {
            failed.extend(run_all(tool, &kubebuilder, &dir(tool), &lines));
        }
        let comparison = compare(&dir(Tool::Kubebuilder), &dir(Tool::KubebuilderRs));
        eprintln!(
            "    {} of the {} files both wrote are worded differently (contents are not compared)",
            comparison.reworded_files, comparison.common_files
        );
        pins.extend(comparison.newer_pins);
        for line in comparison.differences {
            found.entry(line).or_default().push(scenario.name);
        }
    }
    pins.sort();
    pins.dedup();
    eprintln!("\nkubebuilder-rs's newer pins (tolerated):");
    for pin in &pins {
        eprintln!("  {pin}");
    }
    let failures = judge(&found);
    if !failures.is_empty() {
        eprintln!("\ndifferences NOT tolerated:");
        for failure in &failures {
            eprintln!("  {failure}");
        }
    }
    assert!(
        failed.is_empty(),
        "commands failed:\n{}",
        failed.join("\n\n")
    );
    assert!(
        failures.is_empty(),
        "kubebuilder {version} and kubebuilder-rs differ for the same commands:\n{}",
        failures.join("\n")
    );
}
