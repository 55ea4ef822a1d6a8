//! CLI behaviour of `kubebuilder-rs create webhook`: refusals that leave the
//! directory untouched, incremental calls that end where one call does, and
//! `--webhook-port` passed only to a manager that defines it.

use crate::common;
use crate::common::{
    empty_project_dir, init_project, kb, old_manager, read, snapshot_tree, stderr, words,
};
use std::path::Path;

/// Runs kubebuilder-rs with `--make=false` appended, panicking on failure.
fn kb_ok(dir: &Path, args: &[&str]) {
    let output = kb(dir).args(args).arg("--make=false").output().unwrap();
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        stderr(&output)
    );
}

/// Expects `create webhook` with `args` to be refused with one line holding
/// every needle, leaving the directory byte for byte as it was.
fn assert_refused(dir: &Path, args: &[&str], needles: &[&str]) {
    common::assert_refused(dir, &["create", "webhook", "--make=false"], args, needles);
}

/// A project with crew/v1 Captain, and FirstMate at v1 and v2.
fn project_with_apis() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain"),
    );
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind FirstMate"),
    );
    kb_ok(
        &dir,
        &words("create api --group crew --version v2 --kind FirstMate --controller=false"),
    );
    (tmp, dir)
}

const CAPTAIN: &[&str] = &["--group", "crew", "--version", "v1", "--kind", "Captain"];

#[test]
fn bad_requests_are_refused() {
    let (_tmp, dir) = project_with_apis();
    let with = |extra: &[&'static str]| [CAPTAIN, extra].concat();
    assert_refused(
        &dir,
        CAPTAIN,
        &["--defaulting", "--programmatic-validation", "--conversion"],
    );
    assert_refused(
        &dir,
        &words("--group crew --version v1 --kind Bosun --defaulting"),
        &["no API crew.example.com/v1 Bosun", "create api"],
    );
    assert_refused(
        &dir,
        &with(&["--defaulting", "--spoke", "v2"]),
        &["--spoke", "--conversion"],
    );
    let first_mate = [
        "--group",
        "crew",
        "--version",
        "v1",
        "--kind",
        "FirstMate",
        "--conversion",
    ];
    assert_refused(
        &dir,
        &[&first_mate[..], &["--spoke", "v1"]].concat(),
        &["v1", "hub"],
    );
    assert_refused(
        &dir,
        &[&first_mate[..], &["--spoke", "v3"]].concat(),
        &["v3", "no API"],
    );
    assert_refused(
        &dir,
        &with(&["--defaulting", "--defaulting-path", "mutate-captain"]),
        &["mutate-captain", "'/'"],
    );
    assert_refused(
        &dir,
        &with(&["--programmatic-validation", "--validation-path=/bad path"]),
        &["/bad path"],
    );
    assert_refused(
        &dir,
        &words("--group apps --version v1 --kind Deploymint --defaulting"),
        &["Deploymint"],
    );
}

#[test]
fn missing_marker_is_named() {
    let (_tmp, dir) = project_with_apis();
    let main = dir.join("cmd/main.go");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        text.replace("// +kubebuilder:scaffold:builder", "// builder"),
    )
    .unwrap();
    assert_refused(
        &dir,
        &[CAPTAIN, &["--defaulting"]].concat(),
        &["cmd/main.go", "+kubebuilder:scaffold:builder"],
    );
}

#[test]
fn existing_webhook_is_refused_without_force() {
    let (_tmp, dir) = project_with_apis();
    kb_ok(
        &dir,
        &[&["create", "webhook"][..], CAPTAIN, &["--defaulting"]].concat(),
    );
    assert_refused(
        &dir,
        &[CAPTAIN, &["--defaulting"]].concat(),
        &["defaulting webhook", "already exists"],
    );
}

#[test]
fn two_calls_end_where_one_call_does() {
    let (_tmp, one_call) = project_with_apis();
    kb_ok(
        &one_call,
        &[
            &["create", "webhook"][..],
            CAPTAIN,
            &["--defaulting", "--programmatic-validation"],
        ]
        .concat(),
    );
    let (_tmp2, two_calls) = project_with_apis();
    kb_ok(
        &two_calls,
        &[&["create", "webhook"][..], CAPTAIN, &["--defaulting"]].concat(),
    );
    kb_ok(
        &two_calls,
        &[
            &["create", "webhook"][..],
            CAPTAIN,
            &["--programmatic-validation"],
        ]
        .concat(),
    );
    let a = snapshot_tree(&one_call);
    let b = snapshot_tree(&two_calls);
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "different files"
    );
    for (path, bytes) in &a {
        assert!(
            bytes == &b[path],
            "{} differs between one call and two",
            path.display()
        );
    }
    let project = std::fs::read_to_string(one_call.join("PROJECT")).unwrap();
    assert!(
        project.contains(
            "  webhooks:\n    defaulting: true\n    validation: true\n    webhookVersion: v1\n"
        ),
        "{project}"
    );
    let default =
        std::fs::read_to_string(one_call.join("config/default/kustomization.yaml")).unwrap();
    assert!(
        default.contains("\n- ../webhook\n") && default.contains("\n- ../certmanager\n"),
        "{default}"
    );
}

/// config/ passes `--webhook-port` to today's manager, and leaves it out for
/// a manager made before the flag existed (kubebuilder v4.15, kubebuilder-rs
/// before it followed v4.16), which would exit on an unknown flag.
#[test]
fn webhook_port_is_passed_only_to_a_manager_that_defines_it() {
    for old in [false, true] {
        let (_tmp, dir) = empty_project_dir("guestbook");
        init_project(&dir, &[]);
        if old {
            old_manager::go_without_webhook_port(&dir);
        }
        kb_ok(
            &dir,
            &words("create webhook --group core --version v1 --kind Pod --defaulting"),
        );
        let patch = read(&dir, "config/default/manager_webhook_patch.yaml");
        assert!(patch.contains("--webhook-cert-path="), "{patch}");
        assert_eq!(
            patch.contains("value: --webhook-port=9443\n"),
            !old,
            "old manager: {old}\n{patch}"
        );
    }
}

/// `create webhook --group crew --version v1 --kind Captain --defaulting` as
/// kubebuilder-rs wrote it before it followed kubebuilder v4.16: the type is
/// `CaptainCustomDefaulter`, and each Context of the unit test declares its
/// own variables.
const CUSTOM_NAMES: &str = "tests/fixtures/webhook-custom-names";

#[test]
fn validation_joins_a_webhook_with_the_old_type_names() {
    let (_tmp, dir) = project_with_apis();
    kb_ok(
        &dir,
        &[&["create", "webhook"], CAPTAIN, &["--defaulting"]].concat(),
    );
    let files = dir.join("internal/webhook/v1");
    let fixture = |name: &str| {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(CUSTOM_NAMES)
                .join(name),
        )
        .unwrap()
    };
    for name in ["captain_webhook.go", "captain_webhook_test.go"] {
        std::fs::write(files.join(name), fixture(name)).unwrap();
    }
    kb_ok(
        &dir,
        &[
            &["create", "webhook"],
            CAPTAIN,
            &["--programmatic-validation"],
        ]
        .concat(),
    );

    let webhook = common::read(&files, "captain_webhook.go");
    assert!(
        webhook.contains(
            "\t\tWithDefaulter(&CaptainCustomDefaulter{}).\n\t\tWithValidator(&CaptainCustomValidator{}).\n"
        ) && webhook.contains("\ntype CaptainCustomValidator struct {"),
        "the validator is not named as the defaulter is:\n{webhook}"
    );
    assert!(!webhook.contains("CaptainValidator"), "{webhook}");

    let test = common::read(&files, "captain_webhook_test.go");
    let old = fixture("captain_webhook_test.go");
    let (kept, _) = old
        .split_once("\t// +kubebuilder:scaffold:webhook-tests")
        .unwrap();
    let added = test
        .strip_prefix(kept)
        .unwrap_or_else(|| panic!("the existing specs changed:\n{test}"));
    assert!(
        added.starts_with("\tContext(\"validation\", func() {\n\t\tvar (\n")
            && added.contains("\t\t\tvalidator CaptainCustomValidator\n")
            && added.contains("\t\t\tvalidator = CaptainCustomValidator{}\n"),
        "the validation specs do not declare their own validator:\n{added}"
    );
}

/// Two external Certificate types of the same group, version and kind,
/// recorded under different domains, as `create api --external-api-*` records them.
const TWO_CERTIFICATES: &str = "- domain: io
  external: true
  group: cert-manager
  kind: Certificate
  module: github.com/cert-manager/cert-manager@v1.18.2
  path: github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1
  version: v1
- domain: example.org
  external: true
  group: cert-manager
  kind: Certificate
  path: example.org/certs/api/v1
  version: v1
";

#[test]
fn the_project_entry_of_the_kind_is_used_and_picked_by_domain() {
    let (_tmp, dir) = project_with_apis();
    let project = common::read(&dir, "PROJECT");
    let project = project.replace(
        "version: \"3\"\n",
        &format!("{TWO_CERTIFICATES}version: \"3\"\n"),
    );
    std::fs::write(dir.join("PROJECT"), project).unwrap();
    let certificate = words("--group cert-manager --version v1 --kind Certificate --defaulting");
    let with = |extra: &[&'static str]| [&certificate[..], extra].concat();

    assert_refused(
        &dir,
        &certificate,
        &[
            "cert-manager/v1 Certificate",
            "io, example.org",
            "--external-api-domain",
        ],
    );
    assert_refused(
        &dir,
        &with(&["--external-api-domain", "example.net"]),
        &["\"example.net\"", "io, example.org"],
    );
    assert_refused(
        &dir,
        &words("--group cert-manager --version v1 --kind Issuer --defaulting"),
        &[
            "cert-manager.example.com/v1 Issuer",
            "create api",
            "--external-api-path",
        ],
    );

    // Only the domain is given: path and module come from the entry.
    kb_ok(
        &dir,
        &[
            &["create", "webhook"][..],
            &with(&["--external-api-domain", "io"]),
        ]
        .concat(),
    );
    let webhook = common::read(&dir, "internal/webhook/v1/certificate_webhook.go");
    for needle in [
        "certmanagerv1 \"github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1\"",
        "path=/mutate-cert-manager-io-v1-certificate,",
        "groups=cert-manager.io,",
    ] {
        assert!(webhook.contains(needle), "{needle:?} missing:\n{webhook}");
    }
    let project = common::read(&dir, "PROJECT");
    let (io, example_org) = project.split_once("- domain: example.org").unwrap();
    assert!(
        io.ends_with("    defaulting: true\n    webhookVersion: v1\n"),
        "{project}"
    );
    assert!(!example_org.contains("webhooks:"), "{project}");
}

#[test]
fn a_multigroup_conversion_patch_is_named_after_group_and_plural() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--multigroup"]);
    for line in [
        "create api --group crew --version v1 --kind Captain",
        "create api --group crew --version v2 --kind Captain --controller=false",
        "create webhook --group crew --version v1 --kind Captain --conversion --spoke v2",
    ] {
        kb_ok(&dir, &words(line));
    }
    let patches = dir.join("config/crd/patches");
    assert!(patches.join("webhook_in_crew_captains.yaml").is_file());
    assert!(!patches.join("webhook_in_captains.yaml").exists());
    let crd = std::fs::read_to_string(dir.join("config/crd/kustomization.yaml")).unwrap();
    assert!(
        crd.contains("- path: patches/webhook_in_crew_captains.yaml\n"),
        "{crd}"
    );
}

/// The lines of `text` that start an `It(` spec, trimmed.
fn specs(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| line.starts_with("It(\""))
        .collect()
}

#[test]
fn the_e2e_suite_checks_each_webhook_asked_for_once() {
    let (_tmp, dir) = project_with_apis();
    let e2e = "test/e2e/e2e_test.go";
    let before = read(&dir, e2e);
    kb_ok(
        &dir,
        &[&["create", "webhook"][..], CAPTAIN, &["--defaulting"]].concat(),
    );
    let defaulting = read(&dir, e2e);
    let added: Vec<&str> = specs(&defaulting)
        .into_iter()
        .filter(|spec| !specs(&before).contains(spec))
        .collect();
    assert_eq!(
        added,
        [
            "It(\"has the webhook serving certificate from cert-manager\", func() {",
            "It(\"has the CA bundle injected into the mutating webhooks\", func() {",
        ]
    );
    assert!(defaulting.contains("kubernetes.io/service-name=guestbook-webhook-service"));
    assert!(defaulting.contains("\"guestbook-mutating-webhook-configuration\""));
    assert!(!defaulting.contains("validating-webhook-configuration"));

    // Another kind's webhooks add only what is new; the conversion webhook
    // is checked on its CRD.
    kb_ok(
        &dir,
        &words(
            "create webhook --group crew --version v1 --kind FirstMate --defaulting --programmatic-validation --conversion --spoke v2",
        ),
    );
    let all = read(&dir, e2e);
    let added: Vec<&str> = specs(&all)
        .into_iter()
        .filter(|spec| !specs(&defaulting).contains(spec))
        .collect();
    assert_eq!(
        added,
        [
            "It(\"has the CA bundle injected into the validating webhooks\", func() {",
            "It(\"has the CA bundle injected into the FirstMate conversion webhook\", func() {",
        ]
    );
    assert!(all.contains("\"firstmates.crew.example.com\""), "{all}");
    assert_eq!(
        all.matches("waiting for the webhook Service to have a ready endpoint")
            .count(),
        1
    );

    // A suite without the markers (or no suite at all) is left alone.
    let (_tmp2, bare) = project_with_apis();
    std::fs::write(bare.join(e2e), "package e2e\n").unwrap();
    kb_ok(
        &bare,
        &[&["create", "webhook"][..], CAPTAIN, &["--defaulting"]].concat(),
    );
    assert_eq!(read(&bare, e2e), "package e2e\n");
    std::fs::remove_file(bare.join(e2e)).unwrap();
    kb_ok(
        &bare,
        &[
            &["create", "webhook"][..],
            CAPTAIN,
            &["--programmatic-validation"],
        ]
        .concat(),
    );
    assert!(!bare.join(e2e).exists());
}
