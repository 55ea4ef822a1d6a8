//! `create api` in a rust/v1-alpha project: what it adds and edits
//! (snapshots), where a multigroup project puts it, built-in types from
//! k8s-openapi, refusals, `--dry-run`, and `edit` / `alpha generate` for
//! the layout.

use crate::common;
use crate::common::{
    assert_refused, assert_same_files, empty_project_dir, kb_ok, read, snapshot_command,
    snapshot_tree, words,
};
use std::path::{Path, PathBuf};

/// A new rust/v1-alpha project named `name` grown by `sequence`.
fn rust_project(name: &str, sequence: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir(name);
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    for line in sequence {
        kb_ok(&dir, &words(line));
    }
    (tmp, dir)
}

#[test]
fn create_api_in_a_single_group_project() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    snapshot_command(
        &dir,
        "rust_api_captain",
        &words("create api --group crew --version v1 --kind Captain --resource --controller"),
    );
    snapshot_command(
        &dir,
        "rust_api_captain_backup",
        &words(
            "create api --group crew --version v1 --kind Captain --controller --resource=false --controller-name captain-backup",
        ),
    );
    snapshot_command(
        &dir,
        "rust_api_admiral_cluster",
        &words(
            "create api --group crew --version v1 --kind Admiral --namespaced=false --plural admirales --resource --controller",
        ),
    );
    snapshot_command(
        &dir,
        "rust_api_deployment_core",
        &words(
            "create api --group apps --version v1 --kind Deployment --resource=false --controller",
        ),
    );
}

#[test]
fn a_multigroup_project_nests_modules_by_group() {
    let (_tmp, dir) = rust_project(
        "fleet",
        &[
            "create api --group crew --version v1 --kind Captain --resource --controller",
            "edit --multigroup",
            "create api --group foo.policy --version v1 --kind HealthCheckPolicy --resource --controller",
            "create api --group foo.policy --version v2 --kind HealthCheckPolicy --resource --controller=false",
        ],
    );
    for path in [
        "src/api/v1/captain.rs",
        "src/api/foo_policy/mod.rs",
        "src/api/foo_policy/v1/health_check_policy.rs",
        "src/api/foo_policy/v2/health_check_policy.rs",
        "src/controller/foo_policy/health_check_policy.rs",
        "tests/controllers/foo_policy_health_check_policy.rs",
    ] {
        assert!(dir.join(path).is_file(), "{path} is missing");
    }
    let api = read(&dir, "src/api/mod.rs");
    for line in [
        "pub mod v1;\n",
        "pub mod foo_policy;\n",
        "        foo_policy::v1::HealthCheckPolicy::crd(),\n        foo_policy::v2::HealthCheckPolicy::crd(),\n",
    ] {
        assert!(api.contains(line), "{line:?} not in:\n{api}");
    }
    assert!(read(&dir, "src/api/foo_policy/mod.rs").contains("pub mod v1;\npub mod v2;\n"));
    let main = read(&dir, "src/main.rs");
    assert!(
        main.contains("controller::foo_policy::health_check_policy::run("),
        "{main}"
    );
    let controllers = read(&dir, "src/controller/mod.rs");
    assert!(controllers.contains("pub mod captain;\npub mod foo_policy;\n"));
    assert!(controllers.contains("rules.extend(foo_policy::health_check_policy::rbac_rules());"));
    let kind = read(&dir, "src/api/foo_policy/v1/health_check_policy.rs");
    assert!(
        kind.contains("group = \"foo.policy.example.com\""),
        "{kind}"
    );
    let project = read(&dir, "PROJECT");
    assert!(
        project.contains("path: fleet::api::foo_policy::v1\n"),
        "{project}"
    );
}

#[test]
fn the_same_command_twice_or_a_bad_one_changes_nothing() {
    let (_tmp, dir) = rust_project(
        "guestbook",
        &["create api --group webapp --version v1 --kind Guestbook --resource --controller"],
    );
    let create = ["create", "api"];
    assert_refused(
        &dir,
        &create,
        &words("--group webapp --version v1 --kind Guestbook --resource --controller"),
        &["Guestbook"],
    );
    assert_refused(
        &dir,
        &create,
        &words("--group webapp --version v1 --kind Type --resource --controller"),
        &["\"type\"", "keyword"],
    );
    assert_refused(
        &dir,
        &create,
        &words("--group apps --version v1beta1 --kind Deployment --resource=false --controller"),
        &["k8s-openapi", "api::apps::v1beta1"],
    );
    assert_refused(
        &dir,
        &create,
        &words("--group webapp --version v1 --kind Library --resource --controller --make=false"),
        &["--make", "base.go.kubebuilder.io/v4"],
    );
}

#[test]
fn dry_run_prints_the_changes_and_writes_nothing() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    let before = snapshot_tree(&dir);
    let printed = kb_ok(
        &dir,
        &words(
            "create api --group webapp --version v1 --kind Guestbook --resource --controller --dry-run",
        ),
    );
    for path in [
        "src/api/v1/guestbook.rs",
        "src/controller/guestbook.rs",
        "src/main.rs",
    ] {
        assert!(printed.contains(path), "{path} not in:\n{printed}");
    }
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn edit_changes_the_license_header_of_later_files() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    kb_ok(&dir, &words("edit --license none"));
    assert_eq!(read(&dir, "hack/boilerplate.rs.txt"), "");
    kb_ok(
        &dir,
        &words("create api --group webapp --version v1 --kind Guestbook --resource --controller"),
    );
    assert!(read(&dir, "src/api/v1/guestbook.rs").starts_with("//! The Guestbook kind"));
    assert!(read(&dir, "src/main.rs").starts_with("// Copyright"));
}

#[test]
fn alpha_generate_gives_the_project_back_file_for_file() {
    let (tmp, dir) = rust_project(
        "guestbook",
        &[
            "create api --group webapp --version v1 --kind Guestbook --resource --controller",
            "create api --group webapp --version v1 --kind Library --namespaced=false --resource --controller",
            "create api --group apps --version v1 --kind Deployment --resource=false --controller",
        ],
    );
    assert_alpha_generate_gives_back(tmp.path(), &dir);
}

#[test]
fn a_controller_is_refused_for_a_manager_without_the_reconcile_runner() {
    let (_tmp, dir) = rust_project("oldmanager", &[]);
    // The manager as kubebuilder-rs scaffolded it before the runner existed.
    let module = dir.join("src/manager/mod.rs");
    let text = std::fs::read_to_string(&module).unwrap();
    let old = text.replace("pub use reconciler::Runner;\n", "");
    assert_ne!(old, text, "the manager exports the runner");
    std::fs::write(&module, old).unwrap();
    assert_refused(
        &dir,
        &["create", "api"],
        &words("--group crew --version v1 --kind Captain --resource --controller"),
        &[
            "src/manager/mod.rs",
            "Runner",
            "alpha generate",
            "--controller=false",
        ],
    );
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain --resource --controller=false"),
    );
}

/// The conversion of kube's finalizer errors that an own kind's controller
/// relies on.
const FINALIZER_CONVERSION: &str = "impl From<kube::runtime::finalizer::Error<Error>> for Error {";

#[test]
fn the_finalizer_conversion_comes_with_the_first_own_kind_controller() {
    let (_tmp, dir) = rust_project("conversion", &[]);
    let module = || read(&dir, "src/controller/mod.rs");
    let count = || module().matches(FINALIZER_CONVERSION).count();
    assert_eq!(count(), 0, "a project without controllers needs none");
    kb_ok(
        &dir,
        &words(
            "create api --group apps --version v1 --kind Deployment --resource=false --controller",
        ),
    );
    assert_eq!(count(), 0, "a built-in type's controller uses no finalizer");
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain --resource --controller"),
    );
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Sailor --resource --controller"),
    );
    assert_eq!(count(), 1, "{}", module());
}

#[test]
fn an_older_projects_controllers_get_the_finalizer_conversion_above_their_tests() {
    const MARKER: &str = "// +kubebuilder:scaffold:error-conversions\n\n";
    let captain =
        words("create api --group crew --version v1 --kind Captain --resource --controller");
    let (_new_tmp, new_dir) = rust_project("conversion", &[]);
    kb_ok(&new_dir, &captain);
    let (_tmp, dir) = rust_project("conversion", &[]);
    // src/controller/mod.rs as kubebuilder-rs scaffolded it before the
    // marker existed.
    let module = dir.join("src/controller/mod.rs");
    let text = read(&dir, "src/controller/mod.rs");
    assert!(text.contains(MARKER), "{text}");
    std::fs::write(&module, text.replace(MARKER, "")).unwrap();
    kb_ok(&dir, &captain);
    let old = read(&dir, "src/controller/mod.rs");
    let conversion = |text: &str| {
        let start = text
            .find("/// The reconcile's own error")
            .expect("the conversion");
        let end = start + text[start..].find("\n}\n\n").expect("its end") + 4;
        (start, end)
    };
    let (start, end) = conversion(&old);
    assert!(old[end..].starts_with("#[cfg(test)]\nmod tests {"), "{old}");
    // The same conversion as in a new project, and every other byte as the
    // new project's but the marker.
    let new = read(&new_dir, "src/controller/mod.rs");
    let (new_start, new_end) = conversion(&new);
    assert_eq!(old[start..end], new[new_start..new_end]);
    let rest = |text: &str, (start, end): (usize, usize)| {
        format!("{}{}", &text[..start], &text[end..]).replace(MARKER, "")
    };
    assert_eq!(rest(&old, (start, end)), rest(&new, (new_start, new_end)));
}

/// `--external-api-*` in a Rust project: a controller for a type of
/// another crate (a path dependency, then a registry one), recorded in
/// PROJECT as kubebuilder records an external type with the Rust path as
/// `path`, and the crate added to Cargo.toml with every other byte kept.
#[test]
fn a_controller_for_an_external_type_records_it_and_adds_its_crate() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    let crate_dir = dir.join("crates/acme-types");
    std::fs::create_dir_all(&crate_dir).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        "[package]\nname = \"acme-types\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    // The user's own touches, which the edit must keep.
    let cargo = read(&dir, "Cargo.toml").replace(
        "[dependencies]\n",
        "[dependencies]   # mine\n# a note of mine\n",
    );
    std::fs::write(dir.join("Cargo.toml"), &cargo).unwrap();
    kb_ok(
        &dir,
        &words(
            "create api --group widgets --version v1 --kind Widget --resource=false --controller --external-api-path acme_types::v1 --external-api-module acme-types@path:crates/acme-types --external-api-domain acme.io",
        ),
    );
    let added = "acme-types = { path = \"crates/acme-types\" }\n";
    let edited = read(&dir, "Cargo.toml");
    assert_eq!(edited.matches(added).count(), 1, "{edited}");
    assert_eq!(
        edited.replacen(added, "", 1),
        cargo,
        "only the line is added"
    );
    let project = read(&dir, "PROJECT");
    assert!(
        project.contains(
            "- controller: true\n  domain: acme.io\n  external: true\n  group: widgets\n  kind: Widget\n  module: acme-types@path:crates/acme-types\n  path: acme_types::v1\n  version: v1\n"
        ),
        "{project}"
    );
    let controller = read(&dir, "src/controller/widget.rs");
    assert!(
        controller.contains("use acme_types::v1::Widget;"),
        "{controller}"
    );
    assert!(controller.contains("\"widgets.acme.io\""), "{controller}");
    assert!(!dir.join("src/api/v1").exists(), "no API type of its own");

    // A registry crate: `<crate>@<version>`.
    kb_ok(
        &dir,
        &words(
            "create api --group cert-manager --version v1 --kind Certificate --resource=false --controller --external-api-path cert_types::v1 --external-api-module cert-types@0.3 --external-api-domain io",
        ),
    );
    let edited_again = read(&dir, "Cargo.toml");
    assert_eq!(
        edited_again.replacen("cert-types = \"0.3\"\n", "", 1),
        edited,
        "{edited_again}"
    );
    assert!(read(&dir, "PROJECT").contains("  module: cert-types@0.3\n  path: cert_types::v1\n"));
}

/// Bad external flags are refused in one line, nothing written.
#[test]
fn bad_external_flags_change_nothing() {
    let (_tmp, dir) = rust_project("guestbook", &[]);
    let create = ["create", "api"];
    let api = "--group widgets --version v1 --kind Widget --resource=false --controller";
    for (flags, needles) in [
        (
            "--external-api-domain acme.io",
            &["--external-api-domain", "needs --external-api-path"][..],
        ),
        (
            "--external-api-module acme-types@1",
            &["--external-api-module", "needs --external-api-path"],
        ),
        (
            "--external-api-path acme_types::v1 --external-api-module acme-types",
            &["\"acme-types\"", "<crate>@<version>", "<crate>@path:<dir>"],
        ),
        (
            "--external-api-path github.com/acme/types/v1 --external-api-module acme-types@1",
            &["\"github.com/acme/types/v1\"", "Rust path"],
        ),
        (
            "--external-api-path other::v1 --external-api-module acme-types@1",
            &["\"other::v1\"", "acme_types::"],
        ),
        (
            "--external-api-path acme_types::v1",
            &["acme_types", "not in Cargo.toml", "--external-api-module"],
        ),
        (
            "--external-api-path acme_types::v1 --external-api-module acme-types@1 --external-api-domain Acme_IO",
            &["\"Acme_IO\"", "DNS-1123"],
        ),
    ] {
        let args = format!("{api} {flags}");
        assert_refused(&dir, &create, &words(&args), needles);
    }
    // An external type brings no API type of this project.
    assert_refused(
        &dir,
        &create,
        &words(
            "--group widgets --version v1 --kind Widget --resource --controller --external-api-path acme_types::v1 --external-api-module acme-types@1",
        ),
        &["--resource=false"],
    );
}

/// `alpha generate` re-creates external types as PROJECT records them:
/// same Rust paths, same Cargo.toml, file for file.
#[test]
fn alpha_generate_gives_external_types_back() {
    let (tmp, dir) = empty_project_dir("guestbook");
    let crate_dir = tmp.path().join("acme-types");
    std::fs::create_dir_all(&crate_dir).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        "[package]\nname = \"acme-types\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    for line in [
        "create api --group widgets --version v1 --kind Widget --resource=false --controller --external-api-path acme_types::v1 --external-api-module acme-types@path:../acme-types --external-api-domain acme.io",
        "create webhook --group widgets --version v1 --kind Widget --defaulting --external-api-domain acme.io",
        "create webhook --group cert-manager --version v1 --kind Issuer --programmatic-validation --external-api-path cert_types::v1 --external-api-module cert-types@0.3 --external-api-domain io",
    ] {
        kb_ok(&dir, &words(line));
    }
    assert_alpha_generate_gives_back(tmp.path(), &dir);
}

/// `alpha generate` of the project `dir` (named guestbook, in `parent`)
/// into `parent/regenerated` gives every file back byte for byte.
fn assert_alpha_generate_gives_back(parent: &Path, dir: &Path) {
    let printed = kb_ok(
        parent,
        &words("alpha generate --input-dir guestbook --output-dir regenerated"),
    );
    assert!(printed.contains("no file differs"), "{printed}");
    assert_same_files(dir, &parent.join("regenerated"));
}

/// The controllers' and the webhooks' integration suites are modules of one
/// test binary, tests/integration.rs (cargo links it once). A project made
/// before that binary keeps its suite as tests/controllers/main.rs, and
/// the next controller's test goes there.
#[test]
fn integration_suites_share_one_test_binary_and_an_older_suite_stays() {
    let api = "create api --group crew --version v1 --kind Captain --resource --controller";
    let webhook = "create webhook --group crew --version v1 --kind Captain --defaulting";
    let (_new_tmp, new) = rust_project("guestbook", &[api, webhook]);
    let binary = read(&new, "tests/integration.rs");
    assert!(
        binary.contains("mod support;\nmod controllers;\nmod webhooks;\n"),
        "{binary}"
    );
    for suite in ["controllers", "webhooks"] {
        assert!(!new.join(format!("tests/{suite}/main.rs")).exists());
        let module = read(&new, &format!("tests/{suite}/mod.rs"));
        assert!(module.contains("\nuse crate::support;\n"), "{module}");
        assert!(!module.contains("#[path"), "{module}");
    }

    let (_old_tmp, old) = rust_project("guestbook", &[api]);
    common::old_manager::rust_with_suite_binary(&old, "controllers");
    assert!(!old.join("tests/integration.rs").exists());
    kb_ok(
        &old,
        &words("create api --group crew --version v1 --kind Mate --resource --controller"),
    );
    let suite = read(&old, "tests/controllers/main.rs");
    for needle in [
        "mod mate;",
        "mate::reconciles(&client).await;",
        "mod support;",
    ] {
        assert!(suite.contains(needle), "{needle:?} not in:\n{suite}");
    }
    assert!(!old.join("tests/controllers/mod.rs").exists());
    assert!(!old.join("tests/integration.rs").exists());
    // Its first webhook's suite starts the one binary.
    kb_ok(&old, &words(webhook));
    assert_eq!(
        read(&old, "tests/integration.rs")
            .lines()
            .filter(|l| l.starts_with("mod "))
            .collect::<Vec<_>>(),
        ["mod support;", "mod webhooks;"]
    );
}
