//! The project infrastructure of a rust/v1-alpha project, run for real.
//!
//! `make test-e2e E2E_MANAGER=local` (tests/e2e in the generated project)
//! passes against the test control plane for a project with an API, a
//! controller and defaulting and validating webhooks: it deploys with
//! `make deploy`, starts the manager here with the deployed arguments as
//! the deployed ServiceAccount, checks the metrics endpoint refuses
//! requests without or with a wrong token and serves an authorised one,
//! and gets answers from the webhooks; it cleans up after itself. It
//! fails when the metrics are reachable without authorisation
//! (`--metrics-secure=false` added to the deployed arguments) and when
//! the manager does not run (a flag it refuses). The control plane has no
//! kubelet: the image, pod scheduling, the kubelet's probes and
//! cert-manager's certificates stay unchecked (tests/e2e/main.rs says so).
//!
//! The workflows (`.github/workflows/{lint,test,test-e2e}.yml`) pass
//! actionlint, which rejects a broken copy; `make lint-config` passes and
//! fails on an unknown rustfmt option.
//!
//! Needs cargo, make, curl, Go (cert-manager's CRDs and actionlint from the
//! module proxy, the first time) and KUBEBUILDER_ASSETS; run by
//! `scripts/test-all`.

use crate::common;
use crate::common::actionlint::{actionlint, check_workflow};
use crate::common::cluster::ControlPlane;
use crate::common::cluster::{Env, install_cert_manager_crds, step};
use crate::common::rust_project::{rust_env, scaffold, sharing_the_build_dir};
use crate::common::{empty_project_dir, kb_ok, persistent_project_dir, stderr, stdout, words};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

const WORKFLOWS: &[&str] = &["lint.yml", "test.yml", "test-e2e.yml"];

/// `make args` in `dir` on `env`'s cluster with the shared build dir,
/// without what cargo sets for this test process.
fn make_command(env: &Env, dir: &Path, args: &[&str]) -> Command {
    let mut command = env.command(dir, "make", args);
    sharing_the_build_dir(&mut command);
    command
}

fn make(env: &Env, dir: &Path, args: &[&str]) -> Output {
    make_command(env, dir, args).output().expect("make starts")
}

/// `make test-e2e E2E_MANAGER=local E2E_KUBECONFIG=<the control plane's>`
/// with `KUBECONFIG` on a decoy: whether it passed, and its output. Panics
/// if the decoy changed.
fn make_test_e2e(env: &Env, dir: &Path) -> (bool, String) {
    let started = Instant::now();
    let decoy = dir.with_file_name("decoy-kubeconfig");
    std::fs::write(&decoy, common::cluster::UNREACHABLE_KUBECONFIG).unwrap();
    let given = format!("E2E_KUBECONFIG={}", env.kubeconfig.display());
    let out = make_command(env, dir, &["test-e2e", "E2E_MANAGER=local", &given])
        .env("KUBECONFIG", &decoy)
        .output()
        .expect("make starts");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    eprintln!(
        "    make test-e2e: {} ({:.1}s)",
        out.status,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        std::fs::read_to_string(&decoy).unwrap(),
        common::cluster::UNREACHABLE_KUBECONFIG,
        "make test-e2e changed the user's kubeconfig"
    );
    (out.status.success(), text)
}

/// Runs `make test-e2e` with `file` of the project changed by `edit`, then
/// restores it; asserts it fails, saying `said`.
fn fails_with(env: &Env, dir: &Path, file: &str, edit: impl Fn(&str) -> String, said: &str) {
    let path = dir.join(file);
    let original = std::fs::read_to_string(&path).unwrap();
    let edited = edit(&original);
    assert_ne!(edited, original, "the edit of {file} changed nothing");
    std::fs::write(&path, edited).unwrap();
    let (passed, output) = make_test_e2e(env, dir);
    std::fs::write(&path, original).unwrap();
    assert!(
        !passed,
        "make test-e2e passed with {file} edited:\n{output}"
    );
    assert!(output.contains(said), "{said:?} not in:\n{output}");
    assert_cleaned_up(env);
}

/// What the suite deployed is gone again.
fn assert_cleaned_up(env: &Env) {
    for object in [
        "crd/frigates.ship.example.com",
        "namespace/shipyard-system",
        "clusterrolebinding/shipyard-metrics-binding",
    ] {
        let out = env.kubectl(&["get", object, "-o", "name"]);
        assert!(
            !out.status.success(),
            "{object} is left after make test-e2e: {}",
            stdout(&out)
        );
    }
}

#[test]
#[ignore = "needs cargo, make, curl, Go and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn make_test_e2e_checks_the_manager_on_the_test_control_plane() {
    let started = Instant::now();
    let dir = persistent_project_dir("shipyard");
    step("scaffold: init, create api, create webhook", || {
        scaffold(&dir, common::rust_project::WEBHOOK_PROJECT)
    });
    let plane = step("control-plane up", ControlPlane::up);
    let env = rust_env(Some(&plane));
    step("cert-manager's CRDs (no cert-manager runs)", || {
        install_cert_manager_crds(&env)
    });
    step(
        "without E2E_KUBECONFIG, E2E_MANAGER=local refuses in one line",
        || {
            let out = make(&env, &dir, &["test-e2e", "E2E_MANAGER=local"]);
            assert!(!out.status.success(), "make test-e2e passed");
            let message = stderr(&out);
            assert_eq!(
                message.trim().lines().next().unwrap_or_default(),
                "E2E_MANAGER=local needs E2E_KUBECONFIG: the kubeconfig of the cluster (an API server without nodes) the tests may use.",
                "{message}"
            );
            assert_cleaned_up(&env);
        },
    );
    step("make test-e2e E2E_MANAGER=local passes", || {
        let (passed, output) = make_test_e2e(&env, &dir);
        assert!(passed, "make test-e2e failed:\n{output}");
        let given = format!(
            "Using the cluster of E2E_KUBECONFIG={}",
            env.kubeconfig.display()
        );
        for said in [
            given.as_str(),
            "only on the cluster of",
            "e2e: metrics served to the authorised token",
            "e2e: the webhooks answered",
            "test result: ok. 1 passed",
        ] {
            assert!(output.contains(said), "{said:?} not in:\n{output}");
        }
        // Both samples, v1 and v2: the v2 one reached the v1 webhooks
        // through the conversion webhook.
        assert_eq!(
            output
                .matches("frigate.ship.example.com/frigate-sample created (server dry run)")
                .count(),
            2,
            "{output}"
        );
        assert_cleaned_up(&env);
    });
    step("metrics served without authorisation: it fails", || {
        fails_with(
            &env,
            &dir,
            "config/default/manager_metrics_patch.yaml",
            |text| {
                format!(
                    "{text}- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --metrics-secure=false\n"
                )
            },
            "metrics are served over plain HTTP without a token",
        )
    });
    step("the manager does not run: it fails", || {
        fails_with(
            &env,
            &dir,
            "config/manager/manager.yaml",
            |text| {
                text.replacen(
                    "- --leader-elect\n",
                    "- --leader-elect\n          - --zap-log-level=loud\n",
                    1,
                )
            },
            "the manager is not running",
        )
    });
    eprintln!("total {:.1}s", started.elapsed().as_secs_f64());
}

#[test]
#[ignore = "needs Go (actionlint, the first time) and cargo; run by scripts/test-all"]
fn the_workflows_pass_actionlint_and_lint_config_checks_rustfmt() {
    let (tmp, dir) = empty_project_dir("shipyard");
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com"),
    );
    let actionlint = actionlint();
    for name in WORKFLOWS {
        let workflow = dir.join(".github/workflows").join(name);
        if let Err(problems) = check_workflow(&actionlint, &workflow) {
            panic!("actionlint rejects {name}:\n{problems}");
        }
    }
    // A broken copy is rejected from the same place.
    let broken = dir.join(".github/workflows/lint.yml");
    let text = std::fs::read_to_string(&broken).unwrap();
    std::fs::write(&broken, text.replacen("runs-on:", "runs_on:", 1)).unwrap();
    let problems = check_workflow(&actionlint, &broken).expect_err("a broken workflow passes");
    assert!(
        problems.contains("\"runs-on\" section is missing"),
        "{problems}"
    );

    let env = rust_env(None);
    let ok = make(&env, &dir, &["lint-config"]);
    assert!(ok.status.success(), "make lint-config: {}", stderr(&ok));
    std::fs::write(dir.join("rustfmt.toml"), "max_widht = 80\n").unwrap();
    let refused = make(&env, &dir, &["lint-config"]);
    assert!(
        !refused.status.success(),
        "make lint-config accepts max_widht"
    );
    assert!(
        stderr(&refused).contains("max_widht"),
        "{}",
        stderr(&refused)
    );
    drop(tmp);
}
