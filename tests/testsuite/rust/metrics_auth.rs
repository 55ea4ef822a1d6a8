//! The metrics endpoint of a rust/v1-alpha manager on the test control
//! plane, run as the controller-manager ServiceAccount with the RBAC of the
//! project's config/default (so the shipped roles are proven to suffice):
//! with `--metrics-secure` (a self-signed certificate) plain HTTP gets no
//! metrics, HTTPS answers 401 without or with a bad token, 403 to a
//! ServiceAccount without the metrics-reader role and 200 with it, and
//! answers are cached; `--metrics-secure=false` serves plain HTTP; HTTP/2 is
//! negotiated only with `--enable-http2`; what config/prometheus sends (the
//! token over HTTPS, certificate unchecked, or checked against the CA for
//! the Service's name) is answered 200; certificate files replaced on disk
//! are served without a restart; a missing certificate stops the start with
//! one line naming the file. The status codes are printed as a matrix.
//!
//! Needs cargo, curl, openssl and the control-plane binaries
//! (KUBEBUILDER_ASSETS). Run by `scripts/test-all`.

use crate::common;
use crate::common::cluster::{ControlPlane, Env, step, wait_until};
use crate::common::rust_project::{build_manager, rust_env, start_manager};
use crate::common::{free_port, kb_ok, persistent_project_dir, words};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PROJECT: &str = "metricsauth";
const NAMESPACE: &str = "metricsauth-system";
const MANAGER_SA: &str = "metricsauth-controller-manager";
const READER_ROLE: &str = "metricsauth-metrics-reader";
/// A ServiceAccount of the test that scrapes the metrics.
const SCRAPER: &str = "scraper";
/// The metrics Service's name in the cluster, the server name the
/// ServiceMonitor checks with config/prometheus/monitor_tls_patch.yaml.
const SERVICE_HOST: &str = "metricsauth-controller-manager-metrics-service.metricsauth-system.svc";
/// The kinds of config/default's output applied to the control plane.
const RBAC_KINDS: &[&str] = &[
    "Namespace",
    "ServiceAccount",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
];

/// One row of the printed matrix.
struct Row {
    request: &'static str,
    expected: &'static str,
    got: String,
}

/// What curl saw: the HTTP status (`000` when nothing came back), the HTTP
/// version and the body.
struct Answer {
    status: String,
    version: String,
    body: String,
}

/// `curl` against `url` with `extra` arguments; never fails.
fn curl(url: &str, extra: &[&str]) -> Answer {
    let out = Command::new("curl")
        .args([
            "-s",
            "--max-time",
            "10",
            "-o",
            "-",
            "-w",
            "\n%{http_code} %{http_version}",
        ])
        .args(extra)
        .arg(url)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, last) = text.rsplit_once('\n').unwrap_or(("", &text));
    let mut fields = last.split_whitespace();
    Answer {
        status: fields.next().unwrap_or("000").to_string(),
        version: fields.next().unwrap_or("0").to_string(),
        body: body.to_string(),
    }
}

/// HTTPS to `port` with `token` (if any), certificate not verified.
fn https(port: u16, token: Option<&str>, extra: &[&str]) -> Answer {
    let header = token.map(|t| format!("Authorization: Bearer {t}"));
    let mut args = vec!["-k"];
    if let Some(header) = &header {
        args.extend(["-H", header]);
    }
    args.extend(extra);
    curl(&format!("https://127.0.0.1:{port}/metrics"), &args)
}

/// What config/prometheus/monitor.yaml has Prometheus send: HTTPS with
/// the ServiceAccount token as bearer token, certificate not verified.
fn assert_monitor_sends_what_the_matrix_sends(dir: &Path) {
    let monitor = std::fs::read_to_string(dir.join("config/prometheus/monitor.yaml")).unwrap();
    for line in [
        "scheme: https",
        "bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token",
        "insecureSkipVerify: true",
    ] {
        assert!(
            monitor.contains(line),
            "no `{line}` in monitor.yaml:\n{monitor}"
        );
    }
}

/// A scrape as with config/prometheus/monitor_tls_patch.yaml: the server's
/// certificate verified against `ca` for the Service's name.
fn verified_scrape(port: u16, ca: &Path, token: &str) -> Answer {
    let resolve = format!("{SERVICE_HOST}:{port}:127.0.0.1");
    let header = format!("Authorization: Bearer {token}");
    let ca = ca.to_string_lossy();
    let args = ["--cacert", &ca, "--resolve", &resolve, "-H", &header];
    curl(&format!("https://{SERVICE_HOST}:{port}/metrics"), &args)
}

/// Whether `body` is the manager's metrics in the Prometheus text format
/// (a manager without controllers may have no family yet, but its
/// exposition still ends with `# EOF`).
fn is_metrics(body: &str) -> bool {
    body.lines()
        .any(|line| line.starts_with("# TYPE ") || line == "# EOF")
}

/// Scaffolds the project (init only: the metrics server is the manager's).
fn scaffold(dir: &Path) {
    kb_ok(
        dir,
        &words(&format!(
            "init --plugins rust/v1-alpha --domain example.com --project-name {PROJECT}"
        )),
    );
}

/// Applies the RBAC objects (and the namespace) of config/default's output.
fn apply_shipped_rbac(dir: &Path, env: &Env) {
    let yaml = env.run(dir, "kubectl", &["kustomize", "config/default"]);
    let wanted: Vec<&str> = yaml
        .split("\n---\n")
        .filter(|doc| {
            doc.lines().any(|line| {
                RBAC_KINDS
                    .iter()
                    .any(|kind| line == format!("kind: {kind}"))
            })
        })
        .collect();
    assert!(
        wanted
            .iter()
            .any(|doc| doc.contains("name: metricsauth-metrics-auth-rolebinding")),
        "no metrics auth binding in config/default:\n{yaml}"
    );
    let file = dir.join("rbac.yaml");
    std::fs::write(&file, wanted.join("\n---\n")).unwrap();
    env.run(dir, "kubectl", &["apply", "-f", &file.to_string_lossy()]);
}

/// A kubeconfig for the API server of `env` that authenticates with a
/// token of the ServiceAccount `sa`.
fn service_account_kubeconfig(dir: &Path, env: &Env, sa: &str) -> PathBuf {
    let token = token(dir, env, sa);
    let path = dir.join(format!("{sa}.kubeconfig"));
    std::fs::copy(&env.kubeconfig, &path).unwrap();
    let cluster = env.run(
        dir,
        "kubectl",
        &["config", "view", "-o", "jsonpath={.clusters[0].name}"],
    );
    let config = path.to_string_lossy().into_owned();
    for args in [
        vec!["config", "set-credentials", sa, &format!("--token={token}")],
        vec![
            "config",
            "set-context",
            sa,
            &format!("--cluster={cluster}"),
            &format!("--user={sa}"),
        ],
        vec!["config", "use-context", sa],
    ] {
        let mut all = vec!["--kubeconfig", config.as_str()];
        all.extend(args);
        env.run(dir, "kubectl", &all);
    }
    let me = env.run(
        dir,
        "kubectl",
        &[
            "--kubeconfig",
            &config,
            "auth",
            "whoami",
            "-o",
            "jsonpath={.status.userInfo.username}",
        ],
    );
    assert_eq!(me, format!("system:serviceaccount:{NAMESPACE}:{sa}"));
    path
}

/// A fresh token of the ServiceAccount `sa`.
fn token(dir: &Path, env: &Env, sa: &str) -> String {
    env.run(dir, "kubectl", &["create", "token", sa, "-n", NAMESPACE])
        .trim()
        .to_string()
}

/// The manager run as the controller-manager ServiceAccount, its metrics on
/// `port` with `args`; waits until the port answers.
struct Manager {
    _process: common::cluster::Background,
    log: PathBuf,
}

impl Manager {
    fn start(binary: &Path, sa_env: &Env, port: u16, args: &[&str], log: PathBuf) -> Self {
        let bind = format!("--metrics-bind-address=127.0.0.1:{port}");
        let mut all = vec![bind.as_str(), "--health-probe-bind-address=0"];
        all.extend(args);
        let process = start_manager(sa_env, binary, &all, &log);
        wait_until(
            &format!("the metrics port {port}"),
            Duration::from_secs(30),
            || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
        );
        Self {
            _process: process,
            log,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Binds the project's metrics-reader ClusterRole to the scraper.
fn bind_metrics_reader(dir: &Path, env: &Env) {
    let binding = format!("--serviceaccount={NAMESPACE}:{SCRAPER}");
    let role = format!("--clusterrole={READER_ROLE}");
    let args = [
        "create",
        "clusterrolebinding",
        "scraper-metrics",
        &role,
        &binding,
    ];
    env.run(dir, "kubectl", &args);
}

/// A fingerprint's start, for the matrix (`first`, `second` rows).
fn short(fingerprint: &str) -> String {
    let hex = fingerprint
        .split_once('=')
        .map_or(fingerprint, |(_, hex)| hex);
    format!("{}…", hex.get(..23).unwrap_or(hex))
}

/// Writes a new self-signed certificate for `name` into `dir` (tls.crt,
/// tls.key) and returns its SHA-256 fingerprint.
fn write_certificate(dir: &Path, name: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let (cert, key) = (dir.join("tls.crt.new"), dir.join("tls.key.new"));
    let status = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "1",
        ])
        .args([
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            &format!("subjectAltName=IP:127.0.0.1,DNS:{SERVICE_HOST}"),
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    // Key first, then the certificate: the pair is complete when the newer
    // file lands.
    std::fs::rename(&key, dir.join("tls.key")).unwrap();
    std::fs::rename(&cert, dir.join("tls.crt")).unwrap();
    fingerprint_of_file(&dir.join("tls.crt"))
}

/// The SHA-256 fingerprint of the PEM certificate in `path`.
fn fingerprint_of_file(path: &Path) -> String {
    let out = Command::new("openssl")
        .args(["x509", "-noout", "-fingerprint", "-sha256", "-in"])
        .arg(path)
        .output()
        .expect("openssl runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The SHA-256 fingerprint of the certificate served on `port`.
fn served_fingerprint(port: u16) -> String {
    let shell = format!(
        "openssl s_client -connect 127.0.0.1:{port} </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256"
    );
    let out = Command::new("sh")
        .args(["-c", &shell])
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Records a row of the matrix; on failure prints the matrix so far and
/// panics with `detail`.
fn check(
    rows: &mut Vec<Row>,
    request: &'static str,
    expected: &'static str,
    got: String,
    ok: bool,
    detail: &str,
) {
    rows.push(Row {
        request,
        expected,
        got: got.clone(),
    });
    if !ok {
        print_matrix(rows);
        panic!("{request}: expected {expected}, got {got}\n{detail}");
    }
}

fn print_matrix(rows: &[Row]) {
    eprintln!("    metrics endpoint matrix:");
    for row in rows {
        eprintln!(
            "      {:<62} expected {:<34} got {}",
            row.request, row.expected, row.got
        );
    }
}

#[test]
#[ignore = "needs cargo, crates.io, curl, openssl and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn metrics_are_served_over_https_to_authorized_scrapers_only() {
    let started = Instant::now();
    let dir = persistent_project_dir(PROJECT);
    let offline = rust_env(None);
    step("scaffold: init --plugins rust/v1-alpha", || scaffold(&dir));
    assert_monitor_sends_what_the_matrix_sends(&dir);
    let binary = step("cargo build --bin manager", || {
        build_manager(&offline, &dir)
    });

    let plane = step("control-plane up", ControlPlane::up);
    let env = rust_env(Some(&plane));
    step(
        "apply config/default's RBAC; a scraper ServiceAccount",
        || {
            apply_shipped_rbac(&dir, &env);
            env.run(
                &dir,
                "kubectl",
                &["create", "serviceaccount", SCRAPER, "-n", NAMESPACE],
            );
        },
    );
    let manager_env = Env {
        kubeconfig: service_account_kubeconfig(&dir, &env, MANAGER_SA),
        path: env.path.clone(),
    };
    let mut rows = Vec::new();

    let port = free_port();
    let manager = step(
        "the manager with --metrics-secure (default), self-signed",
        || Manager::start(&binary, &manager_env, port, &[], dir.join("secure.log")),
    );
    step(
        "plain HTTP, no token, bad token, without and with metrics-reader",
        || {
            let plain = curl(&format!("http://127.0.0.1:{port}/metrics"), &[]);
            check(
                &mut rows,
                "secure port, plain HTTP",
                "400 or 000, no metrics",
                plain.status.clone(),
                (plain.status == "400" || plain.status == "000") && !is_metrics(&plain.body),
                &plain.body,
            );
            let none = https(port, None, &[]);
            check(
                &mut rows,
                "HTTPS, no token",
                "401",
                none.status.clone(),
                none.status == "401",
                &none.body,
            );
            let bad = https(port, Some("not-a-token"), &[]);
            check(
                &mut rows,
                "HTTPS, bad token",
                "401",
                bad.status.clone(),
                bad.status == "401",
                &bad.body,
            );
            let unbound = token(&dir, &env, SCRAPER);
            let refused = https(port, Some(&unbound), &[]);
            check(
                &mut rows,
                "HTTPS, ServiceAccount token without metrics-reader",
                "403",
                refused.status.clone(),
                refused.status == "403",
                &refused.body,
            );
            bind_metrics_reader(&dir, &env);
            let allowed_token = token(&dir, &env, SCRAPER);
            let allowed = https(port, Some(&allowed_token), &[]);
            check(
                &mut rows,
                "HTTPS, ServiceAccount token bound to metrics-reader",
                "200 + metrics",
                allowed.status.clone(),
                allowed.status == "200" && is_metrics(&allowed.body),
                &allowed.body,
            );
            let h2 = https(port, Some(&allowed_token), &["--http2"]);
            check(
                &mut rows,
                "same token, HTTP/2 asked (no --enable-http2)",
                "200 over HTTP/1.1",
                format!("{} over HTTP/{}", h2.status, h2.version),
                h2.status == "200" && h2.version == "1.1",
                &h2.body,
            );
            env.run(
                &dir,
                "kubectl",
                &["delete", "clusterrolebinding", "scraper-metrics"],
            );
            let cached = https(port, Some(&allowed_token), &[]);
            check(
                &mut rows,
                "binding deleted: the same token (cached answer)",
                "200",
                cached.status.clone(),
                cached.status == "200",
                &cached.body,
            );
            let fresh = https(port, Some(&token(&dir, &env, SCRAPER)), &[]);
            check(
                &mut rows,
                "binding deleted: a fresh token of the same ServiceAccount",
                "403",
                fresh.status.clone(),
                fresh.status == "403",
                &fresh.body,
            );
            assert!(!manager.log().contains("panicked"), "{}", manager.log());
        },
    );
    drop(manager);

    let port = free_port();
    step("--metrics-secure=false: plain HTTP without a token", || {
        let _manager = Manager::start(
            &binary,
            &manager_env,
            port,
            &["--metrics-secure=false"],
            dir.join("insecure.log"),
        );
        let plain = curl(&format!("http://127.0.0.1:{port}/metrics"), &[]);
        check(
            &mut rows,
            "--metrics-secure=false, plain HTTP, no token",
            "200 + metrics",
            plain.status.clone(),
            plain.status == "200" && is_metrics(&plain.body),
            &plain.body,
        );
    });

    let port = free_port();
    let certs = dir.join("metrics-certs");
    let first = write_certificate(&certs, "first");
    step(
        "--enable-http2 with --metrics-cert-path: h2, then the files replaced",
        || {
            let cert_path = format!("--metrics-cert-path={}", certs.display());
            let manager = Manager::start(
                &binary,
                &manager_env,
                port,
                &["--enable-http2", &cert_path],
                dir.join("http2.log"),
            );
            let none = https(port, None, &["--http2"]);
            check(
                &mut rows,
                "--enable-http2, HTTP/2 asked, no token",
                "401 over HTTP/2",
                format!("{} over HTTP/{}", none.status, none.version),
                none.status == "401" && none.version == "2",
                &none.body,
            );
            bind_metrics_reader(&dir, &env);
            let allowed = https(port, Some(&token(&dir, &env, SCRAPER)), &["--http2"]);
            check(
                &mut rows,
                "--enable-http2, HTTP/2 asked, metrics-reader token",
                "200 + metrics over HTTP/2",
                format!("{} over HTTP/{}", allowed.status, allowed.version),
                allowed.status == "200" && allowed.version == "2" && is_metrics(&allowed.body),
                &allowed.body,
            );
            let verified =
                verified_scrape(port, &certs.join("tls.crt"), &token(&dir, &env, SCRAPER));
            check(
                &mut rows,
                "as monitor_tls_patch.yaml: CA + serverName verified, token",
                "200 + metrics",
                verified.status.clone(),
                verified.status == "200" && is_metrics(&verified.body),
                &verified.body,
            );
            let served = served_fingerprint(port);
            check(
                &mut rows,
                "--metrics-cert-path: the files' certificate served",
                "first",
                short(&served),
                served == first,
                &first,
            );
            std::thread::sleep(Duration::from_millis(1100));
            let second = write_certificate(&certs, "second");
            assert_ne!(first, second);
            let mut now_served = String::new();
            wait_until(
                "the replaced certificate to be served",
                Duration::from_secs(20),
                || {
                    now_served = served_fingerprint(port);
                    now_served == second
                },
            );
            check(
                &mut rows,
                "certificate files replaced: served without restart",
                "second",
                short(&now_served),
                now_served == second,
                &manager.log(),
            );
        },
    );

    step(
        "a missing certificate file stops the start, naming it",
        || {
            let missing = dir.join("no-such-dir");
            let out = Command::new(&binary)
                .args([
                    "--metrics-bind-address=127.0.0.1:0",
                    "--health-probe-bind-address=0",
                ])
                .arg(format!("--metrics-cert-path={}", missing.display()))
                .env("KUBECONFIG", &manager_env.kubeconfig)
                .output()
                .expect("the manager runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let named = missing.join("tls.crt").display().to_string();
            let naming = stderr.lines().filter(|l| l.contains(&named)).count();
            check(
                &mut rows,
                "--metrics-cert-path to a missing directory",
                "exit 1, one line naming tls.crt",
                format!("exit {:?}, {naming} line(s)", out.status.code()),
                !out.status.success() && naming == 1 && !stderr.contains("panicked"),
                &stderr,
            );
        },
    );
    print_matrix(&rows);
    eprintln!("total {:.1}s", started.elapsed().as_secs_f64());
}
