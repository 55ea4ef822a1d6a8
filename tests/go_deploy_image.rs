//! deploy-image/v1-alpha end to end, on one project checked several ways.
//!
//! kubebuilder v4.15.0 scaffolds the quick-start Memcached with its
//! deploy-image plugin; kubebuilder-rs `alpha generate` re-creates the project
//! from that PROJECT file alone (same `plugins:` entry back), and the result
//! passes `make test` (the envtest specs of the generated controller). Then,
//! on the test control plane (with kube-controller-manager): `make install`,
//! `make run`, the sample applied → a Deployment of the image, a ReplicaSet
//! for it, the sample's conditions set and an event recorded; the sample
//! deleted → the finalizer runs and the Deployment goes.
//!
//! Needs Go, the module proxy and KUBEBUILDER_ASSETS, so it is run by
//! `scripts/test-all`.

mod common;

use common::cluster::{Background, ControlPlane, Env, env_for, step, wait_until};
use common::kubebuilder::kubebuilder_binary;
use common::{empty_project_dir, kb, run_ok, shared_tools_bin, stderr, stdout, words};
use serde_norway::Value;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The image the quick start deploys.
const IMAGE: &str = "memcached:1.6.26-alpine3.19";

/// kubebuilder's quick-start `create api`, without its post-steps.
const CREATE_API: &str = "create api --group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19 --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001 --make=false --manifests=false";

/// The Memcached sample's resource, for kubectl.
const SAMPLE: [&str; 4] = [
    "memcacheds.cache.example.com",
    "memcached-sample",
    "-n",
    "default",
];

/// PROJECT's YAML without the header and `cliVersion`, which name the tool.
fn project_body(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let mut project: Value = serde_norway::from_str(&text).unwrap();
    project.as_mapping_mut().unwrap().remove("cliVersion");
    project
}

/// Runs kubebuilder's `init` and quick-start `create api` in `dir`.
fn kubebuilder_quick_start(dir: &Path) {
    let kubebuilder = kubebuilder_binary();
    let run = |args: &[&str]| {
        let output = Command::new(&kubebuilder)
            .args(args)
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run kubebuilder");
        assert!(
            output.status.success(),
            "kubebuilder {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run(&[
        "init",
        "--domain",
        "example.com",
        "--repo",
        "example.com/memcached-operator",
        "--fetch-deps=false",
        "--skip-go-version-check",
    ]);
    run(&words(CREATE_API));
}

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

/// Starts `make run` with the image the manager would get from
/// config/manager/manager.yaml, logging to `log_path`.
fn start_manager(dir: &Path, env: &Env, log_path: &Path) -> Background {
    let log = std::fs::File::create(log_path).unwrap();
    Background {
        child: env
            .command(dir, "make", &["run"])
            .env("MEMCACHED_IMAGE", IMAGE)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap(),
    }
}

/// The sample applied: its Deployment, a ReplicaSet, its conditions, an event.
fn sample_gets_a_deployment_and_conditions(dir: &Path, env: &Env) {
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

/// The sample deleted: kubectl waits for the finalizer, and the Deployment goes.
fn deletion_runs_the_finalizer(env: &Env, log_path: &Path) {
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
        log.contains("Cleaned up after the Memcached"),
        "the finalizer did not run:\n{log}"
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn a_kubebuilder_quick_start_regenerates_tests_and_runs_on_a_cluster() {
    let started = Instant::now();
    let (tmp, dir) = empty_project_dir("memcached-operator");
    let original = tmp.path().join("kubebuilder");
    std::fs::create_dir(&original).unwrap();

    step(
        "kubebuilder v4.15.0: init and the quick-start create api",
        || kubebuilder_quick_start(&original),
    );
    step(
        "kubebuilder-rs alpha generate from that PROJECT alone: the same PROJECT back",
        || {
            let input = tmp.path().join("project-only");
            std::fs::create_dir(&input).unwrap();
            std::fs::copy(original.join("PROJECT"), input.join("PROJECT")).unwrap();
            let output = kb(tmp.path())
                .args(["alpha", "generate", "--input-dir", "project-only"])
                .args(["--output-dir", "memcached-operator"])
                .env("LOCALBIN", shared_tools_bin())
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "alpha generate failed: {}",
                stderr(&output)
            );
            assert_eq!(project_body(&dir), project_body(&original));
        },
    );
    step("make test: the controller's envtest specs pass", || {
        run_ok(&dir, "make", &["test"]);
    });

    let plane = step("control-plane up", ControlPlane::up);
    let env = env_for(&plane);
    step("make install: the CRD is served", || {
        env.run(&dir, "make", &["install"]);
        env.run(
            &dir,
            "kubectl",
            &[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/memcacheds.cache.example.com",
            ],
        );
    });
    let log_path = dir.join("make-run.log");
    let mut manager = start_manager(&dir, &env, &log_path);
    step("make run: the controller starts its workers", || {
        wait_until("the memcached workers", Duration::from_secs(300), || {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            log.lines()
                .any(|l| l.contains("Starting workers") && l.contains("\"memcached\""))
        });
    });
    step(
        "the sample: a Deployment of the image, a ReplicaSet, conditions, an event",
        || sample_gets_a_deployment_and_conditions(&dir, &env),
    );
    step(
        "the sample deleted: the finalizer runs, the Deployment goes",
        || deletion_runs_the_finalizer(&env, &log_path),
    );
    assert!(
        manager.interrupt(Duration::from_secs(60)),
        "the manager did not stop on SIGINT"
    );
    assert!(plane.down(), "control-plane down failed");
    eprintln!(
        "deploy-image test took {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
