//! A local stand-in for controller-tools' envtest release index: an HTTP
//! server on 127.0.0.1 serving fixed files (an index and its archives) and
//! recording what was asked for, and the pieces to build what it serves.
//! Nothing leaves the machine.

use super::{stderr, stdout};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// A local HTTP server of fixed files that records every path asked for.
pub struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Serves `files` (path → body) on `listener` until the test process
    /// ends; any other path gets 404.
    pub fn start(listener: TcpListener, files: BTreeMap<String, Vec<u8>>) -> Self {
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
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// The paths asked for so far, in order.
    pub fn requests(&self) -> Vec<String> {
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
pub fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}-{arch}", std::env::consts::OS)
}

/// The Kubernetes minor version the layout pins through k8s-openapi's
/// feature in versions.toml (`v1_37` → `1.37`).
pub fn pinned_minor() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scaffolds/rust/v1-alpha/versions.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let feature = text
        .lines()
        .find_map(|l| l.strip_prefix("k8s_openapi_feature = \"v"))
        .expect("k8s_openapi_feature in versions.toml");
    feature.trim_end_matches('"').replace('_', ".")
}

/// The sha512 of `bytes` in hex, by sha512sum.
pub fn sha512(work: &Path, bytes: &[u8]) -> String {
    let path = work.join("to-hash");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("sha512sum").arg(&path).output().unwrap();
    assert!(out.status.success(), "sha512sum: {}", stderr(&out));
    stdout(&out).split_whitespace().next().unwrap().to_string()
}

/// An index in the layout of controller-tools' envtest-releases.yaml
/// listing `releases` (each `(version, hash)`) for each of `platforms`,
/// every archive served below `base`.
pub fn index(releases: &[(&str, &str)], platforms: &[&str], base: &str) -> Vec<u8> {
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

/// Packs `names` (relative to `dir`) into the tar.gz `out` and returns its
/// bytes.
pub fn tar_gz(dir: &Path, names: &[&str], out: &Path) -> Vec<u8> {
    let result = Command::new("tar")
        .arg("-czf")
        .arg(out)
        .arg("-C")
        .arg(dir)
        .args(names)
        .output()
        .expect("tar runs");
    assert!(result.status.success(), "tar: {}", stderr(&result));
    std::fs::read(out).unwrap()
}
