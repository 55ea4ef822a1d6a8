//! Which group a command names, the project's own or a built-in Kubernetes
//! one, decided as kubebuilder v4.16 does: the kubebuilder book's CronJob
//! tutorial (its own `batch` group next to the built-in batch/v1 Job) in both
//! layouts and through `alpha generate`, and the groups of kubebuilder's
//! list that differ from the one kubebuilder-rs had.

use crate::common::sequences::{BOOK_INIT, BOOK_TUTORIAL};
use crate::common::{
    assert_holds, assert_refused, empty_project_dir, init_project, kb_ok, read, snapshot_tree,
    words,
};
use std::path::{Path, PathBuf};

/// PROJECT's resources after the book's commands, as kubebuilder v4.16
/// records them (checked by running it on the same commands).
const BOOK_RESOURCES: &str = "resources:
- api:
    crdVersion: v1
    namespaced: true
  controller: true
  domain: tutorial.kubebuilder.io
  group: batch
  kind: CronJob
  path: tutorial.kubebuilder.io/project/api/v1
  version: v1
  webhooks:
    conversion: true
    defaulting: true
    spoke:
    - v2
    validation: true
    webhookVersion: v1
- controller: true
  core: true
  group: batch
  kind: Job
  path: k8s.io/api/batch/v1
  version: v1
- api:
    crdVersion: v1
    namespaced: true
  domain: tutorial.kubebuilder.io
  group: batch
  kind: CronJob
  path: tutorial.kubebuilder.io/project/api/v2
  version: v2
version: \"3\"
";

/// A project `name` made by `init_line` and grown by `sequence`, each
/// command with `extra` flags.
fn grown(
    name: &str,
    init_line: &str,
    sequence: &[&str],
    extra: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir(name);
    kb_ok(&dir, &words(init_line));
    for line in sequence {
        let mut args = words(line);
        args.extend(extra);
        kb_ok(&dir, &args);
    }
    (tmp, dir)
}

/// PROJECT's text from its `resources:` key on.
fn resources(dir: &Path) -> String {
    let project = read(dir, "PROJECT");
    let start = project.find("resources:").expect("PROJECT lists resources");
    project[start..].to_string()
}

#[test]
fn the_books_cronjob_tutorial_scaffolds_as_kubebuilder_does() {
    let go_init = format!("{BOOK_INIT} --fetch-deps=false --skip-go-version-check");
    let (_tmp, dir) = grown("project", &go_init, BOOK_TUTORIAL, &["--make=false"]);
    assert_eq!(resources(&dir), BOOK_RESOURCES);
    assert_holds(
        "PROJECT",
        &read(&dir, "PROJECT"),
        &["domain: tutorial.kubebuilder.io\n"],
    );
    for file in [
        "api/v1/cronjob_types.go",
        "api/v1/cronjob_conversion.go",
        "api/v2/cronjob_types.go",
        "api/v2/cronjob_conversion.go",
        "config/samples/batch_v1_cronjob.yaml",
        "config/samples/batch_v2_cronjob.yaml",
        "internal/webhook/v1/cronjob_webhook.go",
    ] {
        assert!(dir.join(file).is_file(), "{file} was not written");
    }
    assert!(!dir.join("api/v1/job_types.go").exists());
    assert_holds(
        "api/v2/groupversion_info.go",
        &read(&dir, "api/v2/groupversion_info.go"),
        &["Group: \"batch.tutorial.kubebuilder.io\", Version: \"v2\""],
    );
    assert_holds(
        "internal/controller/cronjob_controller.go",
        &read(&dir, "internal/controller/cronjob_controller.go"),
        &[
            "batchv1 \"tutorial.kubebuilder.io/project/api/v1\"",
            "groups=batch.tutorial.kubebuilder.io,resources=cronjobs,",
        ],
    );
    assert_holds(
        "internal/controller/job_controller.go",
        &read(&dir, "internal/controller/job_controller.go"),
        &[
            "batchv1 \"k8s.io/api/batch/v1\"",
            "groups=batch,resources=jobs,",
            "For(&batchv1.Job{})",
        ],
    );
    assert_holds(
        "cmd/main.go",
        &read(&dir, "cmd/main.go"),
        &["batchv1.AddToScheme(scheme)", "batchv2.AddToScheme(scheme)"],
    );
    assert_holds(
        "internal/webhook/v1/cronjob_webhook.go",
        &read(&dir, "internal/webhook/v1/cronjob_webhook.go"),
        &["groups=batch.tutorial.kubebuilder.io,resources=cronjobs,"],
    );
}

#[test]
fn alpha_generate_replays_the_books_project() {
    let go_init = format!("{BOOK_INIT} --fetch-deps=false --skip-go-version-check");
    let (tmp, dir) = grown("project", &go_init, BOOK_TUTORIAL, &["--make=false"]);
    let out = tmp.path().join("regenerated");
    let args = "alpha generate --input-dir project --output-dir regenerated --make=false";
    kb_ok(tmp.path(), &words(args));
    assert_eq!(resources(&out), BOOK_RESOURCES);
    let (original, regenerated) = (snapshot_tree(&dir), snapshot_tree(&out));
    assert_eq!(
        original.keys().collect::<Vec<_>>(),
        regenerated.keys().collect::<Vec<_>>()
    );
}

#[test]
fn the_books_tutorial_in_the_rust_layout() {
    let rust_init = "init --plugins rust/v1-alpha --domain tutorial.kubebuilder.io";
    let (_tmp, dir) = grown("project", rust_init, BOOK_TUTORIAL, &[]);
    let project = resources(&dir);
    assert_holds(
        "PROJECT",
        &project,
        &[
            "  domain: tutorial.kubebuilder.io\n  group: batch\n  kind: CronJob\n  path: project::api::v1\n",
            "  core: true\n  group: batch\n  kind: Job\n  path: k8s_openapi::api::batch::v1\n",
            "  group: batch\n  kind: CronJob\n  path: project::api::v2\n  version: v2\n",
        ],
    );
    assert!(dir.join("src/api/v2/cron_job.rs").is_file());
    assert_holds(
        "src/api/v1/cron_job.rs",
        &read(&dir, "src/api/v1/cron_job.rs"),
        &["group = \"batch.tutorial.kubebuilder.io\""],
    );
    assert_holds(
        "src/controller/job.rs",
        &read(&dir, "src/controller/job.rs"),
        &["use k8s_openapi::api::batch::v1::Job;"],
    );
}

/// A Go project made by `init`, without dependencies.
fn go_project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    (tmp, dir)
}

/// `create api --make=false` followed by `line`'s words.
fn create_api(dir: &Path, line: &str) {
    let mut args = words("create api --make=false");
    args.extend(words(line));
    kb_ok(dir, &args);
}

#[test]
fn groups_on_kubebuilders_list_are_built_in() {
    let (_tmp, dir) = go_project();
    create_api(
        &dir,
        "--group rbac.authorization --version v1 --kind Role --resource=false --controller",
    );
    create_api(
        &dir,
        "--group extensions --version v1beta1 --kind Ingress --resource=false --controller",
    );
    assert_holds(
        "PROJECT",
        &resources(&dir),
        &[
            // The package k8s.io/api really has (kubebuilder writes
            // k8s.io/api/rbac.authorization/v1).
            "- controller: true\n  core: true\n  domain: k8s.io\n  group: rbac.authorization\n  kind: Role\n  path: k8s.io/api/rbac/v1\n",
            "- controller: true\n  core: true\n  group: extensions\n  kind: Ingress\n  path: k8s.io/api/extensions/v1beta1\n",
        ],
    );
    assert_holds(
        "internal/controller/role_controller.go",
        &read(&dir, "internal/controller/role_controller.go"),
        &[
            "rbacauthorizationv1 \"k8s.io/api/rbac/v1\"",
            "groups=rbac.authorization.k8s.io,resources=roles,",
        ],
    );
}

#[test]
fn a_webhook_without_an_api_in_project_is_for_the_built_in_type() {
    let (_tmp, dir) = go_project();
    kb_ok(
        &dir,
        &words("create webhook --make=false --group batch --version v1 --kind Job --defaulting"),
    );
    assert_holds(
        "PROJECT",
        &resources(&dir),
        &["- core: true\n  group: batch\n  kind: Job\n  path: k8s.io/api/batch/v1\n"],
    );
    assert_holds(
        "internal/webhook/v1/job_webhook.go",
        &read(&dir, "internal/webhook/v1/job_webhook.go"),
        &[
            "batchv1 \"k8s.io/api/batch/v1\"",
            "groups=batch,resources=jobs,",
        ],
    );
}

#[test]
fn groups_kubebuilder_does_not_list_are_the_projects_own() {
    let (_tmp, dir) = go_project();
    // Built-in for kubebuilder-rs once; an own group for kubebuilder.
    create_api(
        &dir,
        "--group discovery --version v1 --kind EndpointSlice --resource --controller",
    );
    assert_holds(
        "PROJECT",
        &resources(&dir),
        &[
            "  domain: example.com\n  group: discovery\n  kind: EndpointSlice\n  path: example.com/guestbook/api/v1\n",
        ],
    );
    assert_refused(
        &dir,
        &words("create api --make=false"),
        &words("--group rbac --version v1 --kind Role --resource=false --controller"),
        &["rbac/v1 Role", "--resource=true"],
    );
}

#[test]
fn listed_groups_without_a_package_and_unknown_kinds_are_refused() {
    let (_tmp, dir) = go_project();
    let command = words("create api --make=false");
    assert_refused(
        &dir,
        &command,
        &words("--group metrics --version v1beta1 --kind PodMetrics --resource=false --controller"),
        &["metrics", "no package", "--resource"],
    );
    assert_refused(
        &dir,
        &command,
        &words("--group batch --version v2 --kind CronJob --resource=false --controller"),
        &["batch/v2", "built-in group"],
    );
    assert_refused(
        &dir,
        &command,
        &words("--group rbac.authorization --version v1 --kind Rol --resource=false --controller"),
        &["Rol", "RoleBinding"],
    );
}

#[test]
fn a_type_project_records_as_built_in_stays_built_in() {
    let (_tmp, dir) = go_project();
    create_api(
        &dir,
        "--group batch --version v1 --kind Job --resource=false --controller",
    );
    assert_refused(
        &dir,
        &words("create api --make=false"),
        &words("--group batch --version v1 --kind Job --resource --controller=false"),
        &[
            "PROJECT records batch/v1 Job as a built-in",
            "--resource=false",
        ],
    );
}

#[test]
fn built_in_entries_of_earlier_releases_keep_their_group() {
    let (_tmp, dir) = go_project();
    // PROJECT as kubebuilder-rs recorded a controller for rbac/v1 Role
    // before it followed kubebuilder's list.
    let project = read(&dir, "PROJECT").replace(
        "version: \"3\"\n",
        "resources:\n- controller: true\n  core: true\n  group: rbac\n  kind: Role\n  path: k8s.io/api/rbac/v1\n  version: v1\nversion: \"3\"\n",
    );
    std::fs::write(dir.join("PROJECT"), project).unwrap();
    kb_ok(
        &dir,
        &words(
            "create webhook --make=false --group rbac --version v1 --kind Role --programmatic-validation",
        ),
    );
    assert_holds(
        "internal/webhook/v1/role_webhook.go",
        &read(&dir, "internal/webhook/v1/role_webhook.go"),
        &[
            "rbacv1 \"k8s.io/api/rbac/v1\"",
            "groups=rbac.authorization.k8s.io,resources=roles,",
        ],
    );
}
