//! The rust/v1-alpha layout with the real toolchain and a real API server:
//! one project scaffolded through every `create api` shape (two kinds in
//! one group, a cluster-scoped kind, a controller for apps/v1 Deployment,
//! then `edit --multigroup` and a group with two versions of a kind) and
//! every `create webhook` shape (defaulting, validation and a conversion
//! between the two versions; validation of the cluster-scoped kind;
//! defaulting of core/v1 Pod and validation of apps/v1 Deployment), and
//! last the quick-start Memcached of deploy-image/v1-alpha (whose
//! `--manifests` runs `make manifests`), then `cargo build`, `cargo clippy
//! -D warnings`, the `telemetry` feature (absent by default; with it, clippy
//! and its OTLP export test), `make manifests` and `make test`
//! (KUBEBUILDER_ASSETS unset: `make setup-envtest` fetches the control
//! plane's binaries from a local release index), then the user's path on the
//! test control plane: `make install`, `make run` reconciling a sample with an
//! edited Reconcile (it holds no finalizer) and running the Memcached sample
//! as a Deployment (then its finalizer); with the manager stopped, `make
//! uninstall` deletes the Guestbook and names the Memcached that holds its
//! finalizer instead of waiting for ever; `make deploy`, `make undeploy`,
//! `make uninstall`.
//!
//! Needs cargo, the crates.io index and the control-plane binaries
//! (KUBEBUILDER_ASSETS); no Go. Every generated project shares the cargo
//! build directory `$KUBEBUILDER_RS_CACHE/rust-target`, so a warm run
//! rebuilds only the project's own crate. Run by `scripts/test-all`.

use crate::common::cluster::{
    Background, ControlPlane, Env, assert_deployed, assets, default_ports_lock, http_get,
    install_cert_manager_crds, step, wait_until,
};
use crate::common::deploy_image::{
    IMAGE, QUICK_START, deletion_runs_the_finalizer, sample_gets_a_deployment_and_conditions,
    sample_holds_the_finalizer_again, uninstall_names_the_held_sample,
};
use crate::common::envtest_index::{Server, index, pinned_minor, platform, sha512, tar_gz};
use crate::common::rust_project::{self, run, rust_env, sharing_the_build_dir};
use crate::common::{output_ok, persistent_project_dir, stdout, words};
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

const IMG: &str = "example.com/guestbook:v0.0.1";
const NAMESPACE: &str = "guestbook-system";

/// What the test's Reconcile writes into the sample's Available condition,
/// so that seeing it proves the edited code ran.
const EDITED_MESSAGE: &str = "seen by the end-to-end test";

/// The commands that grow the project, after `init`.
const SEQUENCE: &[&str] = &[
    "create api --group webapp --version v1 --kind Guestbook --resource --controller",
    "create api --group webapp --version v1 --kind Library --namespaced=false --resource --controller",
    "create api --group apps --version v1 --kind Deployment --resource=false --controller",
    "edit --multigroup",
    "create api --group crew --version v1 --kind FirstMate --resource --controller",
    "create api --group crew --version v2 --kind FirstMate --resource --controller=false",
    "create webhook --group crew --version v1 --kind FirstMate --defaulting --programmatic-validation --conversion --spoke v2",
    "create webhook --group webapp --version v1 --kind Library --programmatic-validation",
    "create webhook --group core --version v1 --kind Pod --defaulting",
    "create webhook --group apps --version v1 --kind Deployment --programmatic-validation",
];

/// Scaffolds the project and edits its Guestbook Reconcile.
fn scaffold(dir: &Path, env: &Env) {
    rust_project::scaffold(dir, SEQUENCE);
    // Run as kubebuilder's quick start runs it: `make manifests` afterwards,
    // which builds the project with cargo.
    let binary = assert_cmd::cargo::cargo_bin("kubebuilder-rs");
    let out = run(env, dir, &binary.to_string_lossy(), &words(QUICK_START));
    assert!(out.contains("make manifests"), "{out}");
    let controller = dir.join("src/controller/guestbook.rs");
    let text = std::fs::read_to_string(&controller).unwrap();
    let scaffolded = "\"The Guestbook was reconciled\"";
    assert!(text.contains(scaffolded), "unexpected controller:\n{text}");
    let edited = text.replace(scaffolded, &format!("\"{EDITED_MESSAGE}\""));
    std::fs::write(&controller, edited).unwrap();
}

/// `make manifests` wrote one CRD per kind (both versions of FirstMate in
/// one, v1 the hub stored), the webhook configurations with go/v4's names
/// and paths, and the manager's ClusterRole from the controllers' rules.
fn check_manifests(dir: &Path) {
    let read = |path: &str| {
        std::fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let first_mate = read("config/crd/bases/crew.example.com_firstmates.yaml");
    let crd: serde_norway::Value = serde_norway::from_str(&first_mate).unwrap();
    let versions: Vec<(String, bool)> = crd["spec"]["versions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| {
            let name = v["name"].as_str().unwrap().to_string();
            (name, v["storage"].as_bool().unwrap())
        })
        .collect();
    assert_eq!(
        versions,
        [("v1".to_string(), true), ("v2".to_string(), false)]
    );
    let library = read("config/crd/bases/webapp.example.com_libraries.yaml");
    assert!(library.contains("scope: Cluster"), "{library}");
    let webhooks = read("config/webhook/manifests.yaml");
    for needle in [
        "kind: MutatingWebhookConfiguration",
        "name: mfirstmate-v1.kb.io",
        "path: /mutate-crew-example-com-v1-firstmate",
        "name: vfirstmate-v1.kb.io",
        "name: vlibrary-v1.kb.io",
        "path: /validate-webapp-example-com-v1-library",
        "name: mpod-v1.kb.io",
        "path: /mutate--v1-pod",
        "name: vdeployment-v1.kb.io",
        "path: /validate-apps-v1-deployment",
    ] {
        assert!(
            webhooks.contains(needle),
            "{needle:?} not in manifests.yaml:\n{webhooks}"
        );
    }
    let role = read("config/rbac/role.yaml");
    for needle in [
        "kind: ClusterRole",
        "name: manager-role",
        "- deployments\n",
        "- pods\n",
        "- memcacheds/finalizers\n",
        "- guestbooks/status\n",
        "- firstmates\n",
        "- events\n",
    ] {
        assert!(
            role.contains(needle),
            "{needle:?} not in role.yaml:\n{role}"
        );
    }
}

/// A local release index serving the control plane's etcd, kube-apiserver
/// and kubectl as envtest release `<pinned minor>.0` of this platform; the
/// archive is written in `work`. Returns the server and the release's
/// name in the store.
fn serve_the_control_plane_binaries(work: &Path) -> (Server, String) {
    let archive = tar_gz(
        &assets(),
        &["etcd", "kube-apiserver", "kubectl"],
        &work.join("envtest.tar.gz"),
    );
    let hash = sha512(work, &archive);
    let version = format!("{}.0", pinned_minor());
    let name = format!("envtest-v{version}-{}.tar.gz", platform());
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let mut files = BTreeMap::new();
    let platforms = [platform()];
    let platforms: Vec<&str> = platforms.iter().map(String::as_str).collect();
    files.insert(
        "index.yaml".to_string(),
        index(&[(&version, &hash)], &platforms, &base),
    );
    files.insert(name, archive);
    let server = Server::start(listener, files);
    (server, format!("{version}-{}", platform()))
}

/// `make test` with KUBEBUILDER_ASSETS unset, as on a fresh machine: make
/// setup-envtest fetches the binaries from the local index into bin/k8s and
/// the integration tests run on them; returns make's output.
fn make_test_fetching_envtest(dir: &Path, env: &Env) -> String {
    let served = tempfile::tempdir().expect("temp dir");
    let (server, release) = serve_the_control_plane_binaries(served.path());
    let index = format!("ENVTEST_INDEX={}", server.url("index.yaml"));
    let localbin = format!("LOCALBIN={}", dir.join("bin").display());
    let args = ["test", index.as_str(), localbin.as_str()];
    let mut command = env.command(dir, "make", &args);
    sharing_the_build_dir(&mut command).env_remove("KUBEBUILDER_ASSETS");
    let out = output_ok(&mut command, dir, "make", &args);
    let fetched = dir.join("bin/k8s").join(&release);
    assert!(
        fetched.join("kube-apiserver").is_file() && fetched.join("etcd").is_file(),
        "make test did not fetch the envtest binaries into {}",
        fetched.display()
    );
    assert_eq!(server.requests().len(), 2, "index and archive, once each");
    // The project directory stays until the next run: keep it small.
    std::fs::remove_dir_all(dir.join("bin/k8s")).unwrap();
    out
}

/// `make run`: the manager serves /healthz, starts its controllers,
/// reconciles the Guestbook sample with the edited Reconcile, runs the
/// Memcached sample as a Deployment of the image and cleans up after it,
/// and stops cleanly on SIGINT.
fn run_reconciles_the_samples(dir: &Path, env: &Env) {
    let _ports = default_ports_lock();
    let log_path = dir.join("make-run.log");
    let mut manager = Background::logged(
        sharing_the_build_dir(&mut env.command(dir, "make", &["run"]))
            // No serving certificate on this machine: as go/v4's `make run`.
            .env("ENABLE_WEBHOOKS", "false")
            // What config/manager/manager.yaml gives the deployed manager.
            .env("MEMCACHED_IMAGE", IMAGE),
        &log_path,
    );
    let log_text = || std::fs::read_to_string(&log_path).unwrap_or_default();
    wait_until(
        "the manager's /healthz on :8081",
        Duration::from_secs(300),
        || http_get(8081, "/healthz").is_some_and(|(status, _)| status == 200),
    );
    wait_until(
        "the guestbook controller to start",
        Duration::from_secs(60),
        || {
            log_text()
                .lines()
                .any(|l| l.contains("starting controller") && l.contains("guestbook"))
        },
    );
    env.run(
        dir,
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
        "the sample's Available condition from the edited Reconcile",
        Duration::from_secs(60),
        || {
            let out = env.kubectl(&[
                "get",
                "guestbooks.webapp.example.com",
                "guestbook-sample",
                "-n",
                "default",
                "-o",
                "jsonpath={.status.conditions[?(@.type==\"Available\")].message}",
            ]);
            stdout(&out) == EDITED_MESSAGE
        },
    );
    let finalizers = env.kubectl(&[
        "get",
        "guestbooks.webapp.example.com",
        "guestbook-sample",
        "-n",
        "default",
        "-o",
        "jsonpath={.metadata.finalizers}",
    ]);
    assert_eq!(stdout(&finalizers), "", "the scaffold needs no finalizer");
    sample_gets_a_deployment_and_conditions(dir, env);
    deletion_runs_the_finalizer(env, &log_path, "cleaned up after the Memcached");
    sample_holds_the_finalizer_again(dir, env);
    assert!(
        manager.interrupt(Duration::from_secs(60)),
        "the manager did not stop on SIGINT"
    );
    let text = log_text();
    assert!(
        text.contains("manager stopped"),
        "no clean shutdown in the log:\n{text}"
    );
    assert!(!text.contains("panicked"), "the manager panicked:\n{text}");
}

/// `make deploy`: every object of the kustomize output exists, and the
/// manager's Deployment runs the image IMG.
fn deploy_is_accepted(dir: &Path, env: &Env) {
    install_cert_manager_crds(env);
    run(env, dir, "make", &["deploy", &format!("IMG={IMG}")]);
    let yaml = env.run(dir, "kubectl", &["kustomize", "config/default"]);
    let count = assert_deployed(
        env,
        &yaml,
        &[
            "Namespace",
            "CustomResourceDefinition",
            "ClusterRole",
            "Deployment",
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "Certificate",
        ],
        ("guestbook-controller-manager", NAMESPACE),
        IMG,
    );
    eprintln!("    {count} objects accepted");
}

#[test]
#[ignore = "needs cargo, crates.io and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn a_rust_project_builds_tests_and_runs_on_a_real_api_server() {
    let started = Instant::now();
    // A path that stays the same from run to run makes cargo reuse the same
    // entries of the shared target directory rather than add new ones.
    let dir = persistent_project_dir("guestbook");
    let offline = rust_env(None);

    step(
        "scaffold: init, four create api shapes, edit --multigroup, four create webhook, deploy-image",
        || scaffold(&dir, &offline),
    );
    step("cargo build and clippy -D warnings", || {
        run(&offline, &dir, "cargo", &["build", "--all-targets"]);
        run(
            &offline,
            &dir,
            "cargo",
            &["clippy", "--all-targets", "--", "-D", "warnings"],
        );
    });
    step(
        "the telemetry feature: off by default, on it exports a span",
        || {
            let tree = run(&offline, &dir, "cargo", &["tree", "-e", "normal"]);
            assert!(!tree.contains("opentelemetry"), "{tree}");
            let features = ["--features", "telemetry"];
            run(
                &offline,
                &dir,
                "cargo",
                &[
                    &["clippy"][..],
                    &features,
                    &["--all-targets", "--", "-D", "warnings"],
                ]
                .concat(),
            );
            let out = run(
                &offline,
                &dir,
                "cargo",
                &[&["test"][..], &features, &["--lib", "manager::logging"]].concat(),
            );
            assert!(
                out.contains("test manager::logging::tests::spans_are_exported_over_otlp ... ok"),
                "{out}"
            );
        },
    );
    step("make manifests: CRDs and the manager's role", || {
        run(&offline, &dir, "make", &["manifests"]);
        check_manifests(&dir);
    });
    step(
        "make test: envtest fetched from a local index, unit tests and the integration tests on it",
        || {
            let out = make_test_fetching_envtest(&dir, &offline);
            for test in [
                // The two suites of the one integration test binary.
                "controllers::controllers_reconcile_against_a_real_api_server",
                "webhooks::the_api_server_calls_the_webhooks",
                // Built-in types' webhooks, on k8s-openapi's Pod and Deployment.
                "webhook::core::v1::pod::tests::the_defaulting_patch_adds_only_the_default",
                "webhook::apps::v1::deployment::tests::validation_refuses_an_empty_label",
            ] {
                assert!(out.contains(&format!("test {test} ... ok")), "{out}");
            }
        },
    );

    let plane = step("control-plane up", ControlPlane::up);
    let env = rust_env(Some(&plane));
    step("make install: every CRD reaches Established", || {
        run(&env, &dir, "make", &["install"]);
        env.run(
            &dir,
            "kubectl",
            &[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/guestbooks.webapp.example.com",
                "crd/libraries.webapp.example.com",
                "crd/firstmates.crew.example.com",
                "crd/memcacheds.cache.example.com",
            ],
        );
    });
    step(
        "make run: the edited Reconcile, no finalizer; the Memcached as a Deployment, then its finalizer",
        || run_reconciles_the_samples(&dir, &env),
    );
    step(
        "the manager stopped: make uninstall deletes the Guestbook, names the held Memcached, then removes the CRDs",
        || {
            let make = |args: &[&str]| {
                let mut command =
                    env.command(&dir, "timeout", &[&["180", "make"][..], args].concat());
                sharing_the_build_dir(&mut command);
                command
            };
            let gone = [("guestbooks.webapp.example.com", "guestbook-sample")];
            uninstall_names_the_held_sample(&make, &env, &gone);
        },
    );
    step("make deploy: the kustomize output is accepted", || {
        deploy_is_accepted(&dir, &env)
    });
    step("make undeploy and make uninstall remove everything", || {
        run(&env, &dir, "timeout", &["300", "make", "undeploy"]);
        run(&env, &dir, "make", &["uninstall", "ignore-not-found=true"]);
        for (kind, name) in [
            ("namespace", NAMESPACE),
            ("crd", "guestbooks.webapp.example.com"),
            ("crd", "firstmates.crew.example.com"),
        ] {
            let out = env.kubectl(&["get", kind, name]);
            assert!(!out.status.success(), "{kind}/{name} is still there");
        }
    });
    assert!(plane.down(), "control-plane down failed");
    eprintln!(
        "rust layout test took {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
