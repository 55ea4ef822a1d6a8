//! helm/v2-alpha through the CLI: the chart built from a kustomize output,
//! what re-running keeps and rewrites, its flags, PROJECT section and
//! refusals, `--dry-run` and `alpha generate`. The kustomize output is
//! `tests/fixtures/helm/fleet-install.yaml`; installing the chart into a
//! control plane is tests/testsuite/go/helm_grafana.rs.

use crate::common;
use crate::common::{
    assert_refused, empty_project_dir, init_project, kb_ok, read, snapshot_tree, words,
};
use std::path::{Path, PathBuf};

/// The kustomize output of a project named fleet with one API and its webhooks.
fn fixture() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/helm/fleet-install.yaml"),
    )
    .unwrap()
}

/// A project named fleet whose `dist/install.yaml` is the fixture.
fn fleet() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("fleet");
    init_project(&dir, &[]);
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::write(dir.join("dist/install.yaml"), fixture()).unwrap();
    (tmp, dir)
}

/// The files below `dir/sub`, relative to `dir`.
fn files_under(dir: &Path, sub: &str) -> Vec<String> {
    snapshot_tree(dir)
        .into_keys()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.starts_with(sub) && !p.ends_with('/'))
        .collect()
}

#[test]
fn the_chart_holds_every_object_of_the_kustomize_output() {
    let (_tmp, dir) = fleet();
    let out = kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    assert!(out.contains("The chart is in dist/chart"), "{out}");
    let files = files_under(&dir, "dist/chart/");
    for expected in [
        "dist/chart/.helmignore",
        "dist/chart/Chart.yaml",
        "dist/chart/values.yaml",
        "dist/chart/templates/NOTES.txt",
        "dist/chart/templates/_helpers.tpl",
        "dist/chart/templates/manager/manager.yaml",
        "dist/chart/templates/crd/frigates.ship.example.com.yaml",
        "dist/chart/templates/rbac/manager-role.yaml",
        "dist/chart/templates/rbac/controller-manager.yaml",
        "dist/chart/templates/rbac/frigate-admin-role.yaml",
        "dist/chart/templates/webhook/mutating-webhook-configuration.yaml",
        "dist/chart/templates/webhook/validating-webhook-configuration.yaml",
        "dist/chart/templates/webhook/webhook-service.yaml",
        "dist/chart/templates/cert-manager/serving-cert.yaml",
        "dist/chart/templates/cert-manager/selfsigned-issuer.yaml",
        "dist/chart/templates/metrics/controller-manager-metrics-service.yaml",
        "dist/chart/templates/network-policy/allow-metrics-traffic.yaml",
        "dist/chart/templates/network-policy/allow-webhook-traffic.yaml",
        "dist/chart/templates/prometheus/controller-manager-metrics-monitor.yaml",
    ] {
        assert!(
            files.iter().any(|f| f == expected),
            "no {expected} in {files:#?}"
        );
    }
    // Every object but the Namespace (helm creates it) and the two objects
    // the chart's own templates provide has a template of its own.
    let objects = fixture().matches("\nkind: ").count();
    let converted = files
        .iter()
        .filter(|f| {
            ["crd/", "rbac/", "webhook/", "cert-manager/"]
                .iter()
                .any(|area| f.contains(&format!("templates/{area}")))
        })
        .count();
    assert_eq!(converted, objects - 3, "{files:#?}");

    for file in files.iter().filter(|f| f.contains("/templates/")) {
        let text = read(&dir, file);
        assert_eq!(
            text.matches("{{").count(),
            text.matches("}}").count(),
            "{file} has unbalanced actions"
        );
        assert!(!text.contains("HELMPLACEHOLDER"), "{file}: {text}");
        assert!(
            !text.contains("fleet-system"),
            "{file} names the kustomize namespace"
        );
    }
    let values = read(&dir, "dist/chart/values.yaml");
    let values: serde_norway::Value = serde_norway::from_str(&values).unwrap();
    let at = |path: &[&str]| {
        path.iter()
            .try_fold(&values, |v, k| v.get(*k))
            .unwrap_or_else(|| panic!("values.yaml has no {}", path.join(".")))
            .clone()
    };
    assert_eq!(
        at(&["manager", "image", "repository"]),
        serde_norway::Value::from("example.com/fleet")
    );
    assert_eq!(
        at(&["manager", "image", "tag"]),
        serde_norway::Value::from("v0.3.1")
    );
    assert_eq!(
        at(&["manager", "args"]),
        serde_norway::from_str::<serde_norway::Value>("[--leader-elect]").unwrap()
    );
    for (path, expected) in [
        (&["webhook", "enabled"][..], true),
        (&["certManager", "enabled"], true),
        (&["metrics", "secure"], true),
        (&["crd", "keep"], true),
        (&["prometheus", "enabled"], false),
        (&["networkPolicy", "enabled"], false),
        (&["rbac", "namespaced"], false),
    ] {
        assert_eq!(
            at(path),
            serde_norway::Value::from(expected),
            "{}",
            path.join(".")
        );
    }
    assert_eq!(at(&["webhook", "port"]), serde_norway::Value::from(9443));
    let manager = read(&dir, "dist/chart/templates/manager/manager.yaml");
    assert!(
        manager.contains("include \"fleet.serviceAccountName\""),
        "{manager}"
    );
    let webhook = read(
        &dir,
        "dist/chart/templates/webhook/validating-webhook-configuration.yaml",
    );
    assert!(
        webhook.contains("cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/"),
        "{webhook}"
    );

    let project = read(&dir, "PROJECT");
    assert!(
        project.contains(
            "plugins:\n  helm.kubebuilder.io/v2-alpha:\n    manifests: dist/install.yaml\n    output: dist\n"
        ),
        "{project}"
    );
    let makefile = read(&dir, "Makefile");
    for target in [
        "install-helm",
        "helm-deploy",
        "helm-uninstall",
        "helm-status",
        "helm-history",
        "helm-rollback",
    ] {
        assert!(
            makefile.contains(&format!("\n{target}:")),
            "no {target} target"
        );
    }
    assert!(makefile.contains("HELM_NAMESPACE ?= fleet-system\n"));
    let workflow = read(&dir, ".github/workflows/test-chart.yml");
    assert!(workflow.contains("helm lint ./dist/chart"), "{workflow}");
}

#[test]
fn re_running_keeps_the_users_files_and_force_rewrites_all_but_chart_yaml() {
    let (_tmp, dir) = fleet();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let values_path = dir.join("dist/chart/values.yaml");
    let values = read(&dir, "dist/chart/values.yaml").replace("replicas: 1", "replicas: 3");
    // The user's values file lacks the webhook section, which it gains.
    let start = values.find("## The manager's webhook server.").unwrap();
    let end = values[start..].find("\n\n").unwrap() + start + 2;
    let values = format!("{}{}", &values[..start], &values[end..]);
    std::fs::write(&values_path, &values).unwrap();
    let mine = "# my release notes\n";
    for file in [
        "Chart.yaml",
        "templates/_helpers.tpl",
        "templates/manager/manager.yaml",
    ] {
        let path = dir.join("dist/chart").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}{mine}")).unwrap();
    }
    let makefile = read(&dir, "Makefile");

    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let kept = read(&dir, "dist/chart/values.yaml");
    assert!(
        kept.starts_with(&values),
        "the user's values changed:\n{kept}"
    );
    assert!(
        kept.contains("\nwebhook:\n  enabled: true\n  port: 9443\n"),
        "{kept}"
    );
    assert!(read(&dir, "dist/chart/Chart.yaml").ends_with(mine));
    assert!(read(&dir, "dist/chart/templates/_helpers.tpl").ends_with(mine));
    assert!(!read(&dir, "dist/chart/templates/manager/manager.yaml").contains(mine));
    assert_eq!(
        read(&dir, "Makefile"),
        makefile,
        "the targets are added once"
    );
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    assert_eq!(
        read(&dir, "dist/chart/values.yaml"),
        kept,
        "a third run changes nothing"
    );

    kb_ok(&dir, &words("edit --plugins helm/v2-alpha --force"));
    assert!(read(&dir, "dist/chart/values.yaml").contains("replicas: 1"));
    assert!(!read(&dir, "dist/chart/templates/_helpers.tpl").contains(mine));
    assert!(
        read(&dir, "dist/chart/Chart.yaml").ends_with(mine),
        "Chart.yaml is never rewritten"
    );
}

#[test]
fn flags_are_recorded_and_used_by_later_runs() {
    let (_tmp, dir) = fleet();
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::rename(
        dir.join("dist/install.yaml"),
        dir.join("manifests/all.yaml"),
    )
    .unwrap();
    kb_ok(
        &dir,
        &words("edit --plugins helm/v2-alpha --manifests manifests/all.yaml --output-dir charts"),
    );
    assert!(dir.join("charts/chart/Chart.yaml").is_file());
    assert!(!dir.join("dist/chart").exists());
    let project = read(&dir, "PROJECT");
    assert!(
        project.contains("    manifests: manifests/all.yaml\n    output: charts\n"),
        "{project}"
    );
    assert!(read(&dir, "Makefile").contains("HELM_CHART_DIR ?= charts/chart\n"));
    std::fs::remove_file(dir.join("charts/chart/templates/manager/manager.yaml")).unwrap();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    assert!(
        dir.join("charts/chart/templates/manager/manager.yaml")
            .is_file()
    );
    assert!(
        !dir.join("dist/chart").exists(),
        "the recorded folder is used"
    );
}

#[test]
fn dry_run_lists_the_chart_and_writes_nothing() {
    let (_tmp, dir) = fleet();
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, &words("edit --plugins helm/v2-alpha --dry-run"));
    for line in [
        "dist/chart/values.yaml",
        "dist/chart/templates/crd/frigates.ship.example.com.yaml",
        ".github/workflows/test-chart.yml",
        "Makefile",
        "PROJECT",
    ] {
        assert!(out.contains(line), "{line} not in:\n{out}");
    }
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let (_tmp, dir) = fleet();
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins helm/v2-alpha --manifests missing.yaml"),
        &["missing.yaml does not exist", "make build-installer"],
    );
    for bad in ["../outside", "/tmp/abs"] {
        assert_refused(
            &dir,
            &["edit"],
            &["--plugins", "helm/v2-alpha", "--output-dir", bad],
            &["--output-dir", bad, "relative path inside the project"],
        );
    }
    std::fs::write(
        dir.join("other.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    )
    .unwrap();
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins helm/v2-alpha --manifests other.yaml"),
        &["other.yaml has no manager Deployment"],
    );
    assert_refused(
        &dir,
        &["edit"],
        &words("--multigroup --manifests dist/install.yaml"),
        &["--manifests", "helm.kubebuilder.io/v2-alpha"],
    );
}

#[test]
fn alpha_generate_re_runs_helm_from_project() {
    let (tmp, dir) = fleet();
    kb_ok(
        &dir,
        &words("edit --plugins helm/v2-alpha --output-dir charts"),
    );
    let out_dir = tmp.path().join("regenerated");
    kb_ok(
        &dir,
        &[
            "alpha",
            "generate",
            "--make=false",
            "--output-dir",
            out_dir.to_str().unwrap(),
        ],
    );
    let project = read(&out_dir, "PROJECT");
    assert!(
        project.contains(
            "helm.kubebuilder.io/v2-alpha:\n    manifests: dist/install.yaml\n    output: charts\n"
        ),
        "{project}"
    );
    assert!(read(&out_dir, "Makefile").contains("HELM_CHART_DIR ?= charts/chart\n"));
    assert!(out_dir.join(".github/workflows/test-chart.yml").is_file());
    // The chart is built from the kustomize output, which only `--make`
    // builds (tests/testsuite/go/helm_grafana.rs).
    assert!(!out_dir.join("charts").exists());
}

/// A project named fleet without `dist/install.yaml`, whose Makefile only
/// logs the targets it runs to `make.log`, and whose `build-installer`
/// copies `install` to `dist/install.yaml`.
fn fleet_with_fake_makefile(install: &Path) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = fleet();
    std::fs::remove_dir_all(dir.join("dist")).unwrap();
    let mut makefile = String::new();
    for target in ["manifests", "generate", "build-installer"] {
        makefile.push_str(&format!("{target}:\n\techo {target} >> make.log\n"));
    }
    makefile.push_str(&format!(
        "\tmkdir -p dist && cp {} dist/install.yaml\n",
        install.display()
    ));
    std::fs::write(dir.join("Makefile"), makefile).unwrap();
    (tmp, dir)
}

/// The fixture's path.
fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/helm/fleet-install.yaml")
}

#[test]
fn a_missing_install_yaml_is_built_with_make_before_the_chart_is_planned() {
    let (_tmp, dir) = fleet_with_fake_makefile(&fixture_path());
    let output = common::kb(&dir)
        .args(words("edit --plugins helm/v2-alpha"))
        .output()
        .unwrap();
    let err = common::stderr(&output);
    assert!(output.status.success(), "{err}");
    assert_eq!(
        read(&dir, "make.log"),
        "manifests\ngenerate\nbuild-installer\n"
    );
    for target in ["manifests", "generate", "build-installer"] {
        assert!(err.contains(&format!("Running make {target}")), "{err}");
    }
    assert!(
        dir.join("dist/chart/templates/manager/manager.yaml")
            .is_file()
    );
}

#[test]
fn dry_run_says_make_would_build_install_yaml_and_runs_nothing() {
    let (_tmp, dir) = fleet_with_fake_makefile(&fixture_path());
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, &words("edit --plugins helm/v2-alpha --dry-run"));
    assert!(
        out.contains("`make manifests generate build-installer` runs first"),
        "{out}"
    );
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn a_refusal_after_make_leaves_only_what_make_wrote() {
    let source = tempfile::tempdir().unwrap();
    let configmap = source.path().join("configmap.yaml");
    std::fs::write(
        &configmap,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    )
    .unwrap();
    let (_tmp, dir) = fleet_with_fake_makefile(&configmap);
    let before = snapshot_tree(&dir);
    let output = common::kb(&dir)
        .args(words("edit --plugins helm/v2-alpha"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = common::stderr(&output);
    assert!(err.contains("has no manager Deployment"), "{err}");
    let mut after = snapshot_tree(&dir);
    for made in ["make.log", "dist/", "dist/install.yaml"] {
        assert!(after.remove(Path::new(made)).is_some(), "{made} missing");
    }
    assert_eq!(after, before, "only make's files are new");
}

/// The fixture as v4.16's kustomize output writes it when the manager gets
/// `--webhook-port` (here 9555) and its health probes on 8082.
fn fixture_with_webhook_port() -> String {
    let text = fixture()
        .replace(
            "        - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs\n",
            "        - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs\n        - --webhook-port=9555\n",
        )
        .replace(
            "--health-probe-bind-address=:8081",
            "--health-probe-bind-address=:8082",
        );
    assert!(text.contains("--webhook-port=9555"), "the fixture changed");
    text
}

/// A manager Deployment named `name`, labelled as kubebuilder's when
/// `labelled`, with one container named `container`.
fn deployment(name: &str, labelled: bool, container: &str) -> String {
    let labels = if labelled {
        "  labels:\n    control-plane: controller-manager\n"
    } else {
        ""
    };
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: fleet-system\n{labels}spec:\n  template:\n    spec:\n      containers:\n      - name: {container}\n        image: example.com/fleet:v1\n        args:\n        - --leader-elect\n"
    )
}

/// Writes `text` as `dist/install.yaml` of `dir`.
fn write_manifests(dir: &Path, text: &str) {
    std::fs::write(dir.join("dist/install.yaml"), text).unwrap();
}

#[test]
fn the_manager_template_passes_webhook_port_only_when_the_output_does() {
    let (_tmp, dir) = fleet();
    write_manifests(&dir, &fixture_with_webhook_port());
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let values: serde_norway::Value =
        serde_norway::from_str(&read(&dir, "dist/chart/values.yaml")).unwrap();
    assert_eq!(values["webhook"]["port"], serde_norway::Value::from(9555));
    assert_eq!(
        values["manager"]["healthProbe"]["port"],
        serde_norway::Value::from(8082)
    );
    assert_eq!(
        values["manager"]["args"],
        serde_norway::from_str::<serde_norway::Value>("[--leader-elect]").unwrap(),
        "the chart sets --webhook-port itself"
    );
    let manager = read(&dir, "dist/chart/templates/manager/manager.yaml");
    common::assert_holds(
        "manager.yaml",
        &manager,
        &[
            "- --webhook-port={{ .Values.webhook.port }}",
            "- --webhook-port=-1",
            "- --health-probe-bind-address=:{{ dig \"healthProbe\" \"port\" 8081 .Values.manager }}",
            "containerPort: {{ dig \"healthProbe\" \"port\" 8081 .Values.manager }}",
        ],
    );

    // A manager without the flag (v4.15 or earlier) is never given it.
    write_manifests(&dir, &fixture());
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha --force"));
    let manager = read(&dir, "dist/chart/templates/manager/manager.yaml");
    assert!(!manager.contains("--webhook-port"), "{manager}");
    let values = read(&dir, "dist/chart/values.yaml");
    assert!(
        values.contains("  healthProbe:\n    port: 8081\n"),
        "{values}"
    );
}

#[test]
fn chart_templates_follow_v4_16() {
    let (_tmp, dir) = fleet();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let helpers = read(&dir, "dist/chart/templates/_helpers.tpl");
    assert!(
        helpers.contains("required \"serviceAccount.name is needed"),
        "{helpers}"
    );
    let webhook_policy = read(
        &dir,
        "dist/chart/templates/network-policy/allow-webhook-traffic.yaml",
    );
    assert!(
        webhook_policy
            .contains("{{- if and .Values.networkPolicy.enabled .Values.webhook.enabled }}")
            && !webhook_policy.contains("namespaceSelector:"),
        "the API server reaches webhooks from outside any namespace:\n{webhook_policy}"
    );
    let metrics_policy = read(
        &dir,
        "dist/chart/templates/network-policy/allow-metrics-traffic.yaml",
    );
    assert!(
        metrics_policy
            .starts_with("{{- if and .Values.networkPolicy.enabled .Values.metrics.enabled }}"),
        "{metrics_policy}"
    );
    let monitor = read(
        &dir,
        "dist/chart/templates/prometheus/controller-manager-metrics-monitor.yaml",
    );
    common::assert_holds(
        "monitor",
        &monitor,
        &[
            "{{- with .Values.prometheus.labels }}",
            "{{- with .Values.prometheus.annotations }}",
        ],
    );
    let serving_cert = read(&dir, "dist/chart/templates/cert-manager/serving-cert.yaml");
    assert!(
        serving_cert
            .starts_with("{{- if and .Values.certManager.enabled .Values.webhook.enabled }}\n"),
        "{serving_cert}"
    );
    let workflow = read(&dir, ".github/workflows/test-chart.yml");
    common::assert_holds(
        "test-chart.yml",
        &workflow,
        &[
            "\n  test-e2e:\n",
            "actions/setup-go@",
            "go-version-file: go.mod",
            "\n      - name: Install cert-manager\n",
        ],
    );
}

#[test]
fn without_webhooks_values_keep_the_webhook_section_and_the_workflow_skips_cert_manager() {
    let (_tmp, dir) = fleet();
    write_manifests(
        &dir,
        &deployment("fleet-controller-manager", true, "manager"),
    );
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let values = read(&dir, "dist/chart/values.yaml");
    assert!(
        values.contains("\nwebhook:\n  enabled: false\n  port: 9443\n"),
        "{values}"
    );
    let workflow = read(&dir, ".github/workflows/test-chart.yml");
    assert!(
        workflow.contains("      # - name: Install cert-manager\n")
            && !workflow.contains("\n      - name: Install cert-manager\n"),
        "{workflow}"
    );

    // A CRD converted by a webhook is a webhook of the manager too.
    let crd = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: frigates.ship.example.com\nspec:\n  group: ship.example.com\n  conversion:\n    strategy: Webhook\n";
    write_manifests(
        &dir,
        &format!(
            "{}{crd}",
            deployment("fleet-controller-manager", true, "manager")
        ),
    );
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha --force"));
    let values = read(&dir, "dist/chart/values.yaml");
    assert!(values.contains("\nwebhook:\n  enabled: true\n"), "{values}");
    let crd = read(
        &dir,
        "dist/chart/templates/crd/frigates.ship.example.com.yaml",
    );
    assert!(
        crd.starts_with(
            "{{- if and .Values.crd.enabled (not .Values.webhook.enabled) }}\n{{- fail "
        ),
        "{crd}"
    );
}

#[test]
fn network_policies_of_the_output_are_tied_to_their_values() {
    let (_tmp, dir) = fleet();
    let policy = |name: &str| {
        format!(
            "---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: fleet-{name}\n  namespace: fleet-system\nspec:\n  podSelector: {{}}\n"
        )
    };
    write_manifests(
        &dir,
        &format!(
            "{}{}{}",
            deployment("fleet-controller-manager", true, "manager"),
            policy("allow-metrics-traffic"),
            policy("allow-webhook-traffic")
        ),
    );
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let dir = dir.join("dist/chart/templates/network-policy");
    for (name, condition) in [
        (
            "allow-metrics-traffic",
            "and .Values.networkPolicy.enabled .Values.metrics.enabled",
        ),
        (
            "allow-webhook-traffic",
            "and .Values.networkPolicy.enabled .Values.webhook.enabled",
        ),
    ] {
        let text = read(&dir, &format!("{name}.yaml"));
        assert!(
            text.starts_with(&format!("{{{{- if {condition} }}}}\n")),
            "{text}"
        );
    }
}

#[test]
fn a_re_run_keeps_the_service_monitor_and_network_policies_unless_forced() {
    let (_tmp, dir) = fleet();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let mine = "# tuned by hand\n";
    let files = [
        "templates/prometheus/controller-manager-metrics-monitor.yaml",
        "templates/network-policy/allow-metrics-traffic.yaml",
        "templates/network-policy/allow-webhook-traffic.yaml",
    ];
    for file in files {
        let path = dir.join("dist/chart").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}{mine}")).unwrap();
    }
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    for file in files {
        assert!(
            read(&dir, &format!("dist/chart/{file}")).ends_with(mine),
            "{file}"
        );
    }
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha --force"));
    for file in files {
        assert!(
            !read(&dir, &format!("dist/chart/{file}")).ends_with(mine),
            "{file}"
        );
    }
}

#[test]
fn the_manager_deployment_is_found_as_kubebuilder_finds_it() {
    let (_tmp, dir) = fleet();
    // The only Deployment is the manager, labelled or not.
    write_manifests(&dir, &deployment("fleet-operator", false, "operator"));
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    // Among several, the one with a container named manager.
    write_manifests(
        &dir,
        &format!(
            "{}{}",
            deployment("fleet-sidecar", false, "proxy"),
            deployment("fleet-operator", false, "manager")
        ),
    );
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha --force"));
    let values = read(&dir, "dist/chart/values.yaml");
    assert!(
        values.contains("repository: example.com/fleet\n"),
        "{values}"
    );

    write_manifests(
        &dir,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    );
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins helm/v2-alpha"),
        &["dist/install.yaml", "holds no Deployment at all"],
    );
    write_manifests(
        &dir,
        &format!(
            "{}{}",
            deployment("fleet-sidecar", false, "proxy"),
            deployment("fleet-operator", false, "operator")
        ),
    );
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins helm/v2-alpha"),
        &[
            "dist/install.yaml has 2 Deployments",
            "control-plane: controller-manager",
        ],
    );
}

/// A rust/v1-alpha project named fleet, after `edit --plugins helm/v2-alpha`
/// on the fixture's kustomize output.
fn rust_fleet() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("fleet");
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::write(dir.join("dist/install.yaml"), fixture()).unwrap();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    (tmp, dir)
}

#[test]
fn a_rust_projects_helm_targets_and_workflow_need_no_go() {
    let (_tmp, dir) = rust_fleet();
    let makefile = read(&dir, "Makefile");
    let helm = &makefile[makefile.find("\n##@ Helm\n").expect("a Helm section")..];
    let workflow = read(&dir, ".github/workflows/test-chart.yml");
    let script = read(&dir, "hack/install-helm.sh");
    let settings = common::snapshot_settings();
    settings.bind(|| {
        insta::assert_snapshot!("rust_helm__Makefile_helm_section", helm);
        insta::assert_snapshot!("rust_helm__.github__workflows__test-chart.yml", workflow);
        insta::assert_snapshot!("rust_helm__hack__install-helm.sh", script);
    });
    for text in [helm, workflow.as_str()] {
        for go in ["go install", "go env", "setup-go", "go.mod"] {
            assert!(!text.contains(go), "{go:?} in:\n{text}");
        }
    }
    // Every target that runs helm gets one first.
    for target in [
        "helm-deploy",
        "helm-uninstall",
        "helm-status",
        "helm-history",
        "helm-rollback",
    ] {
        assert!(
            helm.contains(&format!("\n{target}: install-helm ")),
            "{target}: {helm}"
        );
    }
    assert!(
        helm.contains("\nHELM_DOWNLOAD_URL ?= https://get.helm.sh\n"),
        "{helm}"
    );
    assert!(script.contains("sha256"), "{script}");
    // The workflow lints the chart of a checkout: git must not ignore it.
    run_ok_quiet(&dir, "git", &["init", "-q"]);
    let ignored = |path: &str| {
        std::process::Command::new("git")
            .args(["check-ignore", "-q", path])
            .current_dir(&dir)
            .status()
            .expect("git runs")
            .success()
    };
    assert!(!ignored("dist/chart/Chart.yaml"), "git ignores the chart");
    assert!(ignored("bin/helm"), "git does not ignore bin/");
}

/// Runs `program args` in `dir` and panics unless it succeeds.
fn run_ok_quiet(dir: &Path, program: &str, args: &[&str]) {
    let out = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("starts");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_go_projects_install_helm_still_builds_helm_with_go() {
    let (_tmp, dir) = fleet();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    let makefile = read(&dir, "Makefile");
    let helm = &makefile[makefile.find("\n##@ Helm\n").expect("a Helm section")..];
    let workflow = read(&dir, ".github/workflows/test-chart.yml");
    let settings = common::snapshot_settings();
    settings.bind(|| {
        insta::assert_snapshot!("go_helm__Makefile_helm_section", helm);
        insta::assert_snapshot!("go_helm__.github__workflows__test-chart.yml", workflow);
    });
    assert!(
        makefile.contains("\tgo install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION); \\\n"),
        "{makefile}"
    );
    assert!(makefile.contains("\nhelm-status: ## "), "{makefile}");
    assert!(!makefile.contains("HELM_DOWNLOAD_URL"), "{makefile}");
    assert!(!dir.join("hack/install-helm.sh").exists());
}
