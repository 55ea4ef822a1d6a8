//! Projects with webhooks from `create webhook`, checked with the real Go
//! toolchain and envtest: they build, vet and lint, `make test` passes, the
//! deployable tree renders with every part switched on, the webhooks
//! really run (the API server calls them when objects are created), files of
//! the old generation (`<Kind>CustomDefaulter`) are extended, kubebuilder
//! extends ours, and a manager made before `--webhook-port` existed runs with
//! what config/ passes it after a later `create webhook`.
//!
//! Needs Go, the module proxy and the control plane (KUBEBUILDER_ASSETS), so
//! it is ignored by a plain `cargo test` and run by `scripts/test-all`.

use crate::common;
use crate::common::cluster::{Background, ControlPlane, env_for};
use crate::common::{
    assert_ready_to_build, empty_project_dir, kb, kb_with_make, old_manager,
    persistent_project_dir, run_ok, shared_tools_bin, snapshot_tree, stderr, words,
};
use std::path::Path;
use std::time::Duration;

/// Runs kubebuilder-rs `args` with `--make=false`, panicking on failure.
fn kb_ok(dir: &Path, args: &[&str]) {
    let output = kb(dir).args(args).arg("--make=false").output().unwrap();
    assert!(
        output.status.success(),
        "kubebuilder-rs {args:?} failed: {}",
        stderr(&output)
    );
}

/// Runs kubebuilder-rs `args` again and expects a refusal that changes nothing.
fn kb_refused_again(dir: &Path, args: &[&str]) {
    let before = snapshot_tree(dir);
    let output = kb(dir).args(args).arg("--make=false").output().unwrap();
    assert!(
        !output.status.success(),
        "second run of {args:?} was not refused"
    );
    assert_eq!(
        snapshot_tree(dir),
        before,
        "second run of {args:?} changed files"
    );
}

/// A project with the APIs the webhooks need.
fn project_with_apis(name: &str) -> std::path::PathBuf {
    let dir = persistent_project_dir(name);
    let output = kb(&dir)
        .args([
            "init",
            "--domain",
            "example.com",
            "--repo",
            &format!("example.com/{name}"),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "init failed: {}", stderr(&output));
    let apis: &[&[&str]] = &[
        &["--version", "v1", "--kind", "Captain"],
        &words("--version v1 --kind Admiral --namespaced=false"),
        &["--version", "v1", "--kind", "Navigator"],
        &["--version", "v1", "--kind", "FirstMate"],
        &words("--version v2 --kind FirstMate --controller=false"),
    ];
    for api in apis {
        kb_ok(
            &dir,
            &[&["create", "api", "--group", "crew"][..], api].concat(),
        );
    }
    dir
}

/// Generates code and manifests as a user does after `--make=false`.
fn generate(dir: &Path) {
    run_ok(dir, "go", &["mod", "tidy"]);
    run_ok(dir, "make", &["manifests", "generate", "fmt"]);
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn every_kind_of_webhook_builds_lints_tests_and_deploys_as_yaml() {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let dir = project_with_apis("guestbook");
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Purser"),
    );
    let steps: &[&[&str]] = &[
        &words("--group crew --version v1 --kind Captain --defaulting"),
        &words("--group crew --version v1 --kind Captain --programmatic-validation"),
        &words(
            "--group crew --version v1 --kind Navigator --defaulting --programmatic-validation --defaulting-path=/default-navigator --validation-path=/validate-navigator",
        ),
        &words("--group crew --version v1 --kind Admiral --defaulting --programmatic-validation"),
        &words("--group crew --version v1 --kind FirstMate --conversion --spoke v2"),
        &words("--group core --version v1 --kind Pod --defaulting"),
        &words(
            "--group apps --version v1 --kind Deployment --defaulting --programmatic-validation",
        ),
    ];
    for (i, step) in steps.iter().enumerate() {
        let args = [&["create", "webhook"][..], step].concat();
        kb_ok(&dir, &args);
        kb_refused_again(&dir, &args);
        if i == 0 {
            // Captain's defaulting webhook as kubebuilder-rs wrote it before
            // v4.16's names: the validation added next must fit it.
            restore_custom_names(&dir);
        }
    }
    continue_with_kubebuilder(&dir);
    generate(&dir);
    let manifests = std::fs::read_to_string(dir.join("config/webhook/manifests.yaml")).unwrap();
    for path in [
        "/default-navigator",
        "/validate-navigator",
        "/validate-crew-example-com-v1-admiral",
        "/mutate--v1-pod",
        "/validate-apps-v1-deployment",
        "/mutate-crew-example-com-v1-captain",
    ] {
        assert!(
            manifests.contains(path),
            "no webhook at {path} in config/webhook/manifests.yaml"
        );
    }
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "go", &["vet", "./..."]);
    run_ok(&dir, "make", &["lint"]);
    run_ok(&dir, "make", &["test"]);
    run_ok(&dir, "make", &["kustomize"]);
    let kustomize = shared_tools_bin().join("kustomize");
    let yaml = run_ok(
        &dir,
        kustomize.to_str().unwrap(),
        &["build", "config/default"],
    );
    for needle in [
        "kind: MutatingWebhookConfiguration",
        "kind: ValidatingWebhookConfiguration",
        "cert-manager.io/inject-ca-from: guestbook-system/guestbook-serving-cert",
        "kind: Certificate",
        "kind: Issuer",
        "strategy: Webhook",
        "path: /convert",
    ] {
        assert!(
            yaml.contains(needle),
            "{needle:?} missing from kustomize build config/default"
        );
    }
}

/// Puts the Captain webhook files of `tests/fixtures/webhook-custom-names`
/// (`CaptainCustomDefaulter`, specs with their own variables) in place.
fn restore_custom_names(dir: &Path) {
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/webhook-custom-names");
    for name in ["captain_webhook.go", "captain_webhook_test.go"] {
        std::fs::copy(
            fixtures.join(name),
            dir.join("internal/webhook/v1").join(name),
        )
        .unwrap();
    }
}

/// kubebuilder adds validation to the Purser defaulting webhook that
/// kubebuilder-rs wrote: its additions to the unit test, the suite and
/// cmd/main.go must fit ours (the project is then vetted and tested).
fn continue_with_kubebuilder(dir: &Path) {
    kb_ok(
        dir,
        &words("create webhook --group crew --version v1 --kind Purser --defaulting"),
    );
    let kubebuilder = common::kubebuilder::kubebuilder_binary();
    run_ok(
        dir,
        kubebuilder.to_str().unwrap(),
        &words(
            "create webhook --group crew --version v1 --kind Purser --programmatic-validation --make=false",
        ),
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn webhooks_are_called_by_the_api_server() {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let dir = project_with_apis("rules");
    kb_ok(
        &dir,
        &words(
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        ),
    );
    add_rules(&dir.join("internal/webhook/v1/captain_webhook.go"));
    std::fs::write(
        dir.join("internal/webhook/v1/captain_rules_test.go"),
        RULES_TEST,
    )
    .unwrap();
    generate(&dir);
    let out = run_ok(
        &dir,
        "go",
        &words("test ./internal/webhook/v1/ -count=1 -v -ginkgo.v -ginkgo.no-color"),
    );
    for spec in ["fills in foo when it is empty", "rejects foo=forbidden"] {
        assert!(out.contains(spec), "the spec {spec:?} did not run:\n{out}");
    }
}

/// Fills the scaffolded defaulting and validation bodies with one rule each.
fn add_rules(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let default_todo = "\t// TODO(user): set the defaults here, for example:\n";
    let validate_todo = "\t// TODO(user): return an error for an invalid object.\n";
    assert!(
        text.contains(default_todo) && text.contains(validate_todo),
        "unexpected webhook layout:\n{text}"
    );
    let text = text.replacen(
        default_todo,
        "\tif obj.Spec.Foo == nil || *obj.Spec.Foo == \"\" {\n\t\tvalue := \"filled-by-webhook\"\n\t\tobj.Spec.Foo = &value\n\t}\n",
        1,
    );
    let text = text.replacen(
        validate_todo,
        "\tif obj.Spec.Foo != nil && *obj.Spec.Foo == \"forbidden\" {\n\t\treturn nil, fmt.Errorf(\"foo must not be %q\", *obj.Spec.Foo)\n\t}\n",
        1,
    );
    let text = text.replacen("import (\n", "import (\n\t\"fmt\"\n", 1);
    std::fs::write(path, text).unwrap();
}

/// A test that goes through the envtest API server, whose webhook
/// configurations point at the suite's webhook server.
const RULES_TEST: &str = r#"package v1

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	crewv1 "example.com/rules/api/v1"
)

var _ = Describe("Captain webhooks through the API server", func() {
	It("fills in foo when it is empty", func() {
		obj := &crewv1.Captain{ObjectMeta: metav1.ObjectMeta{Name: "defaulted", Namespace: "default"}}
		Expect(k8sClient.Create(ctx, obj)).To(Succeed())
		Expect(obj.Spec.Foo).NotTo(BeNil())
		Expect(*obj.Spec.Foo).To(Equal("filled-by-webhook"))
	})

	It("rejects foo=forbidden", func() {
		forbidden := "forbidden"
		obj := &crewv1.Captain{
			ObjectMeta: metav1.ObjectMeta{Name: "rejected", Namespace: "default"},
			Spec:       crewv1.CaptainSpec{Foo: &forbidden},
		}
		err := k8sClient.Create(ctx, obj)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(`foo must not be "forbidden"`))
	})
})
"#;

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn create_webhook_with_make_leaves_a_project_that_builds() {
    let (_tmp, dir) = empty_project_dir("hooks");
    let output = kb(&dir)
        .args([
            "init",
            "--domain",
            "example.com",
            "--repo",
            "example.com/hooks",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "init failed: {}", stderr(&output));
    for version in ["v1", "v2"] {
        kb_with_make(
            &dir,
            &[
                "create",
                "api",
                "--group",
                "crew",
                "--version",
                version,
                "--kind",
                "Captain",
                "--resource",
                "--controller=false",
            ],
        );
    }
    let webhooks: [&[&str]; 3] = [
        &words("--group crew --version v1 --kind Captain --defaulting --programmatic-validation"),
        &words("--group crew --version v1 --kind Captain --conversion --spoke v2"),
        // A built-in type: its webhook imports k8s.io/api directly.
        &words("--group core --version v1 --kind Pod --defaulting"),
    ];
    for args in webhooks {
        let mut all = vec!["create", "webhook"];
        all.extend(args);
        kb_with_make(&dir, &all);
        assert_ready_to_build(&dir);
    }
    run_ok(&dir, "go", &["vet", "./..."]);
}

/// A go/v4 project whose manager has no `--webhook-port` (as kubebuilder
/// v4.15 and kubebuilder-rs before it wrote them) gets its first webhook;
/// its manager, built and run on the test control plane with the arguments
/// `kustomize build config/default` gives its container, starts and keeps
/// running. The same manager given `--webhook-port` exits at once, which
/// is what config/ must not cause.
#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn an_old_manager_runs_with_the_arguments_config_passes_after_create_webhook() {
    let (_tmp, dir) = empty_project_dir("oldhooks");
    let output = kb(&dir)
        .args(words(
            "init --domain example.com --repo example.com/oldhooks",
        ))
        .output()
        .unwrap();
    assert!(output.status.success(), "init failed: {}", stderr(&output));
    old_manager::go_without_webhook_port(&dir);
    kb_ok(
        &dir,
        &words("create webhook --group core --version v1 --kind Pod --defaulting"),
    );
    run_ok(&dir, "make", &["manifests"]);
    run_ok(&dir, "go", &["build", "-o", "bin/manager", "./cmd/main.go"]);
    let plane = ControlPlane::up();
    let env = env_for(&plane);
    let yaml = env.run(&dir, "kubectl", &["kustomize", "config/default"]);
    let mut args = manager_args(&yaml);
    assert!(
        args.iter()
            .any(|arg| arg.starts_with("--webhook-cert-path=")),
        "the webhook patch is not applied: {args:?}"
    );
    // Run outside the cluster: no leader election (it needs the Pod's
    // namespace), ports of its own, no certificate (an empty path skips it)
    // and no webhook server (ENABLE_WEBHOOKS=false); later flags win.
    args.extend(
        [
            "--leader-elect=false",
            "--metrics-bind-address=0",
            "--health-probe-bind-address=:0",
            "--webhook-cert-path=",
        ]
        .map(String::from),
    );
    let binary = dir.join("bin/manager");
    let run = |extra: &[&str]| {
        let mut command = env.command(&dir, binary.to_str().unwrap(), &[]);
        command
            .args(&args)
            .args(extra)
            .env("ENABLE_WEBHOOKS", "false");
        command
    };
    let unknown = run(&["--webhook-port=9443"]).output().unwrap();
    assert!(
        stderr(&unknown).contains("flag provided but not defined: -webhook-port"),
        "the old manager took --webhook-port: {}",
        stderr(&unknown)
    );
    let log_path = dir.join("manager.log");
    let mut manager = Background::logged(&mut run(&[]), &log_path);
    let log_text = || std::fs::read_to_string(&log_path).unwrap_or_default();
    manager.wait_until("the manager to start", Duration::from_secs(60), || {
        log_text().contains("Starting the manager")
    });
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        manager.child.try_wait().unwrap().is_none(),
        "the manager stopped:\n{}",
        log_text()
    );
    assert!(
        manager.interrupt(Duration::from_secs(30)),
        "the manager did not stop on SIGINT"
    );
}

/// The arguments of the `manager` container of the Deployment in `yaml`.
fn manager_args(yaml: &str) -> Vec<String> {
    let docs = yaml.split("\n---\n");
    let deployment = docs
        .filter_map(|doc| serde_norway::from_str::<serde_norway::Value>(doc).ok())
        .find(|doc| doc["kind"].as_str() == Some("Deployment"))
        .expect("a Deployment in the kustomize output");
    let containers = deployment["spec"]["template"]["spec"]["containers"]
        .as_sequence()
        .expect("the Deployment's containers");
    let manager = containers
        .iter()
        .find(|c| c["name"].as_str() == Some("manager"))
        .expect("a container named manager");
    manager["args"]
        .as_sequence()
        .expect("the manager's args")
        .iter()
        .map(|arg| arg.as_str().expect("a string argument").to_string())
        .collect()
}
