//! CLI behaviour of `kubebuilder-rs create api`: what it records and edits,
//! and refusals that leave the directory untouched.

use crate::common;
use crate::common::{empty_project_dir, init_project, kb, snapshot_tree, stderr, stdout, words};
use std::path::Path;

/// Runs `create api` with `--make=false` and the given flags.
fn create_api(dir: &Path, args: &[&str]) -> std::process::Output {
    kb(dir)
        .args(["create", "api", "--make=false"])
        .args(args)
        .output()
        .unwrap()
}

/// Runs `create api` and panics if it fails.
fn create_api_ok(dir: &Path, args: &[&str]) {
    let output = create_api(dir, args);
    assert!(
        output.status.success(),
        "create api {args:?} failed: {}",
        stderr(&output)
    );
}

/// Expects `create api` with `args` to be refused with one line holding
/// every needle, leaving the directory byte for byte as it was.
fn assert_refused(dir: &Path, args: &[&str], needles: &[&str]) {
    common::assert_refused(dir, &["create", "api", "--make=false"], args, needles);
}

/// A project made by `init`.
fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    (tmp, dir)
}

const CAPTAIN: &[&str] = &["--group", "crew", "--version", "v1", "--kind", "Captain"];

#[test]
fn without_project_file_it_says_to_run_init() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(&dir, CAPTAIN, &["PROJECT", "init"]);
}

#[test]
fn bad_names_are_refused() {
    let (_tmp, dir) = project();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &words("--group crew --version v1 --kind captain"),
            &["\"captain\"", "PascalCase"],
        ),
        (
            &words("--group crew --version v1 --kind First_Mate"),
            &["First_Mate", "PascalCase"],
        ),
        (
            &words("--group crew --version 1 --kind Captain"),
            &["\"1\"", "v1alpha1"],
        ),
        (
            &words("--group crew --version v1gamma1 --kind Captain"),
            &["v1gamma1"],
        ),
        (
            &words("--group Crew --version v1 --kind Captain"),
            &["\"Crew\"", "DNS-1123"],
        ),
        (
            &words("--group crew_x --version v1 --kind Captain"),
            &["crew_x", "DNS-1123"],
        ),
        (
            &words("--group crew --version v1 --kind Captain --plural Captains"),
            &["Captains"],
        ),
        (
            &words("--group crew --version v1 --kind Captain --controller-name Bad_Name"),
            &["Bad_Name"],
        ),
    ];
    for (args, needles) in cases {
        assert_refused(&dir, args, needles);
    }
}

#[test]
fn nothing_to_scaffold_is_refused() {
    let (_tmp, dir) = project();
    let args = [CAPTAIN, &["--resource=false", "--controller=false"]].concat();
    assert_refused(&dir, &args, &["--resource=false", "--controller=false"]);
}

#[test]
fn existing_api_and_controller_are_refused_without_force() {
    let (_tmp, dir) = project();
    create_api_ok(&dir, CAPTAIN);
    assert_refused(
        &dir,
        CAPTAIN,
        &["crew/v1 Captain", "already exists", "--force"],
    );
    let controller_only = [CAPTAIN, &["--resource=false", "--controller"]].concat();
    assert_refused(
        &dir,
        &controller_only,
        &["controller \"captain\"", "already exists"],
    );
    let backup = [
        CAPTAIN,
        &["--resource=false", "--controller-name", "captain-backup"],
    ]
    .concat();
    create_api_ok(&dir, &backup);
    assert_refused(&dir, &backup, &["captain-backup", "already exists"]);
}

#[test]
fn controller_for_a_missing_api_is_refused() {
    let (_tmp, dir) = project();
    let args = [CAPTAIN, &["--resource=false", "--controller"]].concat();
    assert_refused(&dir, &args, &["no API crew/v1 Captain"]);
}

#[test]
fn external_path_without_module_is_refused() {
    let (_tmp, dir) = project();
    let args = [
        "--group",
        "cert-manager",
        "--version",
        "v1",
        "--kind",
        "Certificate",
        "--resource=false",
        "--controller",
        "--external-api-path",
        "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1",
    ];
    assert_refused(&dir, &args, &["--external-api-module"]);
}

#[test]
fn unknown_core_kind_is_refused() {
    let (_tmp, dir) = project();
    let args = [
        "--group",
        "apps",
        "--version",
        "v1",
        "--kind",
        "Deploymint",
        "--resource=false",
        "--controller",
    ];
    assert_refused(&dir, &args, &["Deploymint", "apps/v1", "Deployment"]);
}

#[test]
fn missing_marker_names_the_file_and_marker() {
    let (_tmp, dir) = project();
    let main = dir.join("cmd/main.go");
    let text = std::fs::read_to_string(&main).unwrap();
    let edited: String = text
        .lines()
        .filter(|line| !line.contains("+kubebuilder:scaffold:scheme"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&main, edited).unwrap();
    assert_refused(
        &dir,
        CAPTAIN,
        &["cmd/main.go", "+kubebuilder:scaffold:scheme"],
    );
}

#[test]
fn main_go_only_gains_lines() {
    let (_tmp, dir) = project();
    let before = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap();
    create_api_ok(&dir, CAPTAIN);
    let after = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap();
    let diff = similar::TextDiff::from_lines(&before, &after);
    let removed = diff
        .iter_all_changes()
        .filter(|c| c.tag() == similar::ChangeTag::Delete)
        .count();
    let added: String = diff
        .iter_all_changes()
        .filter(|c| c.tag() == similar::ChangeTag::Insert)
        .map(|c| c.to_string())
        .collect();
    assert_eq!(removed, 0, "main.go lost lines");
    for needle in [
        "crewv1 \"example.com/guestbook/api/v1\"",
        "crewv1.AddToScheme(scheme)",
        "controller.CaptainReconciler",
    ] {
        assert!(added.contains(needle), "{needle} not inserted:\n{added}");
    }
}

#[test]
fn dry_run_shows_diffs_and_writes_nothing() {
    let (_tmp, dir) = project();
    let before = snapshot_tree(&dir);
    let output = kb(&dir)
        .args(["create", "api", "--dry-run"])
        .args(CAPTAIN)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let plan = stdout(&output);
    for needle in [
        "create    api/v1/captain_types.go",
        "create    internal/controller/captain_controller.go",
        "update    cmd/main.go",
        "update    PROJECT",
        "+++ b/cmd/main.go",
        "-#- ../crd",
        "+- ../crd",
    ] {
        assert!(plan.contains(needle), "{needle:?} not in plan:\n{plan}");
    }
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn project_file_records_every_kind_of_resource() {
    let (_tmp, dir) = project();
    create_api_ok(&dir, CAPTAIN);
    create_api_ok(
        &dir,
        &[
            CAPTAIN,
            &["--resource=false", "--controller-name", "captain-backup"],
        ]
        .concat(),
    );
    create_api_ok(
        &dir,
        &words("--group crew --version v1 --kind Admiral --namespaced=false --plural admirales"),
    );
    create_api_ok(
        &dir,
        &words("--group crew --version v1 --kind Navigator --ssa"),
    );
    create_api_ok(
        &dir,
        &words("--group crew --version v2 --kind FirstMate --controller=false"),
    );
    create_api_ok(
        &dir,
        &words("--group apps --version v1 --kind Deployment --resource=false --controller"),
    );
    create_api_ok(
        &dir,
        &words(
            "--group cert-manager --version v1 --kind Certificate --resource=false --controller --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain io --external-api-module github.com/cert-manager/cert-manager@v1.18.2",
        ),
    );
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let resources = &project[project.find("resources:").expect("resources recorded")..];
    let expected = "resources:
- api:
    crdVersion: v1
    namespaced: true
  controllers:
  - name: captain
  - name: captain-backup
  domain: example.com
  group: crew
  kind: Captain
  path: example.com/guestbook/api/v1
  version: v1
- api:
    crdVersion: v1
  controller: true
  domain: example.com
  group: crew
  kind: Admiral
  path: example.com/guestbook/api/v1
  plural: admirales
  version: v1
- api:
    crdVersion: v1
    namespaced: true
    ssa: true
  controller: true
  domain: example.com
  group: crew
  kind: Navigator
  path: example.com/guestbook/api/v1
  version: v1
- api:
    crdVersion: v1
    namespaced: true
  domain: example.com
  group: crew
  kind: FirstMate
  path: example.com/guestbook/api/v2
  version: v2
- controller: true
  core: true
  group: apps
  kind: Deployment
  path: k8s.io/api/apps/v1
  version: v1
- controller: true
  domain: io
  external: true
  group: cert-manager
  kind: Certificate
  module: github.com/cert-manager/cert-manager@v1.18.2
  path: github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1
  version: v1
version: \"3\"
";
    assert_eq!(resources, expected);
    let go_mod = std::fs::read_to_string(dir.join("go.mod")).unwrap();
    assert!(
        go_mod.contains("require github.com/cert-manager/cert-manager v1.18.2"),
        "{go_mod}"
    );
}

#[test]
fn multigroup_paths_and_names() {
    let (_tmp, dir) = empty_project_dir("fleet");
    init_project(&dir, &["--multigroup"]);
    create_api_ok(
        &dir,
        &words("--group foo.policy --version v1 --kind HealthCheckPolicy"),
    );
    for path in [
        "api/foo.policy/v1/healthcheckpolicy_types.go",
        "api/foo.policy/v1/groupversion_info.go",
        "internal/controller/foo.policy/healthcheckpolicy_controller.go",
        "internal/controller/foo.policy/suite_test.go",
        "config/rbac/foo.policy_healthcheckpolicy_admin_role.yaml",
        "config/samples/foo.policy_v1_healthcheckpolicy.yaml",
    ] {
        assert!(dir.join(path).is_file(), "{path} missing");
    }
    let main = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap();
    assert!(
        main.contains(
            "foopolicycontroller \"example.com/guestbook/internal/controller/foo.policy\""
        ),
        "{main}"
    );
    let crd = std::fs::read_to_string(dir.join("config/crd/kustomization.yaml")).unwrap();
    assert!(
        crd.contains("- bases/foo.policy.example.com_healthcheckpolicies.yaml"),
        "{crd}"
    );
}

/// The manifests recipe before and after the first `--ssa` API.
const MANIFESTS_RECIPE: (&str, &str) = (
    "\t\"$(CONTROLLER_GEN)\" rbac:roleName=manager-role crd webhook paths=\"./...\"",
    "\t\"$(CONTROLLER_GEN)\" rbac:roleName=manager-role crd webhook applyconfiguration:headerFile=\"hack/boilerplate.go.txt\" paths=\"./...\"",
);

/// The lines of `text` from the one holding `start` through the one holding
/// `end`, for comparing a block of markers.
fn lines_between(text: &str, start: &str, end: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|l| l.contains(start)).unwrap();
    let last = first + lines[first..].iter().position(|l| l.contains(end)).unwrap();
    lines[first..=last].join("\n")
}

/// `--ssa` as kubebuilder v4.16 scaffolds it: the package opted in below
/// `+kubebuilder:object:generate=true`, `+genclient` markers on the kind,
/// the generator added to `make manifests` (not `make generate`) by the
/// first `--ssa` API only, and later kinds of the package opted out.
#[test]
fn ssa_marks_the_package_and_kind_and_adds_the_generator_to_manifests() {
    let (_tmp, dir) = project();
    let makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    assert!(makefile.contains(MANIFESTS_RECIPE.0), "{makefile}");
    assert!(!makefile.contains("applyconfiguration"), "{makefile}");

    create_api_ok(
        &dir,
        &words("--group crew --version v1 --kind Captain --ssa"),
    );
    let group = common::read(&dir, "api/v1/groupversion_info.go");
    assert!(
        group.contains("// +kubebuilder:object:generate=true\n// +kubebuilder:ac:generate=true\n// +groupName=crew.example.com\n"),
        "{group}"
    );
    let captain = common::read(&dir, "api/v1/captain_types.go");
    assert_eq!(
        lines_between(&captain, "+genclient", "// Captain is"),
        "// +genclient\n// +kubebuilder:ac:generate=true\n// +kubebuilder:object:root=true\n// +kubebuilder:subresource:status\n\n// Captain is the Schema for the captains API."
    );
    let makefile = common::read(&dir, "Makefile");
    assert!(makefile.contains(MANIFESTS_RECIPE.1), "{makefile}");
    assert!(
        makefile.contains("manifests: controller-gen ## Regenerate CRDs, RBAC roles, webhook configurations and apply configurations"),
        "{makefile}"
    );
    assert_eq!(
        makefile.matches("applyconfiguration").count(),
        1,
        "{makefile}"
    );

    // A cluster-scoped kind with --ssa in another package: +genclient:nonNamespaced;
    // the Makefile already has the generator.
    create_api_ok(
        &dir,
        &words("--group crew --version v2 --kind Admiral --ssa --namespaced=false"),
    );
    let admiral = common::read(&dir, "api/v2/admiral_types.go");
    assert_eq!(
        lines_between(&admiral, "+genclient", "scope=Cluster"),
        "// +genclient\n// +genclient:nonNamespaced\n// +kubebuilder:ac:generate=true\n// +kubebuilder:object:root=true\n// +kubebuilder:subresource:status\n// +kubebuilder:resource:scope=Cluster"
    );
    assert_eq!(common::read(&dir, "Makefile"), makefile);

    // A kind without --ssa beside an --ssa one opts out of the package's generation.
    create_api_ok(&dir, &words("--group crew --version v1 --kind FirstMate"));
    let mate = common::read(&dir, "api/v1/firstmate_types.go");
    assert!(
        mate.contains("}\n\n// +kubebuilder:ac:generate=false\n// +kubebuilder:object:root=true\n"),
        "{mate}"
    );
    assert!(!mate.contains("+genclient"), "{mate}");
    assert_eq!(
        common::read(&dir, "api/v1/groupversion_info.go"),
        group,
        "a kind without --ssa leaves the package marker alone"
    );

    // Scaffolding an --ssa type again keeps --ssa, as PROJECT records it.
    create_api_ok(
        &dir,
        &words("--group crew --version v1 --kind Captain --controller=false --force"),
    );
    let project = common::read(&dir, "PROJECT");
    assert!(project.contains("    ssa: true\n"), "{project}");
    assert!(common::read(&dir, "api/v1/captain_types.go").contains("// +genclient\n"));
}

/// An `--ssa` API added to a package whose kinds were created without it:
/// those kinds opt out, inserted without touching any other byte, and the
/// existing `groupversion_info.go` gets the package marker.
#[test]
fn ssa_after_other_kinds_opts_them_out_and_keeps_every_other_byte() {
    let (_tmp, dir) = project();
    create_api_ok(&dir, &words("--group crew --version v1 --kind FirstMate"));
    create_api_ok(
        &dir,
        &words("--group crew --version v2 --kind FirstMate --controller=false"),
    );
    let before_v1 = common::read(&dir, "api/v1/firstmate_types.go");
    let before_v2 = common::read(&dir, "api/v2/firstmate_types.go");
    let group_before = common::read(&dir, "api/v1/groupversion_info.go");
    create_api_ok(
        &dir,
        &words("--group crew --version v1 --kind Captain --ssa"),
    );

    let marker = "// +kubebuilder:object:root=true\n";
    let expected = before_v1.replacen(
        marker,
        &format!("// +kubebuilder:ac:generate=false\n{marker}"),
        1,
    );
    assert_eq!(common::read(&dir, "api/v1/firstmate_types.go"), expected);
    assert_eq!(
        common::read(&dir, "api/v2/firstmate_types.go"),
        before_v2,
        "another version is another package"
    );
    let generate = "// +kubebuilder:object:generate=true\n";
    assert_eq!(
        common::read(&dir, "api/v1/groupversion_info.go"),
        group_before.replacen(
            generate,
            &format!("{generate}// +kubebuilder:ac:generate=true\n"),
            1
        )
    );
    assert!(common::read(&dir, "Makefile").contains(MANIFESTS_RECIPE.1));
}

/// A Makefile that already generates apply configurations (`make generate`
/// of projects made before) is left as it is.
#[test]
fn a_makefile_that_generates_apply_configurations_is_left_alone() {
    let (_tmp, dir) = project();
    let makefile = common::read(&dir, "Makefile").replace(
        "year=$(YEAR) paths",
        "year=$(YEAR) applyconfiguration:headerFile=\"hack/boilerplate.go.txt\" paths",
    );
    std::fs::write(dir.join("Makefile"), &makefile).unwrap();
    create_api_ok(
        &dir,
        &words("--group crew --version v1 --kind Captain --ssa"),
    );
    assert_eq!(common::read(&dir, "Makefile"), makefile);
}

#[test]
fn ssa_without_a_resource_is_refused() {
    let (_tmp, dir) = project();
    create_api_ok(&dir, CAPTAIN);
    let args = [
        CAPTAIN,
        &[
            "--resource=false",
            "--controller",
            "--controller-name",
            "backup",
            "--ssa",
        ],
    ]
    .concat();
    assert_refused(&dir, &args, &["--ssa", "--resource=false"]);
}

/// A types file of the package that PROJECT does not record cannot be told
/// apart: it is left alone and named in a note.
#[test]
fn ssa_names_the_package_kinds_project_does_not_record() {
    let (_tmp, dir) = project();
    create_api_ok(&dir, &words("--group crew --version v1 --kind FirstMate"));
    let stray = common::read(&dir, "api/v1/firstmate_types.go").replace("FirstMate", "Stray");
    std::fs::write(dir.join("api/v1/stray_types.go"), &stray).unwrap();
    let output = create_api(
        &dir,
        &words("--group crew --version v1 --kind Captain --ssa"),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stdout(&output);
    let note = said
        .lines()
        .find(|line| line.starts_with("Not recorded in PROJECT"))
        .unwrap_or_else(|| panic!("no note: {said}"));
    assert!(note.contains(": api/v1/stray_types.go."), "{note}");
    assert!(!note.contains("firstmate_types.go"), "{note}");
    assert_eq!(common::read(&dir, "api/v1/stray_types.go"), stray);
}
