//! The quick-start Memcached of deploy-image/v1-alpha on the test control
//! plane, checked the same way for a go/v4 and a rust/v1-alpha project: the
//! sample applied gets a Deployment of the image (command, port, user,
//! owner), a ReplicaSet from kube-controller-manager, its conditions, its
//! finalizer and an event; deleted, its finalizer runs and the Deployment
//! goes.

use super::cluster::{Env, wait_until};
use super::stdout;
use std::path::Path;
use std::time::Duration;

/// The image the quick start deploys.
pub const IMAGE: &str = "memcached:1.6.26-alpine3.19";

/// kubebuilder's quick-start `create api`; tests add `--make=false` and
/// `--manifests=false` where they run those steps themselves.
pub const QUICK_START: &str = "create api --group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19 --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001";

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

/// The sample applied: its Deployment, a ReplicaSet, its conditions, an event.
pub fn sample_gets_a_deployment_and_conditions(dir: &Path, env: &Env) {
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
    assert_eq!(
        sample_field(env, "{.metadata.finalizers[0]}"),
        "cache.example.com/finalizer"
    );
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
