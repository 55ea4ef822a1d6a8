//! A rust/v1-alpha manager's life on the test control plane: leader
//! election and shutdown. One project (init + one kind with a controller)
//! whose reconcile is edited to log when it starts and ends and, when the
//! object's `test/sleep` annotation says so, to sleep that many seconds or
//! forever. Its manager is built once and run several times:
//! (a) two replicas with `--leader-elect`: exactly one reconciles; SIGTERM
//!     to the leader during a long reconcile: the standby's first reconcile
//!     starts after the leader's last one ended and within 5 s of it (the
//!     takeover time is printed);
//! (b) the Lease taken away by hand: the leader exits non-zero before its
//!     Lease could expire;
//! (c) the API server unreachable for the leader only (its kubeconfig goes
//!     through a TCP proxy the test stops): it exits non-zero before its
//!     Lease could expire, and the other replica takes over;
//! (d) a reconcile that never returns: SIGTERM makes /readyz fail and the
//!     manager exit non-zero after --graceful-shutdown-timeout naming the
//!     controller, without releasing the Lease; a second signal exits at once;
//! (e) start-up failures (kubeconfig missing, API server unreachable, bad or
//!     taken probe address) end it with one line naming the culprit.
//!
//! Needs cargo and the control-plane binaries (KUBEBUILDER_ASSETS). Run by
//! `scripts/test-all`.

use crate::common;
use crate::common::cluster::{Background, ControlPlane, Env, env_for, http_get, step, wait_until};
use crate::common::rust_project::{self, build_manager, rust_env, start_manager};
use crate::common::{free_port, persistent_project_dir, words};
use std::io::Write as _;
use std::net::{Shutdown as Close, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The kind's controller file, and the reconcile in it the test wraps.
const CONTROLLER: &str = "src/controller/frigate.rs";
const SCAFFOLDED_RECONCILE: &str = "pub async fn reconcile(";

/// The wrapper: logs `test-reconcile start|end <name> <unix ms>` around the
/// scaffolded reconcile, and sleeps as the `test/sleep` annotation says.
const WRAPPER: &str = r#"/// The test's reconcile: logged, and slowed down by `test/sleep`.
pub async fn reconcile(frigate: Arc<Frigate>, ctx: Arc<Context>) -> Result<Action, Error> {
    let name = frigate.name_any();
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
    eprintln!("test-reconcile start {name} {}", now());
    match frigate.annotations().get("test/sleep").map(String::as_str) {
        Some("forever") => std::future::pending::<()>().await,
        Some(seconds) => tokio::time::sleep(std::time::Duration::from_secs(seconds.parse().unwrap())).await,
        None => {}
    }
    let result = scaffolded_reconcile(frigate, ctx).await;
    eprintln!("test-reconcile end {name} {}", now());
    result
}

async fn scaffolded_reconcile("#;

/// A CRD for Frigate that keeps whatever it is given (the test needs no
/// schema, and so no `make manifests` build).
const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: frigates.ship.example.com
spec:
  group: ship.example.com
  names: {kind: Frigate, listKind: FrigateList, plural: frigates, singular: frigate}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"#;

/// What the tests know of client-go's timings (the generated leader.rs).
const LEASE_DURATION: Duration = Duration::from_secs(15);

#[test]
#[ignore = "needs cargo and the control-plane binaries; run by scripts/test-all"]
fn leader_election_and_shutdown() {
    let dir = persistent_project_dir("lifecycle");
    let binary = step(
        "scaffold the project, edit its reconcile, build the manager",
        || {
            scaffold(&dir);
            build_manager(&rust_env(None), &dir)
        },
    );
    let plane = step("control plane up", ControlPlane::up);
    let env = env_for(&plane);
    std::fs::write(dir.join("crd.yaml"), CRD).unwrap();
    env.run(&dir, "kubectl", &["apply", "-f", "crd.yaml"]);
    common::cluster::crd_established(&env, "frigates.ship.example.com");
    let lease = lease_name(&dir);
    let lab = Lab {
        env,
        dir,
        binary,
        lease,
    };

    let standby = step(
        "(a) two replicas: one reconciles; SIGTERM hands over after the last reconcile",
        || handover_after_the_last_reconcile(&lab),
    );
    step(
        "(b) the Lease taken by hand: the leader exits non-zero before it could expire",
        || taken_lease_stops_the_leader(&lab, standby),
    );
    let survivor = step(
        "(c) API server unreachable for the leader: it exits non-zero in time, the other takes over",
        || unreachable_api_server_stops_the_leader(&lab, &plane),
    );
    step(
        "(d) a reconcile that never returns: SIGTERM, graceful timeout, second signal",
        || stuck_reconcile_bounds_the_shutdown(&lab, survivor),
    );
    step(
        "(e) start-up failures name the file, flag or address at fault",
        || start_up_failures_name_the_culprit(&lab),
    );
}

/// What every scenario needs: the cluster, the project, its manager and
/// the name of its Lease.
struct Lab {
    env: Env,
    dir: PathBuf,
    binary: PathBuf,
    lease: String,
}

/// A running manager, its probe port and its log.
struct Manager {
    name: String,
    process: Background,
    probe_port: u16,
    log: PathBuf,
}

impl Lab {
    /// Starts the manager `name` with `args` (and its own probe port, no
    /// metrics), on `kubeconfig` (the control plane's by default).
    fn start(&self, name: &str, args: &[&str], kubeconfig: Option<&Path>) -> Manager {
        let probe_port = free_port();
        let probe = format!("--health-probe-bind-address=127.0.0.1:{probe_port}");
        let mut all = vec!["--metrics-bind-address=0", probe.as_str()];
        all.extend(args);
        let log = self.dir.join(format!("{name}.log"));
        let env = Env {
            kubeconfig: kubeconfig.map_or_else(|| self.env.kubeconfig.clone(), Path::to_path_buf),
            path: self.env.path.clone(),
        };
        let process = start_manager(&env, &self.binary, &all, &log);
        Manager {
            name: name.to_string(),
            process,
            probe_port,
            log,
        }
    }

    /// Creates the Frigate `name` with `annotations`.
    fn create(&self, name: &str, annotations: &[(&str, &str)]) {
        let annotations: String = annotations
            .iter()
            .map(|(key, value)| format!("\n    {key}: \"{value}\""))
            .collect();
        let yaml = format!(
            "apiVersion: ship.example.com/v1\nkind: Frigate\nmetadata:\n  name: {name}\n  namespace: default\n  annotations:{}\nspec: {{}}\n",
            if annotations.is_empty() {
                " {}".to_string()
            } else {
                annotations
            }
        );
        let file = self.dir.join(format!("{name}.yaml"));
        std::fs::write(&file, yaml).unwrap();
        self.env.run(
            &self.dir,
            "kubectl",
            &["apply", "-f", &file.to_string_lossy()],
        );
    }

    /// A copy of the control plane's kubeconfig, named `name`, whose API
    /// server is at `address` (`host:port`).
    fn kubeconfig_to(&self, name: &str, address: &str) -> PathBuf {
        let direct = std::fs::read_to_string(&self.env.kubeconfig).unwrap();
        let servers = direct.matches("server: https://").count();
        assert_eq!(servers, 1, "one API server expected in:\n{direct}");
        let moved: Vec<String> = direct
            .lines()
            .map(|line| match line.split_once("server: https://") {
                Some((indent, _)) => format!("{indent}server: https://{address}"),
                None => line.to_string(),
            })
            .collect();
        let path = self.dir.join(format!("{name}.kubeconfig"));
        std::fs::write(&path, moved.join("\n")).unwrap();
        path
    }

    /// The Lease's field at `path` (a jsonpath under `.spec`).
    fn lease_field(&self, field: &str) -> String {
        let path = format!("jsonpath={{.spec.{field}}}");
        self.env.run(
            &self.dir,
            "kubectl",
            &["get", "lease", &self.lease, "-n", "default", "-o", &path],
        )
    }

    /// Merges `spec` (JSON) into the Lease's spec.
    fn patch_lease(&self, spec: &str) {
        let patch = format!("{{\"spec\":{spec}}}");
        self.env.run(
            &self.dir,
            "kubectl",
            &[
                "patch",
                "lease",
                &self.lease,
                "-n",
                "default",
                "--type=merge",
                "-p",
                &patch,
            ],
        );
    }
}

impl Manager {
    fn text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_for(&self, needle: &str, limit: Duration) {
        wait_until(&format!("{needle:?} in {}'s log", self.name), limit, || {
            self.text().contains(needle)
        });
    }

    /// The unix-millisecond times of its reconciles' `kind` (start or end)
    /// lines for the object `object` (any with `None`).
    fn reconciles(&self, kind: &str, object: Option<&str>) -> Vec<u128> {
        self.text()
            .lines()
            .filter_map(|line| {
                line.split_once("test-reconcile ")
                    .map(|(_, rest)| words(rest))
            })
            .filter(|fields| fields.len() == 3 && fields[0] == kind)
            .filter(|fields| object.is_none_or(|object| fields[1] == object))
            .map(|fields| fields[2].parse().unwrap())
            .collect()
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill(2) on the pid of a child this test started.
        let sent = unsafe { libc::kill(self.process.child.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0, "cannot signal {}", self.name);
    }

    /// Waits up to `limit` for the exit: its status and when it happened.
    fn exit(&mut self, limit: Duration) -> (ExitStatus, Instant) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.process.child.try_wait().unwrap() {
                return (status, Instant::now());
            }
            assert!(
                started.elapsed() < limit,
                "{} still runs after {limit:?}:\n{}",
                self.name,
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn readyz(&self) -> Option<u16> {
        http_get(self.probe_port, "/readyz").map(|(status, _)| status)
    }
}

/// (a) Returns the standby, now the leader.
fn handover_after_the_last_reconcile(lab: &Lab) -> Manager {
    let mut leader = lab.start("a-leader", &["--leader-elect"], None);
    leader.wait_for("became the leader", Duration::from_secs(30));
    let standby = lab.start("a-standby", &["--leader-elect"], None);
    standby.wait_for("waiting to become the leader", Duration::from_secs(30));
    lab.create("quick", &[]);
    wait_until(
        "the leader reconciled quick",
        Duration::from_secs(30),
        || !leader.reconciles("end", Some("quick")).is_empty(),
    );
    lab.create("slow", &[("test/sleep", "6")]);
    wait_until(
        "the leader started reconciling slow",
        Duration::from_secs(30),
        || !leader.reconciles("start", Some("slow")).is_empty(),
    );
    assert!(
        standby.reconciles("start", None).is_empty(),
        "the standby reconciled while the leader held the Lease:\n{}",
        standby.text()
    );
    leader.signal(libc::SIGTERM);
    wait_until(
        "the leader's /readyz fails once it stops",
        Duration::from_secs(3),
        || leader.readyz().is_some_and(|status| status != 200),
    );
    let (status, _) = leader.exit(Duration::from_secs(30));
    assert!(
        status.success(),
        "a clean stop exits 0: {status}\n{}",
        leader.text()
    );
    wait_until("the standby reconciles", Duration::from_secs(30), || {
        !standby.reconciles("start", None).is_empty()
    });
    let last_end = *leader
        .reconciles("end", None)
        .iter()
        .max()
        .expect("the leader's reconciles ended");
    let slow_end = leader.reconciles("end", Some("slow"));
    assert!(
        !slow_end.is_empty(),
        "the leader stopped before its running reconcile ended:\n{}",
        leader.text()
    );
    let first_start = *standby.reconciles("start", None).iter().min().unwrap();
    assert!(
        first_start >= last_end,
        "the standby started reconciling at {first_start}, before the leader's last reconcile ended at {last_end}"
    );
    let takeover = Duration::from_millis((first_start - last_end) as u64);
    eprintln!(
        "    takeover after SIGTERM: {:.2}s from the leader's last reconcile end to the standby's first start",
        takeover.as_secs_f64()
    );
    assert!(
        takeover <= Duration::from_secs(5),
        "takeover took {takeover:?} (more than 5s)"
    );
    standby
}

/// (b) The Lease is given to "intruder" while `leader` holds it.
fn taken_lease_stops_the_leader(lab: &Lab, mut leader: Manager) {
    leader.wait_for("became the leader", Duration::from_secs(5));
    let renewed = parse_micro_time(&lab.lease_field("renewTime"));
    lab.patch_lease(&format!(
        "{{\"holderIdentity\":\"intruder\",\"renewTime\":\"{}\"}}",
        micro_time(SystemTime::now())
    ));
    let expiry = renewed + LEASE_DURATION;
    let (status, exited) = leader.exit(LEASE_DURATION);
    let exited_at = SystemTime::now() - exited.elapsed();
    assert!(
        !status.success(),
        "a leader that lost its Lease exits non-zero:\n{}",
        leader.text()
    );
    assert!(
        exited_at < expiry,
        "the leader exited after its Lease could have expired"
    );
    assert!(
        leader.text().contains("leader election lost"),
        "{}",
        leader.text()
    );
    // Free the Lease for the next scenario.
    lab.patch_lease("{\"holderIdentity\":null}");
}

/// (c) Returns the replica that took over (started with a 3 s graceful
/// period, for (d)).
fn unreachable_api_server_stops_the_leader(lab: &Lab, plane: &ControlPlane) -> Manager {
    let proxy = Proxy::start(plane.apiserver_port());
    let proxied = format!("127.0.0.1:{}", proxy.port);
    let kubeconfig = lab.kubeconfig_to("through-proxy", &proxied);
    let mut leader = lab.start("c-leader", &["--leader-elect"], Some(&kubeconfig));
    leader.wait_for("became the leader", Duration::from_secs(30));
    let other = lab.start(
        "c-other",
        &["--leader-elect", "--graceful-shutdown-timeout=3s"],
        None,
    );
    other.wait_for("waiting to become the leader", Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(3)); // a renewal or two through the proxy
    let renewed = parse_micro_time(&lab.lease_field("renewTime"));
    proxy.cut();
    let (status, exited) = leader.exit(LEASE_DURATION + Duration::from_secs(5));
    let exited_at = SystemTime::now() - exited.elapsed();
    assert!(
        !status.success(),
        "a leader that cannot renew exits non-zero:\n{}",
        leader.text()
    );
    assert!(
        leader.text().contains("leader election lost"),
        "{}",
        leader.text()
    );
    let expiry = renewed + LEASE_DURATION;
    assert!(
        exited_at < expiry,
        "the leader exited {:?} after its Lease could have expired",
        exited_at.duration_since(expiry).unwrap_or_default()
    );
    other.wait_for(
        "became the leader",
        LEASE_DURATION + Duration::from_secs(10),
    );
    wait_until(
        "the other replica reconciles",
        Duration::from_secs(30),
        || !other.reconciles("start", None).is_empty(),
    );
    let first_start = *other.reconciles("start", None).iter().min().unwrap();
    assert!(
        first_start >= unix_millis(exited_at),
        "the other replica reconciled before the leader exited"
    );
    other
}

/// (d) `leader` (3 s graceful period) gets a reconcile that never returns.
fn stuck_reconcile_bounds_the_shutdown(lab: &Lab, mut leader: Manager) {
    lab.create("stuck", &[("test/sleep", "forever")]);
    wait_until(
        "the leader started reconciling stuck",
        Duration::from_secs(30),
        || !leader.reconciles("start", Some("stuck")).is_empty(),
    );
    leader.signal(libc::SIGTERM);
    let signalled = Instant::now();
    wait_until(
        "/readyz fails after the first signal",
        Duration::from_secs(2),
        || leader.readyz().is_some_and(|status| status != 200),
    );
    let (status, exited) = leader.exit(Duration::from_secs(15));
    let took = exited - signalled;
    let text = leader.text();
    assert!(
        !status.success(),
        "a graceful period run out exits non-zero:\n{text}"
    );
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(6),
        "exited {took:?} after SIGTERM"
    );
    // The last log line; the frames of its stack trace (an error, in
    // development) are tab-indented lines after it.
    let last = text
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty() && !line.starts_with('\t'))
        .unwrap_or_default();
    assert!(
        last.contains("graceful shutdown timed out") && last.contains("\"frigate\""),
        "the last line names the controller still running: {last}"
    );
    assert!(
        !text.contains("released the leader Lease"),
        "the Lease was released with a reconcile running:\n{text}"
    );

    let mut second = lab.start(
        "d-second-signal",
        &["--graceful-shutdown-timeout=60s"],
        None,
    );
    wait_until(
        "the manager reconciles stuck",
        Duration::from_secs(30),
        || !second.reconciles("start", Some("stuck")).is_empty(),
    );
    assert_eq!(second.readyz(), Some(200), "ready before the signal");
    second.signal(libc::SIGTERM);
    wait_until(
        "/readyz fails after the first signal",
        Duration::from_secs(2),
        || second.readyz().is_some_and(|status| status != 200),
    );
    assert!(
        second.process.child.try_wait().unwrap().is_none(),
        "the first signal waits for the reconcile"
    );
    let again = Instant::now();
    second.signal(libc::SIGTERM);
    let (status, exited) = second.exit(Duration::from_secs(5));
    assert!(
        !status.success(),
        "a second signal exits non-zero:\n{}",
        second.text()
    );
    assert!(
        exited - again < Duration::from_secs(1),
        "a second signal exits at once, not after {:?}",
        exited - again
    );
}

/// (e) Each start-up failure ends the manager with status 1 and one line
/// (its last) naming what is at fault.
fn start_up_failures_name_the_culprit(lab: &Lab) {
    let fails = |kubeconfig: &Path, args: &[&str], needles: &[&str]| {
        let output = std::process::Command::new(&lab.binary)
            .arg("--metrics-bind-address=0")
            .args(args)
            .env("KUBECONFIG", kubeconfig)
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}:\n{text}");
        let last = text.lines().last().unwrap_or_default();
        for needle in needles {
            assert!(
                last.contains(needle),
                "{needle:?} not in the last line of {args:?}:\n{text}"
            );
        }
    };
    let missing = lab.dir.join("missing.kubeconfig");
    fails(&missing, &[], &["KUBECONFIG=", "missing.kubeconfig"]);
    let closed = format!("127.0.0.1:{}", free_port());
    let nowhere = lab.kubeconfig_to("nowhere", &closed);
    fails(
        &nowhere,
        &[],
        &["cannot reach", &closed, "nowhere.kubeconfig"],
    );
    let kubeconfig = &lab.env.kubeconfig;
    let bad = ["--health-probe-bind-address=8081"];
    fails(
        kubeconfig,
        &bad,
        &["--health-probe-bind-address", "\"8081\""],
    );
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let flag = format!("--health-probe-bind-address={address}");
    fails(
        kubeconfig,
        &[flag.as_str()],
        &["--health-probe-bind-address", &address],
    );
}

/// Scaffolds the project and wraps its reconcile (see [`WRAPPER`]).
fn scaffold(dir: &Path) {
    rust_project::scaffold(
        dir,
        &["create api --group ship --version v1 --kind Frigate --resource --controller"],
    );
    let path = dir.join(CONTROLLER);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.matches(SCAFFOLDED_RECONCILE).count(),
        1,
        "unexpected controller:\n{text}"
    );
    std::fs::write(&path, text.replace(SCAFFOLDED_RECONCILE, WRAPPER)).unwrap();
}

/// The Lease name the project's main.rs gives leader election.
fn lease_name(dir: &Path) -> String {
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    main.lines()
        .find_map(|line| line.strip_prefix("const LEADER_ELECTION_ID: &str = \""))
        .and_then(|rest| rest.strip_suffix("\";"))
        .expect("LEADER_ELECTION_ID in src/main.rs")
        .to_string()
}

fn unix_millis(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH).unwrap().as_millis()
}

/// A Lease MicroTime (`2026-01-02T03:04:05.678901Z`) for `time`.
fn micro_time(time: SystemTime) -> String {
    let output = std::process::Command::new("date")
        .args([
            "-u",
            "-d",
            &format!(
                "@{:.6}",
                time.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
            ),
            "+%Y-%m-%dT%H:%M:%S.%6NZ",
        ])
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// The time a Lease MicroTime names.
fn parse_micro_time(text: &str) -> SystemTime {
    let output = std::process::Command::new("date")
        .args(["-u", "-d", text, "+%s.%N"])
        .output()
        .unwrap();
    let seconds: f64 = String::from_utf8(output.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("bad time {text:?}"));
    UNIX_EPOCH + Duration::from_secs_f64(seconds)
}

/// A TCP proxy to the API server on a port of its own, until [`Proxy::cut`].
struct Proxy {
    port: u16,
    stop: Arc<AtomicBool>,
    connections: Arc<Mutex<Vec<TcpStream>>>,
    accepting: std::thread::JoinHandle<()>,
}

impl Proxy {
    fn start(target: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(Mutex::new(Vec::new()));
        let (stopped, open) = (Arc::clone(&stop), Arc::clone(&connections));
        let accepting = std::thread::spawn(move || {
            while !stopped.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => forward(client, target, &open),
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Self {
            port,
            stop,
            connections,
            accepting,
        }
    }

    /// Stops accepting and closes every connection: the API server becomes
    /// unreachable through the proxy.
    fn cut(self) {
        self.stop.store(true, Ordering::SeqCst);
        self.accepting.join().unwrap();
        for connection in self.connections.lock().unwrap().iter() {
            let _ = connection.shutdown(Close::Both);
        }
    }
}

/// Copies bytes both ways between `client` and the API server on `target`.
fn forward(client: TcpStream, target: u16, open: &Mutex<Vec<TcpStream>>) {
    client.set_nonblocking(false).unwrap();
    let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
        return;
    };
    let mut list = open.lock().unwrap();
    list.push(client.try_clone().unwrap());
    list.push(server.try_clone().unwrap());
    for (mut from, mut to) in [
        (client.try_clone().unwrap(), server.try_clone().unwrap()),
        (server, client),
    ] {
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut from, &mut to);
            let _ = to.flush();
            let _ = to.shutdown(Close::Write);
        });
    }
}
