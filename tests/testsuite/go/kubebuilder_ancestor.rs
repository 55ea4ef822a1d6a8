//! The ancestor `alpha update` makes for a project kubebuilder made: the
//! release named by PROJECT's `cliVersion` (here the release kubebuilder-rs
//! follows, and the one before it, from the tool cache) replays PROJECT's commands in a directory of its
//! own, and must write, file for file, the project the user's own commands
//! made: `init`, an API with its controller, a controller for the built-in
//! apps/v1 Deployment, defaulting and validating webhooks, the Grafana
//! plugin, and a custom-metrics config the user edited and applied with a
//! second `edit`.
//!
//! Those need Go (kubebuilder's `init` and `create api` run `go mod tidy`
//! and `make generate`), so they are ignored by a plain `cargo test` and
//! run by `scripts/test-all`. A fast test checks `--from-binary` with a
//! kubebuilder-rs: the ancestor is its `alpha generate` output.

use crate::common;
use crate::common::kubebuilder::{
    PREVIOUS_KUBEBUILDER_VERSION, kubebuilder_release, reference_version,
};
use crate::common::{run_ok, snapshot_tree, words};
use kubebuilder_rs::commands::alpha_update::ancestor::{Source, produce};
use kubebuilder_rs::machinery::tree;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The user's commands, in the order they ran them.
const COMMANDS: [&str; 5] = [
    "init --domain example.com --repo example.com/ship",
    "create api --group crew --version v1 --kind Captain --resource --controller",
    "create api --group apps --version v1 --kind Deployment --resource=false --controller",
    "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
    "edit --plugins grafana/v1-alpha",
];

/// The same commands with the webhook made right after its API, as the
/// book's tutorials do: PROJECT is the same, `cmd/main.go` is not.
const INTERLEAVED: [&str; 5] = [
    COMMANDS[0],
    COMMANDS[1],
    COMMANDS[3],
    COMMANDS[2],
    COMMANDS[4],
];

/// The Grafana plugin's config, with a metric the user added.
const GRAFANA_CONFIG: &str =
    "---\ncustomMetrics:\n  - metric: ship_launches_total\n    type: counter\n    unit: none\n";

/// What `alpha update` gives `produce`: PROJECT and the files the scaffold
/// keeps from the project.
const KEPT: [&str; 3] = [
    "PROJECT",
    "hack/boilerplate.go.txt",
    "grafana/custom-metrics/config.yaml",
];

#[test]
#[ignore = "needs Go; run by scripts/test-all"]
fn the_replay_of_a_reference_release_project_is_the_project_its_commands_made() {
    replay_matches(&reference_version(), &COMMANDS);
}

#[test]
#[ignore = "needs Go; run by scripts/test-all"]
fn the_replay_of_a_previous_release_project_is_the_project_its_commands_made() {
    replay_matches(PREVIOUS_KUBEBUILDER_VERSION, &COMMANDS);
}

#[test]
#[ignore = "needs Go; run by scripts/test-all"]
fn the_replay_follows_a_webhook_made_before_a_later_api() {
    replay_matches(&reference_version(), &INTERLEAVED);
}

/// `--from-binary` with a kubebuilder-rs: its `alpha generate`, without
/// post-steps, into the ancestor directory.
#[test]
fn a_kubebuilder_rs_binary_makes_the_ancestor_with_its_alpha_generate() {
    let (tmp, input) = common::empty_project_dir("ship");
    common::init_project(&input, &[]);
    common::kb_ok(
        &input,
        &words(COMMANDS[1])
            .iter()
            .copied()
            .chain(["--make=false"])
            .collect::<Vec<_>>(),
    );
    let expected = mkdir(tmp.path(), "generated");
    let expected_arg = expected.to_str().unwrap();
    common::kb_ok(
        &input,
        &[
            "alpha",
            "generate",
            "--make=false",
            "--output-dir",
            expected_arg,
        ],
    );
    let out = mkdir(tmp.path(), "ancestor");
    let binary = assert_cmd::cargo::cargo_bin("kubebuilder-rs");
    produce(&Source::Binary(binary), &input, &out, &tree::Tree::new())
        .unwrap_or_else(|err| panic!("{err:#}"));
    let differences = differences(&expected, &out);
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    assert!(
        out.join("internal/controller/captain_controller.go")
            .is_file()
    );
}

/// Makes the project with kubebuilder `version`'s `commands`, then the
/// ancestor from its PROJECT with the same release, and compares them.
/// The reference release is found in the tool cache by its version (as
/// PROJECT names it), the one before it is given as `--from-binary`.
fn replay_matches(version: &str, commands: &[&str; 5]) {
    let kubebuilder = kubebuilder_release(version);
    let source = if version == reference_version() {
        Source::KubebuilderRelease(version.to_string())
    } else {
        Source::Binary(kubebuilder.clone())
    };
    let kubebuilder = kubebuilder.to_str().expect("UTF-8 path");
    let tmp = tempfile::tempdir().unwrap();
    let made = mkdir(tmp.path(), "ship");
    for command in commands {
        run_ok(&made, kubebuilder, &words(command));
    }
    std::fs::write(made.join(KEPT[2]), GRAFANA_CONFIG).unwrap();
    run_ok(&made, kubebuilder, &words(COMMANDS[4]));

    let input = mkdir(tmp.path(), "input");
    for path in KEPT {
        let target = input.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(made.join(path), target).unwrap();
    }
    let out = mkdir(tmp.path(), "ancestor");
    let started = Instant::now();
    let like = tree::read_dir(&made, &[]).unwrap();
    produce(&source, &input, &out, &like).unwrap_or_else(|err| panic!("{err:#}"));
    eprintln!(
        "ok  ancestor by kubebuilder {version}  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );

    let differences = differences(&made, &out);
    assert!(
        differences.is_empty(),
        "the ancestor by kubebuilder {version} differs from the project its commands made:\n{}",
        differences.join("\n")
    );
    let dashboard =
        std::fs::read_to_string(out.join("grafana/custom-metrics/custom-metrics-dashboard.json"))
            .expect("the ancestor has the custom-metrics dashboard");
    assert!(dashboard.contains("ship_launches_total"), "{dashboard}");
}

/// A new directory `name` under `parent`.
fn mkdir(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    dir
}

/// The paths whose presence or bytes differ between two trees, one line each.
fn differences(expected: &Path, actual: &Path) -> Vec<String> {
    let expected = snapshot_tree(expected);
    let actual = snapshot_tree(actual);
    let paths: std::collections::BTreeSet<&PathBuf> =
        expected.keys().chain(actual.keys()).collect();
    paths
        .into_iter()
        .filter_map(|path| match (expected.get(path), actual.get(path)) {
            (Some(a), Some(b)) if a == b => None,
            (Some(_), Some(_)) => Some(format!("differs: {}", path.display())),
            (Some(_), None) => Some(format!("missing from the ancestor: {}", path.display())),
            (None, _) => Some(format!("only in the ancestor: {}", path.display())),
        })
        .collect()
}
