//! deploy-image/v1-alpha end to end, on one project checked several ways.
//!
//! kubebuilder v4.15.0 scaffolds the quick-start Memcached with its
//! deploy-image plugin; kubebuilder-rs `alpha generate` re-creates the project
//! from that PROJECT file alone (same `plugins:` entry back), and the result
//! passes `make test` (the envtest specs of the generated controller). Then,
//! on the test control plane (with kube-controller-manager): `make install`,
//! `make run`, the sample applied → a Deployment of the image, a ReplicaSet
//! for it, the sample's conditions set and an event recorded; the sample
//! deleted → the finalizer runs and the Deployment goes; applied again, then
//! the manager stopped → `make uninstall` stops within DELETE_TIMEOUT naming
//! the sample that holds its finalizer (no endless wait), and once the
//! finalizer is dropped with the command it gives, removes the CRD.
//!
//! Needs Go, the module proxy and KUBEBUILDER_ASSETS, so it is run by
//! `scripts/test-all`.

use crate::common::cluster::{Background, ControlPlane, Env, env_for, step, wait_until};
use crate::common::deploy_image::{
    IMAGE, QUICK_START, deletion_runs_the_finalizer, sample_gets_a_deployment_and_conditions,
    sample_holds_the_finalizer_again, uninstall_names_the_held_sample,
};
use crate::common::kubebuilder::kubebuilder_binary;
use crate::common::{empty_project_dir, kb, run_ok, shared_tools_bin, stderr, words};
use serde_norway::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

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
    let mut create_api = words(QUICK_START);
    create_api.extend(["--make=false", "--manifests=false"]);
    run(&create_api);
}

/// Starts `make run` with the image the manager would get from
/// config/manager/manager.yaml, logging to `log_path`.
fn start_manager(dir: &Path, env: &Env, log_path: &Path) -> Background {
    Background::logged(
        env.command(dir, "make", &["run"])
            .env("MEMCACHED_IMAGE", IMAGE),
        log_path,
    )
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
        || deletion_runs_the_finalizer(&env, &log_path, "Cleaned up after the Memcached"),
    );
    step("the sample applied again holds its finalizer", || {
        sample_holds_the_finalizer_again(&dir, &env)
    });
    assert!(
        manager.interrupt(Duration::from_secs(60)),
        "the manager did not stop on SIGINT"
    );
    step(
        "the manager stopped: make uninstall names the held sample, then, its finalizer dropped, removes the CRD",
        || {
            let make = |args: &[&str]| {
                env.command(&dir, "timeout", &[&["180", "make"][..], args].concat())
            };
            uninstall_names_the_held_sample(&make, &env, &[])
        },
    );
    assert!(plane.down(), "control-plane down failed");
    eprintln!(
        "deploy-image test took {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
