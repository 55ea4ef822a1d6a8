//! CLI behaviour of `kubebuilder-rs init`: exit codes, messages, and
//! directories left untouched by refused commands.

use crate::common;
use crate::common::{empty_project_dir, init_project, kb, snapshot_tree, stderr, stdout};
use std::path::Path;

/// Runs init with `args` (no dependency download, no Go check) and expects
/// a one-line refusal holding every needle, with `dir` unchanged.
fn assert_refused(dir: &Path, args: &[&str], needles: &[&str]) {
    let init = ["init", "--fetch-deps=false", "--skip-go-version-check"];
    common::assert_refused(dir, &init, args, needles);
}

#[test]
fn bad_domain_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    for domain in ["Example.com", "my_domain", "-a.com", "a..b"] {
        let flag = format!("--domain={domain}");
        assert_refused(
            &dir,
            &[&flag, "--repo", "example.com/g"],
            &[domain, "DNS-1123 subdomain"],
        );
    }
}

#[test]
fn bad_project_name_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(
        &dir,
        &["--repo", "example.com/g", "--project-name", "My_Project"],
        &["My_Project", "DNS-1123 label"],
    );
}

#[test]
fn directory_name_that_is_not_a_label_is_refused() {
    let (_tmp, dir) = empty_project_dir("Bad_Name");
    assert_refused(
        &dir,
        &["--repo", "example.com/g"],
        &["Bad_Name", "--project-name"],
    );
}

#[test]
fn bad_repo_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    for repo in ["not a module", "/abs/path", "a//b", "Example.com/x"] {
        assert_refused(&dir, &["--repo", repo], &[repo, "Go module path"]);
    }
}

#[test]
fn missing_repo_without_go_mod_asks_for_repo() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(&dir, &[], &["--repo"]);
}

#[test]
fn repo_is_read_from_an_existing_go_mod() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    std::fs::write(
        dir.join("go.mod"),
        "module example.org/from-go-mod\n\ngo 1.26.0\n",
    )
    .unwrap();
    let output = kb(&dir)
        .args(["init", "--fetch-deps=false", "--skip-go-version-check"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.contains("repo: example.org/from-go-mod\n"),
        "{project}"
    );
    let go_mod = std::fs::read_to_string(dir.join("go.mod")).unwrap();
    assert!(
        go_mod.starts_with("module example.org/from-go-mod\n"),
        "{go_mod}"
    );
}

#[test]
fn unknown_plugin_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(
        &dir,
        &["--repo", "example.com/g", "--plugins", "go/v3"],
        &["go/v3", "go/v4"],
    );
}

#[test]
fn unknown_license_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(
        &dir,
        &["--repo", "example.com/g", "--license", "mit"],
        &["mit", "apache2", "none"],
    );
}

#[test]
fn missing_license_file_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(
        &dir,
        &["--repo", "example.com/g", "--license-file", "nope.txt"],
        &["nope.txt"],
    );
}

#[test]
fn unsupported_project_version_is_refused() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    assert_refused(
        &dir,
        &["--repo", "example.com/g", "--project-version", "2"],
        &["\"2\"", "3"],
    );
}

#[test]
fn existing_project_is_refused_even_with_force() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    assert_refused(&dir, &["--repo", "example.com/g"], &["PROJECT"]);
    assert_refused(&dir, &["--repo", "example.com/g", "--force"], &["PROJECT"]);
}

#[test]
fn file_that_init_would_overwrite_is_refused_unless_forced() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    std::fs::write(dir.join("Makefile"), "my own makefile\n").unwrap();
    assert_refused(&dir, &["--repo", "example.com/g"], &["Makefile", "--force"]);
    init_project(&dir, &["--force"]);
    let makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    assert!(makefile.contains("manifests:"), "Makefile was not replaced");
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    let output = kb(&dir)
        .args([
            "init",
            "--repo",
            "example.com/g",
            "--dry-run",
            "--skip-go-version-check",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let plan = stdout(&output);
    for path in [
        "PROJECT",
        "cmd/main.go",
        "Makefile",
        "config/default/kustomization.yaml",
    ] {
        assert!(
            plan.contains(&format!("create    {path}\n")),
            "{path} missing from plan:\n{plan}"
        );
    }
    assert!(snapshot_tree(&dir).is_empty(), "dry run wrote files");
}

#[test]
fn writes_project_file_in_kubebuilder_form() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--multigroup", "--namespaced"]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let yaml: String = project
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let expected_version = kubebuilder_rs::project::cli_version::current();
    assert!(
        expected_version.starts_with(&format!("kubebuilder-rs/{}+", env!("CARGO_PKG_VERSION"))),
        "{expected_version}"
    );
    assert_eq!(
        yaml,
        format!(
            "cliVersion: {expected_version}\ndomain: example.com\nlayout:\n- go.kubebuilder.io/v4\nmultigroup: true\nnamespaced: true\nprojectName: guestbook\nrepo: example.com/guestbook\nversion: \"3\"\n"
        )
    );
}

/// As kubebuilder: only init writes `cliVersion`; the commands that follow
/// keep the value of the tool that made the project.
#[test]
fn later_commands_keep_the_cli_version_init_wrote() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    let path = dir.join("PROJECT");
    let made = std::fs::read_to_string(&path).unwrap();
    let ours = format!(
        "cliVersion: {}\n",
        kubebuilder_rs::project::cli_version::current()
    );
    assert!(made.contains(&ours), "{made}");
    std::fs::write(&path, made.replace(&ours, "cliVersion: 4.16.0\n")).unwrap();
    for command in [
        "create api --group crew --version v1 --kind Captain --resource --controller --make=false",
        "create webhook --group crew --version v1 --kind Captain --defaulting --make=false",
        "edit --plugins grafana/v1-alpha",
        "edit --namespaced",
    ] {
        common::kb_ok(&dir, &command.split(' ').collect::<Vec<_>>());
        let project = std::fs::read_to_string(&path).unwrap();
        assert!(
            project.contains("cliVersion: 4.16.0\n") && !project.contains("kubebuilder-rs/"),
            "{command} changed cliVersion:\n{project}"
        );
    }
}

/// `alpha generate` re-creates the project through init, so its PROJECT
/// names this build, whatever made the original.
#[test]
fn alpha_generate_writes_this_builds_cli_version() {
    let (tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    let path = dir.join("PROJECT");
    let made = std::fs::read_to_string(&path).unwrap();
    let ours = format!(
        "cliVersion: {}\n",
        kubebuilder_rs::project::cli_version::current()
    );
    std::fs::write(&path, made.replace(&ours, "cliVersion: 4.16.0\n")).unwrap();
    let out = tmp.path().join("generated");
    let out_arg = out.to_str().unwrap();
    common::kb_ok(
        &dir,
        &["alpha", "generate", "--make=false", "--output-dir", out_arg],
    );
    let generated = std::fs::read_to_string(out.join("PROJECT")).unwrap();
    assert!(generated.contains(&ours), "{generated}");
}

/// As kubebuilder v4.16: `.custom-gcl.yml` names the logcheck module plugin,
/// `.golangci.yml` enables it, and `make golangci-lint` builds that linter
/// from the module proxy (no `golangci-lint custom`, which clones from git);
/// the Docker image's Go base can be swapped with BASE_IMAGE.
#[test]
fn lint_gets_logcheck_and_the_image_a_base_image_argument() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    let read = |path: &str| common::read(&dir, path);
    let (custom, golangci, makefile) = (
        read(".custom-gcl.yml"),
        read(".golangci.yml"),
        read("Makefile"),
    );
    let pin = makefile
        .lines()
        .find_map(|l| l.strip_prefix("GOLANGCI_LINT_VERSION ?= "))
        .unwrap();
    common::assert_holds(
        ".custom-gcl.yml",
        &custom,
        &[
            &format!("\nversion: {pin}\n"),
            "- module: \"sigs.k8s.io/logtools\"\n    import: \"sigs.k8s.io/logtools/logcheck/gclplugin\"\n    version: latest\n",
        ],
    );
    common::assert_holds(
        ".golangci.yml",
        &golangci,
        &[
            "    - logcheck\n",
            "    custom:\n      logcheck:\n        type: module\n",
        ],
    );
    assert!(!golangci.contains("newexpr"), "{golangci}");
    common::assert_holds(
        "Makefile",
        &makefile,
        &[
            "$(call go-build-golangci-lint-custom,$(GOLANGCI_LINT),$(GOLANGCI_LINT_VERSION),.custom-gcl.yml)",
            "build $(if $(BASE_IMAGE),--build-arg BASE_IMAGE=$(BASE_IMAGE)) -t $(IMG) .",
            "--platform=$(PLATFORMS) $(if $(BASE_IMAGE),--build-arg BASE_IMAGE=$(BASE_IMAGE)) --tag",
        ],
    );
    let clones = |line: &&str| line.starts_with('\t') && line.contains(" custom ");
    assert!(!makefile.lines().any(|l| clones(&l)), "{makefile}");
    let dockerfile = read("Dockerfile");
    common::assert_holds(
        "Dockerfile",
        &dockerfile,
        &["\nARG BASE_IMAGE=golang:1.26\nFROM ${BASE_IMAGE} AS builder\n"],
    );
}

/// A directory holding a fake `go` that reports `version`.
fn fake_go(version: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().unwrap();
    let script = bin.path().join("go");
    std::fs::write(&script, format!("#!/bin/sh\necho go{version}\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn old_go_is_refused_unless_the_check_is_skipped() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    let bin = fake_go("1.20.1");
    let before = snapshot_tree(&dir);
    let output = kb(&dir)
        .env("PATH", bin.path())
        .args(["init", "--repo", "example.com/g", "--fetch-deps=false"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("1.20.1") && message.contains("--skip-go-version-check"),
        "{message}"
    );
    assert_eq!(snapshot_tree(&dir), before);

    let output = kb(&dir)
        .env("PATH", bin.path())
        .args([
            "init",
            "--repo",
            "example.com/g",
            "--fetch-deps=false",
            "--skip-go-version-check",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn missing_go_with_fetch_deps_writes_files_and_says_how_to_finish() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    let empty_path = tempfile::tempdir().unwrap();
    let output = kb(&dir)
        .env("PATH", empty_path.path())
        .args(["init", "--repo", "example.com/g"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("Go is not installed") && message.contains("go mod tidy"),
        "{message}"
    );
    assert!(dir.join("cmd/main.go").is_file() && dir.join("PROJECT").is_file());
}

#[test]
fn license_choices_shape_the_boilerplate() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--license", "none"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("hack/boilerplate.go.txt")).unwrap(),
        ""
    );
    let main = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap();
    assert!(main.starts_with("package main"), "{}", &main[..80]);

    let (_tmp2, dir) = empty_project_dir("guestbook");
    let header = dir.parent().unwrap().join("header.txt");
    std::fs::write(&header, "// Copyright Acme Corp.\n").unwrap();
    init_project(&dir, &["--license-file", header.to_str().unwrap()]);
    let main = std::fs::read_to_string(dir.join("cmd/main.go")).unwrap();
    assert!(
        main.starts_with("// Copyright Acme Corp.\n\npackage main"),
        "{}",
        &main[..80]
    );

    let (_tmp3, dir) = empty_project_dir("guestbook");
    init_project(&dir, &["--owner", "Jane Doe"]);
    let boilerplate = std::fs::read_to_string(dir.join("hack/boilerplate.go.txt")).unwrap();
    assert!(
        boilerplate.contains("Jane Doe") && boilerplate.contains("Apache License"),
        "{boilerplate}"
    );
}

#[test]
fn version_names_the_scaffolded_versions() {
    let output = kb(Path::new(".")).arg("version").output().unwrap();
    let text = stdout(&output);
    assert!(output.status.success());
    for needle in [
        "kubebuilder-rs",
        "commit",
        "controller-runtime  v0.25.",
        "Kubernetes API      v0.37.",
        "controller-tools",
        "kustomize",
        "Scaffolds (rust/v1-alpha layout):",
        "  k8s-openapi         0.",
        &format!(
            "cliVersion: {}",
            kubebuilder_rs::project::cli_version::current()
        ),
    ] {
        assert!(text.contains(needle), "{needle} missing: {text}");
    }
}

#[test]
fn completion_scripts_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = kb(Path::new("."))
            .args(["completion", shell])
            .output()
            .unwrap();
        assert!(output.status.success(), "{shell}");
        assert!(
            stdout(&output).contains("init"),
            "{shell} script does not mention init"
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kubebuilder-rs"))
        .args(["completion", "zsh"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read nothing and close the pipe, as `| head -0` would.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let message = stderr(&output);
    assert!(!message.contains("panicked"), "{message}");
    assert!(message.is_empty(), "{message}");
}

#[test]
fn help_has_examples() {
    for args in [
        &["edit", "--help"][..],
        &["alpha", "generate", "--help"],
        &["create", "api", "--help"],
    ] {
        let output = kb(Path::new(".")).args(args).output().unwrap();
        assert!(
            stdout(&output).contains("Examples:"),
            "no examples in {args:?}"
        );
    }
    for args in [
        &["--help"][..],
        &["init", "--help"],
        &["version", "--help"],
        &["completion", "--help"],
    ] {
        let output = kb(Path::new(".")).args(args).output().unwrap();
        assert!(
            stdout(&output).contains("Examples:"),
            "no examples in {args:?}"
        );
    }
}

/// In a tools directory shared by projects that pin other versions (a
/// `LOCALBIN` of your own, or a kubebuilder project's next to this one), the
/// tool targets point each link at the version this project pins, instead
/// of using whatever the link pointed at.
#[test]
fn tool_targets_point_shared_links_at_the_pinned_versions() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, &[]);
    let makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    let pinned = |name: &str| {
        makefile
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name} ?= ")))
            .unwrap_or_else(|| panic!("no {name} in the Makefile"))
            .trim()
            .to_string()
    };
    let localbin = tempfile::tempdir().unwrap();
    let tools = [
        ("controller-gen", pinned("CONTROLLER_TOOLS_VERSION")),
        ("kustomize", pinned("KUSTOMIZE_VERSION")),
    ];
    for (tool, version) in &tools {
        for build in [format!("{tool}-{version}"), format!("{tool}-v0.0.1")] {
            let path = localbin.path().join(build);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::os::unix::fs::symlink(format!("{tool}-v0.0.1"), localbin.path().join(tool)).unwrap();
    }
    let output = std::process::Command::new("make")
        .args(["controller-gen", "kustomize"])
        .arg(format!("LOCALBIN={}", localbin.path().display()))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "make: {}", stderr(&output));
    for (tool, version) in &tools {
        let link = std::fs::read_link(localbin.path().join(tool)).unwrap();
        assert_eq!(
            link,
            Path::new(&format!("{tool}-{version}")),
            "{tool} still points at another project's version"
        );
    }
}
