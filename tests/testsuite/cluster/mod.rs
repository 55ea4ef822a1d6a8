//! `tests/support/cluster`, the one-node test cluster, and `tests/support/kind`,
//! its stand-in for the kind CLI: Pods run from images pushed to the local
//! registry and from images that upstream names resolve to through it;
//! Service names resolve; Pods reach the API server with their token; and
//! `down` leaves the machine as it found it (processes, mounts, interfaces,
//! firewall rules, cgroups, files). Needs root, Go, Debian's container
//! packages and the control plane; run by the README's test command.

mod production;
mod rbac;
mod webhook_certs;

use crate::common;
use crate::common::cluster::ControlPlane;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn support(script: &str) -> PathBuf {
    repo().join("tests/support").join(script)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn describe(what: &str, output: &Output) -> String {
    format!(
        "{what}: {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    )
}

/// Runs `program args` with `env` and returns its stdout, failing the test
/// when it fails.
fn run_ok(program: &Path, args: &[&str], env: &[(String, String)]) -> String {
    let output = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", program.display()));
    assert!(
        output.status.success(),
        "{}",
        describe(
            &format!("{} {}", program.display(), args.join(" ")),
            &output
        )
    );
    text(&output.stdout)
}

/// `text` without the terminal colour sequences ginkgo writes.
fn without_colours(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            plain.push(c);
        }
    }
    plain
}

fn sh(command: &str) -> String {
    let output = Command::new("bash").args(["-c", command]).output().unwrap();
    text(&output.stdout)
}

/// A cluster that is up; taken down when dropped, so a failed test leaves
/// nothing running, and by the next `up` when this test process is killed.
struct Up {
    dir: PathBuf,
    down: bool,
}

impl Up {
    fn start(dir: &Path) -> Up {
        let up = up_owned_by(dir, std::process::id());
        let cluster = Up {
            dir: dir.to_path_buf(),
            down: false,
        };
        assert!(up.status.success(), "{}", describe("cluster up", &up));
        cluster
    }

    fn down(mut self) {
        self.down = true;
        let down = Command::new(support("cluster"))
            .args(["down", self.dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(down.status.success(), "{}", describe("cluster down", &down));
    }
}

/// `cluster up DIR` for the process `owner`: once it has gone, the cluster
/// is one a killed run left behind.
fn up_owned_by(dir: &Path, owner: u32) -> Output {
    Command::new(support("cluster"))
        .args(["up", dir.to_str().unwrap()])
        .env("CLUSTER_OWNER_PID", owner.to_string())
        .output()
        .unwrap()
}

impl Drop for Up {
    fn drop(&mut self) {
        if !self.down {
            let _ = Command::new(support("cluster"))
                .args(["down", self.dir.to_str().unwrap()])
                .output();
        }
    }
}

/// What a cluster may leave on the machine, read from the machine itself.
#[derive(Debug, PartialEq, Eq)]
struct HostState {
    interfaces: BTreeSet<String>,
    mounts: BTreeSet<String>,
    firewall: BTreeSet<String>,
    nft_tables: BTreeSet<String>,
    sysctls: BTreeSet<String>,
    cgroups: BTreeSet<String>,
    run_dirs: BTreeSet<String>,
}

/// What podman keeps on a machine while or once it has run there (its cgroup
/// parent and its builds' cgroups, its firewall chains, the netns mount
/// point, its bridge, the mount of its image store, which it makes and
/// removes as images are used): podman's own, whether or not a cluster runs.
const PODMAN_OWN: &[&str] = &[
    "libpod_parent",
    "buildah-buildah",
    "NETAVARK",
    "/run/netns",
    "podman0",
    "/var/lib/containers/storage",
];

/// The cgroups of this machine's own services, made and removed as they run
/// commands (the sandbox's `process_api` makes one per command it runs):
/// never a cluster's.
const MACHINE_OWN_CGROUPS: &[&str] = &["/process_api/"];

impl HostState {
    fn now() -> HostState {
        let lines = |command: &str| -> BTreeSet<String> {
            sh(command)
                .lines()
                .filter(|line| !PODMAN_OWN.iter().any(|own| line.contains(own)))
                .filter(|line| !MACHINE_OWN_CGROUPS.iter().any(|own| line.contains(own)))
                .map(str::to_string)
                .collect()
        };
        HostState {
            interfaces: lines("ip -o link show | cut -d: -f2 | cut -d@ -f1"),
            mounts: lines("findmnt -rn -o TARGET"),
            // Rules and chains, without the packet counters.
            firewall: lines(
                "{ iptables-save; ip6tables-save; } 2>/dev/null | grep -v '^#' | sed 's/\\[[0-9]*:[0-9]*\\]//'",
            )
            .into_iter()
            .filter(|line| !is_empty_builtin(line))
            .collect(),
            nft_tables: lines("nft list tables 2>/dev/null")
                .into_iter()
                .filter(|line| !IPTABLES_TABLES.contains(&line.as_str()))
                .collect(),
            sysctls: lines(
                "grep . /proc/sys/net/ipv4/ip_forward /proc/sys/net/bridge/bridge-nf-call-iptables",
            ),
            cgroups: lines("find /sys/fs/cgroup -mindepth 1 -maxdepth 3 -type d"),
            run_dirs: lines("ls -d /run/kubebuilder-rs-cluster* 2>/dev/null"),
        }
    }
}

/// The tables iptables keeps in nftables (`nft list tables`): their rules
/// and chains are read with `iptables-save` ([`HostState::firewall`]).
const IPTABLES_TABLES: &[&str] = &[
    "table ip filter",
    "table ip nat",
    "table ip mangle",
    "table ip raw",
    "table ip6 filter",
    "table ip6 nat",
    "table ip6 mangle",
    "table ip6 raw",
];

/// Whether `line` of `iptables-save` (counters taken off) is what every
/// table in use has whatever added to it and took away again: its
/// `*table` and `COMMIT` lines and its built-in chains with the default
/// ACCEPT policy. The first rule anything adds to a table makes those
/// appear, and they stay once the rule is gone, so on a new machine the
/// first cluster (or podman run) leaves them; a rule, a chain of its own or
/// a built-in chain's other policy is never one of them.
fn is_empty_builtin(line: &str) -> bool {
    const BUILTIN: [&str; 5] = ["INPUT", "OUTPUT", "FORWARD", "PREROUTING", "POSTROUTING"];
    let table = line.starts_with('*') && !line.contains(' ');
    let policy = line
        .strip_prefix(':')
        .and_then(|rest| rest.trim_end().strip_suffix(" ACCEPT"))
        .is_some_and(|chain| BUILTIN.contains(&chain));
    table || line == "COMMIT" || policy
}

#[test]
fn an_empty_builtin_table_is_not_left_behind_but_a_rule_or_chain_is() {
    for line in [
        "*nat",
        "*filter",
        "COMMIT",
        ":PREROUTING ACCEPT ",
        ":FORWARD ACCEPT",
    ] {
        assert!(is_empty_builtin(line), "{line:?}");
    }
    for line in [
        ":FORWARD DROP ",
        ":KUBE-SERVICES - ",
        "-A FORWARD -j KUBE-FORWARD",
        "-A POSTROUTING -s 10.244.0.0/24 -j MASQUERADE",
        "*nat extra",
    ] {
        assert!(!is_empty_builtin(line), "{line:?}");
    }
}

/// Where `up` records what it made for the cluster in `dir`: in its run
/// directory, named after the directory's path.
fn state_of(dir: &Path) -> PathBuf {
    let hash = sh(&format!("printf %s '{}' | sha256sum", dir.display()));
    Path::new("/run/kubebuilder-rs-cluster")
        .join(&hash[..12])
        .join("state")
}

/// Processes whose command line names `dir`.
fn processes_naming(dir: &Path) -> Vec<String> {
    sh(&format!(
        "for p in /proc/[0-9]*; do c=$(tr '\\0' ' ' <$p/cmdline 2>/dev/null); case $c in *{}*) echo \"${{p#/proc/}} $c\";; esac; done",
        dir.display()
    ))
    .lines()
    .filter(|line| !line.contains("for p in /proc"))
    .map(str::to_string)
    .collect()
}

/// SIGKILL to every process whose command line matches `pattern`, as the
/// end of a machine's session would, and back once they are gone (a killed
/// process takes a moment to exit on a loaded machine). pkill runs without a
/// shell: a shell's own command line would match and be killed first.
fn kill_every_process_naming(pattern: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let found = Command::new("pkill")
            .args(["-KILL", "-f", pattern])
            .status()
            .unwrap();
        // pkill exits 1 when no process matched.
        if found.code() == Some(1) || Instant::now() > deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The variables of `DIR/env` (`export KEY=VALUE` lines).
fn cluster_env(dir: &Path) -> Vec<(String, String)> {
    let env = std::fs::read_to_string(dir.join("env")).expect("up writes DIR/env");
    env.lines()
        .filter_map(|line| line.strip_prefix("export "))
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn value<'a>(env: &'a [(String, String)], key: &str) -> &'a str {
    env.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("DIR/env has no {key}: {env:?}"))
}

fn kubectl_path() -> PathBuf {
    let out = run_ok(&support("control-plane"), &["assets"], &[]);
    PathBuf::from(out.lines().last().unwrap().trim()).join("kubectl")
}

/// Waits until Pod `name` in `default` ends, and returns its phase and log.
fn pod_result(kubectl: &Path, env: &[(String, String)], name: &str) -> (String, String) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let phase = run_ok(
            kubectl,
            &["get", "pod", name, "-o", "jsonpath={.status.phase}"],
            env,
        );
        if phase == "Succeeded" || phase == "Failed" {
            let log = run_ok(kubectl, &["logs", name], env);
            return (phase, log);
        }
        assert!(
            Instant::now() < deadline,
            "Pod {name} still {phase:?} after 180 s:\n{}",
            run_ok(kubectl, &["describe", "pod", name], env)
        );
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Runs a Pod from `image` with `command` (a shell script) and returns its
/// phase and log.
fn run_pod(
    kubectl: &Path,
    env: &[(String, String)],
    name: &str,
    image: &str,
    pull: &str,
    script: &str,
) -> (String, String) {
    run_ok(
        kubectl,
        &[
            "run",
            name,
            "--restart=Never",
            &format!("--image={image}"),
            &format!("--image-pull-policy={pull}"),
            "--command",
            "--",
            "sh",
            "-c",
            script,
        ],
        env,
    );
    pod_result(kubectl, env, name)
}

#[test]
#[ignore = "needs root, Go and Debian's container packages; run by the README's test command"]
fn clusters_killed_runs_left_behind_are_taken_down_by_the_next_up_which_runs_pods_and_leaves_nothing()
 {
    run_ok(&support("cluster"), &["assets"], &[]);
    let scratch = tempfile::tempdir().unwrap();
    let before = HostState::now();
    let left_by = |dir: &Path| (state_of(dir).exists(), processes_naming(dir).len());

    // A test process killed before its `down`: the cluster's processes run
    // on, their owner gone.
    let orphaned = scratch.path().join("clusters/orphaned");
    let mut owner = Command::new("sleep").arg("3600").spawn().unwrap();
    let up = up_owned_by(&orphaned, owner.id());
    assert!(up.status.success(), "{}", describe("cluster up", &up));
    owner.kill().unwrap();
    owner.wait().unwrap();
    let (state, processes) = left_by(&orphaned);
    assert!(state && processes > 0, "the orphaned cluster runs on");

    // The next `up` takes it down and starts.
    let second = scratch.path().join("clusters/second");
    let up = up_owned_by(&second, std::process::id());
    assert_took_down("cluster up", &up, &orphaned);
    assert_eq!(left_by(&orphaned), (false, 0));

    // A machine's session ended: every process of the cluster gone, its
    // interface, mounts, cgroups and rules still there; no owner recorded.
    std::fs::remove_file(state_of(&second).join("owner-pid")).unwrap();
    kill_every_process_naming(&second.display().to_string());
    kill_every_process_naming("containerd-shim-runc-v2 .*/run/kubebuilder-rs-cluster/");
    assert_eq!(
        left_by(&second),
        (true, 0),
        "{:?}",
        processes_naming(&second)
    );

    // A run's temporary directory removed with its cluster up (as a
    // `scripts/test-all` stopped early did): the cluster's files, its
    // daemons' pid files among them, are gone, its owner still there. The
    // next `up` takes down the second cluster.
    let removed = scratch.path().join("clusters/removed");
    let mut owner = Command::new("sleep").arg("3600").spawn().unwrap();
    let up = up_owned_by(&removed, owner.id());
    assert!(up.status.success(), "{}", describe("cluster up", &up));
    assert_eq!(left_by(&second), (false, 0));
    // rm does not cross the kubelet's mounts, and says so.
    let _ = Command::new("rm")
        .args(["-rf", "--one-file-system"])
        .arg(&removed)
        .output();
    assert!(!removed.join("kubeconfig").exists());
    let (state, processes) = left_by(&removed);
    assert!(state && processes > 0, "the removed cluster runs on");
    // `cluster clean`, which `scripts/test-all` runs as it ends, takes it
    // down: nothing of it runs, nothing stays mounted, its remains go.
    let clean = Command::new(support("cluster"))
        .arg("clean")
        .output()
        .unwrap();
    assert_took_down("cluster clean", &clean, &removed);
    assert_eq!(left_by(&removed), (false, 0));
    assert_eq!(mounts_under(&removed), Vec::<String>::new());
    assert!(!removed.exists(), "its remains are left");
    owner.kill().unwrap();
    owner.wait().unwrap();

    // And a `cluster assets` killed while it built the stand-in images.
    let (killed_build, mut its_registry) = a_killed_stand_in_build();
    let third = scratch.path().join("clusters/third");
    let started = Instant::now();
    let cluster = Up::start(&third);
    eprintln!("cluster up took {:?}", started.elapsed());
    assert!(
        its_registry.try_wait().unwrap().is_some(),
        "the killed build's registry still runs"
    );
    assert!(
        !killed_build.exists() && mounts_under(&killed_build).is_empty(),
        "the killed build is still there: {:?}",
        mounts_under(&killed_build)
    );

    // A cluster in use is not taken down: `up` beside it is refused.
    let fourth = scratch.path().join("clusters/fourth");
    let refused = up_owned_by(&fourth, std::process::id());
    assert!(
        !refused.status.success(),
        "{}",
        describe("cluster up", &refused)
    );
    assert!(
        text(&refused.stderr).contains("another cluster is up"),
        "{}",
        describe("cluster up", &refused)
    );
    assert!(!fourth.exists(), "a refused up makes nothing");
    assert!(left_by(&third).1 > 0, "the cluster in use still runs");

    pods_run_from_the_registry_and_the_kind_stand_in(&third);

    // Down, with Pods still running: nothing of the cluster stays.
    cluster.down();
    assert_eq!(HostState::now(), before, "something was left behind");
    assert_eq!(processes_naming(&third), Vec::<String>::new());
    let left: Vec<String> = std::fs::read_dir(&third)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".log"))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "down keeps only the logs");
}

/// That `command` succeeded and said it took down the cluster left in `dir`.
fn assert_took_down(command: &str, output: &Output, dir: &Path) {
    assert!(output.status.success(), "{}", describe(command, output));
    let said = format!(
        "taking down the cluster a killed run left in {}",
        dir.display()
    );
    assert!(
        text(&output.stderr).contains(&said),
        "{}",
        describe(command, output)
    );
}

/// What a `cluster assets` killed while it staged the Rust stand-in leaves
/// in the cache: its build directory, whose owner no longer runs, with the
/// registry it started in a session of its own still running (a stand-in
/// naming the directory, as the registry's command line does) and debootstrap's
/// /proc mounted in the image's context. Returns the directory and the
/// registry.
fn a_killed_stand_in_build() -> (PathBuf, std::process::Child) {
    let build = kubebuilder_rs::tools::cache_dir()
        .unwrap()
        .join("build/stand-ins.killed-run");
    let proc_dir = build.join("image-rust.killed-run/rootfs/proc");
    std::fs::create_dir_all(&proc_dir).unwrap();
    // Linux gives no process this pid (PID_MAX_LIMIT), so the owner is gone.
    std::fs::write(build.join("owner-pid"), "4194304\n").unwrap();
    let registry_log = build.join("registry.log");
    std::fs::write(&registry_log, "").unwrap();
    let registry = Command::new("tail")
        .arg("-f")
        .arg(&registry_log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::fs::write(build.join("registry.pid"), format!("{}\n", registry.id())).unwrap();
    run_ok(
        Path::new("mount"),
        &["-t", "proc", "proc", proc_dir.to_str().unwrap()],
        &[],
    );
    assert_eq!(mounts_under(&build).len(), 1);
    (build, registry)
}

/// The mount points at or under `dir`.
fn mounts_under(dir: &Path) -> Vec<String> {
    sh("findmnt -rn -o TARGET")
        .lines()
        .filter(|target| Path::new(target).starts_with(dir))
        .map(str::to_string)
        .collect()
}

/// What the cluster in `dir` runs, as the projects' tests need it: images
/// pushed to its registry and loaded through the kind stand-in, Service
/// names resolved and reached, the API server from a Pod under RBAC, and
/// the images deploy-image's examples name.
fn pods_run_from_the_registry_and_the_kind_stand_in(dir: &Path) {
    let kubectl = kubectl_path();
    let name = dir.file_name().unwrap().to_str().unwrap();
    let env = cluster_env(dir);
    assert_eq!(
        value(&env, "KUBECONFIG"),
        dir.join("kubeconfig").to_str().unwrap()
    );
    assert_eq!(value(&env, "CONTAINER_TOOL"), "podman");
    assert_eq!(value(&env, "KIND_CLUSTER"), name);
    assert!(value(&env, "REGISTRY").starts_with("127.0.0.1:"));
    let nodes = run_ok(&kubectl, &["get", "nodes", "--no-headers"], &env);
    assert!(nodes.contains(" Ready "), "{nodes}");

    // An image built FROM an upstream name (resolved through the local
    // registry), pushed to the registry as `make docker-push` would, and
    // pulled from there by the kubelet.
    let context = dir.with_file_name("image");
    std::fs::create_dir_all(&context).unwrap();
    std::fs::write(
        context.join("Dockerfile"),
        "FROM curlimages/curl:latest\nCOPY marker /marker\n",
    )
    .unwrap();
    std::fs::write(context.join("marker"), "built-here\n").unwrap();
    let pushed = format!("{}/tests/marker:v1", value(&env, "REGISTRY"));
    run_ok(
        Path::new("podman"),
        &["build", "-t", &pushed, context.to_str().unwrap()],
        &env,
    );
    run_ok(Path::new("podman"), &["push", &pushed], &env);
    let (phase, log) = run_pod(&kubectl, &env, "pushed", &pushed, "Always", "cat /marker");
    assert_eq!((phase.as_str(), log.trim()), ("Succeeded", "built-here"));

    // Another image, loaded through the kind stand-in and never pulled.
    let loaded = "example.com/tests/marker:v0.0.1";
    std::fs::write(context.join("marker"), "loaded-here\n").unwrap();
    run_ok(
        Path::new("podman"),
        &["build", "-t", loaded, context.to_str().unwrap()],
        &env,
    );
    let kind = PathBuf::from(value(&env, "KIND"));
    let clusters = run_ok(&kind, &["get", "clusters"], &env);
    assert_eq!(clusters.trim(), name);
    run_ok(
        &kind,
        &["load", "docker-image", loaded, "--name", name],
        &env,
    );
    let (phase, log) = run_pod(&kubectl, &env, "loaded", loaded, "Never", "cat /marker");
    assert_eq!((phase.as_str(), log.trim()), ("Succeeded", "loaded-here"));

    // A Service's name resolves through CoreDNS and its address reaches the
    // Pod behind it through kube-proxy.
    run_ok(
        &kubectl,
        &[
            "run",
            "web",
            "--image=curlimages/curl:latest",
            "--labels=app=web",
            "--port=8080",
            "--command",
            "--",
            "sh",
            "-c",
            "mkdir -p /tmp/www && echo served-by-web >/tmp/www/index.html && exec busybox httpd -f -p 8080 -h /tmp/www",
        ],
        &env,
    );
    run_ok(
        &kubectl,
        &["expose", "pod", "web", "--port=80", "--target-port=8080"],
        &env,
    );
    let (phase, log) = run_pod(
        &kubectl,
        &env,
        "client",
        "curlimages/curl:latest",
        "IfNotPresent",
        "for i in $(seq 1 30); do curl -s --max-time 3 http://web.default.svc.cluster.local/ && exit 0; sleep 1; done; exit 1",
    );
    assert_eq!(
        (phase.as_str(), log.trim()),
        ("Succeeded", "served-by-web"),
        "{log}"
    );

    // In-cluster configuration: the Service account's token reaches the API
    // server through Service default/kubernetes, and RBAC applies to it. The
    // code ends its line: a last line without one is written to the Pod's
    // log only when the output closes, and `kubectl logs` right after the
    // Pod succeeded can miss it (seen once: an empty log).
    let api_call = "curl -sS --max-time 5 -o /dev/null -w '%{http_code}\\n' \
        --cacert /var/run/secrets/kubernetes.io/serviceaccount/ca.crt \
        -H \"Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)\" \
        https://kubernetes.default.svc/api/v1/namespaces/default/pods";
    let (phase, log) = run_pod(
        &kubectl,
        &env,
        "forbidden",
        "curlimages/curl:latest",
        "IfNotPresent",
        api_call,
    );
    assert_eq!((phase.as_str(), log.trim()), ("Succeeded", "403"));
    run_ok(
        &kubectl,
        &[
            "create",
            "rolebinding",
            "view",
            "--clusterrole=view",
            "--serviceaccount=default:default",
        ],
        &env,
    );
    let (phase, log) = run_pod(
        &kubectl,
        &env,
        "allowed",
        "curlimages/curl:latest",
        "IfNotPresent",
        api_call,
    );
    assert_eq!((phase.as_str(), log.trim()), ("Succeeded", "200"));

    // deploy-image's example images: memcached serves (the command its
    // scaffold runs, as a user of the Pod's choosing), BusyBox's commands.
    let (phase, log) = run_pod(
        &kubectl,
        &env,
        "memcached",
        "memcached:1.6.26-alpine3.19",
        "IfNotPresent",
        "memcached --memory-limit=64 -o modern & sleep 1; printf 'version\\r\\nquit\\r\\n' | busybox nc 127.0.0.1 11211",
    );
    assert_eq!(phase, "Succeeded", "{log}");
    assert!(log.starts_with("VERSION 1.6."), "{log}");
    let (phase, log) = run_pod(
        &kubectl,
        &env,
        "busybox",
        "busybox:1.36.1",
        "IfNotPresent",
        "wc -l </etc/passwd && sha256sum /etc/group >/dev/null && echo busybox-ok",
    );
    assert_eq!((phase.as_str(), log.trim()), ("Succeeded", "2\nbusybox-ok"));
}

#[test]
#[ignore = "needs root, Go and Debian's container packages; run by the README's test command"]
fn up_without_a_prerequisite_says_which_in_one_line_and_makes_nothing() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("cluster");
    let before = HostState::now();
    let assert_refused = |what: &str, mut command: Command, expected: &str| {
        let output = command
            .args(["up", dir.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            !output.status.success(),
            "{what}: {}",
            describe("up", &output)
        );
        let stderr = text(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
        assert!(stderr.contains(expected), "{what}: {stderr}");
        assert!(!dir.exists(), "{what}: up made {}", dir.display());
    };
    let mut no_cni = Command::new(support("cluster"));
    no_cni.env("CLUSTER_CNI_BIN_DIR", "/nonexistent/cni");
    assert_refused(
        "no CNI plugins",
        no_cni,
        "no CNI plugins in /nonexistent/cni; install Debian's containernetworking-plugins",
    );
    // As nobody, from a copy of the scripts that user can read: the checkout
    // may sit where only root may enter (a clone under /root, or in a
    // directory `mktemp -d` made).
    let readable = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        readable.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    for (from, into) in [
        ("tests/support", "tests"),
        ("scaffolds/go/v4/versions.toml", "scaffolds/go/v4"),
    ] {
        std::fs::create_dir_all(readable.path().join(into)).unwrap();
        common::copy_tree(&repo().join(from), &readable.path().join(into));
    }
    let mut not_root = Command::new("setpriv");
    not_root
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(readable.path().join("tests/support/cluster"));
    assert_refused("not root", not_root, "the cluster needs root");
    assert_eq!(HostState::now(), before);
}

/// What a project's `make test-e2e` runs with on the cluster in `dir`: the
/// cluster's variables (podman's configuration, KIND, KIND_CLUSTER), the
/// control plane's kubectl first on PATH, the shared tools, and
/// `KUBECONFIG` on `user_kubeconfig`, whose current context is another
/// cluster's: the suite must use only the kubeconfig make hands it.
fn e2e_env(dir: &Path, kubectl: &Path, user_kubeconfig: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = cluster_env(dir)
        .into_iter()
        .filter(|(key, _)| key != "KUBECONFIG")
        .collect();
    env.push((
        "KUBECONFIG".into(),
        user_kubeconfig.to_str().unwrap().into(),
    ));
    let path = format!(
        "{}:{}",
        kubectl.parent().unwrap().display(),
        std::env::var("PATH").unwrap()
    );
    env.push(("PATH".into(), path));
    env.push((
        "LOCALBIN".into(),
        common::shared_tools_bin().to_str().unwrap().into(),
    ));
    env
}

/// The seconds of the first `ran: … (12.3s)` line of the Rust e2e suite's
/// log that starts with `prefix`.
fn seconds_of_step(log: &str, prefix: &str) -> f64 {
    let line = log
        .lines()
        .find(|line| line.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{log}"));
    line.rsplit_once('(')
        .and_then(|(_, time)| time.strip_suffix("s)"))
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or_else(|| panic!("no time in {line:?}"))
}

/// `make docker-build docker-push` of the project in `project`, unmodified,
/// to the cluster's registry: the registry then serves the image.
fn push_to_the_registry(project: &Path, env: &[(String, String)], name: &str) {
    let registry = value(env, "REGISTRY");
    let image = format!("{registry}/{name}:v0.0.1");
    let started = Instant::now();
    let output = Command::new("make")
        .args(["docker-build", "docker-push", &format!("IMG={image}")])
        .current_dir(project)
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        describe("make docker-build docker-push", &output)
    );
    println!(
        "figure: make docker-build docker-push of {name} took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let manifest = sh(&format!(
        "curl -fsS -o /dev/null -w '%{{http_code}}' -H 'Accept: application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' http://{registry}/v2/{name}/manifests/v0.0.1"
    ));
    assert_eq!(
        manifest.trim(),
        "200",
        "the registry does not serve {image}"
    );
}

/// On the cluster whose kubeconfig `env` holds (`make` runs make with the
/// arguments it is given, under `timeout`, so that an endless wait fails the
/// test): the project's image built and loaded as its e2e suite does it
/// (`example.com/NAME:v0.0.1` through `kind load`; once the kubelet had
/// pulled the same image from the registry, the suite's Pod made it pull
/// again under the suite's name, which cannot be reached); `make deploy`, the
/// manager Available; the Memcached sample (deploy-image/v1-alpha) served by
/// a Ready Pod running the command and port given at `create api`, holding
/// its finalizer; size 2 gives two Ready Pods; the metrics only for the
/// reader (see [`metrics_answer_only_the_reader`]), with data for every
/// query of the Grafana dashboards; the role as generated (see
/// [`rbac::as_generated`]); the webhooks through a certificate renewal, the
/// hand-over between two replicas and a rolling restart (see
/// [`production`]); then `make undeploy`, with the sample still there,
/// finishes in bounded time: it deletes the sample first, while the manager
/// still runs its clean-up, and nothing of the project stays. Last, the
/// same operator from the helm/v2-alpha chart.
fn the_deployed_operator_in_production(
    project: &Path,
    env: &[(String, String)],
    name: &str,
    layout: &Layout,
    make: &dyn Fn(&[&str]) -> Output,
) {
    let kubectl = |args: &[&str]| run_ok(Path::new("kubectl"), args, env);
    let load = |image: &str| load_image(env, make, image);
    let image = format!("example.com/{name}:v0.0.1");
    load(&image);
    deploy_and_wait(env, make, name, &image);
    let deployed = production::Deployed {
        name,
        env,
        webhook_kind: layout.webhook_kind,
        domain: layout.domain,
        samples: layout.samples,
        leader_line: layout.leader_line,
        stopped_line: layout.stopped_line,
    };
    let namespace = format!("{name}-system");
    let samples = layout.samples;
    if samples != "default" {
        kubectl(&["create", "namespace", samples]);
    }
    let memcacheds = deployed.memcacheds();
    let sample = project.join("config/samples/cache_v1alpha1_memcached.yaml");
    kubectl(&["apply", "-n", samples, "-f", sample.to_str().unwrap()]);
    let deadline = Instant::now() + Duration::from_secs(180);
    let field = |resource: &str, path: &str| {
        let out = Command::new("kubectl")
            .args(["get", resource, "memcached-sample", "-n", samples])
            .args(["-o", &format!("jsonpath={path}")])
            .envs(env.iter().cloned())
            .output()
            .unwrap();
        text(&out.stdout)
    };
    while field("deployment", "{.status.readyReplicas}") != "1"
        || field(
            &memcacheds,
            "{.status.conditions[?(@.type==\"Available\")].status}",
        ) != "True"
    {
        assert!(
            Instant::now() < deadline,
            "the Memcached sample was not served within 180 s:\n{}",
            kubectl(&["describe", "deployment,pods", "-n", samples])
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    assert_eq!(
        field(&memcacheds, "{.metadata.finalizers[0]}"),
        format!("cache.{}/finalizer", layout.domain)
    );
    // The Pod runs what `create api` was given: the command and the port.
    let pods = |path: &str| {
        kubectl(&[
            "get",
            "pods",
            "-n",
            samples,
            "-l",
            "app.kubernetes.io/instance=memcached-sample",
            "-o",
            &format!("jsonpath={path}"),
        ])
    };
    assert_eq!(
        pods("{.items[0].spec.containers[0].command}"),
        r#"["memcached","--memory-limit=64","-o","modern","-v"]"#
    );
    assert_eq!(
        pods("{.items[0].spec.containers[0].ports[0].containerPort}"),
        "11211"
    );
    // A larger size scales the Deployment: two Ready Pods.
    deployed.set_sample_size(2);
    let deadline = Instant::now() + Duration::from_secs(180);
    while field("deployment", "{.status.readyReplicas}") != "2" {
        assert!(
            Instant::now() < deadline,
            "size 2 did not give two Ready Pods within 180 s:\n{}",
            kubectl(&["describe", "deployment,pods", "-n", samples])
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    // The dashboards of grafana/v1-alpha have data: every metric their
    // queries read is among the samples scraped from the manager's Pod.
    let exposition = metrics_answer_only_the_reader(env, name, samples);
    let scraped = common::grafana::exported_names(&exposition);
    let queried = common::grafana::dashboard_metrics(project);
    assert!(!queried.is_empty(), "no dashboard in {}", project.display());
    let without_data: Vec<&String> = queried.difference(&scraped).collect();
    assert!(
        without_data.is_empty(),
        "the dashboards query metrics the manager's Pod does not serve: {without_data:?}"
    );
    let redeploy = || {
        let out = make(&["deploy", &format!("IMG={image}")]);
        assert!(out.status.success(), "{}", describe("make deploy", &out));
    };
    rbac::as_generated(&deployed, project, &layout.grants, &redeploy, &|size| {
        field("deployment", "{.status.readyReplicas}") == size
    });
    production::webhooks_serve_a_renewed_certificate(&deployed);
    let logs = tempfile::tempdir().unwrap();
    let gap = production::deleting_the_leader_hands_over(&deployed, logs.path());
    eprintln!("figure: {name} failover gap: {:.1} s", gap.as_secs_f64());
    production::a_rolling_restart_fails_no_request(&deployed);
    let started = Instant::now();
    let undeploy = make(&["undeploy"]);
    let took = started.elapsed();
    assert!(
        undeploy.status.success(),
        "{}",
        describe("make undeploy", &undeploy)
    );
    eprintln!("make undeploy with a reconciled Memcached took {took:?}");
    assert!(
        took < Duration::from_secs(180),
        "make undeploy took {took:?}"
    );
    assert!(
        text(&undeploy.stdout).contains("\"memcached-sample\" deleted"),
        "undeploy did not delete the sample first: {}",
        text(&undeploy.stdout)
    );
    for (kind, object) in [
        ("namespace", namespace.as_str()),
        ("crd", memcacheds.as_str()),
    ] {
        let out = Command::new("kubectl")
            .args(["get", kind, object])
            .envs(env.iter().cloned())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{kind}/{object} is still there");
    }
    production::the_helm_chart_runs_the_operator(&deployed, project, make, &load);
}

/// `make docker-build` of `image` (`make` runs in the project), then `kind
/// load` of it into the cluster of `env`, as the project's e2e suite does.
fn load_image(env: &[(String, String)], make: &dyn Fn(&[&str]) -> Output, image: &str) {
    let started = Instant::now();
    let build = make(&["docker-build", &format!("IMG={image}")]);
    assert!(
        build.status.success(),
        "{}",
        describe("make docker-build", &build)
    );
    println!(
        "figure: make docker-build of {image} took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let kind = [value(env, "KIND"), "load", "docker-image", image];
    run_ok(
        Path::new(kind[0]),
        &[&kind[1..], &["--name", value(env, "KIND_CLUSTER")]].concat(),
        env,
    );
}

/// `make deploy` of `image`, then a wait (180 s at most) until the manager
/// of the project `name` is Available.
fn deploy_and_wait(
    env: &[(String, String)],
    make: &dyn Fn(&[&str]) -> Output,
    name: &str,
    image: &str,
) {
    let deploy = make(&["deploy", &format!("IMG={image}")]);
    assert!(
        deploy.status.success(),
        "{}",
        describe("make deploy", &deploy)
    );
    run_ok(
        Path::new("kubectl"),
        &[
            "-n",
            &format!("{name}-system"),
            "wait",
            "--for=condition=Available",
            "--timeout=180s",
            &format!("deployment/{name}-controller-manager"),
        ],
        env,
    );
}

/// The go/v4 project of the side-by-side test.
const GUESTBOOK: Layout = Layout {
    grants: rbac::Grants {
        controller: (
            "internal/controller/memcached_controller.go",
            "+kubebuilder:rbac:groups=apps,resources=deployments,",
        ),
        webhook: (GO_WEBHOOK, production::GO_CONFIG_MAPS_MARKER),
    },
    webhook_kind: ("webapp.example.com/v1", "Guestbook"),
    domain: "example.com",
    samples: "default",
    leader_line: "Successfully acquired lease",
    stopped_line: "All workers finished",
};

/// The rust/v1-alpha project of the side-by-side test: of another domain,
/// its samples in a namespace of their own.
const SHIPYARD: Layout = Layout {
    grants: rbac::Grants {
        controller: (
            "src/controller/memcached.rs",
            "controller::rule(\"apps\", &[\"deployments\"], ALL_VERBS),",
        ),
        webhook: (RUST_WEBHOOK, production::RUST_CONFIG_MAPS_RULE),
    },
    webhook_kind: ("ship.example.org/v1", "Frigate"),
    domain: "example.org",
    samples: "shipyard-samples",
    leader_line: "became the leader",
    stopped_line: "released the leader Lease",
};

/// What the deployed checks need to know of a layout.
struct Layout<'a> {
    /// Where the grants of the controller and the webhooks' check stand
    /// (see [`rbac::as_generated`]).
    grants: rbac::Grants<'a>,
    /// The API version and kind the project's webhooks admit.
    webhook_kind: (&'a str, &'a str),
    /// The project's domain (its Memcached is of group `cache.<domain>`).
    domain: &'a str,
    /// The namespace of the Memcached sample and the checks' objects.
    samples: &'a str,
    /// What the manager logs when it becomes the leader.
    leader_line: &'a str,
    /// What a stopping leader logs last, once its reconciles ended.
    stopped_line: &'a str,
}

/// The manager's metrics through its Service, from a Pod in `namespace`:
/// without a token 401, with the token of a ServiceAccount lacking the
/// metrics-reader role 403, with that of one bound to it 200 (`name`: the
/// project). Returns what the reader was served.
fn metrics_answer_only_the_reader(env: &[(String, String)], name: &str, namespace: &str) -> String {
    let kubectl = |args: &[&str]| run_ok(Path::new("kubectl"), args, env);
    for account in ["metrics-denied", "metrics-reader"] {
        kubectl(&["create", "serviceaccount", account, "-n", namespace]);
    }
    let binding = format!("{name}-metrics-reader-probe");
    kubectl(&[
        "create",
        "clusterrolebinding",
        &binding,
        &format!("--clusterrole={name}-metrics-reader"),
        &format!("--serviceaccount={namespace}:metrics-reader"),
    ]);
    let token = |account: &str| kubectl(&["create", "token", account, "-n", namespace]);
    let (denied, reader) = (token("metrics-denied"), token("metrics-reader"));
    let url =
        format!("https://{name}-controller-manager-metrics-service.{name}-system.svc:8443/metrics");
    let script = format!(
        "code() {{ curl -sk --max-time 5 -o /dev/null -w '%{{http_code}}' \"$@\" {url}; }}; \
         for i in $(seq 1 60); do none=$(code) && [ \"$none\" != 000 ] && break; sleep 1; done; \
         echo \"none=$none denied=$(code -H 'Authorization: Bearer {0}') reader=$(code -H 'Authorization: Bearer {1}')\"; \
         curl -sk --max-time 5 -H 'Authorization: Bearer {1}' {url}",
        denied.trim(),
        reader.trim()
    );
    let kubectl_path = PathBuf::from("kubectl");
    let probe = format!("{name}-metrics-probe");
    let (phase, log) = run_pod(
        &kubectl_path,
        env,
        &probe,
        "curlimages/curl:latest",
        "IfNotPresent",
        &script,
    );
    let (codes, exposition) = log.split_once('\n').unwrap_or((&log, ""));
    assert_eq!(
        (phase.as_str(), codes),
        ("Succeeded", "none=401 denied=403 reader=200"),
        "{log}"
    );
    kubectl(&["delete", "pod", &probe, "-n", "default"]);
    kubectl(&["delete", "clusterrolebinding", &binding]);
    exposition.to_string()
}

/// `make args` in `project` with `env`, stopped after 300 s, so that an
/// endless wait fails the test.
fn bounded_make(project: &Path, env: &[(String, String)], args: &[&str]) -> Output {
    Command::new("timeout")
        .args(["300", "make"])
        .args(args)
        .current_dir(project)
        .envs(env.iter().cloned())
        .output()
        .unwrap()
}

/// `make args` in the rust/v1-alpha project `project` with `env`, its cargo
/// builds in the lane's shared build directory, stopped after 600 s, so
/// that an endless wait fails the test.
fn bounded_rust_make(project: &Path, env: &[(String, String)], args: &[&str]) -> Output {
    let mut make = Command::new("timeout");
    make.args(["600", "make"])
        .args(args)
        .current_dir(project)
        .envs(env.iter().cloned());
    common::rust_project::sharing_the_build_dir(&mut make)
        .output()
        .unwrap()
}

/// Runs the project's own `make test-e2e` with `env`, failing the test when
/// it fails; returns its output without colours.
fn make_test_e2e(project: &Path, env: &[(String, String)]) -> String {
    let started = Instant::now();
    let output = Command::new("make")
        .arg("test-e2e")
        .current_dir(project)
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    eprintln!("make test-e2e took {:?}", started.elapsed());
    assert!(
        output.status.success(),
        "{}",
        describe("make test-e2e", &output)
    );
    without_colours(&text(&output.stdout))
}

/// The go project's webhooks, with its validator's checks.
const GO_WEBHOOK: &str = "internal/webhook/v1/guestbook_webhook.go";

/// The rust project's webhooks of Frigate, with its validator's checks.
const RUST_WEBHOOK: &str = "src/webhook/v1/frigate.rs";

#[test]
#[ignore = "needs root, Go, Rust and Debian's container packages; run by the README's test command"]
fn go_and_rust_projects_run_side_by_side_and_pass_their_own_make_test_e2e() {
    run_ok(&support("cluster"), &["assets"], &[]);
    let kubectl = kubectl_path();
    let (_guestbook_tmp, guestbook) = common::empty_project_dir("guestbook");
    scaffold_guestbook(&guestbook);
    let (_shipyard_tmp, shipyard) = common::empty_project_dir("shipyard");
    scaffold_shipyard(&shipyard);
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("clusters/guestbook-e2e");
    let before = HostState::now();
    let cluster = Up::start(&dir);
    // cert-manager as a user's CI has it before the suite runs (the suite
    // finds it and leaves it alone).
    run_ok(
        &support("cluster"),
        &["cert-manager", dir.to_str().unwrap()],
        &[],
    );

    // The go/v4 user's kubeconfig names another cluster as its current
    // context: the suite must neither use it nor change the file (it works
    // on the cluster `make test-e2e` hands it, kubernetes-sigs/kubebuilder
    // #4116). The rust/v1-alpha user's names a cluster that cannot be
    // reached.
    let decoy = ControlPlane::up();
    let go_kubeconfig = scratch.path().join("go-user/.kube/config");
    std::fs::create_dir_all(go_kubeconfig.parent().unwrap()).unwrap();
    std::fs::copy(decoy.kubeconfig(), &go_kubeconfig).unwrap();
    let go_kubeconfig_before = std::fs::read(&go_kubeconfig).unwrap();
    let rust_kubeconfig = scratch.path().join("rust-user/.kube/config");
    std::fs::create_dir_all(rust_kubeconfig.parent().unwrap()).unwrap();
    std::fs::write(&rust_kubeconfig, common::cluster::UNREACHABLE_KUBECONFIG).unwrap();

    // Both operators in production on the one cluster at once (namespaces,
    // CRDs and objects of their own), each checked while the other works.
    let deployed_env = e2e_env(&dir, &kubectl, &dir.join("kubeconfig"));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let env = e2e_env(&dir, &kubectl, &go_kubeconfig);
            guestbook_in_production(&guestbook, &env, &deployed_env);
        });
        scope.spawn(|| {
            let env = e2e_env(&dir, &kubectl, &rust_kubeconfig);
            shipyard_in_production(&shipyard, &env, &deployed_env);
        });
    });

    // What a kubebuilder user's CI runs: the project's own suite builds the
    // image with podman, loads it through `kind`, deploys, waits for the
    // manager Pod and its webhook Service, reads the metrics through the
    // Service from a curl Pod, and checks that cert-manager issued the
    // webhook certificate and injected its CA into the mutating, validating
    // and conversion webhooks.
    let log = make_test_e2e(&guestbook, &e2e_env(&dir, &kubectl, &go_kubeconfig));
    assert!(log.contains("6 Passed | 0 Failed"), "{log}");
    for spec in [
        "has the webhook serving certificate from cert-manager",
        "has the CA bundle injected into the mutating webhooks",
        "has the CA bundle injected into the validating webhooks",
        "has the CA bundle injected into the Guestbook conversion webhook",
        "cert-manager is already installed; leaving it alone",
    ] {
        assert!(log.contains(spec), "{spec:?} not in:\n{log}");
    }
    assert!(
        log.contains("Reusing Kind cluster guestbook-e2e"),
        "the suite ran on the cluster that was up: {log}"
    );
    assert!(
        log.contains(&format!(
            "Using only the cluster of {}",
            guestbook.join("bin/guestbook-e2e.kubeconfig").display()
        )),
        "{log}"
    );
    // Its clean-up deleted the cluster (`kind delete cluster`) as it does
    // with kind: nothing of it stays, and its kubeconfig went with it.
    assert!(!dir.exists(), "kind delete cluster removes the cluster");
    assert!(!guestbook.join("bin/guestbook-e2e.kubeconfig").exists());
    drop(cluster);

    // The Rust project's suite, on a cluster of its own (the Go suite's
    // clean-up deleted the one both ran on).
    let dir = scratch.path().join("clusters/shipyard-e2e");
    let cluster = Up::start(&dir);
    run_ok(
        &support("cluster"),
        &["cert-manager", dir.to_str().unwrap()],
        &[],
    );
    shipyard_passes_its_own_e2e_suite(&shipyard, &e2e_env(&dir, &kubectl, &rust_kubeconfig));
    assert!(!dir.exists(), "kind delete cluster removes the cluster");
    drop(cluster);

    // The other cluster and the users' kubeconfigs are as they were.
    assert_eq!(
        std::fs::read(&go_kubeconfig).unwrap(),
        go_kubeconfig_before,
        "the go/v4 user's kubeconfig changed"
    );
    assert_eq!(
        std::fs::read_to_string(&rust_kubeconfig).unwrap(),
        common::cluster::UNREACHABLE_KUBECONFIG,
        "the rust/v1-alpha user's kubeconfig changed"
    );
    let decoy_env = common::cluster::env_for(&decoy);
    for kind in ["namespaces", "customresourcedefinitions", "clusterroles"] {
        let listed = decoy_env.kubectl(&["get", kind, "-o", "name"]);
        let names = text(&listed.stdout);
        assert!(
            listed.status.success(),
            "{}",
            describe("kubectl get", &listed)
        );
        assert!(
            !names.contains("guestbook") && !names.contains("webapp.example.com"),
            "the suite changed the cluster of the user's current context: {names}"
        );
    }
    drop(decoy);
    assert_eq!(
        HostState::now(),
        before,
        "the cluster left something behind"
    );
}

/// The go/v4 project: Guestbook v1 (hub) and v2 with defaulting, validation
/// and conversion webhooks, deploy-image's Memcached and the Grafana
/// dashboards (domain example.com); its validator refuses an empty
/// `spec.foo` and lists ConfigMaps, as a user's might.
fn scaffold_guestbook(project: &Path) {
    common::kb_ok(
        project,
        &common::words("init --domain example.com --repo example.com/guestbook"),
    );
    for command in [
        "create api --group webapp --version v1 --kind Guestbook --resource --controller",
        "create webhook --group webapp --version v1 --kind Guestbook --defaulting --programmatic-validation",
        "create api --group webapp --version v2 --kind Guestbook --resource --controller=false",
        "create webhook --group webapp --version v1 --kind Guestbook --conversion --spoke v2",
        common::deploy_image::QUICK_START,
        "edit --plugins grafana/v1-alpha",
    ] {
        common::kb_ok(project, &common::words(command));
    }
    production::go_validator_refuses_an_empty_foo(&project.join(GO_WEBHOOK));
    production::go_validator_lists_config_maps(&project.join(GO_WEBHOOK));
}

/// The rust/v1-alpha project: Frigate v1 and v2 with the webhooks,
/// deploy-image's Memcached and the Grafana dashboards, of domain
/// example.org (the go/v4 one's Memcached CRD is of example.com); its
/// validator lists ConfigMaps.
fn scaffold_shipyard(project: &Path) {
    let quick_start = format!("{} --manifests=false", common::deploy_image::QUICK_START);
    common::kb_ok(
        project,
        &common::words("init --plugins rust/v1-alpha --domain example.org --owner Tester"),
    );
    for command in common::rust_project::WEBHOOK_PROJECT
        .iter()
        .chain([&quick_start.as_str(), &"edit --plugins grafana/v1-alpha"])
    {
        common::kb_ok(project, &common::words(command));
    }
    production::rust_validator_lists_config_maps(&project.join(RUST_WEBHOOK));
}

/// The go/v4 project's image pushed to the cluster's registry; its suite
/// refusing to run without the kubeconfig make hands it; then the operator
/// in production (see [`the_deployed_operator_in_production`]). `env`: the
/// user's, `deployed_env`: the cluster's own kubeconfig.
fn guestbook_in_production(
    project: &Path,
    env: &[(String, String)],
    deployed_env: &[(String, String)],
) {
    push_to_the_registry(project, env, "guestbook");

    // Run by hand, without the kubeconfig make passes, the suite refuses
    // before it builds or changes anything.
    let direct = Command::new("go")
        .args(["test", "-tags=e2e", "./test/e2e/", "-v", "-ginkgo.v"])
        .current_dir(project)
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    let direct_log = without_colours(&text(&direct.stdout));
    assert!(
        !direct.status.success() && direct_log.contains("E2E_KUBECONFIG is not set"),
        "{}",
        describe("go test ./test/e2e/ without E2E_KUBECONFIG", &direct)
    );

    the_deployed_operator_in_production(project, deployed_env, "guestbook", &GUESTBOOK, &|args| {
        bounded_make(project, deployed_env, args)
    });
}

/// The rust/v1-alpha project's image pushed to the cluster's registry and
/// its manifests built, then the operator in production (see
/// [`the_deployed_operator_in_production`]), its samples in a namespace of
/// their own.
fn shipyard_in_production(
    project: &Path,
    env: &[(String, String)],
    deployed_env: &[(String, String)],
) {
    with_a_lock_file(project);
    push_to_the_registry(project, env, "shipyard");
    with_manifests_built(project, deployed_env);
    the_deployed_operator_in_production(project, deployed_env, "shipyard", &SHIPYARD, &|args| {
        bounded_rust_make(project, deployed_env, args)
    });
}

/// The rust/v1-alpha project's own `make test-e2e` in its default mode: the
/// image built from the project's Dockerfile with podman (the rust and
/// distroless/cc stand-ins), loaded through `kind`, deployed, the
/// Deployment available, the metrics read by a curl Pod with a
/// ServiceAccount token, cert-manager's CA in every webhook, and the API
/// server calling the webhooks (and converting the v2 sample) through the
/// webhook Service; only the project's own crates compiled again.
fn shipyard_passes_its_own_e2e_suite(project: &Path, env: &[(String, String)]) {
    let suite_started = SystemTime::now();
    let started = Instant::now();
    let mut make = Command::new("make");
    make.arg("test-e2e")
        .current_dir(project)
        .envs(env.iter().cloned());
    let output = common::rust_project::sharing_the_build_dir(&mut make)
        .output()
        .unwrap();
    eprintln!("shipyard: make test-e2e took {:?}", started.elapsed());
    assert!(
        output.status.success(),
        "{}",
        describe("make test-e2e", &output)
    );
    let log = without_colours(&format!("{}{}", text(&output.stdout), text(&output.stderr)));
    for said in [
        "Kind cluster 'shipyard-e2e' exists: using it",
        "e2e: E2E_MANAGER=Cluster, only on the cluster of",
        "e2e: metrics served to the authorised token",
        "e2e: cert-manager is installed already",
        "e2e: the webhooks answered",
        "test result: ok. 1 passed",
    ] {
        assert!(log.contains(said), "{said:?} not in:\n{log}");
    }
    assert_eq!(
        log.matches("frigate.ship.example.org/frigate-sample created (server dry run)")
            .count(),
        2,
        "both samples, v1 and v2, reached the webhooks: {log}"
    );
    // Cargo.toml and Cargo.lock are those the pushed image was built from:
    // the build directory in podman's cache mount has the dependencies, and
    // only the project's own crates compile again (its code changed in the
    // checks, and the Dockerfile touches its sources).
    let rebuild = seconds_of_step(&log, "ran: make docker-build IMG=");
    eprintln!("figure: the e2e suite's image build took {rebuild} s");
    assert!(
        units_compiled_in_images_since(SystemTime::UNIX_EPOCH).contains(&"shipyard".to_string()),
        "the project's image builds left no build directory in podman's cache mounts"
    );
    let compiled = units_compiled_in_images_since(suite_started);
    assert!(
        compiled.iter().all(|unit| unit == "shipyard"),
        "the e2e suite's image build ({rebuild} s) compiled dependencies again: {compiled:?}"
    );
}

/// The units (crates, build scripts) cargo compiled since `since` in the
/// build directories of podman's cache mounts (`$TMPDIR/buildah-cache`,
/// where the rust/v1-alpha Dockerfile keeps its `build.build-dir`), by name:
/// each `.fingerprint/<name>-<hash>` with a file written since then.
fn units_compiled_in_images_since(since: SystemTime) -> Vec<String> {
    let tmp = std::env::var_os("TMPDIR").unwrap_or_else(|| "/var/tmp".into());
    let cache = Path::new(&tmp).join("buildah-cache");
    let listing = sh(&format!(
        "find -L {} -path '*/release/.fingerprint/*' -type f 2>/dev/null || true",
        cache.display()
    ));
    let mut units: Vec<String> = listing
        .lines()
        .map(Path::new)
        .filter(|file| {
            std::fs::metadata(file)
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| modified >= since)
        })
        .filter_map(|file| file.parent()?.file_name()?.to_str())
        .filter_map(|unit| unit.rsplit_once('-').map(|(name, _hash)| name.to_string()))
        .collect();
    units.sort();
    units.dedup();
    units
}

/// Gives a rust/v1-alpha project its Cargo.lock, as its first build on the
/// host would. Without it the image would resolve its own versions, and the
/// next image, built once `make test-e2e` made the lock, could reuse none of
/// its layers.
fn with_a_lock_file(project: &Path) {
    let mut lock = Command::new("cargo");
    let lock = common::rust_project::without_cargo_test_env(&mut lock)
        .arg("generate-lockfile")
        .current_dir(project)
        .output()
        .unwrap();
    assert!(
        lock.status.success(),
        "{}",
        describe("cargo generate-lockfile", &lock)
    );
}

/// Builds a rust/v1-alpha project's `manifests` program on the host (`make
/// manifests` with `env`, in the lane's shared build directory). `make
/// deploy` runs it first, and is timed as a bound on its waits: the first
/// build of the project's dependencies, minutes on a busy machine, is not
/// one of them.
fn with_manifests_built(project: &Path, env: &[(String, String)]) {
    let mut make = Command::new("make");
    make.arg("manifests")
        .current_dir(project)
        .envs(env.iter().cloned());
    let output = common::rust_project::sharing_the_build_dir(&mut make)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        describe("make manifests", &output)
    );
}

/// The checks' edits of user code apply to what the tool scaffolds today:
/// a template change that moves what they edit fails here, in seconds,
/// rather than in the cluster run.
#[test]
fn the_user_code_the_cluster_checks_write_applies_to_new_scaffolds() {
    let (_go_tmp, go) = common::empty_project_dir("guestbook");
    common::kb_ok(
        &go,
        &common::words("init --domain example.com --repo example.com/guestbook"),
    );
    for command in [
        "create api --group webapp --version v1 --kind Guestbook --resource --controller",
        "create webhook --group webapp --version v1 --kind Guestbook --defaulting --programmatic-validation",
    ] {
        common::kb_ok(&go, &common::words(command));
    }
    production::go_validator_refuses_an_empty_foo(&go.join(GO_WEBHOOK));
    production::go_validator_lists_config_maps(&go.join(GO_WEBHOOK));
    let webhook = std::fs::read_to_string(go.join(GO_WEBHOOK)).unwrap();
    assert!(webhook.contains(production::GO_CONFIG_MAPS_MARKER));
    assert!(webhook.contains("context.WithoutCancel(ctx)"));
    assert!(webhook.contains("v.Reader.List(readCtx, &configMaps"));

    let (_rust_tmp, rust) = common::empty_project_dir("shipyard");
    for command in [
        "init --plugins rust/v1-alpha --domain example.com",
        "create api --group ship --version v1 --kind Frigate --resource --controller",
        "create webhook --group ship --version v1 --kind Frigate --defaulting --programmatic-validation",
    ] {
        common::kb_ok(&rust, &common::words(command));
    }
    production::rust_validator_lists_config_maps(&rust.join(RUST_WEBHOOK));
    let webhook = std::fs::read_to_string(rust.join(RUST_WEBHOOK)).unwrap();
    assert!(webhook.contains(production::RUST_CONFIG_MAPS_RULE));
    assert!(webhook.contains("config_maps.list("));
}
