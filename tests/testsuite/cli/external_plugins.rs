//! External plugins, as kubebuilder runs them, with the test plugin
//! `acmeconventions/v1` (tests/fixtures/external-plugins, Python 3): alone,
//! in a chain with kustomize/v2, its flags and help on our command line,
//! `--dry-run`, `alpha generate`, and every refusal (one line, nothing
//! written). Needs python3 and the binary only; the chain with go/v4 and the
//! comparison with kubebuilder are in tests/testsuite/go/external_plugins.rs.

use crate::common::external::{KEY, kb_ext, plugins_root};
use crate::common::{assert_holds, empty_project_dir, read, snapshot_tree, stderr, stdout, words};
use std::path::Path;
use std::process::Output;

/// Runs `line` with the test plugin in `dir`; panics with its error output
/// on failure; returns its standard output.
fn ok(dir: &Path, line: &str) -> String {
    let output = kb_ext(dir).args(words(line)).output().unwrap();
    assert!(output.status.success(), "{line}: {}", stderr(&output));
    stdout(&output)
}

/// A project made by `init --plugins kustomize/v2,acmeconventions/v1`.
fn kustomize_project() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, dir) = empty_project_dir("ship");
    ok(
        &dir,
        "init --plugins kustomize/v2,acmeconventions/v1 --domain example.com --team payments",
    );
    (tmp, dir)
}

#[test]
fn alone_the_plugin_writes_its_files_and_project_records_only_the_layout() {
    let (_tmp, dir) = empty_project_dir("ship");
    ok(
        &dir,
        "init --plugins acmeconventions/v1 --domain example.com --team payments --oncall --tier 1",
    );
    let conventions = read(&dir, ".acme/conventions.yaml");
    assert_holds(
        ".acme/conventions.yaml",
        &conventions,
        &[
            "team: payments\n",
            "tier: 1\n",
            "oncall: true\n",
            "pluginChain: [acmeconventions/v1]\n",
            "configGiven: true\n",
        ],
    );
    assert!(read(&dir, ".acme/runbook.md").contains("Page the payments team."));
    let project = read(&dir, "PROJECT");
    assert!(
        project.contains("layout:\n- acmeconventions/v1\n"),
        "{project}"
    );
    for absent in ["domain:", "projectName:", "repo:"] {
        assert!(!project.contains(absent), "{absent} in {project}");
    }
    let files: Vec<String> = snapshot_tree(&dir)
        .keys()
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(
        files,
        [
            ".acme/",
            ".acme/conventions.yaml",
            ".acme/runbook.md",
            "PROJECT"
        ]
    );
}

#[test]
fn in_a_chain_with_kustomize_it_edits_what_kustomize_planned_and_joins_every_command() {
    let (_tmp, dir) = kustomize_project();
    let project = read(&dir, "PROJECT");
    assert!(
        project.contains("layout:\n- kustomize.common.kubebuilder.io/v2\n- acmeconventions/v1\n"),
        "{project}"
    );
    let kustomization = read(&dir, "config/default/kustomization.yaml");
    assert!(kustomization.ends_with("# Owned by the payments team (Acme conventions).\n"));
    assert!(kustomization.len() > 200, "kustomize's content is kept");
    assert_holds(
        ".acme/conventions.yaml",
        &read(&dir, ".acme/conventions.yaml"),
        &["pluginChain: [acmeconventions/v1, kustomize.common.kubebuilder.io/v2]\n"],
    );

    ok(
        &dir,
        "create api --group crew --version v1 --kind Captain --ticket ACME-7 --audit",
    );
    let api = read(&dir, "docs/apis/crew_v1_captain.md");
    assert_holds(
        "docs/apis/crew_v1_captain.md",
        &api,
        &[
            "# crew.example.com/v1 Captain",
            "Owned by the payments team.",
            "Project: ship (no repo).",
            "Resources recorded before this one: 1.",
            "Ticket: ACME-7.",
            "Audited.",
        ],
    );
    assert!(read(&dir, ".acme/conventions.yaml").ends_with("apis:\n- crew/v1/Captain\n"));
    ok(
        &dir,
        "create webhook --group crew --version v1 --kind Captain --defaulting --sla 99.5",
    );
    assert_holds(
        "docs/webhooks/crew_v1_captain.md",
        &read(&dir, "docs/webhooks/crew_v1_captain.md"),
        &["Kinds: defaulting.", "SLA: 99.5%."],
    );
    let before = read(&dir, "PROJECT");
    ok(
        &dir,
        "edit --plugins acmeconventions/v1 --team billing --badge",
    );
    assert!(read(&dir, ".acme/conventions.yaml").contains("team: billing\n"));
    assert!(read(&dir, ".acme/badge.md").contains("badge/ship.svg"));
    assert_eq!(
        read(&dir, "PROJECT"),
        before,
        "edit --plugins of a layout plugin records nothing"
    );
}

#[test]
fn a_plugins_edit_of_project_is_dropped_as_kubebuilder_drops_it() {
    let (_tmp, dir) = kustomize_project();
    let output = kb_ext(&dir)
        .env("ACME_MISBEHAVE", "project")
        .args(words("create api --group crew --version v1 --kind Captain"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let project = read(&dir, "PROJECT");
    assert!(project.contains("kind: Captain"), "{project}");
    assert!(!project.contains("edited by acmeconventions"), "{project}");

    let (_tmp, dir) = empty_project_dir("ship");
    let output = kb_ext(&dir)
        .env("ACME_MISBEHAVE", "project")
        .args(words("init --plugins kustomize/v2,acmeconventions/v1"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!read(&dir, "PROJECT").contains("edited by acmeconventions"));
}

#[test]
fn the_plugins_flags_and_help_show_in_the_commands_help() {
    let (_tmp, dir) = empty_project_dir("ship");
    let help = ok(
        &dir,
        "init --plugins kustomize/v2,acmeconventions/v1 --help",
    );
    assert_holds(
        "init --help",
        &help,
        &[
            "--team <team>",
            "Team that owns the project",
            "--oncall",
            "--tier <tier>",
            "External plugin acmeconventions/v1",
            "records the owning team and support tier",
            "kubebuilder init --plugins go/v4,acmeconventions/v1",
        ],
    );
    assert!(
        !help.contains("ignored: bound by the CLI"),
        "a flag the CLI has stays the CLI's:\n{help}"
    );
    assert!(snapshot_tree(&dir).is_empty());

    let (_tmp, dir) = kustomize_project();
    let help = ok(&dir, "create api --help");
    assert_holds(
        "create api --help",
        &help,
        &[
            "--ticket <ticket>",
            "--audit",
            "documents every API under docs/apis/",
        ],
    );
    assert!(
        !help.contains("filtered out"),
        "--group stays the CLI's:\n{help}"
    );
    let without = ok(
        &empty_project_dir("other").1,
        "init --plugins kustomize/v2 --help",
    );
    assert!(!without.contains("--team"), "{without}");
}

#[test]
fn a_flag_the_plugin_does_not_declare_is_refused_and_without_a_flags_answer_passed_on() {
    let (_tmp, dir) = empty_project_dir("ship");
    let output = kb_ext(&dir)
        .args(words("init --plugins acmeconventions/v1 --nope"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--nope"), "{}", stderr(&output));
    assert!(snapshot_tree(&dir).is_empty());

    // A plugin that answers no `flags` request gets the flags as given.
    let output = kb_ext(&dir)
        .env("ACME_MISBEHAVE", "flags")
        .args(words(
            "init --plugins acmeconventions/v1 --team given --oncall",
        ))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_holds(
        ".acme/conventions.yaml",
        &read(&dir, ".acme/conventions.yaml"),
        &["team: given\n", "oncall: true\n"],
    );
}

#[test]
fn a_dry_run_shows_the_plugins_files_and_writes_nothing() {
    let (_tmp, dir) = empty_project_dir("ship");
    let out = ok(
        &dir,
        "init --plugins kustomize/v2,acmeconventions/v1 --dry-run",
    );
    assert_holds(
        "the dry run",
        &out,
        &[
            "create    .acme/conventions.yaml",
            "create    config/default/kustomization.yaml",
            "(dry run: nothing was written)",
        ],
    );
    assert!(snapshot_tree(&dir).is_empty());

    let (_tmp, dir) = kustomize_project();
    let before = snapshot_tree(&dir);
    let out = ok(
        &dir,
        "edit --plugins acmeconventions/v1 --team billing --badge --dry-run",
    );
    assert_holds(
        "the edit's dry run",
        &out,
        &[
            "update    .acme/conventions.yaml",
            "-team: payments",
            "+team: billing",
            "create    .acme/badge.md",
        ],
    );
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn alpha_generate_replays_the_plugin_from_projects_layout() {
    let (tmp, dir) = kustomize_project();
    ok(&dir, "create api --group crew --version v1 --kind Captain");
    let out = tmp.path().join("generated");
    let log = tmp.path().join("requests.jsonl");
    let output = kb_ext(&dir)
        .args(["alpha", "generate", "--output-dir"])
        .arg(&out)
        .env("ACME_RECORD", &log)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    // Each replayed command forwards its own command line, as kubebuilder's
    // replay runs it, never alpha generate's.
    let args: Vec<(String, Vec<String>)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|request| request["command"] != "flags")
        .map(|request| {
            let args = request["args"].as_array().unwrap().iter();
            let args = args.map(|a| a.as_str().unwrap().to_string()).collect();
            (request["command"].as_str().unwrap().to_string(), args)
        })
        .collect();
    let expected = |command: &str, line: &str| {
        let line = words(line).into_iter().map(String::from).collect();
        (command.to_string(), line)
    };
    assert_eq!(
        args,
        [
            expected("init", "--domain example.com --project-name ship"),
            expected(
                "create api",
                "--group crew --version v1 --kind Captain --resource=true --controller=true"
            ),
        ]
    );
    assert_eq!(
        read(&out, "PROJECT")
            .lines()
            .filter(|l| l.contains(KEY))
            .count(),
        1
    );
    assert!(read(&out, ".acme/conventions.yaml").ends_with("apis:\n- crew/v1/Captain\n"));
    assert!(read(&out, "docs/apis/crew_v1_captain.md").contains("# crew.example.com/v1 Captain"));
}

#[test]
fn commands_without_external_plugins_never_look_for_them() {
    let (_tmp, dir) = empty_project_dir("ship");
    let output = kb_ext(&dir)
        .env("EXTERNAL_PLUGINS_PATH", dir.join("missing"))
        .args(words("init --plugins kustomize/v2 --domain example.com"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}

/// Checks that `output` failed with one `Error:` line, the last, holding
/// every needle, after whatever the plugin wrote to standard error.
fn assert_refused(output: &Output, what: &str, needles: &[&str]) {
    let message = stderr(output);
    assert!(!output.status.success(), "{what}: expected a refusal");
    let errors: Vec<&str> = message
        .lines()
        .filter(|l| l.starts_with("Error:"))
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "{what}: one error line expected:\n{message}"
    );
    assert_eq!(
        message.trim_end().lines().last(),
        Some(errors[0]),
        "{what}: {message}"
    );
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "{what}: {needle:?} not in {message}"
        );
    }
}

#[test]
fn a_misbehaving_plugin_is_refused_in_one_line_and_nothing_is_written() {
    let cases: &[(&str, &[&str])] = &[
        (
            "exit3",
            &[
                "acmeconventions/v1 failed",
                "exit status: 3",
                "the conventions server is down",
            ],
        ),
        (
            "notjson",
            &["acmeconventions/v1", "not JSON", "\"this is not JSON\""],
        ),
        ("apiversion", &["apiVersion \"v2\"", "v1alpha1"]),
        (
            "error",
            &["acmeconventions/v1 failed: team is not known; ask #acme-help"],
        ),
        ("absolute", &["\"/tmp/acme-absolute.txt\"", "absolute"]),
        (
            "dotdot",
            &["\"docs/../../acme-outside.txt\"", "leaves the project"],
        ),
    ];
    for (knob, needles) in cases {
        let (tmp, dir) = empty_project_dir("ship");
        let output = kb_ext(&dir)
            .env("ACME_MISBEHAVE", knob)
            .args(words("init --plugins kustomize/v2,acmeconventions/v1"))
            .output()
            .unwrap();
        assert_refused(&output, knob, needles);
        assert!(snapshot_tree(&dir).is_empty(), "{knob}: files were written");
        assert!(!tmp.path().join("acme-outside.txt").exists());
    }
    let stderr_text = {
        let (_tmp, dir) = empty_project_dir("ship");
        let output = kb_ext(&dir)
            .env("ACME_MISBEHAVE", "exit3")
            .args(words("init --plugins acmeconventions/v1"))
            .output()
            .unwrap();
        stderr(&output)
    };
    assert!(
        stderr_text.starts_with("acmeconventions: the conventions server is down\n"),
        "its stderr passes through:\n{stderr_text}"
    );
}

#[test]
fn a_refused_plugin_leaves_an_existing_project_as_it_was() {
    let (_tmp, dir) = kustomize_project();
    let before = snapshot_tree(&dir);
    let output = kb_ext(&dir)
        .env("ACME_MISBEHAVE", "error")
        .args(words("create api --group crew --version v1 --kind Captain"))
        .output()
        .unwrap();
    assert_refused(&output, "create api", &["team is not known"]);
    assert_eq!(snapshot_tree(&dir), before);
}

#[test]
fn a_plugin_that_does_not_answer_in_time_is_stopped() {
    let (_tmp, dir) = empty_project_dir("ship");
    let started = std::time::Instant::now();
    let output = kb_ext(&dir)
        .env("ACME_MISBEHAVE", "sleep")
        .env("KUBEBUILDER_RS_PLUGIN_TIMEOUT", "1s")
        .args(words("init --plugins acmeconventions/v1"))
        .output()
        .unwrap();
    assert_refused(
        &output,
        "sleep",
        &["did not answer within 1s", "KUBEBUILDER_RS_PLUGIN_TIMEOUT"],
    );
    assert!(
        started.elapsed().as_secs() < 20,
        "stopped at the limit, not after the plugin's 30s"
    );
    assert!(snapshot_tree(&dir).is_empty());

    let output = kb_ext(&dir)
        .env("KUBEBUILDER_RS_PLUGIN_TIMEOUT", "soon")
        .args(words("init --plugins acmeconventions/v1"))
        .output()
        .unwrap();
    assert_refused(
        &output,
        "a bad timeout",
        &["KUBEBUILDER_RS_PLUGIN_TIMEOUT=\"soon\"", "90s"],
    );
}

#[test]
fn a_plugin_not_found_or_not_executable_is_refused_naming_where_it_looked() {
    let (tmp, dir) = empty_project_dir("ship");
    let root = plugins_root();
    let output = kb_ext(&dir)
        .args(words("init --plugins kustomize/v2,nothere/v1"))
        .output()
        .unwrap();
    assert_refused(
        &output,
        "not found",
        &[
            "unknown plugin \"nothere/v1\"",
            &format!("{}/nothere/v1/nothere", root.display()),
            "$EXTERNAL_PLUGINS_PATH",
            "kustomize/v2",
        ],
    );

    let missing = tmp.path().join("no-such-dir");
    let output = kb_ext(&dir)
        .env("EXTERNAL_PLUGINS_PATH", &missing)
        .args(words("init --plugins acmeconventions/v1"))
        .output()
        .unwrap();
    assert_refused(
        &output,
        "missing root",
        &[
            "$EXTERNAL_PLUGINS_PATH",
            &missing.display().to_string(),
            "does not exist",
        ],
    );

    let copy = tmp.path().join("plugins/acmeconventions/v1");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::write(copy.join("acmeconventions"), "#!/usr/bin/env python3\n").unwrap();
    let output = kb_ext(&dir)
        .env("EXTERNAL_PLUGINS_PATH", tmp.path().join("plugins"))
        .args(words("init --plugins acmeconventions/v1"))
        .output()
        .unwrap();
    assert_refused(
        &output,
        "not executable",
        &[
            "acmeconventions/v1/acmeconventions",
            "not an executable",
            "chmod +x",
        ],
    );
    assert!(snapshot_tree(&dir).is_empty());
}

#[test]
fn a_project_whose_layout_names_a_missing_plugin_is_refused_naming_where_it_looked() {
    let (tmp, dir) = kustomize_project();
    let before = snapshot_tree(&dir);
    let elsewhere = tmp.path().join("empty-root");
    std::fs::create_dir(&elsewhere).unwrap();
    let out = tmp.path().join("generated");
    for line in [
        format!("alpha generate --output-dir {}", out.display()),
        "create api --group crew --version v1 --kind Captain".to_string(),
    ] {
        let output = kb_ext(&dir)
            .env("EXTERNAL_PLUGINS_PATH", &elsewhere)
            .args(words(&line))
            .output()
            .unwrap();
        assert_refused(
            &output,
            &line,
            &[
                "PROJECT's layout",
                "unknown plugin \"acmeconventions/v1\"",
                &elsewhere.display().to_string(),
            ],
        );
        assert_eq!(snapshot_tree(&dir), before);
        assert!(!out.exists());
    }
}
