//! Tests for `tests/support/control-plane`, the script that builds etcd,
//! kube-apiserver, kube-controller-manager and kubectl from source and runs
//! them as a real control plane for envtest and for `make install/run/deploy`
//! checks.
//!
//! They need Go and a Go module proxy (the first `assets` call builds for a
//! long time), so they are ignored by default. Run them with:
//!
//! ```text
//! cargo test --test testsuite -- --ignored --test-threads=1 suite::control_plane::
//! ```

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// Long enough for a first build from an empty Go cache on a small machine.
const ASSETS_TIMEOUT: Duration = Duration::from_secs(2 * 60 * 60);
/// `up` waits at most 60 s for readiness itself; leave room for cert generation.
const UP_TIMEOUT: Duration = Duration::from_secs(120);
const SHORT_TIMEOUT: Duration = Duration::from_secs(60);

/// Environment variables of the script that a developer's shell might have
/// set; each test starts from the defaults.
const SCRIPT_ENV: &[&str] = &[
    "CONTROL_PLANE_APISERVER_PORT",
    "CONTROL_PLANE_ETCD_PORT",
    "CONTROL_PLANE_CONTROLLER_MANAGER_PORT",
    "CONTROL_PLANE_START_TIMEOUT",
    "CONTROL_PLANE_STOP_TIMEOUT",
];

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script() -> PathBuf {
    repo_root().join("tests/support/control-plane")
}

/// The `kubernetes` and `etcd` versions that the script is meant to build.
fn wanted_versions() -> (String, String) {
    let path = repo_root().join("scaffolds/go/v4/versions.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let value = |key: &str| -> String {
        text.lines()
            .filter_map(|line| line.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().trim_matches('"').to_string())
            .unwrap_or_else(|| panic!("no `{key}` in {}", path.display()))
    };
    let kubernetes = value("kubernetes").trim_start_matches('v').to_string();
    let etcd = value("etcd").trim_start_matches('v').to_string();
    (kubernetes, etcd)
}

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// Runs `cmd` to completion with captured output, failing the test if it has
/// not finished within `timeout` or if its output pipes stay open after it
/// exited (which is what happens when a daemon it started keeps them).
fn run(mut cmd: Command, timeout: Duration) -> Run {
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {shown}: {e}"));

    let (tx, rx) = mpsc::channel();
    for (name, mut pipe) in [
        (
            "stdout",
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        ),
        ("stderr", Box::new(child.stderr.take().unwrap())),
    ] {
        let tx = tx.clone();
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            let _ = tx.send((name, String::from_utf8_lossy(&buf).into_owned()));
        });
    }
    drop(tx);

    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for child") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{shown} did not finish within {timeout:?}");
        }
        thread::sleep(Duration::from_millis(50));
    };

    let (mut stdout, mut stderr) = (String::new(), String::new());
    for _ in 0..2 {
        let (name, text) = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| {
                panic!("{shown} exited but its output pipes are still held open by another process")
            });
        if name == "stdout" {
            stdout = text;
        } else {
            stderr = text;
        }
    }
    Run {
        status,
        stdout,
        stderr,
    }
}

fn control_plane(args: &[&str]) -> Command {
    let mut cmd = Command::new(script());
    cmd.args(args);
    for var in SCRIPT_ENV {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs `control-plane assets` and returns the directory it printed.
fn assets() -> PathBuf {
    let out = run(control_plane(&["assets"]), ASSETS_TIMEOUT);
    assert!(out.status.success(), "assets failed\n{}", out.describe());
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "assets must print exactly one line on stdout\n{}",
        out.describe()
    );
    let dir = PathBuf::from(lines[0]);
    assert!(dir.is_absolute(), "not an absolute path: {}", dir.display());
    assert!(dir.is_dir(), "not a directory: {}", dir.display());
    dir
}

/// A control plane started by `up`; dropping it runs `down`, so processes
/// are stopped even when an assertion fails half-way.
struct ControlPlane {
    dir: TempDir,
}

impl ControlPlane {
    fn up() -> ControlPlane {
        let dir = TempDir::new().expect("temp dir");
        let cp = ControlPlane { dir };
        let out = run(control_plane(&["up", cp.path_str()]), UP_TIMEOUT);
        assert!(out.status.success(), "up failed\n{}", out.describe());
        cp
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn path_str(&self) -> &str {
        self.dir.path().to_str().expect("utf-8 temp path")
    }

    fn kubeconfig(&self) -> PathBuf {
        self.path().join("kubeconfig")
    }

    /// A value from DIR/control-plane.env, which `up` writes.
    fn env_value(&self, key: &str) -> String {
        let path = self.path().join("control-plane.env");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        text.lines()
            .find_map(|line| line.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("no {key} in {}:\n{text}", path.display()))
            .to_string()
    }

    fn pid(&self, name: &str) -> u32 {
        let path = self.path().join(format!("{name}.pid"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        text.trim()
            .parse()
            .unwrap_or_else(|e| panic!("bad pid in {}: {text:?}: {e}", path.display()))
    }

    fn down(&self) -> Run {
        run(control_plane(&["down", self.path_str()]), SHORT_TIMEOUT)
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        let _ = self.down();
    }
}

/// Runs the freshly built kubectl against the control plane.
fn kubectl(assets: &Path, cp: &ControlPlane, args: &[&str]) -> Run {
    let mut cmd = Command::new(assets.join("kubectl"));
    cmd.arg("--kubeconfig").arg(cp.kubeconfig()).args(args);
    run(cmd, SHORT_TIMEOUT)
}

/// True while `pid` names a process that has not exited (zombies count as
/// exited: they only wait for their parent to collect them).
fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next());
            state != Some("Z")
        }
        Err(_) => false,
    }
}

fn listening(port: u16) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok()
}

#[test]
#[ignore = "needs the control-plane binaries; run by the README's test command"]
fn assets_builds_the_binaries_once_with_the_pinned_versions() {
    let (kubernetes, etcd) = wanted_versions();
    let dir = assets();

    // setup-envtest's layout: <bin-dir>/k8s/<version>-<os>-<arch>.
    let name = dir.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with(&format!("{kubernetes}-linux-")),
        "unexpected assets dir name: {}",
        dir.display()
    );
    assert_eq!(
        dir.parent().unwrap().file_name().unwrap(),
        "k8s",
        "assets dir must sit in a `k8s` directory: {}",
        dir.display()
    );

    for bin in [
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kubectl",
    ] {
        assert!(
            dir.join(bin).is_file(),
            "{bin} missing in {}",
            dir.display()
        );
    }

    let version = |bin: &str, args: &[&str]| {
        let mut cmd = Command::new(dir.join(bin));
        cmd.args(args);
        let out = run(cmd, SHORT_TIMEOUT);
        assert!(out.status.success(), "{bin} {args:?}\n{}", out.describe());
        out.stdout
    };
    let etcd_out = version("etcd", &["--version"]);
    assert!(
        etcd_out.contains(&format!("etcd Version: {etcd}\n")),
        "etcd reports {etcd_out:?}, wanted {etcd}"
    );
    let apiserver_out = version("kube-apiserver", &["--version"]);
    assert_eq!(apiserver_out.trim(), format!("Kubernetes v{kubernetes}"));
    let controller_manager_out = version("kube-controller-manager", &["--version"]);
    assert_eq!(
        controller_manager_out.trim(),
        format!("Kubernetes v{kubernetes}")
    );
    let kubectl_out = version("kubectl", &["version", "--client"]);
    assert!(
        kubectl_out.contains(&format!("Client Version: v{kubernetes}\n")),
        "kubectl reports {kubectl_out:?}, wanted v{kubernetes}"
    );

    // The second call finds the cache and must not build or even run go.
    let started = Instant::now();
    let again = assets();
    let took = started.elapsed();
    assert_eq!(again, dir);
    assert!(
        took < Duration::from_secs(1),
        "second assets call took {took:?}"
    );
}

#[test]
#[ignore = "needs the control-plane binaries; run by the README's test command"]
fn up_serves_an_rbac_cluster_and_down_stops_it() {
    let assets = assets();
    let cp = ControlPlane::up();

    let daemons: Vec<(&str, u32, u16)> = [
        ("etcd", "ETCD_PORT"),
        ("kube-apiserver", "APISERVER_PORT"),
        ("kube-controller-manager", "CONTROLLER_MANAGER_PORT"),
    ]
    .into_iter()
    .map(|(name, port)| (name, cp.pid(name), cp.env_value(port).parse().unwrap()))
    .collect();
    for &(name, pid, port) in &daemons {
        assert!(process_alive(pid), "{name} (pid {pid}) is not running");
        assert!(listening(port), "{name} port {port} not listening");
    }

    let out = kubectl(&assets, &cp, &["get", "namespaces", "-o", "name"]);
    assert!(out.status.success(), "get namespaces\n{}", out.describe());
    let namespaces: Vec<&str> = out.stdout.lines().collect();
    for ns in ["namespace/default", "namespace/kube-system"] {
        assert!(namespaces.contains(&ns), "{ns} missing in {namespaces:?}");
    }

    let out = kubectl(&assets, &cp, &["auth", "can-i", "*", "*"]);
    assert!(out.status.success(), "auth can-i\n{}", out.describe());
    assert_eq!(out.stdout.trim(), "yes");

    // RBAC is really on: a service account with no bindings may do nothing.
    let out = kubectl(
        &assets,
        &cp,
        &[
            "auth",
            "can-i",
            "list",
            "pods",
            "--as=system:serviceaccount:default:nobody",
        ],
    );
    assert_eq!(out.stdout.trim(), "no", "{}", out.describe());

    let out = cp.down();
    assert!(out.status.success(), "down failed\n{}", out.describe());
    for &(name, pid, port) in &daemons {
        assert!(!process_alive(pid), "{name} (pid {pid}) still runs");
        assert!(!listening(port), "{name} port {port} still listening");
    }
    assert!(
        !cp.path().join("etcd-data").exists(),
        "etcd data left behind"
    );
    assert!(!cp.path().join("etcd.pid").exists(), "pid file left behind");
}

/// Polls `check` every half second until it holds, failing the test when
/// `limit` passes first.
fn eventually(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(
            started.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}"
        );
        thread::sleep(Duration::from_millis(500));
    }
}

/// Namespace of the objects `up_runs_the_controllers_a_cluster_needs` makes.
const TEST_NAMESPACE: &str = "controllers-test";

/// A Deployment whose Pod can never run (there is no node) and a ConfigMap
/// that is made the owner of another one.
const OBJECTS: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: controllers-test
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: registry.k8s.io/pause:3.10
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: owner
  namespace: controllers-test
";

#[test]
#[ignore = "needs the control-plane binaries; run by the README's test command"]
fn up_runs_the_controllers_a_cluster_needs() {
    let assets = assets();
    let cp = ControlPlane::up();
    let ok = |args: &[&str]| {
        let out = kubectl(&assets, &cp, args);
        assert!(out.status.success(), "kubectl {args:?}\n{}", out.describe());
        out.stdout
    };
    let exists = |args: &[&str]| kubectl(&assets, &cp, args).status.success();
    let ns = ["-n", TEST_NAMESPACE];

    ok(&["create", "namespace", TEST_NAMESPACE]);
    eventually(
        "the service-account controller to add ServiceAccount default",
        SHORT_TIMEOUT,
        || exists(&[&["get", "serviceaccount", "default"][..], &ns].concat()),
    );
    let objects = cp.path().join("objects.yaml");
    std::fs::write(&objects, OBJECTS).unwrap();
    ok(&["apply", "-f", objects.to_str().unwrap()]);

    // Garbage collection: a ConfigMap owned by another goes when its owner does.
    let uid = ok(&[
        &[
            "get",
            "configmap",
            "owner",
            "-o",
            "jsonpath={.metadata.uid}",
        ][..],
        &ns,
    ]
    .concat());
    let dependent = cp.path().join("dependent.yaml");
    std::fs::write(
        &dependent,
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  namespace: {TEST_NAMESPACE}\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner\n    uid: {uid}\n"
        ),
    )
    .unwrap();
    ok(&["apply", "-f", dependent.to_str().unwrap()]);
    ok(&[&["delete", "configmap", "owner"][..], &ns].concat());
    eventually(
        "the garbage collector to delete the dependent ConfigMap",
        Duration::from_secs(120),
        || !exists(&[&["get", "configmap", "dependent"][..], &ns].concat()),
    );

    // The Deployment gets a ReplicaSet, and the ReplicaSet a Pod.
    let owners = |kind: &str| {
        kubectl(
            &assets,
            &cp,
            &[
                &["get", kind, "-l", "app=web"][..],
                &ns,
                &[
                    "-o",
                    "jsonpath={.items[*].metadata.ownerReferences[*].kind}",
                ],
            ]
            .concat(),
        )
        .stdout
    };
    eventually(
        "a ReplicaSet owned by the Deployment",
        SHORT_TIMEOUT,
        || owners("replicasets") == "Deployment",
    );
    eventually("a Pod owned by the ReplicaSet", SHORT_TIMEOUT, || {
        owners("pods") == "ReplicaSet"
    });

    // A deleted namespace is emptied and finalized.
    ok(&["delete", "namespace", TEST_NAMESPACE, "--wait=false"]);
    eventually(
        "the namespace controller to remove the deleted namespace",
        Duration::from_secs(120),
        || !exists(&["get", "namespace", TEST_NAMESPACE]),
    );
}

#[test]
#[ignore = "needs the control-plane binaries; run by the README's test command"]
fn up_without_assets_says_to_run_assets() {
    let empty_cache = TempDir::new().unwrap();
    let dir = TempDir::new().unwrap();
    let mut cmd = control_plane(&["up", dir.path().to_str().unwrap()]);
    cmd.env("KUBEBUILDER_RS_CACHE", empty_cache.path());
    let out = run(cmd, SHORT_TIMEOUT);

    assert!(!out.status.success(), "up succeeded\n{}", out.describe());
    assert!(
        out.stderr.contains("not built") && out.stderr.contains("control-plane assets"),
        "unclear message\n{}",
        out.describe()
    );
    assert!(!dir.path().join("etcd.pid").exists());
}

#[test]
#[ignore = "needs the control-plane binaries; run by the README's test command"]
fn up_with_a_busy_port_fails_clearly() {
    assets();
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();

    for var in [
        "CONTROL_PLANE_APISERVER_PORT",
        "CONTROL_PLANE_ETCD_PORT",
        "CONTROL_PLANE_CONTROLLER_MANAGER_PORT",
    ] {
        let cp = ControlPlane {
            dir: TempDir::new().unwrap(),
        };
        let mut cmd = control_plane(&["up", cp.path_str()]);
        cmd.env(var, &port);
        let out = run(cmd, SHORT_TIMEOUT);

        assert!(
            !out.status.success(),
            "up with busy {var} succeeded\n{}",
            out.describe()
        );
        let message: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(
            message.len(),
            1,
            "want a one-line error\n{}",
            out.describe()
        );
        assert!(
            message[0].contains("already in use") && message[0].contains(&port),
            "unclear message\n{}",
            out.describe()
        );
        assert!(
            !cp.path().join("etcd.pid").exists(),
            "{var}: something was started"
        );
    }
}

#[test]
#[ignore = "needs the control-plane binaries; run by the README's test command"]
fn down_without_a_control_plane_is_a_no_op() {
    let dir = TempDir::new().unwrap();
    let out = run(
        control_plane(&["down", dir.path().to_str().unwrap()]),
        SHORT_TIMEOUT,
    );
    assert!(out.status.success(), "down failed\n{}", out.describe());

    let missing = dir.path().join("never-created");
    let out = run(
        control_plane(&["down", missing.to_str().unwrap()]),
        SHORT_TIMEOUT,
    );
    assert!(out.status.success(), "down failed\n{}", out.describe());
}
