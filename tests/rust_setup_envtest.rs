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

mod common;

use common::{empty_project_dir, kb_ok, stderr, stdout, words};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

/// The fake binaries of the archive: a name and what each prints.
const BINARIES: [&str; 3] = ["etcd", "kube-apiserver", "kubectl"];

/// A local HTTP server of fixed files that records every path asked for.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Serves `files` (path → body) on `listener` until the test process
    /// ends; any other path gets 404.
    fn start(listener: TcpListener, files: BTreeMap<String, Vec<u8>>) -> Self {
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                answer(stream, &files, &seen);
            }
        });
        Server { port, requests }
    }

    /// The URL of `path` on this server.
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// The paths asked for so far, in order.
    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// Reads one request from `stream` and answers it from `files`.
fn answer(mut stream: TcpStream, files: &BTreeMap<String, Vec<u8>>, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    // The headers end at an empty line.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    seen.lock().unwrap().push(path.clone());
    let (status, body) = match files.get(path.trim_start_matches('/')) {
        Some(body) => ("200 OK", body.as_slice()),
        None => ("404 Not Found", &b"not found\n"[..]),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

/// `<os>-<arch>` as setup-envtest names this machine.
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}-{arch}", std::env::consts::OS)
}

/// The Kubernetes minor version the layout pins through k8s-openapi's
/// feature in versions.toml (`v1_37` → `1.37`).
fn pinned_minor() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scaffolds/rust/v1-alpha/versions.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let feature = text
        .lines()
        .find_map(|l| l.strip_prefix("k8s_openapi_feature = \"v"))
        .expect("k8s_openapi_feature in versions.toml");
    feature.trim_end_matches('"').replace('_', ".")
}

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
    let tarball = work.join("envtest.tar.gz");
    let out = Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(work.join("archive"))
        .arg("controller-tools")
        .output()
        .expect("tar runs");
    assert!(out.status.success(), "tar: {}", stderr(&out));
    std::fs::read(tarball).unwrap()
}

/// The sha512 of `bytes` in hex, by sha512sum.
fn sha512(work: &Path, bytes: &[u8]) -> String {
    let path = work.join("to-hash");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("sha512sum").arg(&path).output().unwrap();
    assert!(out.status.success(), "sha512sum: {}", stderr(&out));
    stdout(&out).split_whitespace().next().unwrap().to_string()
}

/// An index in the layout of controller-tools' envtest-releases.yaml
/// listing `releases` (each `(version, hash)`) for each of `platforms`,
/// every archive served below `base`.
fn index(releases: &[(&str, &str)], platforms: &[&str], base: &str) -> Vec<u8> {
    let mut text = String::from("releases:\n");
    for (version, hash) in releases {
        text.push_str(&format!("  v{version}:\n"));
        for platform in platforms {
            let name = format!("envtest-v{version}-{platform}.tar.gz");
            text.push_str(&format!(
                "    {name}:\n      hash: {hash}\n      selfLink: {base}{name}\n"
            ));
        }
    }
    text.into_bytes()
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
    let refusals: Vec<&str> = message
        .lines()
        .filter(|l| l.starts_with("setup-envtest:"))
        .collect();
    assert_eq!(refusals.len(), 1, "one refusal line expected:\n{message}");
    for needle in ["sha512", "refused", "ENVTEST_INDEX", &f.newest] {
        assert!(refusals[0].contains(needle), "{needle:?} not in: {message}");
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
    let refusals: Vec<&str> = message
        .lines()
        .filter(|l| l.starts_with("setup-envtest:"))
        .collect();
    assert_eq!(refusals.len(), 1, "one refusal line expected:\n{message}");
    assert!(refusals[0].contains("1.2") && refusals[0].contains("ENVTEST_K8S_VERSION"));
    assert_eq!(f.server.requests(), ["/index.yaml"]);
    assert_eq!(store(&f.dir), Vec::<String>::new());
}
