//! The metrics of a rust/v1-alpha manager on the test control plane, and
//! what its reconcile runner does with errors, requeues and panics.
//!
//! A project (`init`, one `create api`, `edit --plugins grafana/v1-alpha`)
//! whose Reconcile is edited to fail, fail for good, requeue, panic or take
//! long when an annotation asks, with two reconciles at once, runs with
//! WATCH_NAMESPACE=a,b. Objects in a and b are reconciled, those in c never;
//! after a panic the counter rises and other objects are still reconciled;
//! the metrics endpoint then serves every family of controller-runtime's
//! that go/v4 dashboards read, with values that follow from what the log
//! shows happened, and every metric the project's Grafana dashboards query.
//!
//! Needs cargo, the crates.io index and KUBEBUILDER_ASSETS. Run by
//! `scripts/test-all`.

use crate::common::cluster::{
    Background, ControlPlane, Env, crd_established, http_get, step, wait_until,
};
use crate::common::grafana::dashboard_metrics;
use crate::common::rust_project::{self, build_manager, run, rust_env};
use crate::common::{free_port, persistent_project_dir, stdout};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The annotation that tells the edited Reconcile what to do.
const BEHAVIOUR: &str = "test.example.com/behaviour";

/// The line of the scaffolded Reconcile the test replaces.
const SCAFFOLDED_LOG: &str = r#"    tracing::info!("reconciling");"#;

/// What the edited Reconcile does first: log its object and behaviour, then
/// behave as the annotation says (`ok` goes on as scaffolded).
const EDITED_START: &str = r#"    let name = guestbook.name_any();
    let ns = guestbook.namespace().unwrap_or_default();
    let behaviour = guestbook
        .annotations()
        .get("test.example.com/behaviour")
        .cloned()
        .unwrap_or_else(|| "ok".to_string());
    tracing::info!(%name, %ns, %behaviour, "test reconcile");
    tracing::debug!(%behaviour, "test debug line");
    match behaviour.as_str() {
        "error" => return Err(Error::Invalid("asked to fail".to_string())),
        "terminal" => return Err(Error::Terminal("asked to fail for good".to_string())),
        "requeue" => return Ok(Action::requeue(std::time::Duration::from_secs(1))),
        "panic" => panic!("asked to panic"),
        "slow" => tokio::time::sleep(std::time::Duration::from_secs(6)).await,
        _ => {}
    }"#;

/// Scaffolds the project and edits its Reconcile and concurrency.
fn scaffold(dir: &Path) {
    rust_project::scaffold(
        dir,
        &[
            "create api --group webapp --version v1 --kind Guestbook --resource --controller",
            "edit --plugins grafana/v1-alpha",
        ],
    );
    let path = dir.join("src/controller/guestbook.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let concurrency = "pub const MAX_CONCURRENT_RECONCILES: u16 = 1;";
    for needle in [SCAFFOLDED_LOG, concurrency] {
        assert!(text.contains(needle), "no {needle} in\n{text}");
    }
    let edited = text
        .replace(SCAFFOLDED_LOG, EDITED_START)
        .replace(concurrency, "pub const MAX_CONCURRENT_RECONCILES: u16 = 2;");
    std::fs::write(&path, edited).unwrap();
}

/// One sample of the Prometheus text format.
#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// A scrape of `/metrics`.
#[derive(Debug)]
struct Scrape(Vec<Sample>);

impl Scrape {
    fn of(port: u16) -> Self {
        let (status, body) = http_get(port, "/metrics").expect("the metrics endpoint answers");
        assert_eq!(status, 200, "{body}");
        Self(body.lines().filter_map(parse_sample).collect())
    }

    /// The sum of the samples named `name` with every label of `labels`.
    fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.0
            .iter()
            .filter(|s| s.name == name)
            .filter(|s| {
                labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).is_some_and(|value| value == v))
            })
            .map(|s| s.value)
            .sum()
    }

    /// The sample named `name` of the guestbook controller (by the label
    /// `controller`), which must exist.
    fn of_controller(&self, name: &str, extra: &[(&str, &str)]) -> f64 {
        let mut labels = vec![("controller", "guestbook")];
        labels.extend_from_slice(extra);
        assert!(
            self.0.iter().any(|s| s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).is_some_and(|value| value == v))),
            "no {name}{labels:?} in the scrape"
        );
        self.sum(name, &labels)
    }

    fn names(&self) -> BTreeSet<String> {
        self.0.iter().map(|s| s.name.clone()).collect()
    }
}

/// `name{k="v",…} value`, or `None` for a comment or a blank line.
fn parse_sample(line: &str) -> Option<Sample> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let (series, value) = line.rsplit_once(' ')?;
    let value = value.parse().ok()?;
    let (name, labels) = match series.split_once('{') {
        Some((name, rest)) => (name, parse_labels(rest.strip_suffix('}')?)),
        None => (series, BTreeMap::new()),
    };
    Some(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// `k="v",k2="v2"` (values hold no quotes here).
fn parse_labels(text: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut rest = text;
    while let Some((key, after)) = rest.split_once("=\"") {
        let Some((value, tail)) = after.split_once('"') else {
            break;
        };
        labels.insert(key.trim_start_matches(',').to_string(), value.to_string());
        rest = tail;
    }
    labels
}

/// The reconciles the log shows, by (namespace, name, behaviour).
fn reconciles(log: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter(|line| line.contains("test reconcile"))
        .map(|line| {
            let field = |key: &str| {
                line.split_whitespace()
                    .find_map(|word| word.strip_prefix(&format!("{key}=")))
                    .unwrap_or_default()
                    .to_string()
            };
            (field("ns"), field("name"), field("behaviour"))
        })
        .collect()
}

fn count(log: &Path, behaviours: &[&str]) -> f64 {
    reconciles(log)
        .iter()
        .filter(|(_, _, b)| behaviours.contains(&b.as_str()))
        .count() as f64
}

/// Creates the Guestbook `name` in `namespace` with `behaviour`.
fn create(env: &Env, namespace: &str, name: &str, behaviour: &str) {
    let yaml = format!(
        "apiVersion: webapp.example.com/v1\nkind: Guestbook\nmetadata:\n  name: {name}\n  namespace: {namespace}\n  annotations:\n    {BEHAVIOUR}: {behaviour}\n"
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), yaml).unwrap();
    env.run(
        Path::new("."),
        "kubectl",
        &["apply", "-f", &file.path().to_string_lossy()],
    );
}

/// Whether the Guestbook `name` in `namespace` has the Available condition
/// the scaffolded Reconcile writes.
fn available(env: &Env, namespace: &str, name: &str) -> bool {
    let path = "jsonpath={.status.conditions[?(@.type==\"Available\")].status}";
    let out = env.kubectl(&["get", "guestbook", name, "-n", namespace, "-o", path]);
    stdout(&out) == "True"
}

fn wait_available(env: &Env, namespace: &str, name: &str) {
    wait_until(
        &format!("Guestbook {namespace}/{name} to be reconciled"),
        Duration::from_secs(60),
        || available(env, namespace, name),
    );
}

/// Starts the manager with plain HTTP metrics on `metrics_port`, limited to
/// the namespaces a and b, with `--zap-log-level=debug` (which wins over
/// the `RUST_LOG=error` beside it).
fn start(env: &Env, binary: &Path, metrics_port: u16, log: &Path) -> Background {
    let metrics = format!("--metrics-bind-address=127.0.0.1:{metrics_port}");
    let probes = format!("--health-probe-bind-address=127.0.0.1:{}", free_port());
    let mut command = Command::new(binary);
    command
        .args(["--metrics-secure=false", &metrics, &probes])
        .args([
            "--zap-devel=false",
            "--zap-encoder=console",
            "--zap-log-level=debug",
        ])
        .env("KUBECONFIG", &env.kubeconfig)
        .env("PATH", &env.path)
        .env("RUST_LOG", "error")
        .env("WATCH_NAMESPACE", "a,b");
    Background::logged(&mut command, log)
}

/// Waits until two scrapes 3 seconds apart count the same reconciles and
/// none runs; returns the last.
fn quiet(port: u16) -> Scrape {
    let total = |scrape: &Scrape| scrape.sum("controller_runtime_reconcile_total", &[]);
    let mut last = Scrape::of(port);
    for _ in 0..30 {
        std::thread::sleep(Duration::from_secs(3));
        let next = Scrape::of(port);
        let idle = next.of_controller("controller_runtime_active_workers", &[]) == 0.0;
        if idle && total(&next) == total(&last) {
            return next;
        }
        last = next;
    }
    panic!("the manager kept reconciling: {last:?}");
}

#[test]
#[ignore = "needs cargo, crates.io and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn a_rust_manager_exports_controller_runtimes_metrics_and_survives_panics() {
    let dir = persistent_project_dir("metrics");
    let offline = rust_env(None);
    step("scaffold, edit the Reconcile and the concurrency", || {
        scaffold(&dir)
    });
    let binary = step("build the manager", || build_manager(&offline, &dir));
    step("a bad --zap-log-level is refused in one line", || {
        let out = Command::new(&binary)
            .arg("--zap-log-level=bogus")
            .output()
            .unwrap();
        let error = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{error}");
        let first = error.lines().next().unwrap_or_default();
        assert!(first.contains("invalid log level \"bogus\""), "{error}");
        assert!(first.contains("use debug, info, error, panic"), "{error}");
    });
    let plane = step("control-plane up", ControlPlane::up);
    let env = rust_env(Some(&plane));
    step("make install; namespaces a, b and c", || {
        run(&env, &dir, "make", &["install"]);
        crd_established(&env, "guestbooks.webapp.example.com");
        for namespace in ["a", "b", "c"] {
            env.run(&dir, "kubectl", &["create", "namespace", namespace]);
        }
    });
    let port = free_port();
    let log = dir.join("manager.log");
    let _manager = start(&env, &binary, port, &log);
    let started = SystemTime::now();
    wait_until("the metrics endpoint", Duration::from_secs(60), || {
        http_get(port, "/metrics").is_some_and(|(status, _)| status == 200)
    });

    step("WATCH_NAMESPACE=a,b: objects in a and b reconciled", || {
        for namespace in ["a", "b", "c"] {
            create(&env, namespace, "plain", "ok");
        }
        wait_available(&env, "a", "plain");
        wait_available(&env, "b", "plain");
    });

    step(
        "a panic is counted, and other objects are still reconciled",
        || {
            create(&env, "b", "boom", "panic");
            wait_until("a counted panic", Duration::from_secs(30), || {
                Scrape::of(port).of_controller("controller_runtime_reconcile_panics_total", &[])
                    >= 1.0
            });
            create(&env, "b", "after-panic", "ok");
            wait_available(&env, "b", "after-panic");
            wait_until(
                "the panicking object retried",
                Duration::from_secs(30),
                || count(&log, &["panic"]) >= 2.0,
            );
        },
    );

    step("errors, a terminal error and requeues", || {
        create(&env, "a", "fails", "error");
        create(&env, "a", "gives-up", "terminal");
        create(&env, "a", "again", "requeue");
        wait_until("retries and requeues", Duration::from_secs(30), || {
            count(&log, &["error"]) >= 3.0 && count(&log, &["requeue"]) >= 3.0
        });
        for (namespace, name) in [("a", "fails"), ("a", "again"), ("b", "boom")] {
            env.run(
                &dir,
                "kubectl",
                &["delete", "guestbook", name, "-n", namespace],
            );
        }
    });

    step(
        "two slow reconciles at once; a third object waits in the queue",
        || {
            quiet(port);
            create(&env, "a", "slow-1", "slow");
            create(&env, "b", "slow-2", "slow");
            wait_until(
                "both slow reconciles running",
                Duration::from_secs(30),
                || count(&log, &["slow"]) >= 2.0,
            );
            create(&env, "a", "waiting", "ok");
            std::thread::sleep(Duration::from_secs(2));
            let busy = Scrape::of(port);
            let queue = [("name", "guestbook")];
            assert_eq!(
                busy.of_controller("controller_runtime_active_workers", &[]),
                2.0
            );
            assert!(
                busy.of_controller("workqueue_depth", &queue) >= 1.0,
                "{busy:?}"
            );
            let longest = busy.of_controller("workqueue_longest_running_processor_seconds", &queue);
            let unfinished = busy.of_controller("workqueue_unfinished_work_seconds", &queue);
            assert!(
                longest >= 1.0 && unfinished >= longest,
                "{longest} {unfinished}"
            );
            wait_available(&env, "a", "waiting");
        },
    );

    let scrape = step("the counts follow from the reconciles in the log", || {
        let scrape = quiet(port);
        let result = |result: &str| {
            scrape.of_controller("controller_runtime_reconcile_total", &[("result", result)])
        };
        let errors = count(&log, &["error", "terminal", "panic"]);
        assert_eq!(result("success"), count(&log, &["ok", "slow"]));
        assert_eq!(result("error"), errors);
        assert_eq!(result("requeue_after"), count(&log, &["requeue"]));
        assert_eq!(result("requeue"), 0.0);
        let total = reconciles(&log).len() as f64;
        let single = |name: &str| scrape.of_controller(name, &[]);
        assert_eq!(single("controller_runtime_reconcile_errors_total"), errors);
        assert_eq!(
            single("controller_runtime_terminal_reconcile_errors_total"),
            count(&log, &["terminal"])
        );
        assert_eq!(
            single("controller_runtime_reconcile_panics_total"),
            count(&log, &["panic"])
        );
        assert_eq!(
            single("controller_runtime_reconcile_time_seconds_count"),
            total
        );
        assert_eq!(single("controller_runtime_max_concurrent_reconciles"), 2.0);
        assert_eq!(single("controller_runtime_active_workers"), 0.0);

        let queue = [("name", "guestbook")];
        let retries = scrape.of_controller("workqueue_retries_total", &queue);
        let retried = count(&log, &["error", "panic", "requeue"]);
        assert_eq!(
            retries, retried,
            "every retried error and requeue, nothing else"
        );
        assert!(scrape.of_controller("workqueue_adds_total", &queue) >= total);
        assert_eq!(
            scrape.of_controller("workqueue_work_duration_seconds_count", &queue),
            total
        );
        let waited = scrape.of_controller("workqueue_queue_duration_seconds_sum", &queue);
        assert!(waited >= 1.0, "the waiting object waited: {waited}");
        assert_eq!(scrape.of_controller("workqueue_depth", &queue), 0.0);
        assert_eq!(
            scrape.of_controller("workqueue_unfinished_work_seconds", &queue),
            0.0
        );
        assert_eq!(
            scrape.of_controller("workqueue_longest_running_processor_seconds", &queue),
            0.0
        );
        scrape
    });

    step("logs: debug lines, each reconcile's in its span", || {
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains("test debug line"), "no debug line in\n{text}");
        let span = "reconcile{controller=guestbook kind=Guestbook object=a/plain reconcile_id=";
        let in_span = |line: &&str| line.contains("test reconcile") && line.contains(span);
        assert!(
            text.lines().any(|line| in_span(&line)),
            "no {span} in\n{text}"
        );
    });

    step("errors carry a stack trace, other lines none", || {
        let text = std::fs::read_to_string(&log).unwrap();
        let after = |needle: &str| {
            let mut lines = text.lines().skip_while(|line| !line.contains(needle));
            lines.next().expect(needle);
            lines.next().unwrap_or_default().to_string()
        };
        let frame = |line: &str| {
            line.strip_prefix('\t')
                .and_then(|rest| rest.trim_start().split_once(": "))
                .is_some_and(|(number, _)| number.parse::<u32>().is_ok())
        };
        // --zap-devel=false: traces from error lines on, as zap's default.
        let panicked = after("reconcile panicked");
        assert!(
            frame(&panicked),
            "no stack trace after the error in\n{text}"
        );
        let debug = after("test debug line");
        assert!(
            !frame(&debug),
            "a stack trace after a debug line in\n{text}"
        );
    });

    step("namespace c was never reconciled", || {
        let seen: BTreeSet<String> = reconciles(&log).into_iter().map(|(ns, _, _)| ns).collect();
        assert_eq!(seen, BTreeSet::from(["a".to_string(), "b".to_string()]));
        assert!(!available(&env, "c", "plain"));
    });

    step("the client's requests and the process are measured", || {
        let host = format!("127.0.0.1:{}", plane.apiserver_port());
        let requests = |method: &str| {
            scrape.sum(
                "rest_client_requests_total",
                &[("host", &host), ("method", method)],
            )
        };
        // Each reconciled `ok` object had its status patched once.
        assert!(requests("PATCH") >= 5.0, "{scrape:?}");
        assert!(requests("GET") >= 2.0, "lists and watches of a and b");
        let now = started.duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
        let start_time = scrape.sum("process_start_time_seconds", &[]);
        assert!((start_time - now).abs() < 30.0, "{start_time} vs {now}");
        assert!(scrape.sum("process_cpu_seconds_total", &[]) > 0.0);
        assert!(scrape.sum("process_resident_memory_bytes", &[]) > 1e6);
        assert!(scrape.sum("process_open_fds", &[]) >= 4.0);
    });

    step(
        "every metric the project's dashboards query is exported",
        || {
            let exported = scrape.names();
            let queried = dashboard_metrics(&dir);
            assert!(queried.len() >= 15, "{queried:?}");
            let missing: Vec<&String> = queried.difference(&exported).collect();
            assert!(missing.is_empty(), "not exported: {missing:?}");
        },
    );
}
