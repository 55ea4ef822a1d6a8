//! webhook-certs/v1-alpha in the test cluster, for both layouts at once: a
//! go/v4 and a rust/v1-alpha project whose managers keep their own webhook
//! certificates, their images built from their Dockerfiles, deployed side
//! by side with no cert-manager; each one's webhooks called through their
//! Service by two replicas while short-lived certificates and the CA are
//! renewed, with no failed request and no restart; the refusals of objects
//! it was not given; and each one's own `make test-e2e`.

use super::production::{self, Deployed};
use super::{Up, describe, e2e_env, kubectl_path, run_ok, support, text, without_colours};
use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// What the check needs to know of a layout's project.
struct SelfCerts<'a> {
    /// The project, its namespace and its objects' prefix.
    name: &'a str,
    /// The layout's plugin, with which webhook-certs/v1-alpha is chosen.
    layout: &'a str,
    /// The project's domain: its Guestbook is of group `webapp.<domain>`.
    domain: &'a str,
    /// What the defaulter puts into an unset `spec.foo`.
    default_foo: &'a str,
    /// What the manager logs when it becomes the leader.
    leader_line: &'a str,
    /// What a stopping leader logs last, once its reconciles ended.
    stopped_line: &'a str,
    /// What the project's `make test-e2e` says on the way.
    e2e_says: &'a [&'a str],
    /// Gives the scaffolded project the user code the check relies on.
    user_code: fn(&Path),
    /// `make ARGS` in the project with the cluster's variables, bounded.
    make: MakeIn,
    /// Whether the check runs the project's `make test` too (unit tests of
    /// the certificates' code, the webhooks on envtest); the go/v4 one runs
    /// in go::kubebuilder_compat::webhook_certs.
    make_test: bool,
}

/// Runs `make ARGS` in a project with an environment.
type MakeIn = fn(&Path, &[(String, String)], &[&str]) -> Output;

/// The commands after `init`: Guestbook v1 with defaulting, validation
/// and a conversion to v2.
const COMMANDS: &[&str] = &[
    "create api --group webapp --version v1 --kind Guestbook --resource --controller",
    "create webhook --group webapp --version v1 --kind Guestbook --defaulting --programmatic-validation",
    "create api --group webapp --version v2 --kind Guestbook --resource --controller=false",
    "create webhook --group webapp --version v1 --kind Guestbook --conversion --spoke v2",
];

/// Certificates that live 45 s (renewed every 30 s), a CA that lives 2 min
/// (renewed after 80 s): set in the component's args patch, as its comment
/// tells a user.
const SHORT_LIVED: &str = "- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --webhook-cert-validity=45s
- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --webhook-ca-validity=2m
";

#[test]
#[ignore = "needs root, Go, Rust and Debian's container packages; run by the README's test command"]
fn go_and_rust_projects_keep_their_own_webhook_certificates_without_cert_manager() {
    run_ok(&support("cluster"), &["assets"], &[]);
    let layouts = [GO, RUST];
    let projects: Vec<_> = layouts.iter().map(scaffold).collect();
    let kubectl = kubectl_path();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("clusters/selfcerts");
    let cluster = Up::start(&dir);
    let env = e2e_env(&dir, &kubectl, &dir.join("kubeconfig"));
    let no_cert_manager = Command::new("kubectl")
        .args(["get", "crd", "certificates.cert-manager.io"])
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    assert!(
        !no_cert_manager.status.success(),
        "the cluster has cert-manager"
    );

    // Both projects deployed side by side (their own namespaces, CRDs of
    // their own domains), each checked while the other runs and renews.
    std::thread::scope(|scope| {
        for (layout, (_, project)) in layouts.iter().zip(&projects) {
            let env = &env;
            scope.spawn(move || keeps_its_own_webhook_certificates(layout, project, env));
        }
    });

    // Each project's own suite, unmodified: no cert-manager installed, the
    // certificate in the manager's Secret, the CA in every webhook. A suite
    // deletes the Kind cluster it ran on when done, so the second runs on a
    // cluster of its own.
    let (go_project, rust_project) = (&projects[0].1, &projects[1].1);
    own_e2e_suite(&GO, go_project, &env);
    drop(cluster);
    let dir = scratch.path().join("clusters/rustcerts");
    let cluster = Up::start(&dir);
    own_e2e_suite(
        &RUST,
        rust_project,
        &e2e_env(&dir, &kubectl, &dir.join("kubeconfig")),
    );
    drop(cluster);
}

/// The go/v4 project.
const GO: SelfCerts = SelfCerts {
    name: "selfcerts",
    layout: "go/v4",
    domain: "example.com",
    default_foo: "defaulted",
    leader_line: "Successfully acquired lease",
    stopped_line: "All workers finished",
    e2e_says: &[
        "Not installing cert-manager: the manager keeps its own webhook certificates",
        "has the webhook serving certificate the manager keeps in its Secret",
        "has the CA bundle injected into the Guestbook conversion webhook",
    ],
    user_code: |project| {
        let webhook = project.join(GO_WEBHOOK);
        production::go_validator_refuses_an_empty_foo(&webhook);
        defaults_foo(&webhook);
    },
    make: super::bounded_make,
    make_test: false,
};

/// The rust/v1-alpha project, of another domain than the go/v4 one's, so
/// that the two Guestbook CRDs of the cluster are not one.
const RUST: SelfCerts = SelfCerts {
    name: "rustcerts",
    layout: "rust/v1-alpha",
    domain: "example.org",
    // The scaffold's example defaulter and validator, as they are.
    default_foo: "default-foo",
    leader_line: "became the leader",
    stopped_line: "released the leader Lease",
    e2e_says: &[
        "e2e: not installing cert-manager: the manager keeps its own webhook certificates",
        "e2e: the manager serves the webhook certificate it keeps in rustcerts-webhook-server-cert",
        "e2e: the webhooks answered",
        "test result: ok. 1 passed",
    ],
    user_code: super::with_a_lock_file,
    make: super::bounded_rust_make,
    make_test: true,
};

/// The go/v4 project's webhooks of Guestbook v1, where the test adds a
/// validator's check and a defaulter's rule.
const GO_WEBHOOK: &str = "internal/webhook/v1/guestbook_webhook.go";

/// The project `layout` describes, scaffolded in a directory of its own
/// (kept as long as the first value lives), with the user code the check
/// relies on and short-lived certificates.
fn scaffold(layout: &SelfCerts) -> (tempfile::TempDir, PathBuf) {
    let name = layout.name;
    let (project_tmp, project) = common::empty_project_dir(name);
    let mut init = format!(
        "init --domain {} --plugins {},webhook-certs/v1-alpha",
        layout.domain, layout.layout
    );
    if layout.layout == "go/v4" {
        init.push_str(&format!(" --repo {}/{name}", layout.domain));
    }
    common::kb_ok(&project, &common::words(&init));
    for command in COMMANDS {
        common::kb_ok(&project, &common::words(command));
    }
    (layout.user_code)(&project);
    let args_patch = project.join("config/webhook-certs/manager_args_patch.yaml");
    let patch = std::fs::read_to_string(&args_patch).unwrap();
    std::fs::write(&args_patch, format!("{patch}{SHORT_LIVED}")).unwrap();
    (project_tmp, project)
}

/// The check itself, for the project `layout` describes, on the cluster of
/// `env`: deployed from its image, its webhooks called, its certificates
/// renewed under requests, its refusals; undeployed at the end.
fn keeps_its_own_webhook_certificates(
    layout: &SelfCerts,
    project: &Path,
    env: &[(String, String)],
) {
    let name = layout.name;
    let secret_name = format!("{name}-webhook-server-cert");
    let group = format!("webapp.{}", layout.domain);
    let make = |args: &[&str]| -> Output { (layout.make)(project, env, args) };
    let kubectl = |args: &[&str]| run_ok(Path::new("kubectl"), args, env);
    if layout.make_test {
        let test = make(&["test"]);
        assert!(test.status.success(), "{}", describe("make test", &test));
    }
    let image = format!("example.com/{name}:v0.0.1");
    super::load_image(env, &make, &image);
    let installer = make(&["build-installer", &format!("IMG={image}")]);
    assert!(
        installer.status.success(),
        "{}",
        describe("make build-installer", &installer)
    );
    let manifests = std::fs::read_to_string(project.join("dist/install.yaml")).unwrap();
    assert!(
        !manifests.contains("cert-manager.io"),
        "the deployed manifests name cert-manager:\n{manifests}"
    );
    super::deploy_and_wait(env, &make, name, &image);
    let namespace = format!("{name}-system");
    let deployed = Deployed {
        name,
        env,
        webhook_kind: (&format!("{group}/v1"), "Guestbook"),
        domain: layout.domain,
        samples: "default",
        leader_line: layout.leader_line,
        stopped_line: layout.stopped_line,
    };
    deployed.webhooks_reached();

    // The webhooks, through the Service, with the manager's certificate:
    // a bad object refused, one without spec.foo defaulted, a good one
    // admitted and read as v2 through the conversion webhook.
    production::refuses_an_empty_foo(&deployed, "refused");
    let bare = format!(
        "apiVersion: {group}/v1\nkind: Guestbook\nmetadata:\n  name: bare\n  namespace: default\nspec: {{}}\n"
    );
    let created = deployed.kubectl_with_input(&["create", "-f", "-"], &bare);
    assert!(
        created.status.success(),
        "{}",
        describe("create a Guestbook without spec.foo", &created)
    );
    // Read as v1: the scaffold's conversion to v2 carries the metadata only.
    let defaulted = kubectl(&[
        "get",
        &format!("guestbooks.v1.{group}"),
        "bare",
        "-n",
        "default",
        "-o",
        "jsonpath={.spec.foo}",
    ]);
    assert_eq!(
        defaulted, layout.default_foo,
        "the defaulter was not called"
    );
    let good = deployed.create_valid("admitted", false);
    assert!(
        good.status.success(),
        "{}",
        describe("create a valid Guestbook", &good)
    );
    let as_v2 = kubectl(&[
        "get",
        &format!("guestbooks.v2.{group}"),
        "admitted",
        "-n",
        "default",
        "-o",
        "jsonpath={.apiVersion}",
    ]);
    assert_eq!(as_v2, format!("{group}/v2"));
    let bundles = ca_bundles(name, &group, &kubectl);
    let secret = secret_data(name, &kubectl);
    assert_eq!(
        bundles,
        vec![secret.ca.clone(); 3],
        "the mutating, validating and conversion webhooks do not all trust the Secret's CAs"
    );

    // Two replicas; certificates and the CA renewed while objects are
    // admitted through the webhooks (server-side dry runs) and a stored v1
    // is read as v2, once a second.
    kubectl(&[
        "scale",
        &format!("deployment/{name}-controller-manager"),
        "-n",
        &namespace,
        "--replicas=2",
    ]);
    deployed.rolled_out();
    let pods = deployed.manager_pods();
    assert_eq!(pods.len(), 2, "{pods:?}");
    let restarts = deployed.restart_counts();
    let started = Instant::now();
    let (mut leaves, mut cas) = (BTreeSet::new(), BTreeSet::new());
    let (mut failures, mut tries) = (Vec::new(), 0);
    while leaves.len() < 4 || cas.len() < 2 {
        tries += 1;
        let admitted = deployed.create_valid(&format!("rotation-{tries}"), true);
        if !admitted.status.success() {
            failures.push(format!(
                "{:?}: {}",
                started.elapsed(),
                text(&admitted.stderr)
            ));
        }
        let converted = Command::new("kubectl")
            .args([
                "get",
                &format!("guestbooks.v2.{group}"),
                "admitted",
                "-n",
                "default",
            ])
            .envs(env.iter().cloned())
            .output()
            .unwrap();
        if !converted.status.success() {
            failures.push(format!(
                "{:?}: {}",
                started.elapsed(),
                text(&converted.stderr)
            ));
        }
        let secret = secret_data(name, &kubectl);
        leaves.insert(secret.leaf);
        cas.insert(first_certificate(&secret.ca));
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "in 240 s, {} certificates and {} CAs were seen:\n{}",
            leaves.len(),
            cas.len(),
            deployed.manager_log()
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    eprintln!(
        "figure: {name}: {} certificates and {} CAs in {:?}, {tries} admission requests and as many conversions",
        leaves.len(),
        cas.len(),
        started.elapsed()
    );
    assert_eq!(
        failures,
        Vec::<String>::new(),
        "requests failed while the certificates were renewed ({tries} made)"
    );
    assert_eq!(deployed.manager_pods(), pods, "the manager's Pods changed");
    assert_eq!(deployed.restart_counts(), restarts, "the manager restarted");
    // Both replicas took up the renewed certificates (each reads the Secret
    // every 4.5 s); only the leader wrote.
    std::thread::sleep(Duration::from_secs(10));
    let leader = deployed.leader().expect("a leader");
    for pod in &pods {
        let log = deployed.pod_log(pod);
        let served = log.matches("Serving the webhook certificate").count();
        assert!(served >= 4, "{pod} took up {served} certificates:\n{log}");
        let issued = log.contains("Issued a new webhook certificate");
        assert_eq!(
            issued,
            *pod == leader,
            "{pod} (leader {leader}) wrote:\n{log}"
        );
    }

    // The Guestbooks go while the manager serves their conversion: after the
    // refusals below it no longer does, and `make undeploy` deletes them.
    kubectl(&[
        "delete",
        &format!("guestbooks.v1.{group}"),
        "--all",
        "-n",
        "default",
    ]);

    // An object the manager was not given is left alone, with one line.
    let validating = format!("{name}-validating-webhook-configuration");
    let annotation = "webhook-certs.kubebuilder-rs.io/inject-ca-from-secret";
    kubectl(&[
        "annotate",
        "validatingwebhookconfiguration",
        &validating,
        &format!("{annotation}-"),
    ]);
    let before = ca_bundles(name, &group, &kubectl);
    let line = format!("ValidatingWebhookConfiguration {validating} was not made by this project");
    refused_with(&deployed, &leader, &line);
    assert_eq!(
        ca_bundles(name, &group, &kubectl)[1],
        before[1],
        "the configuration was changed"
    );
    kubectl(&[
        "annotate",
        "validatingwebhookconfiguration",
        &validating,
        &format!("{annotation}={secret_name}"),
    ]);
    deployed.rolled_out();
    let held = kubectl(&[
        "annotate",
        "secret",
        &secret_name,
        "-n",
        &namespace,
        "webhook-certs.kubebuilder-rs.io/managed-",
    ]);
    assert!(held.contains("annotated"), "{held}");
    let before = secret_data(name, &kubectl);
    // Every replica reads the Secret, so any stops (the Lease may have no
    // holder for a moment while the one stopped above hands it over).
    let replica = deployed
        .manager_pods()
        .into_iter()
        .next()
        .expect("a replica");
    refused_with(
        &deployed,
        &replica,
        &format!("the Secret {namespace}/{secret_name} is held by something else"),
    );
    assert_eq!(
        secret_data(name, &kubectl),
        before,
        "the Secret was changed"
    );

    let undeploy = make(&["undeploy"]);
    assert!(
        undeploy.status.success(),
        "{}",
        describe("make undeploy", &undeploy)
    );
}

/// The project's own `make test-e2e` on the cluster of `env`, passing and
/// saying what `layout` expects of it.
fn own_e2e_suite(layout: &SelfCerts, project: &Path, env: &[(String, String)]) {
    let started = Instant::now();
    let e2e = (layout.make)(project, env, &["test-e2e"]);
    eprintln!(
        "{}: make test-e2e took {:?}",
        layout.name,
        started.elapsed()
    );
    assert!(e2e.status.success(), "{}", describe("make test-e2e", &e2e));
    let log = without_colours(&format!("{}{}", text(&e2e.stdout), text(&e2e.stderr)));
    for said in layout.e2e_says {
        assert!(log.contains(said), "{said:?} not in:\n{log}");
    }
}

/// Gives the go/v4 defaulter in `file` a rule, as a user writes one:
/// `spec.foo` is "defaulted" when it is not set.
fn defaults_foo(file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let start = text
        .find("func (d *GuestbookDefaulter) Default(")
        .expect("the defaulter");
    let at = start + text[start..].find("return nil").expect("it returns");
    let rule = "if obj.Spec.Foo == nil {\n\t\tobj.Spec.Foo = new(\"defaulted\")\n\t}\n\t";
    std::fs::write(file, format!("{}{rule}{}", &text[..at], &text[at..])).unwrap();
}

/// The CA bundles of the mutating and validating webhooks' first entries
/// and of the CRD's conversion webhook, as PEM.
fn ca_bundles(name: &str, group: &str, kubectl: &dyn Fn(&[&str]) -> String) -> Vec<String> {
    let get = |kind: &str, name: &str, path: &str| {
        let base64 = kubectl(&["get", kind, name, "-o", &format!("jsonpath={{{path}}}")]);
        decode(&base64)
    };
    let hooks = ".webhooks[0].clientConfig.caBundle";
    vec![
        get(
            "mutatingwebhookconfiguration",
            &format!("{name}-mutating-webhook-configuration"),
            hooks,
        ),
        get(
            "validatingwebhookconfiguration",
            &format!("{name}-validating-webhook-configuration"),
            hooks,
        ),
        get(
            "crd",
            &format!("guestbooks.{group}"),
            ".spec.conversion.webhook.clientConfig.caBundle",
        ),
    ]
}

/// What the Secret holds: its CAs and its serving certificate, as PEM.
#[derive(Debug, PartialEq)]
struct SecretData {
    ca: String,
    leaf: String,
}

fn secret_data(name: &str, kubectl: &dyn Fn(&[&str]) -> String) -> SecretData {
    let get = |key: &str| {
        let path = format!("jsonpath={{.data.{}}}", key.replace('.', "\\."));
        decode(&kubectl(&[
            "get",
            "secret",
            &format!("{name}-webhook-server-cert"),
            "-n",
            &format!("{name}-system"),
            "-o",
            &path,
        ]))
    };
    SecretData {
        ca: get("ca.crt"),
        leaf: get("tls.crt"),
    }
}

fn decode(base64: &str) -> String {
    let out = Command::new("base64")
        .arg("-d")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(base64.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    text(&out.stdout)
}

/// The first certificate of a PEM bundle.
fn first_certificate(pem: &str) -> String {
    let end = "-----END CERTIFICATE-----";
    pem.find(end)
        .map_or(pem, |at| &pem[..at + end.len()])
        .to_string()
}

/// Waits until `pod`'s manager stopped, saying `line` in its last log.
fn refused_with(deployed: &Deployed, pod: &str, line: &str) {
    let namespace = format!("{}-system", deployed.name);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let previous = Command::new("kubectl")
            .args(["logs", "--previous", "-n", &namespace, pod])
            .envs(deployed.env.iter().cloned())
            .output()
            .unwrap();
        let log = text(&previous.stdout);
        if log.contains(line) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{pod} did not stop with {line:?} within 120 s:\n{}",
            deployed.pod_log(pod)
        );
        std::thread::sleep(Duration::from_secs(1));
    }
}
