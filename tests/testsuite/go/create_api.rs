//! Projects grown with `create api`, checked with the real Go toolchain and
//! envtest: they generate, build, vet, lint, and `make test` runs every
//! generated controller test against a real API server.
//!
//! Needs Go, the module proxy and the control plane (KUBEBUILDER_ASSETS), so
//! it is ignored by a plain `cargo test` and run by `scripts/test-all`.

use crate::common::sequences::{BOOK_INIT, BOOK_TUTORIAL};
use crate::common::{
    assert_ready_to_build, kb, kb_ok, kb_with_make, persistent_project_dir, run_ok, snapshot_tree,
    stderr, words,
};
use std::path::Path;

/// Runs kubebuilder-rs `args` again and expects a refusal that changes nothing.
fn kb_refused_again(dir: &Path, args: &[&str]) {
    let before = snapshot_tree(dir);
    let output = kb(dir).args(args).output().unwrap();
    assert!(
        !output.status.success(),
        "second run of {args:?} was not refused"
    );
    assert!(
        stderr(&output).contains("already exists"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        snapshot_tree(dir),
        before,
        "second run of {args:?} changed files"
    );
}

/// Asserts that `make manifests` wrote apply configurations in `package`
/// for the `--ssa` kind `with` and, the package being opted in as a whole,
/// for none of the kinds created without `--ssa`.
fn assert_apply_configurations_of(package: &Path, with: &str, without: &[&str]) {
    let generated = snapshot_tree(&package.join("applyconfiguration"));
    let text: String = generated
        .values()
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .collect();
    assert!(
        text.contains(&format!("type {with}ApplyConfiguration struct")),
        "no apply configuration for {with} in {generated:?}"
    );
    for kind in without {
        assert!(
            !text.contains(&format!("type {kind}ApplyConfiguration struct")),
            "{kind} was created without --ssa but got an apply configuration"
        );
    }
}

/// `create api --make=false` followed by `args`.
fn api(args: &[&str]) -> Vec<String> {
    ["create", "api", "--make=false"]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect()
}

/// Checks that `make test` ran the controller specs against envtest: runs the
/// controller packages verbosely and looks for each kind's spec.
fn assert_controller_specs_ran(dir: &Path, packages: &str, kinds: &[&str]) {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let out = run_ok(
        dir,
        "go",
        &[
            "test",
            packages,
            "-count=1",
            "-v",
            "-ginkgo.v",
            "-ginkgo.no-color",
        ],
    );
    for kind in kinds {
        // Ginkgo prints each spec it ran as "<Describe text> <It text>";
        // the generated tests describe the reconciler type.
        let ran = out
            .lines()
            .any(|line| line.starts_with(&format!("{kind}Reconciler ")));
        assert!(ran, "no spec ran for {kind}:\n{out}");
    }
    assert!(!out.contains("[FAIL]"), "a spec failed:\n{out}");
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn single_group_project_with_every_kind_of_api() {
    let dir = persistent_project_dir("guestbook");
    kb_ok(
        &dir,
        &words("init --domain example.com --repo example.com/guestbook"),
    );
    let steps: Vec<Vec<String>> = vec![
        api(&words("--group crew --version v1 --kind Captain")),
        api(&words(
            "--group crew --version v1 --kind Captain --controller-name captain-backup --resource=false",
        )),
        api(&words("--group crew --version v1 --kind FirstMate")),
        api(&words(
            "--group crew --version v2 --kind FirstMate --controller=false",
        )),
        api(&words(
            "--group crew --version v1 --kind Admiral --namespaced=false --plural admirales",
        )),
        api(&words("--group crew --version v1 --kind Navigator --ssa")),
        api(&words(
            "--group cert-manager --version v1 --kind Certificate --resource=false --controller --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain io --external-api-module github.com/cert-manager/cert-manager@v1.18.2",
        )),
        api(&words(
            "--group apps --version v1 --kind Deployment --resource=false --controller",
        )),
    ];
    for step in &steps {
        let args: Vec<&str> = step.iter().map(String::as_str).collect();
        kb_ok(&dir, &args);
        kb_refused_again(&dir, &args);
    }
    // What a user runs after scaffolding with --make=false.
    run_ok(&dir, "go", &["mod", "tidy"]);
    run_ok(&dir, "make", &["manifests", "generate", "fmt"]);
    for crd in [
        "crew.example.com_captains.yaml",
        "crew.example.com_firstmates.yaml",
        "crew.example.com_admirales.yaml",
        "crew.example.com_navigators.yaml",
    ] {
        assert!(
            dir.join("config/crd/bases").join(crd).is_file(),
            "controller-gen wrote no {crd}"
        );
    }
    assert_apply_configurations_of(&dir.join("api/v1"), "Navigator", &["Captain", "Admiral"]);
    let admirals =
        std::fs::read_to_string(dir.join("config/crd/bases/crew.example.com_admirales.yaml"))
            .unwrap();
    assert!(
        admirals.contains("scope: Cluster"),
        "Admiral is not cluster-scoped"
    );
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "go", &["vet", "./..."]);
    run_ok(&dir, "make", &["lint"]);
    run_ok(&dir, "make", &["test"]);
    assert_controller_specs_ran(
        &dir,
        "./internal/controller/...",
        &words("Captain FirstMate Admiral Navigator Certificate Deployment"),
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn multigroup_project_with_three_groups() {
    let dir = persistent_project_dir("fleet");
    kb_ok(
        &dir,
        &words("init --domain example.com --repo example.com/fleet --multigroup"),
    );
    let steps: Vec<Vec<String>> = vec![
        api(&words("--group crew --version v1 --kind Captain")),
        api(&words(
            "--group crew --version v1 --kind Captain --controller-name captain-backup --resource=false",
        )),
        api(&words(
            "--group foo.policy --version v1 --kind HealthCheckPolicy --namespaced=false",
        )),
        api(&words("--group sea --version v1beta1 --kind Ship")),
        api(&words(
            "--group sea --version v1 --kind Ship --controller=false",
        )),
        api(&words(
            "--group apps --version v1 --kind Deployment --resource=false --controller",
        )),
    ];
    for step in &steps {
        let args: Vec<&str> = step.iter().map(String::as_str).collect();
        kb_ok(&dir, &args);
        kb_refused_again(&dir, &args);
    }
    // What a user runs after scaffolding with --make=false.
    run_ok(&dir, "go", &["mod", "tidy"]);
    run_ok(&dir, "make", &["manifests", "generate", "fmt"]);
    assert!(
        dir.join("config/crd/bases/foo.policy.example.com_healthcheckpolicies.yaml")
            .is_file()
    );
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "go", &["vet", "./..."]);
    run_ok(&dir, "make", &["lint"]);
    run_ok(&dir, "make", &["test"]);
    assert_controller_specs_ran(
        &dir,
        "./internal/controller/...",
        &["Captain", "HealthCheckPolicy", "Ship", "Deployment"],
    );
}

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn create_api_with_make_leaves_a_project_that_builds() {
    let dir = persistent_project_dir("quick");
    kb_ok(
        &dir,
        &words("init --domain example.com --repo example.com/quick"),
    );
    let create = |args: &[&str]| {
        let mut all = vec!["create", "api"];
        all.extend(args);
        kb_with_make(&dir, &all);
        assert_ready_to_build(&dir);
    };
    create(&words(
        "--group crew --version v1 --kind Captain --resource --controller",
    ));
    assert!(
        dir.join("api/v1/zz_generated.deepcopy.go").is_file(),
        "deep-copy methods were not generated"
    );
    // Another version of the same kind, with server-side apply configurations.
    create(&words(
        "--group crew --version v2 --kind Captain --resource --controller=false --ssa",
    ));
    assert!(dir.join("api/v2/zz_generated.deepcopy.go").is_file());
    // A built-in type: its controller imports k8s.io/api directly.
    create(&words(
        "--group apps --version v1 --kind Deployment --resource=false --controller",
    ));
    run_ok(&dir, "go", &["vet", "./..."]);
}

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn the_books_cronjob_tutorial_builds() {
    let dir = persistent_project_dir("project");
    kb_ok(&dir, &words(BOOK_INIT));
    for line in BOOK_TUTORIAL {
        let mut args = words(line);
        args.push("--make=false");
        kb_ok(&dir, &args);
    }
    run_ok(&dir, "go", &["mod", "tidy"]);
    run_ok(&dir, "make", &["manifests", "generate"]);
    let crd = std::fs::read_to_string(
        dir.join("config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml"),
    )
    .unwrap();
    assert!(
        crd.contains("name: v1\n") && crd.contains("name: v2\n"),
        "the CronJob CRD lacks a version:\n{crd}"
    );
    // Vet compiles the test files too: the built-in Job's controller and the
    // own CronJob's, each importing its own `batchv1`, share the package.
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "go", &["vet", "./..."]);
}
