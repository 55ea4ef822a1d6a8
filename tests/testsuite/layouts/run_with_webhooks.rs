//! `make run-with-webhooks` in a go/v4 and a rust/v1-alpha project, against
//! a real API server started by `tests/support/control-plane up`: the
//! manager runs on this machine with its defaulting, validating and
//! conversion webhooks on, and the API server calls them through the
//! configurations the run applies; a stopped run leaves nothing behind, a
//! killed one leaves labeled leftovers that the next run replaces, and a
//! configuration of the same name that a run did not make is refused with
//! the cluster untouched.
//!
//! Needs Go, cargo, the module proxy and the control-plane binaries
//! (KUBEBUILDER_ASSETS), so it is run by `scripts/test-all`.

use crate::common::cluster::{
    Background, ControlPlane, Env, default_ports_lock, env_for, step, wait_until,
};
use crate::common::rust_project::{self, WEBHOOK_PROJECT, sharing_the_build_dir};
use crate::common::{empty_project_dir, kb, stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

const CRD: &str = "frigates.ship.example.com";
/// What the run prints once the API server calls the manager.
const SERVING: &str = "the API server now calls the webhooks";

/// What differs between the layouts' projects.
struct Layout {
    /// The project's name, so its configurations are `<name>-run-with-webhooks`.
    name: &'static str,
    /// Scaffolds Frigate v1 (hub) and v2 with all three webhooks, gives the
    /// defaulter and the validator a rule each where the scaffold has none,
    /// and runs `make install`.
    scaffold: fn(&Layout, &Path, &Env),
    /// `spec.foo` as the defaulter sets it.
    defaulted: &'static str,
    /// A spec the validator refuses, and what it says.
    refused: (&'static str, &'static str),
    /// Whether make's builds go to the lane's shared cargo build dir.
    cargo: bool,
}

impl Layout {
    /// `make args` in `dir`.
    fn make(&self, env: &Env, dir: &Path, args: &[&str]) -> Command {
        let mut command = env.command(dir, "make", args);
        if self.cargo {
            sharing_the_build_dir(&mut command);
        }
        command
    }

    /// Runs `make args` in `dir`; panics with its output on failure.
    fn make_ok(&self, env: &Env, dir: &Path, args: &[&str]) {
        let output = self.make(env, dir, args).output().unwrap();
        assert!(
            output.status.success(),
            "make {args:?}: {}{}",
            stdout(&output),
            stderr(&output)
        );
    }

    fn configuration(&self) -> String {
        format!("{}-run-with-webhooks", self.name)
    }
}

const GO: Layout = Layout {
    name: "fleet",
    scaffold: scaffold_go,
    defaulted: "defaulted",
    refused: ("{foo: bad}", "spec.foo may not be bad"),
    cargo: false,
};

const RUST: Layout = Layout {
    name: "armada",
    scaffold: scaffold_rust,
    defaulted: "default-foo",
    refused: ("{foo: \"\"}", "spec.foo must not be empty"),
    cargo: true,
};

fn scaffold_go(layout: &Layout, dir: &Path, env: &Env) {
    for line in [
        "init --domain example.com --repo example.com/fleet",
        "create api --group ship --version v1 --kind Frigate --resource --controller --make=false",
        "create api --group ship --version v2 --kind Frigate --resource --controller=false --make=false",
        "create webhook --group ship --version v1 --kind Frigate --defaulting \
         --programmatic-validation --conversion --spoke v2 --make=false",
    ] {
        let output = kb(dir).args(line.split_whitespace()).output().unwrap();
        assert!(output.status.success(), "{line}: {}", stderr(&output));
    }
    let path = dir.join("internal/webhook/v1/frigate_webhook.go");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = insert_before_return(
        &text,
        "func (d *FrigateDefaulter) Default(",
        "return nil",
        "if obj.Spec.Foo == nil {\n\t\tobj.Spec.Foo = new(\"defaulted\")\n\t}\n\t",
    );
    let text = insert_before_return(
        &text,
        "func (v *FrigateValidator) ValidateCreate(",
        "return nil, nil",
        "if obj.Spec.Foo != nil && *obj.Spec.Foo == \"bad\" {\n\t\treturn nil, errors.New(\"spec.foo may not be bad\")\n\t}\n\t",
    );
    let text = text.replacen("import (\n", "import (\n\t\"errors\"\n", 1);
    std::fs::write(&path, text).unwrap();
    env.run(dir, "go", &["mod", "tidy"]);
    layout.make_ok(env, dir, &["install"]);
}

/// The Rust scaffold's webhooks come with an example rule each.
fn scaffold_rust(layout: &Layout, dir: &Path, env: &Env) {
    rust_project::scaffold(dir, WEBHOOK_PROJECT);
    layout.make_ok(env, dir, &["install"]);
}

/// `text` with `code` inserted before the first `ret` after `function`.
fn insert_before_return(text: &str, function: &str, ret: &str, code: &str) -> String {
    let start = text.find(function).expect("the function is scaffolded");
    let at = start + text[start..].find(ret).expect("the function returns");
    format!("{}{code}{}", &text[..at], &text[at..])
}

/// Starts `make run-with-webhooks` and waits until the API server calls it.
fn start(layout: &Layout, dir: &Path, env: &Env, log: &str) -> Background {
    let log_path = dir.join(log);
    let run = Background::logged(
        &mut layout.make(env, dir, &["run-with-webhooks"]),
        &log_path,
    );
    wait_until(SERVING, Duration::from_secs(600), || {
        std::fs::read_to_string(&log_path).is_ok_and(|text| text.contains(SERVING))
    });
    run
}

/// The webhook configurations in the cluster, as `kind/name`.
fn configurations(env: &Env) -> String {
    stdout(&env.kubectl(&[
        "get",
        "mutatingwebhookconfigurations,validatingwebhookconfigurations",
        "-o",
        "name",
    ]))
}

/// The CRD's conversion client configuration and annotations.
fn conversion(env: &Env) -> (String, String) {
    let get = |path: &str| {
        stdout(&env.kubectl(&["get", "crd", CRD, "-o", &format!("jsonpath={{{path}}}")]))
    };
    (
        get(".spec.conversion.webhook.clientConfig"),
        get(".metadata.annotations"),
    )
}

/// Applies a v1 Frigate named `name` with spec `spec`.
fn apply_frigate(env: &Env, name: &str, spec: &str) -> Output {
    let yaml = format!(
        "apiVersion: ship.example.com/v1\nkind: Frigate\nmetadata:\n  name: {name}\n  namespace: default\nspec: {spec}\n"
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), yaml).unwrap();
    env.kubectl(&["apply", "-f", file.path().to_str().unwrap()])
}

/// What the webhooks did, checked through the API server.
fn webhooks_are_called(layout: &Layout, env: &Env, name: &str) {
    let created = apply_frigate(env, name, "{}");
    assert!(created.status.success(), "{}", stderr(&created));
    let read = |version: &str, path: &str| {
        stdout(&env.kubectl(&[
            "get",
            &format!("frigates.{version}.ship.example.com"),
            name,
            "-n",
            "default",
            "-o",
            &format!("jsonpath={{{path}}}"),
        ]))
    };
    assert_eq!(
        read("v1", ".spec.foo"),
        layout.defaulted,
        "the defaulter was not called"
    );
    let (spec, message) = layout.refused;
    let refused = apply_frigate(env, &format!("{name}-bad"), spec);
    assert!(!refused.status.success(), "a bad Frigate was accepted");
    assert!(
        stderr(&refused).contains(message),
        "not refused by the validator: {}",
        stderr(&refused)
    );
    assert_eq!(
        read("v2", ".apiVersion"),
        "ship.example.com/v2",
        "not converted"
    );
}

/// The pid of the manager a run started below the process `root`: the
/// process given `--webhook-cert-path`.
fn manager_below(root: u32) -> String {
    let output = Command::new("pgrep")
        .args(["-f", "--", "--webhook-cert-path="])
        .output()
        .unwrap();
    let found = stdout(&output);
    found
        .lines()
        .map(str::trim)
        .find(|pid| descends_from(pid, root))
        .unwrap_or_else(|| panic!("no manager below process {root} among {found:?}"))
        .to_string()
}

/// Whether the process `pid` has `root` among its ancestors.
fn descends_from(pid: &str, root: u32) -> bool {
    let mut current = pid.to_string();
    while let Ok(stat) = std::fs::read_to_string(format!("/proc/{current}/stat")) {
        // The parent is the second field after the command's closing parenthesis.
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let Some(parent) = after.split_whitespace().nth(1) else {
            return false;
        };
        if parent == root.to_string() {
            return true;
        }
        if parent == "0" || parent == "1" {
            return false;
        }
        current = parent.to_string();
    }
    false
}

/// Whether something listens on 127.0.0.1:`port`.
fn listening(port: u16) -> bool {
    std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
}

/// The whole check for one layout.
fn serves_the_api_server_and_leaves_nothing_behind(layout: &Layout) {
    let (_tmp, dir) = empty_project_dir(layout.name);
    let plane = step("control-plane up", ControlPlane::up);
    let env = env_for(&plane);
    step(
        "scaffold: Frigate v1 (hub) and v2, defaulting, validation and conversion webhooks; make install",
        || (layout.scaffold)(layout, &dir, &env),
    );
    let (installed_conversion, _) = conversion(&env);
    assert!(
        installed_conversion.contains("webhook-service"),
        "make install left no conversion webhook: {installed_conversion}"
    );
    let _ports = default_ports_lock();
    let name = layout.configuration();

    step("a bad WEBHOOK_HOST is refused in one line", || {
        let args = ["run-with-webhooks", "WEBHOOK_HOST=not_a_host"];
        let output = layout.make(&env, &dir, &args).output().unwrap();
        assert!(!output.status.success());
        let said = stderr(&output);
        let line =
            "run-with-webhooks: --host \"not_a_host\" is neither an IP address nor a DNS name";
        assert!(said.lines().any(|l| l == line), "{said}");
        assert_eq!(configurations(&env), "", "configurations were applied");
    });

    let mut run = step("make run-with-webhooks: serving", || {
        start(layout, &dir, &env, "run-1.log")
    });
    step(
        "the API server calls them: a Frigate defaulted, a bad one refused, v1 read as v2",
        || {
            let names = configurations(&env);
            for kind in ["mutating", "validating"] {
                let object =
                    format!("{kind}webhookconfiguration.admissionregistration.k8s.io/{name}");
                assert!(names.contains(&object), "no {kind} configuration: {names}");
            }
            let (client_config, _) = conversion(&env);
            assert!(
                client_config.contains("https://127.0.0.1:9443/convert"),
                "{client_config}"
            );
            webhooks_are_called(layout, &env, "first");
        },
    );
    step(
        "Ctrl-C: the configurations are deleted and the CRD converts as installed",
        || {
            let stopped = run.interrupt(Duration::from_secs(60));
            assert!(stopped, "the run did not stop");
            assert_eq!(configurations(&env), "");
            let (client_config, annotations) = conversion(&env);
            assert_eq!(client_config, installed_conversion);
            assert!(!annotations.contains("saved-conversion"), "{annotations}");
        },
    );

    step(
        "kill -9: labeled leftovers, the manager stopped; the next run replaces them",
        || {
            let killed = start(layout, &dir, &env, "run-2.log");
            let group = format!("-{}", killed.child.id());
            let status = Command::new("kill").args(["-KILL", "--", &group]).status();
            assert!(status.unwrap().success());
            wait_until("the manager's end", Duration::from_secs(60), || {
                !listening(9443)
            });
            drop(killed);
            let left = configurations(&env);
            assert!(left.contains(&name), "nothing left over: {left}");
            let mut again = start(layout, &dir, &env, "run-3.log");
            let log = std::fs::read_to_string(dir.join("run-3.log")).unwrap();
            let replacing =
                format!("replacing MutatingWebhookConfiguration {name} left by an earlier run");
            assert!(log.contains(&replacing), "{log}");
            webhooks_are_called(layout, &env, "second");
            assert!(again.interrupt(Duration::from_secs(60)));
            assert_eq!(configurations(&env), "");
            assert_eq!(conversion(&env).0, installed_conversion);
        },
    );

    step(
        "the manager ends on its own: the run cleans up and ends with it",
        || {
            let mut run = start(layout, &dir, &env, "run-4.log");
            let manager = manager_below(run.child.id());
            let status = Command::new("kill").args(["-TERM", &manager]).status();
            assert!(status.unwrap().success());
            wait_until("the run's end", Duration::from_secs(60), || {
                run.child.try_wait().unwrap().is_some()
            });
            assert_eq!(configurations(&env), "");
            assert_eq!(conversion(&env).0, installed_conversion);
        },
    );

    step(
        "a configuration of that name not made by a run: refused, nothing changed",
        || {
            let theirs = format!(
                "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: {name}\nwebhooks: []\n"
            );
            let file = dir.join("theirs.yaml");
            std::fs::write(&file, theirs).unwrap();
            env.run(&dir, "kubectl", &["apply", "-f", file.to_str().unwrap()]);
            let before = configurations(&env);
            let output = layout
                .make(&env, &dir, &["run-with-webhooks"])
                .output()
                .unwrap();
            assert!(!output.status.success());
            let said = stderr(&output);
            let refusal =
                format!("ValidatingWebhookConfiguration {name} was not made by run-with-webhooks");
            assert!(said.contains(&refusal), "{said}");
            assert_eq!(configurations(&env), before);
            assert_eq!(conversion(&env).0, installed_conversion);
            assert!(!listening(9443), "the manager was started");
        },
    );
    assert!(plane.down(), "control-plane down failed");
}

#[test]
#[ignore = "needs Go, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn go_project_serves_the_api_server_and_leaves_nothing_behind() {
    serves_the_api_server_and_leaves_nothing_behind(&GO);
}

#[test]
#[ignore = "needs cargo, crates.io and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn rust_project_serves_the_api_server_and_leaves_nothing_behind() {
    serves_the_api_server_and_leaves_nothing_behind(&RUST);
}
