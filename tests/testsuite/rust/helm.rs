//! helm/v2-alpha's make targets in a rust/v1-alpha project need no Go:
//! with neither `go` nor `helm` on PATH, `make install-helm` fetches helm's
//! release archive (get.helm.sh's layout: `helm-<version>-<os>-<arch>.tar.gz`
//! and its `.sha256sum`) from a server this test runs on 127.0.0.1 (nothing
//! leaves the machine), checks the sha256 and unpacks helm into `LOCALBIN`;
//! the fetched helm runs, lints and renders the chart; a second run fetches
//! nothing; a wrong checksum is refused in one line with nothing installed;
//! a helm on PATH is used without fetching. The project's chart workflow
//! sets up no Go and passes actionlint (tests/testsuite/common/actionlint.rs).
//!
//! The archive holds a real helm: the shared tools directory's
//! `helm-<HELM_VERSION>`, built there with `go install` by this test when
//! missing (the test may use Go; the project's targets may not). Needs make,
//! bash, curl, tar, gzip and sha256sum. Run by `scripts/test-all`.

use crate::common;
use crate::common::actionlint::{ACTIONLINT_VERSION, actionlint, check_workflow};
use crate::common::envtest_index::{Server, platform};
use crate::common::{empty_project_dir, kb_ok, stderr, stdout, the_one_line, words};
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A rust/v1-alpha project named fleet with the helm plugin's chart and
/// targets, and a local server with helm's release below `good/` (right
/// checksum) and `bad/` (the same archive, a wrong checksum).
struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    server: Server,
    /// HELM_VERSION of the project's Makefile.
    version: String,
    /// The helm binary the archive holds.
    helm: PathBuf,
    /// PATH without any directory holding `go` or `helm`.
    path: String,
}

/// The project and the server of helm's release.
fn fixture() -> Fixture {
    let (tmp, dir) = project();
    let version = common::makefile_value(&dir, "HELM_VERSION");
    serve(tmp, dir, version)
}

/// A rust/v1-alpha project named fleet after `edit --plugins helm/v2-alpha`.
fn project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("fleet");
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    // The chart is built from a kustomize output: the fixture's, so that no
    // cargo build runs.
    let install =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/helm/fleet-install.yaml");
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::copy(install, dir.join("dist/install.yaml")).unwrap();
    kb_ok(&dir, &words("edit --plugins helm/v2-alpha"));
    (tmp, dir)
}

/// Serves helm's release of `version` for the project in `dir`.
fn serve(tmp: tempfile::TempDir, dir: PathBuf, version: String) -> Fixture {
    let helm = common::helm::helm_release(&version);
    let (archive, hash) = served_archive(&helm, &version);
    let name = format!("helm-{version}-{}.tar.gz", platform());
    let wrong = format!(
        "{}{}",
        if hash.starts_with('0') { "1" } else { "0" },
        &hash[1..]
    );
    let mut files = BTreeMap::new();
    for (folder, sum) in [("good", &hash), ("bad", &wrong)] {
        files.insert(format!("{folder}/{name}"), archive.clone());
        files.insert(
            format!("{folder}/{name}.sha256sum"),
            format!("{sum}  {name}\n").into_bytes(),
        );
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    Fixture {
        _tmp: tmp,
        dir,
        server: Server::start(listener, files),
        version,
        helm,
        path: path_without(&["go", "helm"]),
    }
}

/// helm's release archive of this platform, holding `helm` as the real
/// ones do (`<os>-<arch>/helm` beside a license), and its sha256; built once
/// per test process.
fn served_archive(helm: &Path, version: &str) -> (Vec<u8>, String) {
    static ARCHIVE: OnceLock<(Vec<u8>, String)> = OnceLock::new();
    ARCHIVE
        .get_or_init(|| {
            let work = tempfile::tempdir().unwrap();
            let folder = work.path().join(platform());
            std::fs::create_dir(&folder).unwrap();
            std::fs::copy(helm, folder.join("helm")).unwrap();
            std::fs::write(folder.join("LICENSE"), "license\n").unwrap();
            let out = work.path().join(format!("helm-{version}.tar.gz"));
            let packed = Command::new("bash")
                .arg("-c")
                .arg(format!(
                    "tar -cf - -C '{}' '{}' | gzip -1 > '{}'",
                    work.path().display(),
                    platform(),
                    out.display()
                ))
                .output()
                .expect("bash runs");
            assert!(packed.status.success(), "tar: {}", stderr(&packed));
            (std::fs::read(&out).unwrap(), sha256(&out))
        })
        .clone()
}

/// The sha256 of the file at `path` in hex.
fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(out.status.success(), "sha256sum: {}", stderr(&out));
    stdout(&out).split_whitespace().next().unwrap().to_string()
}

/// This process's PATH without the directories that hold any of `programs`.
fn path_without(programs: &[&str]) -> String {
    let path = std::env::var("PATH").unwrap();
    let kept: Vec<&str> = path
        .split(':')
        .filter(|dir| programs.iter().all(|p| !Path::new(dir).join(p).exists()))
        .collect();
    kept.join(":")
}

impl Fixture {
    /// Runs `make args` in the project with `PATH` (`first` put before it),
    /// helm fetched from the server's `folder`, `LOCALBIN` `<dir>/<bin>`.
    fn make(&self, args: &[&str], folder: &str, bin: &str, first: Option<&Path>) -> Output {
        let path = match first {
            Some(dir) => format!("{}:{}", dir.display(), self.path),
            None => self.path.clone(),
        };
        Command::new("make")
            .args(args)
            .arg(format!("HELM_DOWNLOAD_URL={}", self.server.url(folder)))
            .arg(format!("LOCALBIN={}", self.dir.join(bin).display()))
            .current_dir(&self.dir)
            .env("PATH", path)
            .env_remove("HELM")
            .env_remove("HELM_DOWNLOAD_URL")
            .env_remove("MAKEFLAGS")
            .output()
            .expect("make runs")
    }

    /// The release archive's path on the server, below `folder`.
    fn archive_path(&self, folder: &str) -> String {
        format!("/{folder}/helm-{}-{}.tar.gz", self.version, platform())
    }

    /// Runs the helm at `helm` in the project.
    fn helm(&self, helm: &Path, args: &[&str]) -> Output {
        Command::new(helm)
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", self.dir.join("helm-home"))
            .output()
            .expect("helm runs")
    }
}

/// The names in `dir` (none when it is missing).
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|e| {
            e.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
#[ignore = "needs make, bash, curl, tar, gzip, sha256sum and a helm build; run by scripts/test-all"]
fn install_helm_fetches_checks_and_reuses_helm_without_go() {
    let f = fixture();
    let probe = Command::new("bash")
        .args(["-c", "command -v go || command -v helm"])
        .env("PATH", &f.path)
        .output()
        .unwrap();
    assert!(
        !probe.status.success(),
        "go or helm still on PATH: {}",
        stdout(&probe)
    );

    // First run: the archive and its checksum file, then helm in LOCALBIN.
    let out = f.make(&["install-helm"], "good", "bin", None);
    assert!(
        out.status.success(),
        "make install-helm: {}{}",
        stdout(&out),
        stderr(&out)
    );
    let archive = f.archive_path("good");
    assert_eq!(
        f.server.requests(),
        [archive.clone(), format!("{archive}.sha256sum")]
    );
    let bin = f.dir.join("bin");
    let fetched = format!("helm-{}", f.version);
    assert_eq!(entries(&bin), ["helm".to_string(), fetched.clone()]);
    assert_eq!(
        std::fs::read_link(bin.join("helm")).unwrap(),
        PathBuf::from(&fetched)
    );
    assert_eq!(
        sha256(&bin.join(&fetched)),
        sha256(&f.helm),
        "not the served helm"
    );
    assert!(
        std::fs::metadata(bin.join(&fetched))
            .unwrap()
            .permissions()
            .mode()
            & 0o111
            != 0
    );
    let minor = f.version.rsplit_once('.').unwrap().0;
    let ran = f.helm(
        &bin.join("helm"),
        &["version", "--template", "{{.Version}}"],
    );
    assert!(ran.status.success(), "helm version: {}", stderr(&ran));
    assert!(stdout(&ran).starts_with(minor), "{}", stdout(&ran));

    // Second run: helm is there, nothing is fetched.
    let out = f.make(&["install-helm"], "good", "bin", None);
    assert!(out.status.success(), "second run: {}", stderr(&out));
    assert_eq!(f.server.requests().len(), 2, "the second run fetched again");

    // The fetched helm lints and renders the chart.
    let lint = f.helm(&bin.join("helm"), &["lint", "dist/chart"]);
    assert!(
        lint.status.success(),
        "helm lint: {}{}",
        stdout(&lint),
        stderr(&lint)
    );
    let template = f.helm(&bin.join("helm"), &["template", "fleet", "dist/chart"]);
    assert!(
        template.status.success(),
        "helm template: {}",
        stderr(&template)
    );
    assert!(
        stdout(&template).contains("kind: Deployment"),
        "{}",
        stdout(&template)
    );

    // A helm on PATH wins over LOCALBIN's and is used without fetching, by
    // every helm target (a stand-in that prints how it was called).
    let stub = f.dir.join("stub");
    std::fs::create_dir(&stub).unwrap();
    std::fs::write(stub.join("helm"), "#!/bin/sh\necho \"stub helm $*\"\n").unwrap();
    std::fs::set_permissions(stub.join("helm"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let targets = [
        "helm-status",
        "helm-history",
        "helm-rollback",
        "helm-uninstall",
    ];
    let out = f.make(&targets, "good", "bin-unused", Some(&stub));
    assert!(out.status.success(), "make {targets:?}: {}", stderr(&out));
    for command in ["status", "history", "rollback", "uninstall"] {
        let line = format!("stub helm {command} fleet --namespace fleet-system");
        assert!(
            stdout(&out).contains(&line),
            "{line:?} not in:\n{}",
            stdout(&out)
        );
    }
    assert_eq!(f.server.requests().len(), 2, "a helm on PATH was fetched");
    assert!(entries(&f.dir.join("bin-unused")).is_empty());
}

#[test]
#[ignore = "needs make, bash, curl, tar, gzip, sha256sum and a helm build; run by scripts/test-all"]
fn install_helm_refuses_an_archive_whose_sha256_differs() {
    let f = fixture();
    let out = f.make(&["install-helm"], "bad", "bin", None);
    assert!(!out.status.success(), "a wrong sha256 was accepted");
    let message = stderr(&out);
    let refusal = the_one_line(&message, "install-helm:");
    let archive = f.archive_path("bad");
    for needle in ["sha256", "refused", "HELM_DOWNLOAD_URL", archive.as_str()] {
        assert!(refusal.contains(needle), "{needle:?} not in: {message}");
    }
    assert_eq!(
        entries(&f.dir.join("bin")),
        Vec::<String>::new(),
        "something was kept"
    );
}

#[test]
#[ignore = "needs Go for actionlint and a helm build; run by scripts/test-all"]
fn the_chart_workflow_sets_up_no_go_and_passes_actionlint() {
    let (_tmp, dir) = project();
    let path = dir.join(".github/workflows/test-chart.yml");
    let workflow = std::fs::read_to_string(&path).unwrap();
    for absent in ["setup-go", "go-version-file", "go.mod"] {
        assert!(!workflow.contains(absent), "{absent:?} in:\n{workflow}");
    }
    assert!(workflow.contains("make install-helm\n"), "{workflow}");
    if let Err(problems) = check_workflow(&actionlint(), &path) {
        panic!("actionlint {ACTIONLINT_VERSION} rejects the Rust chart workflow:\n{problems}");
    }
}

#[test]
#[ignore = "needs make, bash, curl, tar, gzip, sha256sum and a helm build; run by scripts/test-all"]
fn install_helm_refuses_a_bad_version_or_helm_in_one_line() {
    let f = fixture();
    let cases = [
        ("HELM_VERSION=3.22", vec!["'3.22'", "HELM_VERSION"]),
        (
            "HELM=/nowhere/helm",
            vec!["HELM=/nowhere/helm", "does not run"],
        ),
    ];
    for (setting, needles) in cases {
        let out = f.make(&["install-helm", setting], "good", "bin", None);
        assert!(!out.status.success(), "{setting} was accepted");
        let message = stderr(&out);
        let refusal = the_one_line(&message, "install-helm:");
        for needle in needles {
            assert!(
                refusal.contains(needle),
                "{setting}: {needle:?} not in: {message}"
            );
        }
    }
    assert!(
        f.server.requests().is_empty(),
        "a refusal fetched something"
    );
    assert!(
        entries(&f.dir.join("bin")).is_empty(),
        "a refusal installed something"
    );
}
