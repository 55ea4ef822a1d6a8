//! What production does to a deployed manager, checked in the test cluster
//! for both layouts: the webhooks refuse a bad object with their own message
//! and keep answering through a certificate renewal by cert-manager; with two
//! replicas, deleting the leader hands reconciling to the other one without
//! overlap and without losing what was created meanwhile; and a rolling
//! restart while objects are created fails no admission request.

use super::{describe, run_ok, text};
use crate::common::cluster::Background;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A project's manager deployed in the test cluster, as these checks see it.
pub struct Deployed<'a> {
    /// The project's name: the manager runs in `NAME-system`.
    pub name: &'a str,
    /// The cluster's variables (KUBECONFIG, PATH with kubectl).
    pub env: &'a [(String, String)],
    /// The API version and kind the webhooks admit, e.g.
    /// `("webapp.example.com/v1", "Guestbook")`.
    pub webhook_kind: (&'a str, &'a str),
    /// The project's domain: its Memcached is of group `cache.<domain>`.
    pub domain: &'a str,
    /// The namespace of the Memcached sample and of every object the checks
    /// create.
    pub samples: &'a str,
    /// What the manager logs when it becomes the leader.
    pub leader_line: &'a str,
    /// What the leader logs last once its reconciles ended, on a clean stop.
    pub stopped_line: &'a str,
}

/// The message the webhooks of both test projects refuse `spec.foo: ""`
/// with (rust/v1-alpha's example check; the go project's test adds it, as a
/// user would).
pub const EMPTY_FOO: &str = "spec.foo must not be empty";

impl Deployed<'_> {
    fn namespace(&self) -> String {
        format!("{}-system", self.name)
    }

    fn deployment(&self) -> String {
        format!("deployment/{}-controller-manager", self.name)
    }

    /// The Memcached resource, for kubectl: `memcacheds.cache.<domain>`.
    pub(crate) fn memcacheds(&self) -> String {
        format!("memcacheds.cache.{}", self.domain)
    }

    /// Waits until the manager's Deployment has rolled out.
    pub(crate) fn rolled_out(&self) {
        self.kubectl(&[
            "rollout",
            "status",
            &self.deployment(),
            "-n",
            &self.namespace(),
            "--timeout=180s",
        ]);
    }

    /// Whether the object `kind`/`name` (in `namespace`, if namespaced)
    /// exists.
    pub(crate) fn exists(&self, kind: &str, name: &str, namespace: Option<&str>) -> bool {
        let mut command = Command::new("kubectl");
        command
            .args(["get", kind, name])
            .envs(self.env.iter().cloned());
        if let Some(namespace) = namespace {
            command.args(["-n", namespace]);
        }
        command.output().unwrap().status.success()
    }

    pub(crate) fn kubectl(&self, args: &[&str]) -> String {
        run_ok(Path::new("kubectl"), args, self.env)
    }

    /// kubectl with `input` on its standard input; its output, whatever
    /// the exit.
    pub(crate) fn kubectl_with_input(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write as _;
        let mut child = Command::new("kubectl")
            .args(args)
            .envs(self.env.iter().cloned())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// An object of the webhooks' kind in the samples' namespace, with
    /// `spec.foo` set to `value`.
    fn webhook_object(&self, name: &str, value: &str) -> String {
        let (api_version, kind) = self.webhook_kind;
        format!(
            "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {}\nspec:\n  foo: {value:?}\n",
            self.samples
        )
    }

    /// `kubectl create` of a valid object of the webhooks' kind, through
    /// the webhooks (`dry_run`: server side, nothing stored).
    pub(crate) fn create_valid(&self, name: &str, dry_run: bool) -> Output {
        let mut args = vec!["create", "-f", "-"];
        if dry_run {
            args.push("--dry-run=server");
        }
        self.kubectl_with_input(&args, &self.webhook_object(name, "ok"))
    }

    /// A Memcached (deploy-image/v1-alpha) named `name` in the samples'
    /// namespace, size 1.
    pub(crate) fn create_memcached(&self, name: &str) {
        let manifest = format!(
            "apiVersion: cache.{}/v1alpha1\nkind: Memcached\nmetadata:\n  name: {name}\n  namespace: {}\nspec:\n  size: 1\n",
            self.domain, self.samples
        );
        let out = self.kubectl_with_input(&["create", "-f", "-"], &manifest);
        assert!(
            out.status.success(),
            "{}",
            describe("create Memcached", &out)
        );
    }

    /// Waits until each Memcached in `names` says Available and has its
    /// Deployment.
    pub(crate) fn wait_reconciled(&self, names: &[String], limit: Duration) {
        let deadline = Instant::now() + limit;
        for name in names {
            loop {
                let available = Command::new("kubectl")
                    .args(["get", &self.memcacheds(), name, "-n", self.samples])
                    .args([
                        "-o",
                        "jsonpath={.status.conditions[?(@.type==\"Available\")].status}",
                    ])
                    .envs(self.env.iter().cloned())
                    .output()
                    .unwrap();
                if text(&available.stdout) == "True"
                    && self.exists("deployment", name, Some(self.samples))
                {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "Memcached {name} was not reconciled within {limit:?}:\n{}\nthe manager's \
                     last lines:\n{}",
                    self.kubectl(&["get", &self.memcacheds(), "-n", self.samples, "-o", "yaml"]),
                    self.last_log_lines(40)
                );
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }

    /// The names of the manager's Pods that are not being deleted.
    pub(crate) fn manager_pods(&self) -> Vec<String> {
        let names = self.kubectl(&[
            "get",
            "pods",
            "-n",
            &self.namespace(),
            "-l",
            "control-plane=controller-manager",
            "-o",
            "go-template={{range .items}}{{if not .metadata.deletionTimestamp}}{{.metadata.name}} {{end}}{{end}}",
        ]);
        names.split_whitespace().map(str::to_string).collect()
    }

    /// The Pod named by the leader Lease's holder (`POD_…`), if any.
    pub(crate) fn leader(&self) -> Option<String> {
        let holders = self.kubectl(&[
            "get",
            "leases",
            "-n",
            &self.namespace(),
            "-o",
            "jsonpath={.items[*].spec.holderIdentity}",
        ]);
        let holder = holders.split_whitespace().next()?;
        holder.split('_').next().map(str::to_string)
    }

    /// The restart counts of the manager's Pods' containers.
    pub(crate) fn restart_counts(&self) -> String {
        self.kubectl(&[
            "get",
            "pods",
            "-n",
            &self.namespace(),
            "-l",
            "control-plane=controller-manager",
            "-o",
            "jsonpath={.items[*].status.containerStatuses[0].restartCount}",
        ])
    }

    /// What the manager (one of its Pods) has logged since its container
    /// last started.
    pub(crate) fn manager_log(&self) -> String {
        self.kubectl(&["logs", "-n", &self.namespace(), &self.deployment()])
    }

    /// The manager's last `lines` lines of log and what kubectl said, for a
    /// failure's message (never fails itself).
    fn last_log_lines(&self, lines: usize) -> String {
        Command::new("kubectl")
            .args(["logs", "-n", &self.namespace(), &self.deployment()])
            .arg(format!("--tail={lines}"))
            .envs(self.env.iter().cloned())
            .output()
            .map(|out| format!("{}{}", text(&out.stdout), text(&out.stderr)))
            .unwrap_or_default()
    }

    /// What the manager's Pod `pod` has logged since its container last
    /// started; empty while it cannot tell.
    pub(crate) fn pod_log(&self, pod: &str) -> String {
        let out = Command::new("kubectl")
            .args(["logs", "-n", &self.namespace(), pod])
            .envs(self.env.iter().cloned())
            .output()
            .unwrap();
        text(&out.stdout)
    }

    /// Sets the Memcached sample's size.
    pub(crate) fn set_sample_size(&self, size: u32) {
        self.kubectl(&[
            "patch",
            &self.memcacheds(),
            "memcached-sample",
            "-n",
            self.samples,
            "--type=merge",
            "-p",
            &format!(r#"{{"spec":{{"size":{size}}}}}"#),
        ]);
    }

    /// Deletes the leader's Pod and returns the Pod that holds the Lease
    /// next, once the Deployment has rolled out again and the webhooks are
    /// reached through their Service.
    pub(crate) fn next_leader(&self) -> String {
        let old = self.leader().expect("a leader");
        self.kubectl(&[
            "delete",
            "pod",
            &old,
            "-n",
            &self.namespace(),
            "--wait=false",
        ]);
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(leader) = self.leader().filter(|leader| *leader != old) {
                self.rolled_out();
                self.webhooks_reached();
                return leader;
            }
            assert!(
                Instant::now() < deadline,
                "no leader after {old} within 120 s"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Waits until the API server reaches the webhooks through their
    /// Service (admitted or refused, but answered): the new Pod's endpoint
    /// is in the node's Service rules a moment after the Pod is ready.
    pub(crate) fn webhooks_reached(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.create_valid("reach-check", true);
            if !text(&out.stderr).contains("failed calling webhook") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}",
                describe("the webhooks were not reached within 60 s", &out)
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The messages of the `LeaderElection` events in the manager's
    /// namespace, one per line ("IDENTITY became leader").
    pub(crate) fn leader_events(&self) -> String {
        self.kubectl(&[
            "get",
            "events",
            "-n",
            &self.namespace(),
            "--field-selector",
            "reason=LeaderElection",
            "-o",
            "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}",
        ])
    }
}

/// A bad object is refused with the webhook's own message and a good one
/// admitted; after cert-manager renews the webhook's certificate (forced
/// as `cmctl renew` does it, through the Certificate's `Issuing`
/// condition), the running manager serves the new certificate through the
/// webhook Service without a restart, and no admission request fails
/// meanwhile.
pub fn webhooks_serve_a_renewed_certificate(deployed: &Deployed) {
    refuses_an_empty_foo(deployed, "refused");
    let good = deployed.create_valid("admitted", false);
    assert!(
        good.status.success(),
        "{}",
        describe("create a valid object", &good)
    );

    let namespace = deployed.namespace();
    let pods = deployed.manager_pods();
    let restarts = deployed.restart_counts();
    let secret_cert = || {
        first_pem(&deployed.kubectl(&[
            "get",
            "secret",
            "webhook-server-cert",
            "-n",
            &namespace,
            "-o",
            r#"go-template={{index .data "tls.crt" | base64decode}}"#,
        ]))
    };
    let before = secret_cert();
    // A Pod that fetches the served certificate every second and stops
    // once it changed.
    let url = format!(
        "https://{0}-webhook-service.{0}-system.svc:443/",
        deployed.name
    );
    let script = format!(
        "fetch() {{ curl -sk --max-time 3 -o /dev/null -w '%{{certs}}' {url}; }}; \
         first=$(fetch); while [ -z \"$first\" ]; do sleep 1; first=$(fetch); done; echo watching; \
         for i in $(seq 1 240); do now=$(fetch); \
           if [ -n \"$now\" ] && [ \"$now\" != \"$first\" ]; then echo \"changed after $i\"; echo \"$now\"; exit 0; fi; \
           sleep 1; done; echo unchanged"
    );
    deployed.kubectl(&[
        "run",
        "cert-watch",
        "-n",
        deployed.samples,
        "--restart=Never",
        "--image=curlimages/curl:latest",
        "--image-pull-policy=IfNotPresent",
        "--command",
        "--",
        "sh",
        "-c",
        &script,
    ]);
    let log = || {
        let out = Command::new("kubectl")
            .args(["logs", "cert-watch", "-n", deployed.samples])
            .envs(deployed.env.iter().cloned())
            .output()
            .unwrap();
        text(&out.stdout)
    };
    crate::common::cluster::wait_until("the certificate watcher", Duration::from_secs(120), || {
        log().contains("watching")
    });
    deployed.kubectl(&[
        "patch",
        "certificate",
        &format!("{}-serving-cert", deployed.name),
        "-n",
        &namespace,
        "--subresource=status",
        "--type=json",
        "-p",
        r#"[{"op":"add","path":"/status/conditions/-","value":{"type":"Issuing","status":"True","reason":"ManuallyTriggered","message":"renewal forced by the test"}}]"#,
    ]);
    let renewed = Instant::now();
    // Admission through the webhooks, once a second, until the watcher saw
    // the new certificate (server-side dry runs: nothing is stored).
    let mut failures = Vec::new();
    let mut tries = 0;
    let phase = loop {
        let phase = deployed.kubectl(&[
            "get",
            "pod",
            "cert-watch",
            "-n",
            deployed.samples,
            "-o",
            "jsonpath={.status.phase}",
        ]);
        if phase == "Succeeded" || phase == "Failed" {
            break phase;
        }
        tries += 1;
        let out = deployed.create_valid(&format!("renewal-{tries}"), true);
        if !out.status.success() {
            failures.push(text(&out.stderr));
        }
        assert!(
            renewed.elapsed() < Duration::from_secs(300),
            "the watcher still runs 300 s after the renewal:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_secs(1));
    };
    let watched = log();
    let served = watched
        .lines()
        .find_map(|line| line.strip_prefix("changed after "))
        .unwrap_or_else(|| panic!("the served certificate did not change ({phase}):\n{watched}"));
    eprintln!(
        "renewed certificate served after {served} s ({:?} after the renewal was asked for); {tries} admission requests meanwhile",
        renewed.elapsed()
    );
    let after = secret_cert();
    assert_ne!(after, before, "cert-manager did not renew the certificate");
    assert_eq!(
        first_pem(&watched),
        after,
        "the webhook Service serves another certificate than the renewed one"
    );
    assert_eq!(
        failures,
        Vec::<String>::new(),
        "admission requests failed during the renewal ({tries} made)"
    );
    assert_eq!(deployed.manager_pods(), pods, "the manager's Pods changed");
    assert_eq!(deployed.restart_counts(), restarts, "the manager restarted");
    refuses_an_empty_foo(deployed, "refused-after-renewal");
    deployed.kubectl(&["delete", "pod", "cert-watch", "-n", deployed.samples]);
}

/// With two replicas, deleting the leader's Pod hands reconciling to
/// another (the other replica, or the Pod replacing the deleted one): the
/// Lease changes holder within its duration (15 s), the old
/// leader's reconciles ended before the new one took over, and the
/// Memcacheds created during the hand-over are all reconciled. Returns the
/// gap: from the deletion to the new holder.
pub fn deleting_the_leader_hands_over(deployed: &Deployed, logs_dir: &Path) -> Duration {
    let namespace = deployed.namespace();
    let deployment = deployed.deployment();
    deployed.kubectl(&["scale", &deployment, "-n", &namespace, "--replicas=2"]);
    deployed.rolled_out();
    crate::common::cluster::wait_until(
        "a leader among two Ready replicas",
        Duration::from_secs(60),
        || {
            let pods = deployed.manager_pods();
            pods.len() == 2
                && deployed
                    .leader()
                    .is_some_and(|leader| pods.contains(&leader))
        },
    );
    let leader = deployed.leader().unwrap();
    let mut old_log = {
        let mut command = Command::new("kubectl");
        command
            .args(["logs", "-f", "--timestamps", "-n", &namespace, &leader])
            .envs(deployed.env.iter().cloned());
        Background::logged(&mut command, &logs_dir.join("old-leader.log"))
    };
    std::thread::sleep(Duration::from_secs(2));

    let deleted = Instant::now();
    deployed.kubectl(&["delete", "pod", &leader, "-n", &namespace, "--wait=false"]);
    let created: Vec<String> = (1..=3).map(|i| format!("handover-{i}")).collect();
    for name in &created {
        deployed.create_memcached(name);
    }
    // The other replica, or the Pod replacing the deleted one, whichever
    // tries first once the Lease is free.
    let mut successor = None;
    crate::common::cluster::wait_until(
        "another Pod to take the Lease",
        Duration::from_secs(60),
        || {
            successor = deployed.leader().filter(|holder| *holder != leader);
            successor.is_some()
        },
    );
    let successor = successor.unwrap();
    // Within the Lease's duration (15 s): the leader serves on for its 5 s
    // preStop sleep, then gives the Lease up as it stops, and another Pod
    // takes it at its next try (every 2 s), without waiting for it to expire.
    let gap = deleted.elapsed();
    assert!(
        gap < Duration::from_secs(15),
        "{successor} took the Lease {gap:?} after the leader's Pod was deleted"
    );
    deployed.wait_reconciled(&created, Duration::from_secs(120));
    deployed.kubectl(&[
        "wait",
        "--for=delete",
        &format!("pod/{leader}"),
        "-n",
        &namespace,
        "--timeout=60s",
    ]);
    old_log.interrupt(Duration::from_secs(10));
    let old = std::fs::read_to_string(logs_dir.join("old-leader.log")).unwrap();
    let new = deployed.kubectl(&["logs", "--timestamps", "-n", &namespace, &successor]);
    let took_over = line_time(&new, deployed.leader_line).unwrap_or_else(|| {
        panic!(
            "{:?} not in the log of {successor}:\n{new}",
            deployed.leader_line
        )
    });
    let stopped = last_line_time(&old, deployed.stopped_line).unwrap_or_else(|| {
        panic!(
            "{:?} not in the old leader's log:\n{old}",
            deployed.stopped_line
        )
    });
    assert!(
        stopped < took_over,
        "the old leader still reconciled ({stopped:?}) when {successor} took over ({took_over:?}):\n--- old\n{old}\n--- new\n{new}"
    );
    gap
}

/// `kubectl rollout restart` of the manager while objects are created: every
/// request through the webhooks is admitted (the Service sends only to
/// ready Pods, and a stopping Pod keeps serving until it left the Service)
/// and every Memcached created meanwhile is reconciled.
pub fn a_rolling_restart_fails_no_request(deployed: &Deployed) {
    let namespace = deployed.namespace();
    let deployment = deployed.deployment();
    let before = deployed.manager_pods();
    deployed.kubectl(&["rollout", "restart", &deployment, "-n", &namespace]);
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut memcacheds = Vec::new();
    let mut tries = 0;
    let mut settled_at = None;
    // Until every old Pod is gone, and ten seconds more.
    while settled_at.is_none_or(|at: Instant| at.elapsed() < Duration::from_secs(10)) {
        tries += 1;
        let out = deployed.create_valid(&format!("restart-{tries}"), false);
        if !out.status.success() {
            failures.push(format!("{:?}: {}", started.elapsed(), text(&out.stderr)));
        }
        if tries % 10 == 1 && memcacheds.len() < 3 {
            let name = format!("restart-{}", memcacheds.len() + 1);
            deployed.create_memcached(&name);
            memcacheds.push(name);
        }
        let pods = deployed.manager_pods();
        if settled_at.is_none()
            && !pods.iter().any(|pod| before.contains(pod))
            && all_pods_gone(deployed, &before)
        {
            settled_at = Some(Instant::now());
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the rollout did not end within 300 s:\n{}",
            deployed.kubectl(&["get", "pods", "-n", &namespace])
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    eprintln!(
        "{}: rolling restart in {:?}, {tries} objects created through the webhooks meanwhile",
        deployed.name,
        started.elapsed()
    );
    assert_eq!(
        failures,
        Vec::<String>::new(),
        "admission requests failed during the rolling restart ({tries} made)"
    );
    deployed.wait_reconciled(&memcacheds, Duration::from_secs(120));
}

/// Whether none of `pods` exists any more, not even terminating.
fn all_pods_gone(deployed: &Deployed, pods: &[String]) -> bool {
    let listed = deployed.kubectl(&[
        "get",
        "pods",
        "-n",
        &deployed.namespace(),
        "-o",
        "jsonpath={.items[*].metadata.name}",
    ]);
    !listed
        .split_whitespace()
        .any(|pod| pods.iter().any(|old| old == pod))
}

/// The first certificate (PEM) in `text`, without its line breaks.
fn first_pem(text: &str) -> String {
    let begin = text
        .find("-----BEGIN CERTIFICATE-----")
        .unwrap_or_else(|| panic!("no certificate in:\n{text}"));
    let end = text[begin..]
        .find("-----END CERTIFICATE-----")
        .unwrap_or_else(|| panic!("no certificate end in:\n{text}"));
    text[begin..begin + end].split_whitespace().collect()
}

/// When a log line (from `kubectl logs --timestamps`) was written, as
/// (date and time to the second, nanoseconds): comparable.
type LogTime = (String, u32);

fn parse_log_time(line: &str) -> Option<LogTime> {
    let stamp = line.split_whitespace().next()?.strip_suffix('Z')?;
    let (seconds, fraction) = stamp.split_once('.').unwrap_or((stamp, ""));
    let nanos = format!("{fraction:0<9}").parse().ok()?;
    Some((seconds.to_string(), nanos))
}

/// The time of the first line of `log` containing `needle`.
fn line_time(log: &str, needle: &str) -> Option<LogTime> {
    log.lines()
        .find(|line| line.contains(needle))
        .and_then(parse_log_time)
}

/// The time of the last line of `log` containing `needle`.
fn last_line_time(log: &str, needle: &str) -> Option<LogTime> {
    log.lines()
        .rev()
        .find(|line| line.contains(needle))
        .and_then(parse_log_time)
}

/// Gives the go/v4 validator in `file` the check rust/v1-alpha scaffolds
/// as its example ([`EMPTY_FOO`]) on creation, as a user writes one: at
/// the `TODO` of ValidateCreate.
pub fn go_validator_refuses_an_empty_foo(file: &Path) {
    let check = format!(
        "if obj.Spec.Foo != nil && *obj.Spec.Foo == \"\" {{\n\t\treturn nil, errors.New({EMPTY_FOO:?})\n\t}}\n"
    );
    replace_once_each(
        file,
        &[
            ("import (\n", "import (\n\t\"errors\"\n"),
            (
                "// TODO(user): return an error for an invalid object.\n",
                &check,
            ),
        ],
    );
}

/// Replaces in `file` each `from` of `edits`, which must be there once, by
/// its `to`.
fn replace_once_each(file: &Path, edits: &[(&str, &str)]) {
    let mut edited = std::fs::read_to_string(file).unwrap();
    for (from, to) in edits {
        assert_eq!(
            edited.matches(from).count(),
            1,
            "{from:?} once in {}",
            file.display()
        );
        edited = edited.replacen(from, to, 1);
    }
    std::fs::write(file, edited).unwrap();
}

/// The RBAC marker [`go_validator_lists_config_maps`] gives the webhook.
pub const GO_CONFIG_MAPS_MARKER: &str =
    "// +kubebuilder:rbac:groups=\"\",resources=configmaps,verbs=list";

/// Gives the go/v4 validator in `file` a check that reads the cluster, as a
/// user writes one: it lists the ConfigMaps of the object's namespace
/// through the manager's API reader (a failure refuses the object), with
/// the RBAC marker [`GO_CONFIG_MAPS_MARKER`] for it. The read has a context
/// of its own, not the request's: controller-runtime v0.25 cancels every
/// webhook request's context when the manager stops, so a request the old
/// Pod of a rolling restart answers as it stops would otherwise fail its
/// read and be refused ("context canceled"; docs/create-webhook.md).
pub fn go_validator_lists_config_maps(file: &Path) {
    let edits = [
        ("\t\"context\"\n", "\t\"context\"\n\t\"fmt\"\n\t\"time\"\n"),
        (
            "\t\"sigs.k8s.io/controller-runtime/pkg/webhook/admission\"\n",
            "\t\"sigs.k8s.io/controller-runtime/pkg/webhook/admission\"\n\tcorev1 \"k8s.io/api/core/v1\"\n\t\"sigs.k8s.io/controller-runtime/pkg/client\"\n",
        ),
        (
            "WithValidator(&GuestbookValidator{})",
            "WithValidator(&GuestbookValidator{Reader: mgr.GetAPIReader()})",
        ),
        (
            "// GuestbookValidator accepts",
            &format!("{GO_CONFIG_MAPS_MARKER}\n\n// GuestbookValidator accepts"),
        ),
        (
            "type GuestbookValidator struct {\n\t// TODO(user): add what validation needs, e.g. a client to read other objects.\n}",
            "type GuestbookValidator struct {\n\tReader client.Reader\n}",
        ),
        (
            "\tif obj.Spec.Foo != nil",
            concat!(
                "\t// controller-runtime cancels a request's context as soon as the manager\n",
                "\t// stops, even while the request is answered: the read gets its own.\n",
                "\treadCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)\n",
                "\tdefer cancel()\n",
                "\tvar configMaps corev1.ConfigMapList\n",
                "\tif err := v.Reader.List(readCtx, &configMaps, client.InNamespace(obj.Namespace), client.Limit(1)); err != nil {\n",
                "\t\treturn nil, fmt.Errorf(\"cannot list the ConfigMaps of %s: %w\", obj.Namespace, err)\n",
                "\t}\n\tif obj.Spec.Foo != nil",
            ),
        ),
    ];
    replace_once_each(file, &edits);
}

/// The rule [`rust_validator_lists_config_maps`] gives the webhook.
pub const RUST_CONFIG_MAPS_RULE: &str =
    "crate::controller::rule(\"\", &[\"configmaps\"], &[\"list\"]),";

/// The rust/v1-alpha counterpart of [`go_validator_lists_config_maps`]: the
/// validator in `file` lists the ConfigMaps of the object's namespace with
/// the client it is given, and names the rule for it
/// ([`RUST_CONFIG_MAPS_RULE`]) in `rbac_rules`.
pub fn rust_validator_lists_config_maps(file: &Path) {
    let edits = [
        (
            "    async fn validate_create(&self, _client: &Client) -> Verdict {\n",
            "    async fn validate_create(&self, client: &Client) -> Verdict {\n        let namespace = self.metadata.namespace.clone().unwrap_or_default();\n        let config_maps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =\n            kube::Api::namespaced(client.clone(), &namespace);\n        let listed = config_maps.list(&kube::api::ListParams::default().limit(1)).await;\n        listed.map_err(|e| format!(\"cannot list the ConfigMaps of {namespace}: {e}\"))?;\n",
        ),
        (
            "        // TODO(user): a rule for each kind the checks read.\n        Vec::new()\n",
            &format!("        vec![\n            {RUST_CONFIG_MAPS_RULE}\n        ]\n"),
        ),
    ];
    replace_once_each(file, &edits);
}

/// helm/v2-alpha's chart runs the operator: `make build-installer`, `edit
/// --plugins helm/v2-alpha`, `make helm-deploy` give a Ready manager that
/// reconciles the Memcached sample (its Deployment Ready) and whose webhooks
/// refuse a bad object; `make helm-deploy` with a new image rolls the
/// manager to it; deleting the sample removes its Deployment (finalizer);
/// `make helm-uninstall` removes every object of the release but the CRDs,
/// which the chart keeps. `make` runs make in the project; `load` builds
/// and loads an image under the name it is given.
pub fn the_helm_chart_runs_the_operator(
    deployed: &Deployed,
    project: &Path,
    make: &dyn Fn(&[&str]) -> Output,
    load: &dyn Fn(&str),
) {
    let make_ok = |args: &[&str]| {
        let out = make(args);
        assert!(
            out.status.success(),
            "{}",
            describe(&format!("make {}", args.join(" ")), &out)
        );
        text(&out.stdout)
    };
    let image = |tag: &str| format!("example.com/{}:{tag}", deployed.name);
    make_ok(&["build-installer", &format!("IMG={}", image("v0.0.1"))]);
    crate::common::kb_ok(
        project,
        &crate::common::words("edit --plugins helm/v2-alpha"),
    );
    let helm =
        crate::common::helm::helm_release(&crate::common::makefile_value(project, "HELM_VERSION"));
    let helm_arg = format!("HELM={}", helm.display());
    make_ok(&[
        "helm-deploy",
        &format!("IMG={}", image("v0.0.1")),
        &helm_arg,
    ]);
    let namespace = deployed.namespace();
    deployed.rolled_out();
    let sample = project.join("config/samples/cache_v1alpha1_memcached.yaml");
    deployed.kubectl(&[
        "apply",
        "-n",
        deployed.samples,
        "-f",
        sample.to_str().unwrap(),
    ]);
    deployed.wait_reconciled(&["memcached-sample".to_string()], Duration::from_secs(180));
    refuses_an_empty_foo(deployed, "helm-refused");

    load(&image("v0.0.2"));
    make_ok(&[
        "helm-deploy",
        &format!("IMG={}", image("v0.0.2")),
        &helm_arg,
    ]);
    deployed.rolled_out();
    // The old Pod goes once its preStop sleep is over.
    let running = || {
        deployed.kubectl(&[
            "get",
            "pods",
            "-n",
            &namespace,
            "-l",
            "control-plane=controller-manager",
            "-o",
            "jsonpath={.items[*].spec.containers[0].image}",
        ])
    };
    crate::common::cluster::wait_until(
        "only the new image's manager Pod",
        Duration::from_secs(60),
        || running() == image("v0.0.2"),
    );
    refuses_an_empty_foo(deployed, "helm-refused-after-upgrade");

    deployed.kubectl(&[
        "delete",
        &deployed.memcacheds(),
        "memcached-sample",
        "-n",
        deployed.samples,
        "--timeout=120s",
    ]);
    crate::common::cluster::wait_until(
        "the sample's Deployment to go",
        Duration::from_secs(60),
        || !deployed.exists("deployment", "memcached-sample", Some(deployed.samples)),
    );

    let manifest = run_ok(
        &helm,
        &["get", "manifest", deployed.name, "-n", &namespace],
        deployed.env,
    );
    let installed = crate::common::cluster::objects(&manifest);
    assert!(installed.len() > 10, "the release holds {installed:?}");
    make_ok(&["helm-uninstall", &helm_arg]);
    crate::common::cluster::wait_until(
        "the release's objects to go",
        Duration::from_secs(120),
        || {
            installed
                .iter()
                .filter(|(kind, _, _)| kind != "CustomResourceDefinition")
                .all(|(kind, name, ns)| !deployed.exists(kind, name, ns.as_deref()))
        },
    );
    let crds: Vec<&String> = installed
        .iter()
        .filter(|(kind, _, _)| kind == "CustomResourceDefinition")
        .map(|(_, name, _)| name)
        .collect();
    assert!(!crds.is_empty(), "the release installed no CRD");
    for crd in crds {
        assert!(
            deployed.exists("crd", crd, None),
            "helm uninstall removed {crd}, which the chart keeps"
        );
        deployed.kubectl(&["delete", "crd", crd]);
    }
    deployed.kubectl(&["delete", "namespace", &namespace, "--timeout=120s"]);
}

/// An object with an empty `spec.foo` is refused with the webhook's message.
pub(crate) fn refuses_an_empty_foo(deployed: &Deployed, name: &str) {
    let bad =
        deployed.kubectl_with_input(&["create", "-f", "-"], &deployed.webhook_object(name, ""));
    assert!(
        !bad.status.success()
            && text(&bad.stderr).contains(&format!("denied the request: {EMPTY_FOO}")),
        "{}",
        describe("create an object with an empty spec.foo", &bad)
    );
}
