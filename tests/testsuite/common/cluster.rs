//! A test control plane (`tests/support/control-plane up`) and what the
//! slow tests do with it: run commands against it, wait for objects, run a
//! process in the background, install cert-manager's CRDs.

use super::{shared_tools_bin, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// The cert-manager release whose CRDs the tests install (plain YAML in
/// the Go module's `deploy/crds/`).
const CERT_MANAGER: &str = "github.com/cert-manager/cert-manager@v1.21.2";

/// Environment shared by every command of the test: the control plane's
/// kubeconfig, its kubectl first on PATH, and the shared tools directory.
pub struct Env {
    /// The control plane's kubeconfig.
    pub kubeconfig: PathBuf,
    /// PATH with the control plane's binaries first.
    pub path: String,
}

impl Env {
    /// A command with this environment, run in `dir`.
    pub fn command(&self, dir: &Path, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(dir)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("PATH", &self.path)
            .env("LOCALBIN", shared_tools_bin());
        cmd
    }

    /// Runs a command and returns its output, panicking with the command,
    /// its output and the API server's answer when it fails.
    pub fn run(&self, dir: &Path, program: &str, args: &[&str]) -> String {
        let output = self
            .command(dir, program, args)
            .output()
            .expect("command starts");
        assert!(
            output.status.success(),
            "`{program} {}` failed ({}):\nstdout:\n{}\nstderr (the API server's answer, if any):\n{}",
            args.join(" "),
            output.status,
            stdout(&output),
            stderr(&output)
        );
        stdout(&output)
    }

    /// Runs kubectl and returns its output (success or not).
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.command(Path::new("."), "kubectl", args)
            .output()
            .expect("kubectl starts")
    }
}

/// Runs one step, printing what it checked and how long it took.
pub fn step<T>(name: &str, body: impl FnOnce() -> T) -> T {
    eprintln!("==> {name}");
    let started = Instant::now();
    let value = body();
    eprintln!("    ok: {name} ({:.1}s)", started.elapsed().as_secs_f64());
    value
}

/// Polls `check` every half second until it returns true or `limit` passes.
pub fn wait_until(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(
            started.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A control plane from `tests/support/control-plane up`, stopped on drop.
pub struct ControlPlane {
    pub dir: tempfile::TempDir,
}

impl ControlPlane {
    pub fn up() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let output = Command::new(script())
            .arg("up")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "control-plane up failed: {}",
            stderr(&output)
        );
        Self { dir }
    }

    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// Stops the control plane; returns whether `down` succeeded.
    pub fn down(&self) -> bool {
        Command::new(script())
            .arg("down")
            .arg(self.dir.path())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The API server's port, from the file `up` writes.
    pub fn apiserver_port(&self) -> u16 {
        let env = std::fs::read_to_string(self.dir.path().join("control-plane.env")).unwrap();
        env.lines()
            .find_map(|line| line.strip_prefix("APISERVER_PORT="))
            .and_then(|port| port.trim().parse().ok())
            .expect("APISERVER_PORT in control-plane.env")
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        self.down();
    }
}

/// A process group started in the background, interrupted on drop.
pub struct Background {
    pub child: Child,
    /// Where its standard output and error go.
    pub log: PathBuf,
}

impl Background {
    /// Starts `command` in a process group of its own, with its standard
    /// output and error both written to a new file at `log_path`.
    pub fn logged(command: &mut Command, log_path: &Path) -> Self {
        use std::os::unix::process::CommandExt as _;
        let log = std::fs::File::create(log_path).unwrap();
        let child = command
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        Self {
            child,
            log: log_path.to_path_buf(),
        }
    }

    /// Waits up to `limit` until `check` holds, as [`wait_until`] does, and
    /// fails with what the process wrote as soon as it has exited, or at the
    /// limit.
    pub fn wait_until(&mut self, what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
        let started = Instant::now();
        while !check() {
            let exited = self.child.try_wait().unwrap();
            let log = || std::fs::read_to_string(&self.log).unwrap_or_default();
            assert!(
                exited.is_none(),
                "waiting for {what}, the process exited ({exited:?}); its output:\n{}",
                log()
            );
            assert!(
                started.elapsed() < limit,
                "timed out after {limit:?} waiting for {what}; the process's output:\n{}",
                log()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Sends SIGINT to the whole group and waits up to `limit` for the exit.
    pub fn interrupt(&mut self, limit: Duration) -> bool {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-INT", "--", &group]).status();
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        false
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        if !self.interrupt(Duration::from_secs(10)) {
            let group = format!("-{}", self.child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = self.child.wait();
        }
    }
}

/// The control-plane script of this repository.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/control-plane")
}

/// The directory of the control-plane binaries (KUBEBUILDER_ASSETS).
pub fn assets() -> PathBuf {
    PathBuf::from(
        std::env::var_os("KUBEBUILDER_ASSETS")
            .expect("KUBEBUILDER_ASSETS is not set; run through scripts/test-all"),
    )
}

/// An environment pointing at `plane`.
pub fn env_for(plane: &ControlPlane) -> Env {
    let path = format!(
        "{}:{}",
        assets().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Env {
        kubeconfig: plane.kubeconfig(),
        path,
    }
}

/// `(kind, name, namespace)` of every object in a multi-document YAML stream.
pub fn objects(yaml: &str) -> Vec<(String, String, Option<String>)> {
    yaml.split("\n---\n")
        .filter_map(|doc| serde_norway::from_str::<serde_norway::Value>(doc).ok())
        .filter_map(|value| {
            let kind = value.get("kind")?.as_str()?.to_string();
            let metadata = value.get("metadata")?;
            let name = metadata.get("name")?.as_str()?.to_string();
            let namespace = metadata
                .get("namespace")
                .and_then(|n| n.as_str())
                .map(str::to_string);
            Some((kind, name, namespace))
        })
        .collect()
}

/// Installs cert-manager's Certificate and Issuer CRDs, as that release
/// ships them in its Go module (from the module proxy), and waits until
/// they are served. No cert-manager controller runs.
pub fn install_cert_manager_crds(env: &Env) {
    let crds = go_module_dir(CERT_MANAGER).join("deploy/crds");
    for file in [
        "cert-manager.io_certificates.yaml",
        "cert-manager.io_issuers.yaml",
    ] {
        let path = crds.join(file);
        env.run(
            Path::new("."),
            "kubectl",
            &["apply", "--server-side", "-f", path.to_str().unwrap()],
        );
    }
    for crd in ["certificates.cert-manager.io", "issuers.cert-manager.io"] {
        crd_established(env, crd);
    }
}

/// The directory of a Go module version (`path@version`) in the module
/// cache, downloaded through the module proxy when missing.
pub fn go_module_dir(module: &str) -> PathBuf {
    let output = Command::new("go")
        .args(["mod", "download", "-json", module])
        .output()
        .expect("go starts");
    assert!(
        output.status.success(),
        "go mod download {module} failed: {}{}",
        stdout(&output),
        stderr(&output)
    );
    let info = stdout(&output);
    let dir = info
        .lines()
        .find_map(|line| line.trim().strip_prefix("\"Dir\": \""))
        .and_then(|rest| rest.strip_suffix("\","))
        .unwrap_or_else(|| panic!("no Dir in `go mod download -json {module}`: {info}"));
    PathBuf::from(dir)
}

/// `GET path` on localhost:`port` over plain HTTP: the status code and the
/// body, or `None` while nothing answers.
pub fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").as_bytes())
        .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let status = answer.split_whitespace().nth(1)?.parse().ok()?;
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body)?;
    Some((status, body.to_string()))
}

/// Waits until the CRD `name` is Established. (`kubectl wait` fails instead
/// of waiting while a CRD just created has no conditions yet.)
pub fn crd_established(env: &Env, name: &str) {
    let path = "jsonpath={.status.conditions[?(@.type==\"Established\")].status}";
    wait_until(
        &format!("CRD {name} Established"),
        Duration::from_secs(60),
        || stdout(&env.kubectl(&["get", "crd", name, "-o", path])) == "True",
    );
}

/// After a deploy: every object of `yaml` (a kustomize output that holds
/// each of `kinds`) is served, and Deployment `deployment` in `namespace`
/// runs `image`. Returns how many objects there were.
pub fn assert_deployed(
    env: &Env,
    yaml: &str,
    kinds: &[&str],
    (deployment, namespace): (&str, &str),
    image: &str,
) -> usize {
    let objects = objects(yaml);
    let present: Vec<&str> = objects.iter().map(|(k, _, _)| k.as_str()).collect();
    for kind in kinds {
        assert!(present.contains(kind), "the kustomize output has no {kind}");
    }
    for (kind, name, namespace) in &objects {
        env.run(Path::new("."), "kubectl", &get_args(kind, name, namespace));
    }
    let running = env.run(
        Path::new("."),
        "kubectl",
        &[
            "get",
            "deployment",
            deployment,
            "-n",
            namespace,
            "-o",
            "jsonpath={.spec.template.spec.containers[0].image}",
        ],
    );
    assert_eq!(running, image, "the image of Deployment {deployment}");
    objects.len()
}

/// kubectl get arguments for one object.
fn get_args<'a>(kind: &'a str, name: &'a str, namespace: &'a Option<String>) -> Vec<&'a str> {
    let mut args = vec!["get", kind, name];
    if let Some(ns) = namespace {
        args.extend(["-n", ns.as_str()]);
    }
    args
}

/// A kubeconfig whose current context names a cluster that is not the
/// test's (nothing listens there): what `KUBECONFIG` points at while a
/// project's e2e suite runs, so any use of the current context fails loudly.
pub const UNREACHABLE_KUBECONFIG: &str = "apiVersion: v1
kind: Config
clusters:
- name: production
  cluster:
    server: https://127.0.0.1:9
contexts:
- name: production
  context:
    cluster: production
    user: admin
current-context: production
users:
- name: admin
  user:
    token: not-a-token
";

/// The lock every test takes while a manager runs on this machine with the
/// ports its flags default to (health probes 8081, webhooks 9443), as `make
/// run` and `make run-with-webhooks` start it: the lanes run at once, and
/// two such managers cannot both listen.
pub fn default_ports_lock() -> super::FileLock {
    let tools = super::shared_tools_bin();
    let locks = tools.with_file_name("locks");
    std::fs::create_dir_all(&locks).expect("create the locks dir");
    super::FileLock::take(&locks.join("manager-default-ports.lock"))
}
