//! Plugin chains on the command line: every key form on `init`, PROJECT's
//! `layout` as kubebuilder records it, kustomize/v2 on its own, plugin-owned
//! flags, refusals, and the grafana/v1-alpha optional plugin (its files, its
//! PROJECT section, `alpha generate` re-running it).

use crate::common::grafana::{dashboard_problems, metric_names, queries};
use crate::common::{
    assert_refused, empty_project_dir, init_project, kb, kb_ok, snapshot_tree, stderr, stdout,
    words,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs `init` with `--plugins spec` (and Go flags when the chain has Go)
/// in a new directory named `ship`; returns the temp dir and the project.
fn init_with(spec: &str, go: bool) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("ship");
    let mut args = vec!["init", "--plugins", spec, "--domain", "example.com"];
    if go {
        args.extend([
            "--repo",
            "example.com/ship",
            "--fetch-deps=false",
            "--skip-go-version-check",
        ]);
    }
    kb_ok(&dir, &args);
    (tmp, dir)
}

/// The `layout` list of the project's PROJECT file.
fn layout(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    text.split("layout:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|line| line.starts_with("- "))
        .map(|line| line[2..].to_string())
        .collect()
}

/// The tree without PROJECT (whose `layout` differs between chains).
fn files_but_project(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut tree = snapshot_tree(dir);
    tree.remove(Path::new("PROJECT"));
    tree
}

#[test]
fn every_key_form_of_the_go_layout_scaffolds_the_same_project() {
    let (_a, default) = init_with("go/v4", true);
    assert_eq!(layout(&default), ["go.kubebuilder.io/v4"]);
    let expected = files_but_project(&default);
    for (spec, recorded) in [
        ("go.kubebuilder.io/v4", vec!["go.kubebuilder.io/v4"]),
        (
            "base.go.kubebuilder.io/v4,kustomize/v2",
            vec![
                "base.go.kubebuilder.io/v4",
                "kustomize.common.kubebuilder.io/v2",
            ],
        ),
        (
            "kustomize.common.kubebuilder.io/v2,base.go.kubebuilder.io/v4",
            vec![
                "kustomize.common.kubebuilder.io/v2",
                "base.go.kubebuilder.io/v4",
            ],
        ),
    ] {
        let (_tmp, dir) = init_with(spec, true);
        assert_eq!(layout(&dir), recorded, "{spec}");
        assert!(
            files_but_project(&dir) == expected,
            "{spec}: other files than go/v4's"
        );
    }
}

#[test]
fn kustomize_alone_writes_project_and_config_only() {
    for spec in ["kustomize/v2", "kustomize.common.kubebuilder.io/v2"] {
        let (_tmp, dir) = init_with(spec, false);
        assert_eq!(layout(&dir), ["kustomize.common.kubebuilder.io/v2"]);
        let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
        assert!(!project.contains("repo:"), "{project}");
        let files: Vec<PathBuf> = snapshot_tree(&dir)
            .into_keys()
            .filter(|p| !p.to_string_lossy().ends_with('/'))
            .collect();
        assert_eq!(files.len(), 21, "{files:?}");
        for file in &files {
            assert!(
                file.starts_with("config") || file == Path::new("PROJECT"),
                "{spec} wrote {}",
                file.display()
            );
        }
        // The Go plugin's files are exactly go/v4's minus these.
        let (_go, go) = init_with("go/v4", true);
        let go_config: Vec<PathBuf> = snapshot_tree(&go)
            .into_keys()
            .filter(|p| p.starts_with("config") && !p.to_string_lossy().ends_with('/'))
            .collect();
        let ours: Vec<&PathBuf> = files.iter().filter(|p| p.starts_with("config")).collect();
        assert_eq!(ours, go_config.iter().collect::<Vec<_>>());
    }
}

#[test]
fn a_kustomize_project_gets_manifests_for_new_apis_and_no_go() {
    let (_tmp, dir) = init_with("kustomize/v2", false);
    let before = snapshot_tree(&dir);
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain --resource --controller"),
    );
    let added: Vec<PathBuf> = snapshot_tree(&dir)
        .into_keys()
        .filter(|p| !before.contains_key(p) && !p.to_string_lossy().ends_with('/'))
        .collect();
    assert!(
        added.contains(&PathBuf::from("config/samples/crew_v1_captain.yaml")),
        "{added:?}"
    );
    assert!(
        added.contains(&PathBuf::from("config/rbac/captain_admin_role.yaml")),
        "{added:?}"
    );
    assert!(added.iter().all(|p| p.starts_with("config")), "{added:?}");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.contains("kind: Captain") && !project.contains("path:"),
        "{project}"
    );
    // Flags of a plugin the project does not run are refused.
    assert_refused(
        &dir,
        &["create", "api"],
        &words("--group crew --version v1 --kind Admiral --make=false"),
        &[
            "--make",
            "base.go.kubebuilder.io/v4",
            "kustomize.common.kubebuilder.io/v2",
        ],
    );
}

#[test]
fn unknown_and_clashing_chains_are_refused_with_nothing_written() {
    let (_tmp, dir) = empty_project_dir("ship");
    let go = ["--repo", "example.com/ship", "--skip-go-version-check"];
    for (spec, needles) in [
        (
            "go/v3",
            vec!["\"go/v3\"", "go/v4", "kustomize/v2", "grafana/v1-alpha"],
        ),
        ("helm/v9", vec!["\"helm/v9\"", "known plugins"]),
        (
            "go/v4,kustomize/v2",
            vec!["kustomize.common.kubebuilder.io/v2", "twice"],
        ),
        (
            "go/v4,base.go.kubebuilder.io/v4",
            vec!["base.go.kubebuilder.io/v4", "twice"],
        ),
        (",", vec!["names no plugin"]),
    ] {
        let mut args = vec!["--plugins", spec];
        args.extend(go);
        assert_refused(&dir, &["init"], &args, &needles);
    }
    assert_refused(
        &dir,
        &["init"],
        &words("--plugins kustomize/v2 --repo example.com/ship"),
        &["--repo", "base.go.kubebuilder.io/v4"],
    );
    assert!(snapshot_tree(&dir).is_empty());
}

/// The long flags (`--name`) a `--help` text lists.
fn listed_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|line| line.trim_start().strip_prefix("--"))
        .map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            format!("--{name}")
        })
        .collect()
}

/// Asserts that `help` lists every flag of `shown` and none of `hidden`.
fn assert_lists(help: &str, shown: &[&str], hidden: &[&str]) {
    let listed = listed_flags(help);
    for flag in shown {
        assert!(
            listed.iter().any(|f| f == flag),
            "{flag} not listed:\n{help}"
        );
    }
    for flag in hidden {
        assert!(!listed.iter().any(|f| f == flag), "{flag} listed:\n{help}");
    }
}

/// Flags the go/v4 layout, deploy-image/v1-alpha and the Rust layout add
/// to `create api`.
const GO_API: &[&str] = &["--ssa", "--external-api-domain", "--make"];
const DEPLOY_IMAGE: &[&str] = &[
    "--image",
    "--run-as-user",
    "--manifests",
    "--image-container-port",
];

#[test]
fn help_lists_the_flags_of_the_plugins_the_command_runs() {
    let (_tmp, dir) = empty_project_dir("ship");
    // Outside a project, `init` shows the chain it would run.
    let help = kb_ok(&dir, &["init", "--help"]);
    assert_lists(
        &help,
        &[
            "--repo",
            "--fetch-deps",
            "--skip-go-version-check",
            "--plugins",
        ],
        &[],
    );
    let help = kb_ok(&dir, &words("init --plugins rust/v1-alpha --help"));
    assert_lists(
        &help,
        &["--domain", "--plugins"],
        &["--repo", "--fetch-deps"],
    );
    let help = kb_ok(&dir, &words("init --plugins kustomize/v2 --help"));
    assert_lists(&help, &["--domain"], &["--repo"]);
    // Outside a project a create command fails; its help is go/v4's.
    let help = kb_ok(&dir, &["create", "api", "--help"]);
    assert_lists(&help, GO_API, DEPLOY_IMAGE);

    // A go/v4 project: its own flags with their own help, no other plugin's.
    crate::common::init_project(&dir, &[]);
    let help = kb_ok(&dir, &["create", "api", "--help"]);
    assert_lists(&help, GO_API, DEPLOY_IMAGE);
    assert_lists(&help, &["--external-api-path"], &["--repo"]);
    assert!(
        help.contains("Import path of a type from another module"),
        "{help}"
    );
    assert!(
        !help.contains("Rust") && !help.contains("deploy-image"),
        "{help}"
    );
    // An optional plugin named with --plugins adds its flags.
    let help = kb_ok(
        &dir,
        &words("create api --plugins deploy-image/v1-alpha --help"),
    );
    assert_lists(&help, DEPLOY_IMAGE, &[]);
    assert_lists(&help, GO_API, &[]);

    // A Rust project: no Go flag; the shared ones with the Rust help.
    let (_tmp, rust) = empty_project_dir("yard");
    kb_ok(
        &rust,
        &words("init --plugins rust/v1-alpha --domain example.com"),
    );
    let help = kb_ok(&rust, &["create", "api", "--help"]);
    assert_lists(
        &help,
        &["--external-api-path", "--external-api-module"],
        &["--ssa"],
    );
    assert_lists(&help, &[], DEPLOY_IMAGE);
    assert!(help.contains("Rust path of the module holding"), "{help}");
    assert!(!help.contains("Import path of a type"), "{help}");
}

#[test]
fn a_flag_of_a_plugin_the_chain_does_not_run_is_refused_naming_it() {
    let (_tmp, dir) = empty_project_dir("ship");
    crate::common::init_project(&dir, &[]);
    let before = snapshot_tree(&dir);
    assert_refused(
        &dir,
        &["create", "api"],
        &words("--group crew --version v1 --kind Captain --image memcached:1.6"),
        &[
            "--image is a flag of the plugin deploy-image.go.kubebuilder.io/v1-alpha",
            "add it with --plugins deploy-image/v1-alpha",
        ],
    );
    assert_eq!(snapshot_tree(&dir), before);
    // --ssa is go/v4's: a Rust project refuses it rather than ignoring it.
    let (_tmp, rust) = empty_project_dir("yard");
    kb_ok(
        &rust,
        &words("init --plugins rust/v1-alpha --domain example.com"),
    );
    let before = snapshot_tree(&rust);
    assert_refused(
        &rust,
        &["create", "api"],
        &words("--group crew --version v1 --kind Captain --ssa"),
        &["--ssa is a flag of the plugin base.go.kubebuilder.io/v4"],
    );
    assert_eq!(snapshot_tree(&rust), before);
}

#[test]
fn layout_plugins_cannot_be_added_later() {
    let (_tmp, dir) = init_with("kustomize/v2", false);
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins base.go.kubebuilder.io/v4"),
        &["cannot be changed", "grafana/v1-alpha"],
    );
    let out = kb_ok(&dir, &words("edit --plugins kustomize/v2"));
    assert!(out.contains("nothing to change"), "{out}");
    // A create command accepts optional plugins besides the project's chain.
    kb_ok(
        &dir,
        &words("create api --plugins grafana/v1-alpha --group crew --version v1 --kind Captain"),
    );
    assert_refused(
        &dir,
        &["create", "api"],
        &words("--plugins go/v4 --group crew --version v1 --kind Admiral"),
        &["cannot be changed"],
    );
}

/// The grafana files below `dir`, with their text.
fn grafana_files(dir: &Path) -> BTreeMap<PathBuf, String> {
    snapshot_tree(dir)
        .into_iter()
        .filter(|(p, _)| p.starts_with("grafana") && !p.to_string_lossy().ends_with('/'))
        .map(|(p, bytes)| (p, String::from_utf8(bytes).unwrap()))
        .collect()
}

#[test]
fn grafana_adds_its_files_and_its_project_section_and_nothing_else() {
    let (_tmp, dir) = empty_project_dir("ship");
    init_project(&dir, &[]);
    let before = snapshot_tree(&dir);
    let out = kb_ok(&dir, &words("edit --plugins grafana/v1-alpha"));
    assert!(
        out.contains("create    grafana/controller-runtime-metrics.json"),
        "{out}"
    );
    let after = snapshot_tree(&dir);
    let changed: Vec<&PathBuf> = after
        .keys()
        .filter(|p| before.get(*p) != after.get(*p))
        .filter(|p| !p.starts_with("grafana"))
        .collect();
    assert_eq!(changed, [Path::new("PROJECT")]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.contains("\nplugins:\n  grafana.kubebuilder.io/v1-alpha: {}\nprojectName: ship\n"),
        "{project}"
    );
    let files = grafana_files(&dir);
    let names: Vec<&str> = files.keys().map(|p| p.to_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "grafana/controller-resources-metrics.json",
            "grafana/controller-runtime-metrics.json",
            "grafana/custom-metrics/config.yaml",
        ]
    );
    for (path, text) in &files {
        if path.extension().is_some_and(|e| e == "json") {
            let problems = dashboard_problems(text);
            assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
            for expr in queries(text) {
                assert!(!metric_names(&expr).is_empty(), "no metric in {expr}");
            }
        }
    }
}

/// The text a dashboard template renders for a manager that exports every
/// metric: the template without its tags, each `else` branch left out.
fn rendered_with_every_metric(template: &str) -> String {
    let mut text = String::new();
    let mut in_else = false;
    let mut rest = template;
    while let Some(start) = rest.find("{%") {
        if !in_else {
            text.push_str(&rest[..start]);
        }
        let end = start + rest[start..].find("%}").expect("a closed tag") + 2;
        let tag = rest[start + 2..end - 2].trim();
        if tag == "else" {
            in_else = true;
        } else if tag == "endif" {
            in_else = false;
        }
        rest = &rest[end..];
    }
    text + rest
}

#[test]
fn grafana_leaves_out_what_the_layouts_manager_cannot_feed() {
    let templates = [
        (
            "grafana/controller-resources-metrics.json",
            include_str!(
                "../../../scaffolds/grafana/v1-alpha/edit/grafana/controller-resources-metrics.json.jinja"
            ),
        ),
        (
            "grafana/controller-runtime-metrics.json",
            include_str!(
                "../../../scaffolds/grafana/v1-alpha/edit/grafana/controller-runtime-metrics.json.jinja"
            ),
        ),
    ];
    // go/v4: the dashboards as they always were, Go runtime panels included.
    let (_go_tmp, go) = init_with("go/v4", true);
    kb_ok(&go, &words("edit --plugins grafana/v1-alpha"));
    let go_files = grafana_files(&go);
    for (path, template) in templates {
        assert_eq!(
            go_files[Path::new(path)],
            rendered_with_every_metric(template),
            "{path}"
        );
    }
    let go_resources = &go_files[Path::new("grafana/controller-resources-metrics.json")];
    assert!(
        go_resources.contains("go_goroutines{")
            && go_resources.contains("go_memstats_heap_alloc_bytes{")
    );

    // rust/v1-alpha: no query of a go_* metric, every panel still well formed.
    let (_rust_tmp, rust) = init_with("rust/v1-alpha", false);
    kb_ok(&rust, &words("edit --plugins grafana/v1-alpha"));
    let rust_files = grafana_files(&rust);
    for (path, _) in templates {
        let text = &rust_files[Path::new(path)];
        let problems = dashboard_problems(text);
        assert!(problems.is_empty(), "{path}: {problems:#?}");
        for expr in queries(text) {
            let names = metric_names(&expr);
            assert!(!names.is_empty(), "no metric in {expr}");
            assert!(
                names.iter().all(|n| !n.starts_with("go_")),
                "{path}: {expr}"
            );
        }
    }
    let rust_resources = &rust_files[Path::new("grafana/controller-resources-metrics.json")];
    assert!(
        !rust_resources.contains("\"Goroutines\""),
        "{rust_resources}"
    );
    assert!(rust_resources.contains("process_resident_memory_bytes{"));
    assert_eq!(
        rust_files[Path::new("grafana/controller-runtime-metrics.json")],
        go_files[Path::new("grafana/controller-runtime-metrics.json")]
    );
}

#[test]
fn the_dashboard_check_finds_what_grafana_would_reject() {
    let good = r#"{"title": "t", "uid": "u", "schemaVersion": 39,
        "templating": {"list": [{"name": "job"}]},
        "panels": [{"id": 1, "type": "timeseries", "title": "p",
                    "gridPos": {"h": 8, "w": 12, "x": 0, "y": 0},
                    "targets": [{"refId": "A", "expr": "rate(a_total{job=\"$job\"}[$__rate_interval])"}]}]}"#;
    assert_eq!(dashboard_problems(good), Vec::<String>::new());
    let bad = good
        .replace("\"uid\": \"u\", ", "")
        .replace("\"w\": 12", "\"w\": 30")
        .replace("$job", "$pod")
        .replace("timeseries", "graphz");
    let problems = dashboard_problems(&bad).join("\n");
    for needle in [
        "no `uid`",
        "24 columns",
        "$pod is not a dashboard variable",
        "unknown type \"graphz\"",
    ] {
        assert!(problems.contains(needle), "{needle} not in {problems}");
    }
    assert!(!dashboard_problems("{not json").is_empty());
}

#[test]
fn metric_names_are_read_from_promql_selectors() {
    let names = |expr: &str| metric_names(expr).into_iter().collect::<Vec<_>>();
    assert_eq!(
        names(
            "histogram_quantile(0.99, sum by (controller, le) (rate(controller_runtime_reconcile_time_seconds_bucket{job=\"$job\", result=~\"a|b\"}[5m])))"
        ),
        ["controller_runtime_reconcile_time_seconds_bucket"]
    );
    assert_eq!(
        names("sum(rate(a_total[1m])) by (name) / on (name) group_left sum(b) offset 5m"),
        ["a_total", "b"]
    );
    assert_eq!(names("max without (pod) (up) > bool 1e3"), ["up"]);
}

#[test]
fn grafana_keeps_the_users_config_and_renders_their_metrics() {
    let (_tmp, dir) = empty_project_dir("ship");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        &words("edit --plugins grafana.kubebuilder.io/v1-alpha"),
    );
    let config = dir.join("grafana/custom-metrics/config.yaml");
    let mine = "customMetrics:\n  - metric: ship_voyages_total\n    type: counter\n  - metric: ship_cargo_bytes\n    type: gauge\n";
    std::fs::write(&config, mine).unwrap();
    kb_ok(&dir, &words("edit --plugins grafana/v1-alpha"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), mine);
    let dashboard =
        std::fs::read_to_string(dir.join("grafana/custom-metrics/custom-metrics-dashboard.json"))
            .unwrap();
    let value: serde_norway::Value = serde_norway::from_str(&dashboard).unwrap();
    let panels = value.get("panels").and_then(|p| p.as_sequence()).unwrap();
    assert_eq!(panels.len(), 2);
    assert!(dashboard.contains("rate(ship_voyages_total"), "{dashboard}");

    std::fs::write(
        &config,
        "customMetrics:\n  - metric: ship_x\n    type: summary\n",
    )
    .unwrap();
    assert_refused(
        &dir,
        &["edit"],
        &words("--plugins grafana/v1-alpha"),
        &["config.yaml", "summary", "counter"],
    );
}

#[test]
fn grafana_named_in_the_layout_runs_on_a_plain_edit() {
    let (_tmp, dir) = init_with("go/v4,grafana/v1-alpha", true);
    assert_eq!(
        layout(&dir),
        ["go.kubebuilder.io/v4", "grafana.kubebuilder.io/v1-alpha"]
    );
    assert!(grafana_files(&dir).is_empty(), "init writes no dashboards");
    let out = kb_ok(&dir, &["edit"]);
    assert!(
        out.contains("create    grafana/controller-runtime-metrics.json"),
        "{out}"
    );
    let (_go, go) = init_with("go/v4", true);
    assert_refused(&go, &["edit"], &[], &["nothing to edit"]);
}

#[test]
fn alpha_generate_re_runs_grafana() {
    let (tmp, dir) = empty_project_dir("ship");
    init_project(&dir, &[]);
    kb_ok(
        &dir,
        &words("create api --group crew --version v1 --kind Captain --make=false"),
    );
    kb_ok(&dir, &words("edit --plugins grafana/v1-alpha"));
    let output = kb(tmp.path())
        .args(words(
            "alpha generate --make=false --input-dir ship --output-dir new",
        ))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let new = tmp.path().join("new");
    assert_eq!(grafana_files(&new), grafana_files(&dir));
    assert_eq!(
        std::fs::read_to_string(new.join("PROJECT")).unwrap(),
        std::fs::read_to_string(dir.join("PROJECT")).unwrap()
    );
    assert!(
        stdout(&output).contains("no file differs"),
        "{}",
        stdout(&output)
    );
}
