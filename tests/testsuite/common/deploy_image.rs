//! The quick-start Memcached of deploy-image/v1-alpha on the test control
//! plane, checked the same way for a go/v4 and a rust/v1-alpha project: the
//! sample applied gets a Deployment of the image (command, port, user,
//! owner), a ReplicaSet from kube-controller-manager, its conditions, its
//! finalizer and an event; deleted, its finalizer runs and the Deployment
//! goes; with the manager stopped, `make uninstall` names the sample that
//! still holds its finalizer instead of waiting for ever.

use super::cluster::{Env, wait_until};
use super::{stderr, stdout};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The image the quick start deploys.
pub const IMAGE: &str = "memcached:1.6.26-alpine3.19";

/// kubebuilder's quick-start `create api`; tests add `--make=false` and
/// `--manifests=false` where they run those steps themselves.
pub const QUICK_START: &str = "create api --group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19 --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001";

/// The finalizer the Memcached controller puts on the sample.
const FINALIZER: &str = "cache.example.com/finalizer";

/// The Memcached sample's resource, for kubectl.
const SAMPLE: [&str; 4] = [
    "memcacheds.cache.example.com",
    "memcached-sample",
    "-n",
    "default",
];

/// One field of the sample, by JSONPath.
fn sample_field(env: &Env, path: &str) -> String {
    let jsonpath = format!("jsonpath={path}");
    stdout(&env.kubectl(&[&["get"][..], &SAMPLE, &["-o", &jsonpath]].concat()))
}

/// One field of the sample's Deployment (empty when there is none).
fn deployment_field(env: &Env, path: &str) -> String {
    let jsonpath = format!("jsonpath={path}");
    stdout(&env.kubectl(&[
        "get",
        "deployment",
        "memcached-sample",
        "-n",
        "default",
        "-o",
        &jsonpath,
    ]))
}

/// Applies the Memcached sample of the project in `dir` to `default`.
fn apply_sample(dir: &Path, env: &Env) {
    env.run(
        dir,
        "kubectl",
        &[
            "apply",
            "-f",
            "config/samples/cache_v1alpha1_memcached.yaml",
            "-n",
            "default",
        ],
    );
}

/// The sample applied: its Deployment, a ReplicaSet, its conditions, an event.
pub fn sample_gets_a_deployment_and_conditions(dir: &Path, env: &Env) {
    apply_sample(dir, env);
    wait_until(
        "Deployment memcached-sample running the image",
        Duration::from_secs(60),
        || deployment_field(env, "{.spec.template.spec.containers[0].image}") == IMAGE,
    );
    let container = "{.spec.template.spec.containers[0]";
    for (path, expected) in [
        (
            format!("{container}.command}}"),
            "[\"memcached\",\"--memory-limit=64\",\"-o\",\"modern\",\"-v\"]",
        ),
        (format!("{container}.ports[0].containerPort}}"), "11211"),
        (format!("{container}.securityContext.runAsUser}}"), "1001"),
        ("{.spec.replicas}".to_string(), "1"),
        (
            "{.metadata.ownerReferences[0].kind}".to_string(),
            "Memcached",
        ),
    ] {
        assert_eq!(deployment_field(env, &path), expected, "{path}");
    }
    wait_until(
        "a ReplicaSet owned by Deployment memcached-sample",
        Duration::from_secs(60),
        || {
            let out = env.kubectl(&[
                "get",
                "replicasets",
                "-n",
                "default",
                "-o",
                "jsonpath={.items[*].metadata.ownerReferences[*].name}",
            ]);
            stdout(&out)
                .split_whitespace()
                .any(|n| n == "memcached-sample")
        },
    );
    // No scheduler or kubelet: the pods never run, so the sample is
    // progressing and not available, and nothing is wrong.
    let condition = |kind: &str| {
        sample_field(
            env,
            &format!("{{.status.conditions[?(@.type==\"{kind}\")].status}}"),
        )
    };
    wait_until(
        "the sample's Available, Progressing and Degraded conditions",
        Duration::from_secs(60),
        || {
            (
                condition("Available"),
                condition("Progressing"),
                condition("Degraded"),
            ) == ("False".into(), "True".into(), "False".into())
        },
    );
    assert_eq!(sample_field(env, "{.metadata.finalizers[0]}"), FINALIZER);
    let reasons = stdout(&env.kubectl(&[
        "get",
        "events",
        "-n",
        "default",
        "-o",
        "jsonpath={.items[*].reason}",
    ]));
    assert!(
        reasons.split_whitespace().any(|r| r == "Created"),
        "no Created event: {reasons}"
    );
}

/// The sample deleted: kubectl waits for the finalizer, and the Deployment
/// goes; the manager's log at `log_path` holds `cleaned_up`, which the
/// controller logs once its clean-up ran.
pub fn deletion_runs_the_finalizer(env: &Env, log_path: &Path, cleaned_up: &str) {
    env.run(
        Path::new("."),
        "kubectl",
        &[&["delete"][..], &SAMPLE, &["--timeout=60s"]].concat(),
    );
    assert!(
        !env.kubectl(&[&["get"][..], &SAMPLE].concat())
            .status
            .success(),
        "the sample is still there"
    );
    wait_until(
        "Deployment memcached-sample to go",
        Duration::from_secs(60),
        || {
            !env.kubectl(&["get", "deployment", "memcached-sample", "-n", "default"])
                .status
                .success()
        },
    );
    let log = std::fs::read_to_string(log_path).unwrap_or_default();
    assert!(
        log.contains(cleaned_up),
        "the finalizer did not run:\n{log}"
    );
}

/// The sample applied again and reconciled by the running manager: it holds
/// the finalizer once more.
pub fn sample_holds_the_finalizer_again(dir: &Path, env: &Env) {
    apply_sample(dir, env);
    wait_until("the sample's finalizer", Duration::from_secs(60), || {
        sample_field(env, "{.metadata.finalizers[0]}") == FINALIZER
    });
}

/// With the manager stopped and the sample holding its finalizer: `make
/// uninstall` (`make` builds the command that runs make with the arguments
/// it is given, under `timeout`, so that an endless wait fails the test;
/// DELETE_TIMEOUT=5s) stops within its wait, leaves the CRD, and names the
/// sample, its finalizer and what to do; the objects without a finalizer (`gone`: resource and name in
/// `default`) are deleted meanwhile. The command it gives to drop the
/// finalizer works, and `make uninstall` then removes the CRD.
pub fn uninstall_names_the_held_sample(
    make: &dyn Fn(&[&str]) -> Command,
    env: &Env,
    gone: &[(&str, &str)],
) {
    let started = Instant::now();
    let output = make(&["uninstall", "DELETE_TIMEOUT=5s"])
        .output()
        .expect("make starts");
    let took = started.elapsed();
    let err = stderr(&output);
    assert!(
        !output.status.success(),
        "make uninstall succeeded while the sample holds its finalizer:\n{err}"
    );
    let listed = format!("  Memcached memcached-sample -n default, finalizers [{FINALIZER}]");
    assert!(
        err.lines().any(|l| l == listed),
        "{listed:?} not in:\n{err}"
    );
    assert!(err.contains("make run or make deploy"), "{err}");
    // The wait is bounded: 5 s, plus `make manifests` and kubectl's calls.
    assert!(
        took < Duration::from_secs(120),
        "make uninstall took {took:?}"
    );
    assert!(
        env.kubectl(&["get", "crd", "memcacheds.cache.example.com"])
            .status
            .success(),
        "the CRD was deleted while an object of it was held"
    );
    for (resource, name) in gone {
        let out = env.kubectl(&["get", resource, name, "-n", "default"]);
        assert!(!out.status.success(), "{resource} {name} is still there");
    }
    // The command the message gives, for the object it lists.
    let hint = err
        .lines()
        .find_map(|l| l.strip_prefix("To drop one without its clean-up: "))
        .unwrap_or_else(|| panic!("no command to drop a finalizer in:\n{err}"));
    let patch = hint.replace(
        "KIND NAME [-n NAMESPACE]",
        "Memcached memcached-sample -n default",
    );
    env.run(Path::new("."), "sh", &["-c", &patch]);
    let output = make(&["uninstall"]).output().expect("make starts");
    assert!(
        output.status.success(),
        "make uninstall failed once the finalizer was dropped:\n{}",
        stderr(&output)
    );
    assert!(
        !env.kubectl(&["get", "crd", "memcacheds.cache.example.com"])
            .status
            .success(),
        "make uninstall left the CRD"
    );
}
