//! `alpha generate` with the real Go toolchain and envtest: with its
//! post-steps it gives back, file for file, what the original commands and
//! their post-steps wrote; and PROJECT files in kubebuilder's schema become
//! projects that generate, build and pass `make test`.
//!
//! Needs Go, the module proxy and the control plane (KUBEBUILDER_ASSETS), so
//! it is ignored by a plain `cargo test` and run by `scripts/test-all`.

use crate::common::sequences::SINGLE_GROUP;
use crate::common::{
    assert_ready_to_build, init_project, kb, kb_with_make, persistent_project_dir, run_ok,
    shared_tools_bin, snapshot_tree, stderr, words,
};
use std::path::Path;

/// Runs `alpha generate` (with its post-steps) in `cwd` with `args`.
fn generate(cwd: &Path, args: &[&str]) {
    let started = std::time::Instant::now();
    let output = kb(cwd)
        .args(["alpha", "generate"])
        .args(args)
        .env("LOCALBIN", shared_tools_bin())
        .output()
        .expect("run kubebuilder-rs");
    assert!(
        output.status.success(),
        "alpha generate {args:?} failed: {}",
        stderr(&output)
    );
    eprintln!(
        "ok  kubebuilder-rs alpha generate {}  ({:.1}s)",
        args.join(" "),
        started.elapsed().as_secs_f64()
    );
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn regenerating_with_post_steps_matches_the_commands_with_post_steps() {
    let dir = persistent_project_dir("ship");
    init_project(&dir, &[]);
    run_ok(&dir, "go", &["mod", "tidy"]);
    for line in SINGLE_GROUP {
        kb_with_make(&dir, &words(line));
    }
    let out = dir.with_file_name("regenerated");
    if out.exists() {
        std::fs::remove_dir_all(&out).unwrap();
    }
    generate(
        &dir,
        &["--output-dir", out.to_str().unwrap(), "--make=true"],
    );
    let (original, regenerated) = (snapshot_tree(&dir), snapshot_tree(&out));
    assert!(
        original.contains_key(Path::new("api/v1/zz_generated.deepcopy.go")),
        "the commands' post-steps generated no code"
    );
    assert_eq!(
        original.keys().collect::<Vec<_>>(),
        regenerated.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &original {
        if path == Path::new("go.mod") {
            continue;
        }
        assert!(
            regenerated[path] == *bytes,
            "{} differs from what the commands wrote",
            path.display()
        );
    }
    // `go mod tidy` keeps the require blocks a go.mod already has, so how
    // they are grouped depends on the order of earlier tidies; what is
    // required, at which version, directly or not, must be the same.
    let go_mod = |tree: &std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>| {
        requirements(&String::from_utf8_lossy(&tree[Path::new("go.mod")]))
    };
    assert!(go_mod(&original).len() > 50, "go.mod was not tidied");
    assert_eq!(go_mod(&regenerated), go_mod(&original));
    assert_ready_to_build(&out);
}

/// The requirements of a go.mod, as sorted `module version [// indirect]` lines.
fn requirements(go_mod: &str) -> Vec<String> {
    let mut lines: Vec<String> = go_mod
        .lines()
        .map(|line| line.trim().trim_start_matches("require").trim())
        .filter(|line| {
            line.contains(" v") && !line.starts_with("module") && !line.starts_with("go ")
        })
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// Copies the PROJECT fixture `name` into an empty project directory,
/// re-scaffolds it in place with the post-steps, and checks that the project
/// generates, builds and passes `make test`, and that PROJECT records the
/// same resources.
fn regenerate_fixture_and_test(name: &str) {
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/generate/{name}.yaml")),
    )
    .unwrap();
    let dir = persistent_project_dir(name);
    std::fs::write(dir.join("PROJECT"), &fixture).unwrap();
    for entry in std::fs::read_dir(dir.parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("{name}-backup-"))
        {
            std::fs::remove_dir_all(path).unwrap();
        }
    }
    generate(&dir, &[]);

    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert_eq!(yaml_body(&project), yaml_body(&fixture), "PROJECT changed");
    assert_ready_to_build(&dir);
    run_ok(&dir, "make", &["manifests", "generate"]);
    run_ok(&dir, "go", &["build", "./..."]);
    run_ok(&dir, "make", &["test"]);
}

/// A PROJECT file without its comment header and `cliVersion` line.
fn yaml_body(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("cliVersion:"))
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn a_kubebuilder_single_group_project_file_regenerates_into_a_working_project() {
    regenerate_fixture_and_test("single-group");
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn a_kubebuilder_multigroup_project_file_regenerates_into_a_working_project() {
    regenerate_fixture_and_test("multigroup");
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn a_kubebuilder_namespaced_project_file_regenerates_into_a_working_project() {
    regenerate_fixture_and_test("namespaced");
}
