//! The optional plugins against the real tools, on one go/v4 project with an
//! API and its webhooks:
//!
//! - helm/v2-alpha: the first edit runs `make manifests generate
//!   build-installer` itself; the chart built from its output passes
//!   `helm lint` and `helm template`; `helm install` into the test
//!   control plane (with cert-manager's CRDs) creates every object; after a
//!   new API, `make build-installer` and the edit again, `helm upgrade` adds
//!   its CRD; `helm uninstall` removes everything.
//! - grafana/v1-alpha: every dashboard is one Grafana imports, and every
//!   metric its panels query is exported by the project's manager, run
//!   against the control plane with plain-HTTP metrics after a reconcile.
//!
//! helm is built from the Go module proxy (helm.sh/helm/v3, newest release)
//! into `$KUBEBUILDER_RS_CACHE/tools-bin/helm-<version>`, once. Needs Go,
//! the module proxy and KUBEBUILDER_ASSETS, so it is run by `scripts/test-all`.

use crate::common;
use crate::common::cluster::{
    Background, ControlPlane, Env, crd_established, env_for, http_get, install_cert_manager_crds,
    objects, step, wait_until,
};
use crate::common::grafana::{dashboard_problems, exported_names, metric_names, queries};
use crate::common::{empty_project_dir, kb_ok, words};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

const IMG: &str = "example.com/fleet:v0.3.1";
const RELEASE: &str = "fleet";
const NAMESPACE: &str = "fleet-ops";
const CHART: &str = "dist/chart";

/// `kubebuilder-rs create api` for one kind of the ship group, without make.
fn create_api(dir: &Path, kind: &str) {
    let args = format!(
        "create api --group ship --version v1 --kind {kind} --resource --controller --make=false"
    );
    kb_ok(dir, &words(&args));
}

/// Scaffolds the project with an API, its webhooks and both plugins'
/// inputs, builds the kustomize output and the chart.
fn scaffold(dir: &Path, env: &Env) {
    kb_ok(
        dir,
        &words("init --domain example.com --repo example.com/fleet --skip-go-version-check"),
    );
    create_api(dir, "Frigate");
    kb_ok(
        dir,
        &words(
            "create webhook --group ship --version v1 --kind Frigate --defaulting --programmatic-validation --make=false",
        ),
    );
    kb_ok(dir, &words("edit --plugins grafana/v1-alpha"));
    env.run(dir, "go", &["mod", "tidy"]);
    first_chart(dir, env);
}

/// The first helm edit, without `dist/install.yaml`: it runs
/// `make manifests generate build-installer` itself (with `IMG` from the
/// environment) and builds the chart from what make wrote.
fn first_chart(dir: &Path, env: &Env) {
    let binary = assert_cmd::cargo::cargo_bin("kubebuilder-rs");
    let output = env
        .command(
            dir,
            binary.to_str().unwrap(),
            &words("edit --plugins helm/v2-alpha"),
        )
        .env("IMG", IMG)
        .output()
        .unwrap();
    let err = common::stderr(&output);
    assert!(output.status.success(), "the helm edit failed: {err}");
    assert!(err.contains("Running make build-installer"), "{err}");
    assert!(dir.join("dist/install.yaml").is_file());
}

/// `make build-installer`, then the helm edit.
fn build_chart(dir: &Path, env: &Env) {
    env.run(dir, "make", &["build-installer", &format!("IMG={IMG}")]);
    kb_ok(dir, &words("edit --plugins helm/v2-alpha"));
}

/// Runs helm with the test's environment.
fn helm(env: &Env, helm: &Path, dir: &Path, args: &[&str]) -> String {
    env.run(dir, helm.to_str().unwrap(), args)
}

/// Whether kubectl finds the object.
fn exists(env: &Env, args: &[&str]) -> bool {
    env.kubectl(&[&["get"][..], args].concat()).status.success()
}

/// kubectl get … -o jsonpath=<path>.
fn jsonpath(env: &Env, args: &[&str], path: &str) -> String {
    let format = format!("jsonpath={path}");
    env.run(
        Path::new("."),
        "kubectl",
        &[&["get"][..], args, &["-o", &format]].concat(),
    )
}

/// The objects a release installs (cluster-wide and in its namespace).
fn release_objects() -> Vec<Vec<String>> {
    let names = [
        ("crd", "frigates.ship.example.com", false),
        ("deployment", "fleet-controller-manager", true),
        ("serviceaccount", "fleet-controller-manager", true),
        ("clusterrole", "fleet-manager-role", false),
        ("clusterrolebinding", "fleet-manager-rolebinding", false),
        ("role", "fleet-leader-election-role", true),
        ("service", "fleet-webhook-service", true),
        ("service", "fleet-controller-manager-metrics-service", true),
        ("certificate", "fleet-serving-cert", true),
        ("issuer", "fleet-selfsigned-issuer", true),
        (
            "mutatingwebhookconfiguration",
            "fleet-mutating-webhook-configuration",
            false,
        ),
        (
            "validatingwebhookconfiguration",
            "fleet-validating-webhook-configuration",
            false,
        ),
    ];
    names
        .iter()
        .map(|(kind, name, namespaced)| {
            let mut args = vec![kind.to_string(), name.to_string()];
            if *namespaced {
                args.extend(["-n".to_string(), NAMESPACE.to_string()]);
            }
            args
        })
        .collect()
}

fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// helm lint, helm template: the chart renders every area with the defaults.
fn lint_and_template(dir: &Path, env: &Env, helm_bin: &Path) {
    helm(env, helm_bin, dir, &["lint", CHART]);
    let rendered = helm(
        env,
        helm_bin,
        dir,
        &["template", RELEASE, CHART, "-n", NAMESPACE],
    );
    for kind in [
        "CustomResourceDefinition",
        "Deployment",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
        "RoleBinding",
        "Service",
        "Certificate",
        "Issuer",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        assert!(
            rendered.contains(&format!("\nkind: {kind}\n")),
            "helm template renders no {kind}"
        );
    }
    let namespaced = helm(
        env,
        helm_bin,
        dir,
        &[
            "template",
            RELEASE,
            CHART,
            "-n",
            NAMESPACE,
            "--set",
            "rbac.namespaced=true,certManager.enabled=false,webhook.enabled=false",
        ],
    );
    let objects = objects(&namespaced);
    for (kind, name) in [
        ("Role", "fleet-manager-role"),
        ("RoleBinding", "fleet-manager-rolebinding"),
    ] {
        let found = objects
            .iter()
            .any(|(k, n, ns)| k == kind && n == name && ns.as_deref() == Some(NAMESPACE));
        assert!(
            found,
            "rbac.namespaced=true renders no {kind} {name} in {NAMESPACE}"
        );
    }
    for absent in [
        "kind: Certificate",
        "WebhookConfiguration",
        "cert-manager.io/inject-ca-from",
    ] {
        assert!(
            !namespaced.contains(absent),
            "{absent} rendered with certManager and webhook off"
        );
    }
}

/// helm install: every object exists, with the chosen image and the CA injection.
fn install(dir: &Path, env: &Env, helm_bin: &Path) {
    helm(
        env,
        helm_bin,
        dir,
        &[
            "install",
            RELEASE,
            CHART,
            "-n",
            NAMESPACE,
            "--create-namespace",
            "--set",
            "crd.keep=false",
            "--set",
            "manager.image.tag=v9.9.9",
        ],
    );
    crd_established(env, "frigates.ship.example.com");
    for object in release_objects() {
        assert!(
            exists(env, &as_strs(&object)),
            "{object:?} was not installed"
        );
    }
    let image = jsonpath(
        env,
        &["deployment", "fleet-controller-manager", "-n", NAMESPACE],
        "{.spec.template.spec.containers[0].image}",
    );
    assert_eq!(image, "example.com/fleet:v9.9.9");
    for kind in [
        "mutatingwebhookconfiguration",
        "validatingwebhookconfiguration",
    ] {
        let name = format!(
            "fleet-{}",
            kind.replace("webhookconfiguration", "-webhook-configuration")
        );
        let injected = jsonpath(
            env,
            &[kind, &name],
            "{.metadata.annotations.cert-manager\\.io/inject-ca-from}",
        );
        assert_eq!(
            injected,
            format!("{NAMESPACE}/fleet-serving-cert"),
            "{kind}"
        );
        let service = jsonpath(
            env,
            &[kind, &name],
            "{.webhooks[0].clientConfig.service.name}",
        );
        assert_eq!(service, "fleet-webhook-service");
    }
    let subject = jsonpath(
        env,
        &["clusterrolebinding", "fleet-manager-rolebinding"],
        "{.subjects[0].namespace}",
    );
    assert_eq!(subject, NAMESPACE);
}

/// A new API, the chart rebuilt, helm upgrade: its CRD arrives.
fn upgrade_with_a_new_api(dir: &Path, env: &Env, helm_bin: &Path) {
    create_api(dir, "Destroyer");
    build_chart(dir, env);
    assert!(
        dir.join("dist/chart/templates/crd/destroyers.ship.example.com.yaml")
            .is_file()
    );
    helm(
        env,
        helm_bin,
        dir,
        &["upgrade", RELEASE, CHART, "-n", NAMESPACE, "--reuse-values"],
    );
    crd_established(env, "destroyers.ship.example.com");
    let revision = jsonpath(
        env,
        &[
            "secrets",
            "-n",
            NAMESPACE,
            "-l",
            "owner=helm,name=fleet,status=deployed",
        ],
        "{.items[0].metadata.labels.version}",
    );
    assert_eq!(revision, "2");
}

/// helm uninstall: nothing of the release is left.
fn uninstall(dir: &Path, env: &Env, helm_bin: &Path) {
    helm(
        env,
        helm_bin,
        dir,
        &["uninstall", RELEASE, "-n", NAMESPACE, "--wait"],
    );
    let mut left = release_objects();
    left.push(vec!["crd".into(), "destroyers.ship.example.com".into()]);
    wait_until(
        "every object of the release to go",
        Duration::from_secs(120),
        || left.iter().all(|object| !exists(env, &as_strs(object))),
    );
}

/// `alpha generate` (with its default `--make`) into a new directory:
/// `make build-installer` runs and the chart comes back, the new API's CRD
/// included, and lints.
fn alpha_generate_rebuilds_the_chart(dir: &Path, env: &Env, helm_bin: &Path) {
    let regenerated = dir.with_file_name("fleet-regenerated");
    env.run(
        dir,
        env!("CARGO_BIN_EXE_kubebuilder-rs"),
        &[
            "alpha",
            "generate",
            "--output-dir",
            regenerated.to_str().unwrap(),
        ],
    );
    for crd in ["frigates", "destroyers"] {
        let path = format!("{CHART}/templates/crd/{crd}.ship.example.com.yaml");
        assert!(
            regenerated.join(&path).is_file(),
            "no {path} after alpha generate"
        );
    }
    helm(env, helm_bin, &regenerated, &["lint", CHART]);
}

/// Runs the manager with plain-HTTP metrics, has it reconcile a sample, and
/// returns its /metrics text.
fn metrics_after_a_reconcile(dir: &Path, env: &Env) -> String {
    env.run(dir, "make", &["install"]);
    crd_established(env, "frigates.ship.example.com");
    env.run(dir, "go", &["build", "-o", "bin/manager", "./cmd/main.go"]);
    let binary = dir.join("bin/manager");
    let log_path = dir.join("manager.log");
    // Ports nothing listens on now: a fixed one may be taken by a control
    // plane another test started (they pick theirs at random).
    let (metrics_port, health_port) = (common::free_port(), common::free_port());
    let mut manager = Background::logged(
        env.command(
            dir,
            binary.to_str().unwrap(),
            &[
                &format!("--metrics-bind-address=:{metrics_port}"),
                "--metrics-secure=false",
                &format!("--health-probe-bind-address=:{health_port}"),
            ],
        )
        .env("ENABLE_WEBHOOKS", "false"),
        &log_path,
    );
    manager.wait_until("the manager's /healthz", Duration::from_secs(120), || {
        http_get(health_port, "/healthz").is_some_and(|(status, _)| status == 200)
    });
    env.run(
        dir,
        "kubectl",
        &[
            "apply",
            "-n",
            "default",
            "-f",
            "config/samples/ship_v1_frigate.yaml",
        ],
    );
    // controller-runtime counts a reconcile before it times it (the time
    // is observed on the way out), so a scrape between the two has the
    // count but no reconcile-time histogram yet: wait for both.
    let reconciled = [
        "controller_runtime_reconcile_total{controller=\"frigate\",result=\"success\"}",
        "controller_runtime_reconcile_time_seconds_count{controller=\"frigate\"}",
    ];
    let mut text = String::new();
    manager.wait_until(
        "a successful, timed reconcile in /metrics",
        Duration::from_secs(60),
        || {
            text = http_get(metrics_port, "/metrics")
                .map(|(_, body)| body)
                .unwrap_or_default();
            reconciled.iter().all(|series| {
                text.lines()
                    .find_map(|line| line.strip_prefix(series))
                    .is_some_and(|count| count.trim().parse::<f64>().is_ok_and(|n| n >= 1.0))
            })
        },
    );
    assert!(
        manager.interrupt(Duration::from_secs(30)),
        "the manager did not stop on SIGINT"
    );
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(!log.contains("panic:"), "the manager panicked:\n{log}");
    text
}

/// Every dashboard is valid, and every metric its panels query is exported.
fn dashboards_query_exported_metrics(dir: &Path, exposition: &str) {
    let exported = exported_names(exposition);
    let mut queried = BTreeSet::new();
    for file in [
        "grafana/controller-runtime-metrics.json",
        "grafana/controller-resources-metrics.json",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let problems = dashboard_problems(&text);
        assert!(problems.is_empty(), "{file}: {problems:#?}");
        for expr in queries(&text) {
            let names = metric_names(&expr);
            assert!(!names.is_empty(), "{file}: no metric in {expr}");
            for name in names {
                assert!(
                    exported.contains(&name),
                    "{file} queries {name}, which the manager does not export ({expr})"
                );
                queried.insert(name);
            }
        }
    }
    eprintln!(
        "    {} metrics queried, all exported: {queried:?}",
        queried.len()
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn helm_chart_installs_and_dashboards_query_exported_metrics() {
    let started = Instant::now();
    let (_tmp, dir) = empty_project_dir("fleet");
    let plane = step("control-plane up", ControlPlane::up);
    let env = env_for(&plane);
    let helm_bin = step(
        "helm from the module proxy (cached)",
        common::helm::newest_helm_release,
    );
    step(
        "scaffold: API, webhooks, grafana; the helm edit runs make build-installer",
        || scaffold(&dir, &env),
    );
    step("helm lint, helm template", || {
        lint_and_template(&dir, &env, &helm_bin)
    });
    step(
        "helm install with cert-manager's CRDs: every object, the image, CA injection",
        || {
            install_cert_manager_crds(&env);
            install(&dir, &env, &helm_bin);
        },
    );
    step(
        "a new API: make build-installer, the edit, helm upgrade adds its CRD",
        || upgrade_with_a_new_api(&dir, &env, &helm_bin),
    );
    step("helm uninstall removes everything", || {
        uninstall(&dir, &env, &helm_bin)
    });
    step("alpha generate --make builds the chart again", || {
        alpha_generate_rebuilds_the_chart(&dir, &env, &helm_bin)
    });
    let exposition = step("the manager's /metrics after a reconcile", || {
        metrics_after_a_reconcile(&dir, &env)
    });
    step("dashboards: valid, every queried metric exported", || {
        dashboards_query_exported_metrics(&dir, &exposition)
    });
    assert!(plane.down(), "control-plane down failed");
    eprintln!(
        "helm and grafana test took {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
