//! The user's path after scaffolding, against a real API server started by
//! `tests/support/control-plane up`: `make install`, `make run`, `make
//! deploy`, `make build-installer`, `make undeploy` and `make uninstall`.
//!
//! The control plane runs kube-controller-manager, so the cluster reacts as
//! one does: the manager's Deployment gets a ReplicaSet and a Pod, an object
//! owned by a Guestbook is garbage-collected with it, and the namespace
//! `make undeploy` deletes is emptied and finalized. There is no scheduler
//! and no kubelet, so no Pod ever runs: the test checks the objects the API
//! server accepted and what the controllers made of them.
//!
//! Needs Go, the module proxy and the control-plane binaries
//! (KUBEBUILDER_ASSETS), so it is run by `scripts/test-all`.

use crate::common::cluster::{
    Background, ControlPlane, Env, assert_deployed, default_ports_lock, env_for, http_get,
    install_cert_manager_crds, objects, step, wait_until,
};
use crate::common::{empty_project_dir, kb, shared_tools_bin, stderr, stdout};
use std::path::Path;
use std::time::{Duration, Instant};

const IMG: &str = "example.com/guestbook:v0.0.1";
const NAMESPACE: &str = "guestbook-system";

/// Scaffolds the guestbook project and makes its Reconcile report a condition.
fn scaffold(dir: &Path, env: &Env) {
    let run_kb = |args: &[&str]| {
        let output = kb(dir).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "kubebuilder-rs {args:?} failed: {}",
            stderr(&output)
        );
    };
    run_kb(&[
        "init",
        "--domain",
        "example.com",
        "--repo",
        "example.com/guestbook",
    ]);
    run_kb(&[
        "create",
        "api",
        "--group",
        "webapp",
        "--version",
        "v1",
        "--kind",
        "Guestbook",
        "--make=false",
    ]);
    run_kb(&[
        "create",
        "api",
        "--group",
        "webapp",
        "--version",
        "v1",
        "--kind",
        "Library",
        "--namespaced=false",
        "--make=false",
    ]);
    run_kb(&[
        "create",
        "webhook",
        "--group",
        "webapp",
        "--version",
        "v1",
        "--kind",
        "Guestbook",
        "--defaulting",
        "--programmatic-validation",
        "--make=false",
    ]);
    report_condition_in_reconcile(&dir.join("internal/controller/guestbook_controller.go"));
    env.run(dir, "go", &["mod", "tidy"]);
    env.run(dir, "make", &["manifests", "generate", "fmt", "vet"]);
}

/// Adds one status update to the scaffolded Reconcile: an Available condition.
fn report_condition_in_reconcile(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let imports = "\t\"k8s.io/apimachinery/pkg/runtime\"\n";
    let body_end = "\n\treturn ctrl.Result{}, nil\n}";
    assert!(
        text.contains(imports) && text.contains(body_end),
        "unexpected controller layout:\n{text}"
    );
    let text = text.replacen(
        imports,
        "\t\"k8s.io/apimachinery/pkg/api/meta\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime\"\n",
        1,
    );
    let text = text.replacen(
        body_end,
        "
	var guestbook webappv1.Guestbook
	if err := r.Get(ctx, req.NamespacedName, &guestbook); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	meta.SetStatusCondition(&guestbook.Status.Conditions, metav1.Condition{
		Type: \"Available\", Status: metav1.ConditionTrue, Reason: \"Reconciled\", Message: \"seen by the end-to-end test\",
	})
	if err := r.Status().Update(ctx, &guestbook); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}",
        1,
    );
    std::fs::write(path, text).unwrap();
}

/// Name of the ConfigMap the garbage-collection step makes dependent on the
/// Guestbook sample.
const OWNED: &str = "owned-by-guestbook-sample";

/// Gives the Guestbook sample a dependent ConfigMap, deletes the sample, and
/// waits for the garbage collector to delete the ConfigMap too.
fn owned_object_goes_with_its_owner(dir: &Path, env: &Env) {
    let sample = [
        "guestbooks.webapp.example.com",
        "guestbook-sample",
        "-n",
        "default",
    ];
    let uid = env.run(
        Path::new("."),
        "kubectl",
        &[&["get"][..], &sample, &["-o", "jsonpath={.metadata.uid}"]].concat(),
    );
    assert!(!uid.is_empty(), "the sample has no uid");
    std::fs::write(
        dir.join("owned-configmap.yaml"),
        format!(
            "apiVersion: v1
kind: ConfigMap
metadata:
  name: {OWNED}
  namespace: default
  ownerReferences:
  - apiVersion: webapp.example.com/v1
    kind: Guestbook
    name: guestbook-sample
    uid: {uid}
data:
  note: goes when its Guestbook goes
"
        ),
    )
    .unwrap();
    env.run(dir, "kubectl", &["apply", "-f", "owned-configmap.yaml"]);
    let owned_exists = || {
        env.kubectl(&["get", "configmap", OWNED, "-n", "default"])
            .status
            .success()
    };
    // While its owner exists, the collector leaves the ConfigMap alone.
    std::thread::sleep(Duration::from_secs(2));
    assert!(owned_exists(), "the ConfigMap went while its owner exists");
    env.run(
        Path::new("."),
        "kubectl",
        &[&["delete"][..], &sample].concat(),
    );
    wait_until(
        "the garbage collector to delete the ConfigMap owned by the deleted sample",
        Duration::from_secs(120),
        || !owned_exists(),
    );
}

/// The names of the owners of the objects of `kind` that carry the manager's
/// label in the project's namespace.
fn manager_owners(env: &Env, kind: &str) -> Vec<String> {
    let out = env.kubectl(&[
        "get",
        kind,
        "-n",
        NAMESPACE,
        "-l",
        "control-plane=controller-manager",
        "-o",
        "jsonpath={.items[*].metadata.ownerReferences[*].name}",
    ]);
    stdout(&out)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Waits for the manager's Deployment to get a ReplicaSet, and for that
/// ReplicaSet to create the manager's Pod (Pending: nothing schedules it).
fn deployment_gets_replicaset_and_pod(env: &Env) {
    wait_until(
        "a ReplicaSet owned by Deployment guestbook-controller-manager",
        Duration::from_secs(60),
        || manager_owners(env, "replicasets") == ["guestbook-controller-manager"],
    );
    let replica_set = env.run(
        Path::new("."),
        "kubectl",
        &[
            "get",
            "replicasets",
            "-n",
            NAMESPACE,
            "-l",
            "control-plane=controller-manager",
            "-o",
            "jsonpath={.items[0].metadata.name}",
        ],
    );
    wait_until(
        &format!("a Pod owned by ReplicaSet {replica_set}"),
        Duration::from_secs(60),
        || manager_owners(env, "pods") == [replica_set.clone()],
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn install_run_deploy_undeploy_against_a_real_api_server() {
    let started = Instant::now();
    let (_tmp, dir) = empty_project_dir("guestbook");
    let plane = step("control-plane up", ControlPlane::up);
    let env = env_for(&plane);

    step(
        "scaffold: init, two APIs (namespaced, cluster-scoped), defaulting + validation webhook",
        || scaffold(&dir, &env),
    );

    step("make install: both CRDs reach Established", || {
        env.run(&dir, "make", &["install"]);
        env.run(
            &dir,
            "kubectl",
            &[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/guestbooks.webapp.example.com",
                "crd/libraries.webapp.example.com",
            ],
        );
    });

    step(
        "make run (ENABLE_WEBHOOKS=false): healthz, workers, a sample reconciled, clean SIGINT stop",
        || {
            let _ports = default_ports_lock();
            let log_path = dir.join("make-run.log");
            let mut run = Background::logged(
                env.command(&dir, "make", &["run"])
                    .env("ENABLE_WEBHOOKS", "false"),
                &log_path,
            );
            let log_text = || std::fs::read_to_string(&log_path).unwrap_or_default();
            wait_until(
                "the manager's /healthz on :8081",
                Duration::from_secs(300),
                || http_get(8081, "/healthz").is_some_and(|(status, _)| status == 200),
            );
            wait_until(
                "both controllers starting their workers",
                Duration::from_secs(60),
                || {
                    let text = log_text();
                    let workers: Vec<&str> = text
                        .lines()
                        .filter(|l| l.contains("Starting workers"))
                        .collect();
                    ["\"guestbook\"", "\"library\""]
                        .iter()
                        .all(|name| workers.iter().any(|l| l.contains(name)))
                },
            );
            env.run(
                &dir,
                "kubectl",
                &[
                    "apply",
                    "-f",
                    "config/samples/webapp_v1_guestbook.yaml",
                    "-n",
                    "default",
                ],
            );
            wait_until(
                "the sample's Available condition",
                Duration::from_secs(60),
                || {
                    let out = env.kubectl(&[
                        "get",
                        "guestbooks.webapp.example.com",
                        "guestbook-sample",
                        "-n",
                        "default",
                        "-o",
                        "jsonpath={.status.conditions[?(@.type==\"Available\")].status}",
                    ]);
                    stdout(&out) == "True"
                },
            );
            assert!(
                run.interrupt(Duration::from_secs(60)),
                "the manager did not stop on SIGINT"
            );
            let text = log_text();
            assert!(
                text.contains("All workers finished"),
                "no clean shutdown in the log:\n{text}"
            );
            assert!(!text.contains("panic:"), "the manager panicked:\n{text}");
        },
    );

    step(
        "garbage collection: a ConfigMap owned by the sample goes with it",
        || owned_object_goes_with_its_owner(&dir, &env),
    );

    step(
        "make deploy: every object of the kustomize output is accepted; the Deployment gets a ReplicaSet and a Pod",
        || {
            install_cert_manager_crds(&env);
            env.run(&dir, "make", &["deploy", &format!("IMG={IMG}")]);
            let kustomize = shared_tools_bin().join("kustomize");
            let yaml = env.run(
                &dir,
                kustomize.to_str().unwrap(),
                &["build", "config/default"],
            );
            let count = assert_deployed(
                &env,
                &yaml,
                &[
                    "Namespace",
                    "CustomResourceDefinition",
                    "ServiceAccount",
                    "Role",
                    "ClusterRole",
                    "RoleBinding",
                    "ClusterRoleBinding",
                    "Service",
                    "Deployment",
                    "Certificate",
                    "Issuer",
                    "MutatingWebhookConfiguration",
                    "ValidatingWebhookConfiguration",
                ],
                ("guestbook-controller-manager", NAMESPACE),
                IMG,
            );
            for kind in [
                "mutatingwebhookconfiguration",
                "validatingwebhookconfiguration",
            ] {
                let annotations = env.run(
                    Path::new("."),
                    "kubectl",
                    &[
                        "get",
                        kind,
                        "-o",
                        "jsonpath={.items[*].metadata.annotations}",
                    ],
                );
                assert!(
                    annotations.contains("cert-manager.io/inject-ca-from"),
                    "{kind} has no CA injection: {annotations}"
                );
            }
            eprintln!("    {count} objects accepted");
            deployment_gets_replicaset_and_pod(&env);
        },
    );

    step(
        "make build-installer: dist/install.yaml applies to a fresh control plane",
        || {
            env.run(&dir, "make", &["build-installer", &format!("IMG={IMG}")]);
            let installer = dir.join("dist/install.yaml");
            assert!(installer.is_file(), "no dist/install.yaml");
            let fresh = ControlPlane::up();
            let fresh_env = env_for(&fresh);
            install_cert_manager_crds(&fresh_env);
            fresh_env.run(
                &dir,
                "kubectl",
                &["apply", "-f", installer.to_str().unwrap()],
            );
            let count = objects(&std::fs::read_to_string(&installer).unwrap()).len();
            eprintln!("    {count} objects applied");
            assert!(
                fresh.down(),
                "control-plane down failed for the fresh plane"
            );
        },
    );

    step(
        "make undeploy and make uninstall remove everything; again with ignore-not-found=true",
        || {
            // kubectl waits until the namespace is gone, which takes the
            // namespace controller; a bound keeps a hang from stalling the suite.
            env.run(&dir, "timeout", &["300", "make", "undeploy"]);
            env.run(&dir, "make", &["uninstall", "ignore-not-found=true"]);
            for (kind, name) in [
                ("namespace", NAMESPACE),
                ("crd", "guestbooks.webapp.example.com"),
                ("crd", "libraries.webapp.example.com"),
                ("clusterrole", "guestbook-manager-role"),
            ] {
                let out = env.kubectl(&["get", kind, name]);
                assert!(!out.status.success(), "{kind}/{name} is still there");
            }
            env.run(&dir, "make", &["undeploy", "ignore-not-found=true"]);
            env.run(&dir, "make", &["uninstall", "ignore-not-found=true"]);
        },
    );

    step(
        "control-plane down: nothing left running, no port held",
        || {
            let port = plane.apiserver_port();
            assert!(plane.down(), "control-plane down failed");
            assert!(
                std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
                "port {port} is still held"
            );
        },
    );
    eprintln!(
        "end-to-end test took {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
