//! `make setup-envtest` of a rust/v1-alpha project fetches the envtest
//! binaries as setup-envtest does, with no Go toolchain: from a release
//! index and a tar.gz served by this test on 127.0.0.1 (nothing leaves the
//! machine), the newest patch release of the Kubernetes version Cargo.toml
//! pins, into `$(LOCALBIN)/k8s/<version>-<os>-<arch>/`, sha512 verified; a
//! second run fetches nothing; a wrong checksum is refused in one line and
//! leaves nothing behind; `KUBEBUILDER_ASSETS` wins when set; `make test`
//! hands the fetched directory to cargo.
//!
//! Needs make, bash, curl, tar and sha512sum (no cargo build of the
//! project: `make test` runs with a recording stand-in for cargo). Run by
//! `scripts/test-all`.

use crate::common::envtest_index::{Server, index, pinned_minor, platform, sha512, tar_gz};
use crate::common::{empty_project_dir, kb_ok, stderr, stdout, the_one_line, words};
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fake binaries of the archive: a name and what each prints.
const BINARIES: [&str; 3] = ["etcd", "kube-apiserver", "kubectl"];

/// A tar.gz holding the fake binaries under `controller-tools/envtest/`,
/// as the real archives lay them out; each prints its name.
fn fake_archive(work: &Path) -> Vec<u8> {
    let dir = work.join("archive/controller-tools/envtest");
    std::fs::create_dir_all(&dir).unwrap();
    for name in BINARIES {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho {name}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    tar_gz(
        &work.join("archive"),
        &["controller-tools"],
        &work.join("envtest.tar.gz"),
    )
}

/// A rust/v1-alpha project, and a local server with `index.yaml` and
/// `bad-index.yaml` (same archives, a wrong hash) listing, for the pinned
/// minor version x.y: x.y.2 and x.y.10 (the newest, so versions must sort as
/// numbers), a pre-release x.y.11-alpha.1 and x.(y+1).0, both passed over.
struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    server: Server,
    /// The store's name of the release that must be chosen.
    newest: String,
}

fn fixture() -> Fixture {
    let (tmp, dir) = empty_project_dir("guestbook");
    kb_ok(
        &dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    let work = tmp.path().join("served");
    std::fs::create_dir(&work).unwrap();
    let archive = fake_archive(&work);
    let hash = sha512(&work, &archive);
    let wrong = format!(
        "{}{}",
        if hash.starts_with('0') { "1" } else { "0" },
        &hash[1..]
    );
    let minor = pinned_minor();
    let (major, y) = minor.split_once('.').unwrap();
    let versions = [
        format!("{minor}.2"),
        format!("{minor}.10"),
        format!("{minor}.11-alpha.1"),
        format!("{major}.{}.0", y.parse::<u32>().unwrap() + 1),
    ];
    let here = platform();
    let platforms = [here.as_str(), "darwin-arm64", "windows-amd64"];
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let mut files = BTreeMap::new();
    for version in &versions {
        for platform in platforms {
            files.insert(
                format!("envtest-v{version}-{platform}.tar.gz"),
                archive.clone(),
            );
        }
    }
    let listed = |hash: &str| -> Vec<u8> {
        let releases: Vec<(&str, &str)> = versions.iter().map(|v| (v.as_str(), hash)).collect();
        index(&releases, &platforms, &base)
    };
    files.insert("index.yaml".into(), listed(&hash));
    files.insert("bad-index.yaml".into(), listed(&wrong));
    Fixture {
        _tmp: tmp,
        dir,
        server: Server::start(listener, files),
        newest: format!("{minor}.10-{here}"),
    }
}

/// Runs `make args` in `dir` with KUBEBUILDER_ASSETS unset (or set to
/// `assets`), LOCALBIN `<dir>/bin`.
fn make(dir: &Path, args: &[&str], assets: Option<&str>) -> Output {
    let mut command = Command::new("make");
    command
        .args(args)
        .arg(format!("LOCALBIN={}", dir.join("bin").display()))
        .current_dir(dir)
        .env_remove("KUBEBUILDER_ASSETS")
        .env_remove("MAKEFLAGS");
    if let Some(assets) = assets {
        command.env("KUBEBUILDER_ASSETS", assets);
    }
    command.output().expect("make runs")
}

/// What the store `<dir>/bin/k8s` holds, names only.
fn store(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("bin/k8s"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
#[ignore = "needs make, bash, curl, tar and sha512sum; run by scripts/test-all"]
fn setup_envtest_fetches_verifies_and_reuses_the_envtest_binaries() {
    let f = fixture();
    let index = format!("ENVTEST_INDEX={}", f.server.url("index.yaml"));
    let release = f.dir.join("bin/k8s").join(&f.newest);

    // First run: the index, then the newest archive of the pinned version.
    let out = make(&f.dir, &["setup-envtest", &index], None);
    assert!(out.status.success(), "make setup-envtest: {}", stderr(&out));
    assert!(
        stdout(&out).contains(&release.display().to_string()),
        "{}",
        stdout(&out)
    );
    let archive = format!("/envtest-v{}.tar.gz", f.newest);
    assert_eq!(f.server.requests(), ["/index.yaml".to_string(), archive]);
    assert_eq!(
        store(&f.dir),
        [f.newest.as_str()],
        "only the release is kept"
    );
    for name in BINARIES {
        let path = release.join(name);
        let ran = Command::new(&path)
            .output()
            .unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert_eq!(stdout(&ran).trim(), name, "{path:?} is not the served one");
    }

    // Second run: the store has it, nothing is fetched.
    let out = make(&f.dir, &["setup-envtest", &index], None);
    assert!(out.status.success(), "second run: {}", stderr(&out));
    assert!(stdout(&out).contains(&release.display().to_string()));
    assert_eq!(f.server.requests().len(), 2, "the second run fetched again");

    // KUBEBUILDER_ASSETS set: used as it is, nothing fetched.
    let out = make(&f.dir, &["setup-envtest", &index], Some("/opt/my-assets"));
    assert!(stdout(&out).contains("/opt/my-assets"), "{}", stdout(&out));
    assert_eq!(f.server.requests().len(), 2);

    // make test hands the fetched directory to cargo (a stand-in recording it).
    let recorder = f.dir.join("record-cargo");
    let log = f.dir.join("cargo.log");
    std::fs::write(
        &recorder,
        format!(
            "#!/bin/sh\necho \"$1 KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS\" >> {}\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&recorder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cargo = format!("CARGO={}", recorder.display());
    let out = make(&f.dir, &["test", &index, &cargo], None);
    assert!(out.status.success(), "make test: {}", stderr(&out));
    let calls = std::fs::read_to_string(&log).unwrap();
    let test_call = format!("test KUBEBUILDER_ASSETS={}", release.display());
    assert!(
        calls.lines().any(|l| l == test_call),
        "{test_call:?} not in:\n{calls}"
    );
    assert_eq!(f.server.requests().len(), 2, "make test fetched again");
}

#[test]
#[ignore = "needs make, bash, curl, tar and sha512sum; run by scripts/test-all"]
fn setup_envtest_refuses_an_archive_whose_sha512_differs() {
    let f = fixture();
    let index = format!("ENVTEST_INDEX={}", f.server.url("bad-index.yaml"));
    let out = make(&f.dir, &["setup-envtest", &index], None);
    assert!(!out.status.success(), "a wrong sha512 was accepted");
    let message = stderr(&out);
    let refusal = the_one_line(&message, "setup-envtest:");
    for needle in ["sha512", "refused", "ENVTEST_INDEX", &f.newest] {
        assert!(refusal.contains(needle), "{needle:?} not in: {message}");
    }
    assert_eq!(store(&f.dir), Vec::<String>::new(), "something was kept");
}

#[test]
#[ignore = "needs make, bash, curl, tar and sha512sum; run by scripts/test-all"]
fn setup_envtest_refuses_a_version_the_index_lacks() {
    let f = fixture();
    let index = format!("ENVTEST_INDEX={}", f.server.url("index.yaml"));
    let out = make(
        &f.dir,
        &["setup-envtest", &index, "ENVTEST_K8S_VERSION=1.2"],
        None,
    );
    assert!(!out.status.success(), "a missing version was accepted");
    let message = stderr(&out);
    let refusal = the_one_line(&message, "setup-envtest:");
    assert!(refusal.contains("1.2") && refusal.contains("ENVTEST_K8S_VERSION"));
    assert_eq!(f.server.requests(), ["/index.yaml"]);
    assert_eq!(store(&f.dir), Vec::<String>::new());
}
