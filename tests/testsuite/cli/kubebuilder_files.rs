//! `create webhook` on files shaped the way kubebuilder shapes them: the
//! same YAML and Go structure as ours, but other prose, comments at the end
//! of YAML lines, and none of our markers in the webhook file and its test.
//! The files are written here from that structure (they are not kubebuilder
//! output); `tests/testsuite/go/kubebuilder_compat.rs` checks the real thing.

use crate::common::{assert_refused, empty_project_dir, init_project, kb, read, stderr, words};
use std::fs;
use std::path::{Path, PathBuf};

/// Runs kubebuilder-rs with `--make=false` appended, panicking on failure.
fn kb_ok(dir: &Path, line: &str) {
    let output = kb(dir)
        .args(words(line))
        .arg("--make=false")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{line} failed: {}",
        stderr(&output)
    );
}

/// Every line of `yaml` prefixed with `#`.
fn commented(yaml: &str) -> String {
    yaml.lines().map(|line| format!("#{line}\n")).collect()
}

/// A CA-injection replacement pair (certificate namespace, then name) for
/// `kind`, with notes at the end of some lines.
fn ca_pair(kind: &str) -> String {
    let mut pair = String::new();
    for (field, index, note) in [
        (".metadata.namespace", 0, " # read from the Certificate"),
        (".metadata.name", 1, ""),
    ] {
        pair.push_str(&format!(
            " - source: # pair for {kind}\n     kind: Certificate\n     group: cert-manager.io\n     version: v1\n     name: serving-cert{note}\n     fieldPath: {field}\n   targets:\n     - select:\n         kind: {kind}\n       fieldPaths:\n         - .metadata.annotations.[cert-manager.io/inject-ca-from]\n       options:\n         delimiter: '/'\n         index: {index}\n         create: true\n"
        ));
    }
    pair
}

/// A conversion replacement: its `targets:` list is filled at `marker`.
fn conversion_source(field: &str, marker: &str) -> String {
    commented(&format!(
        " - source: # for converted CRDs\n     kind: Certificate\n     group: cert-manager.io\n     version: v1\n     name: serving-cert\n     fieldPath: {field}\n   targets: # filled below\n"
    )) + &format!("# +kubebuilder:scaffold:{marker}\n")
}

/// config/default/kustomization.yaml as kubebuilder lays it out once a
/// defaulting webhook is on: webhook, cert-manager, the webhook patch, the
/// Service replacements and the mutating pair live; the validating pair and
/// the conversion sources still commented out, each under its own prose.
fn default_kustomization() -> String {
    let service = " - source: # the Service's name\n     kind: Service\n     version: v1\n     name: webhook-service\n     fieldPath: .metadata.name # of the Service\n   targets:\n     - select:\n         kind: Certificate\n         group: cert-manager.io\n         version: v1\n         name: serving-cert\n       fieldPaths:\n         - .spec.dnsNames.0\n         - .spec.dnsNames.1\n       options:\n         delimiter: '.'\n         index: 0\n         create: true\n - source:\n     kind: Service\n     version: v1\n     name: webhook-service\n     fieldPath: .metadata.namespace\n   targets:\n     - select:\n         kind: Certificate\n         group: cert-manager.io\n         version: v1\n         name: serving-cert\n       fieldPaths:\n         - .spec.dnsNames.0\n         - .spec.dnsNames.1\n       options:\n         delimiter: '.'\n         index: 1\n         create: true\n";
    [
        "# Settings for the whole overlay.\nnamespace: guestbook-system\nnamePrefix: guestbook-\n\nresources:\n- ../crd\n- ../rbac\n- ../manager\n# The webhook server, in two words.\n- ../webhook\n- ../certmanager\n#- ../prometheus\n- metrics_service.yaml\n\npatches:\n- path: manager_metrics_patch.yaml\n  target:\n    kind: Deployment\n\n# Mount the serving certificate.\n- path: manager_webhook_patch.yaml\n  target:\n    kind: Deployment\n\n# Copy names into certificates and annotations.\nreplacements:\n",
        service,
        "\n# Switch on for validation webhooks.\n",
        &commented(&ca_pair("ValidatingWebhookConfiguration")),
        "\n# Switch on for defaulting webhooks.\n",
        &ca_pair("MutatingWebhookConfiguration"),
        "\n# Switch on for conversion webhooks.\n",
        &conversion_source(".metadata.namespace", "crdkustomizecainjectionns"),
        &conversion_source(".metadata.name", "crdkustomizecainjectionname"),
    ]
    .concat()
}

/// The Captain webhook file as kubebuilder writes it for a defaulting
/// webhook: no scaffold markers, a package logger named `<kind>log`.
const WEBHOOK: &str = r#"package v1

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	crewv1 "example.com/guestbook/api/v1"
)

var captainlog = logf.Log.WithName("captain-resource")

// SetupCaptainWebhookWithManager wires the Captain webhooks.
func SetupCaptainWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &crewv1.Captain{}).
		WithDefaulter(&CaptainCustomDefaulter{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-crew-example-com-v1-captain,mutating=true,failurePolicy=fail,sideEffects=None,groups=crew.example.com,resources=captains,verbs=create;update,versions=v1,name=mcaptain-v1.kb.io,admissionReviewVersions=v1

// CaptainCustomDefaulter sets defaults.
type CaptainCustomDefaulter struct{}

// Default sets nothing yet.
func (d *CaptainCustomDefaulter) Default(_ context.Context, obj *crewv1.Captain) error {
	captainlog.Info("defaulting", "name", obj.GetName())
	return nil
}
"#;

/// Its unit test, also without markers.
const WEBHOOK_TEST: &str = r#"package v1

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	crewv1 "example.com/guestbook/api/v1"
)

var _ = Describe("Captain Webhook", func() {
	var (
		obj       *crewv1.Captain
		defaulter CaptainCustomDefaulter
	)

	BeforeEach(func() {
		obj = &crewv1.Captain{}
		defaulter = CaptainCustomDefaulter{}
	})

	It("defaults", func() {
		Expect(defaulter.Default(ctx, obj)).To(Succeed())
	})
})
"#;

const WEBHOOK_PATH: &str = "internal/webhook/v1/captain_webhook.go";
const WEBHOOK_TEST_PATH: &str = "internal/webhook/v1/captain_webhook_test.go";
const DEFAULT: &str = "config/default/kustomization.yaml";

/// A project whose Captain defaulting webhook and default overlay have
/// kubebuilder's shape, with v4.15's type names.
fn project() -> (tempfile::TempDir, PathBuf) {
    project_named("Custom")
}

/// The same with `<Kind><infix>Defaulter` as the type name: `Custom` as
/// kubebuilder v4.15 writes it, empty as v4.16 does.
fn project_named(infix: &str) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    kb_ok(&dir, "create api --group crew --version v1 --kind Captain");
    kb_ok(
        &dir,
        "create api --group crew --version v1 --kind FirstMate",
    );
    kb_ok(
        &dir,
        "create api --group crew --version v2 --kind FirstMate --controller=false",
    );
    kb_ok(
        &dir,
        "create webhook --group crew --version v1 --kind Captain --defaulting",
    );
    fs::write(dir.join(WEBHOOK_PATH), named(WEBHOOK, infix)).unwrap();
    fs::write(dir.join(WEBHOOK_TEST_PATH), named(WEBHOOK_TEST, infix)).unwrap();
    fs::write(dir.join(DEFAULT), default_kustomization()).unwrap();
    (tmp, dir)
}

/// `text` with its `CaptainCustom` type names as `Captain<infix>`.
fn named(text: &str, infix: &str) -> String {
    text.replace("CaptainCustom", &format!("Captain{infix}"))
}

/// Checks that `after` is `before` with `pieces` added, each at its place
/// and every other byte kept: taking the pieces out again gives `before`.
fn assert_only_added(before: &str, after: &str, pieces: &[&str]) {
    let mut rest = after.to_string();
    for piece in pieces {
        let at = rest
            .find(piece)
            .unwrap_or_else(|| panic!("{piece:?} not added:\n{after}"));
        rest.replace_range(at..at + piece.len(), "");
    }
    assert_eq!(rest, before, "more than the pieces changed:\n{after}");
}

#[test]
fn validation_joins_a_kubebuilder_webhook_file_and_overlay() {
    for infix in ["Custom", ""] {
        let (_tmp, dir) = project_named(infix);
        kb_ok(
            &dir,
            "create webhook --group crew --version v1 --kind Captain --programmatic-validation",
        );
        let validator = format!("Captain{infix}Validator");
        let defaulter = format!("Captain{infix}Defaulter");

        let webhook = read(&dir, WEBHOOK_PATH);
        let (head, types) = webhook
            .split_once("\n// The validating webhook for Captain.")
            .expect("validator appended after a blank line");
        assert_only_added(
            &named(WEBHOOK, infix),
            head,
            &[
                "\t\"sigs.k8s.io/controller-runtime/pkg/webhook/admission\"\n",
                &format!("\t\tWithValidator(&{validator}{{}}).\n"),
            ],
        );
        assert!(types.contains(&format!("type {validator} struct {{")));
        assert!(
            webhook.contains("crewv1 \"example.com/guestbook/api/v1\"\n\t\"sigs.k8s.io/controller-runtime/pkg/webhook/admission\"\n)\n"),
            "admission not imported at the end of the import block:\n{webhook}"
        );
        assert!(
            webhook.contains(&format!("WithDefaulter(&{defaulter}{{}}).\n\t\tWithValidator(&{validator}{{}}).\n\t\tComplete()")),
            "validator not added to the end of the builder chain:\n{webhook}"
        );

        // The validator joins the Describe's variables, as kubebuilder adds it.
        let test = read(&dir, WEBHOOK_TEST_PATH);
        let (head, specs) = test
            .split_once("\tContext(\"validation\", func() {")
            .unwrap_or_else(|| panic!("no validation specs:\n{test}"));
        assert!(specs.ends_with("\t})\n\n})\n"), "{test}");
        assert_only_added(
            named(WEBHOOK_TEST, infix).strip_suffix("})\n").unwrap(),
            head,
            &[
                &format!("\t\tvalidator {validator}\n"),
                &format!("\t\tvalidator = {validator}{{}}\n"),
            ],
        );

        let overlay = read(&dir, DEFAULT);
        let validating = ca_pair("ValidatingWebhookConfiguration");
        assert_eq!(
            overlay,
            default_kustomization().replace(&commented(&validating), &validating),
            "only the validating pair, with its own comments, should be switched on"
        );
    }
}

#[test]
fn conversion_switches_on_the_sources_above_its_markers() {
    let (_tmp, dir) = project();
    kb_ok(
        &dir,
        "create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2",
    );
    let overlay = read(&dir, DEFAULT);
    let before = default_kustomization();
    let (head, _) = before.split_once("# Switch on for conversion").unwrap();
    assert!(
        overlay.starts_with(head),
        "blocks other than the conversion sources changed:\n{overlay}"
    );
    for (field, marker) in [
        (".metadata.namespace", "crdkustomizecainjectionns"),
        (".metadata.name", "crdkustomizecainjectionname"),
    ] {
        let source = format!(
            " - source: # for converted CRDs\n     kind: Certificate\n     group: cert-manager.io\n     version: v1\n     name: serving-cert\n     fieldPath: {field}\n   targets: # filled below\n     - select:\n         kind: CustomResourceDefinition\n         name: firstmates.crew.example.com\n"
        );
        assert!(
            overlay.contains(&source),
            "{field} source not switched on with its target:\n{overlay}"
        );
        assert!(overlay.contains(&format!(
            "         create: true\n# +kubebuilder:scaffold:{marker}\n"
        )));
    }
}

#[test]
fn defaulting_joins_a_conversion_only_kubebuilder_file() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        "create api --group crew --version v1 --kind FirstMate",
    );
    kb_ok(
        &dir,
        "create api --group crew --version v2 --kind FirstMate --controller=false",
    );
    kb_ok(
        &dir,
        "create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2",
    );
    let path = "internal/webhook/v1/firstmate_webhook.go";
    let conversion_only = "package v1\n\nimport (\n\tctrl \"sigs.k8s.io/controller-runtime\"\n\tlogf \"sigs.k8s.io/controller-runtime/pkg/log\"\n\n\tcrewv1 \"example.com/guestbook/api/v1\"\n)\n\nvar firstmatelog = logf.Log.WithName(\"firstmate-resource\")\n\n// SetupFirstMateWebhookWithManager wires the FirstMate webhooks.\nfunc SetupFirstMateWebhookWithManager(mgr ctrl.Manager) error {\n\treturn ctrl.NewWebhookManagedBy(mgr, &crewv1.FirstMate{}).\n\t\tComplete()\n}\n";
    fs::write(dir.join(path), conversion_only).unwrap();
    kb_ok(
        &dir,
        "create webhook --group crew --version v1 --kind FirstMate --defaulting",
    );
    let webhook = read(&dir, path);
    assert!(
        webhook.starts_with("package v1\n\nimport (\n\t\"context\"\n\tctrl "),
        "context not imported first:\n{webhook}"
    );
    assert!(webhook.contains("\t\tWithDefaulter(&FirstMateDefaulter{}).\n\t\tComplete()"));
    assert!(webhook.contains("}\n\n// The mutating webhook for FirstMate;"));
}

#[test]
fn an_overlay_without_the_block_is_refused_untouched() {
    let (_tmp, dir) = project();
    let overlay =
        default_kustomization().replace(&commented(&ca_pair("ValidatingWebhookConfiguration")), "");
    fs::write(dir.join(DEFAULT), overlay).unwrap();
    assert_refused(
        &dir,
        &["create", "webhook", "--make=false"],
        &words("--group crew --version v1 --kind Captain --programmatic-validation"),
        &[DEFAULT, "no longer holds the text this command edits"],
    );
}

#[test]
fn a_webhook_file_without_builder_chain_is_refused_untouched() {
    let (_tmp, dir) = project();
    let no_chain = WEBHOOK.replace("\t\tComplete()\n", "\t\tComplete() // done\n");
    fs::write(dir.join(WEBHOOK_PATH), no_chain).unwrap();
    assert_refused(
        &dir,
        &["create", "webhook", "--make=false"],
        &words("--group crew --version v1 --kind Captain --programmatic-validation"),
        &[
            WEBHOOK_PATH,
            "+kubebuilder:scaffold:webhook-builder",
            "`Complete()`",
        ],
    );
}
