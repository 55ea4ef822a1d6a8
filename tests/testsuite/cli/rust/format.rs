//! The Rust a rust/v1-alpha project is scaffolded with is as rustfmt
//! formats it, so `cargo fmt --check` (the lint workflow's first step)
//! passes on a new project before anyone ran `make fmt`. Names of a common
//! length are used: rustfmt wraps lines by width, so a much longer kind or
//! project name may still need `make fmt` (which `make build`, `make test`
//! and `make run` run).

use crate::common::{empty_project_dir, kb_ok, words};
use std::path::Path;
use std::process::Command;

/// Every command of the layout that writes Rust: own kinds with controllers,
/// webhooks and a conversion, built-in types, deploy-image, a type of
/// another crate.
const COMMANDS: &[&str] = &[
    "init --plugins rust/v1-alpha --domain example.com --owner Tester",
    "create api --group webapp --version v1 --kind Guestbook --resource --controller",
    "create webhook --group webapp --version v1 --kind Guestbook --defaulting --programmatic-validation",
    "create api --group webapp --version v2 --kind Guestbook --resource --controller=false",
    "create webhook --group webapp --version v1 --kind Guestbook --conversion --spoke v2",
    "create api --group crew --version v1 --kind Captain --resource --controller --namespaced=false",
    "create api --group apps --version v1 --kind Deployment --resource=false --controller",
    "create webhook --group core --version v1 --kind Pod --defaulting",
    "create webhook --group apps --version v1 --kind Deployment --programmatic-validation",
    "create api --group cache --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha --image memcached:1.6 --make=false --manifests=false",
    "create api --group acme --version v1 --kind Widget --resource=false --controller --external-api-path acme_types::v1 --external-api-module acme-types@path:crates/acme-types --external-api-domain example.org",
    "create webhook --group acme --version v1 --kind Widget --defaulting --programmatic-validation --external-api-path acme_types::v1 --external-api-domain example.org",
];

/// A crate of types for the external kind, where COMMANDS point at it
/// (`cargo fmt` reads the dependencies' manifests).
fn write_types_crate(dir: &Path) {
    let crate_dir = dir.join("crates/acme-types");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    let manifest = "[package]\nname = \"acme-types\"\nversion = \"0.1.0\"\nedition = \"2024\"\n";
    std::fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(crate_dir.join("src/lib.rs"), "pub mod v1 {}\n").unwrap();
}

/// `cargo fmt --check` in `dir`; panics with rustfmt's diff when it fails.
fn assert_formatted(dir: &Path) {
    let out = Command::new("cargo")
        .args(["fmt", "--check", "--", "--color", "never"])
        .current_dir(dir)
        .output()
        .expect("cargo fmt runs (rustup component add rustfmt)");
    assert!(
        out.status.success(),
        "{} is not as rustfmt formats it:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_new_single_group_project_is_rustfmt_clean() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    write_types_crate(&dir);
    for line in COMMANDS {
        kb_ok(&dir, &words(line));
    }
    assert_formatted(&dir);
}

#[test]
fn a_new_multigroup_project_is_rustfmt_clean() {
    let (_tmp, dir) = empty_project_dir("fleet");
    write_types_crate(&dir);
    kb_ok(&dir, &words(COMMANDS[0]));
    kb_ok(&dir, &words("edit --multigroup"));
    for line in &COMMANDS[1..] {
        kb_ok(&dir, &words(line));
    }
    assert_formatted(&dir);
}

#[test]
fn a_new_project_keeping_its_own_webhook_certificates_is_rustfmt_clean() {
    let (_tmp, dir) = empty_project_dir("guestbook");
    kb_ok(
        &dir,
        &words(
            "init --plugins rust/v1-alpha,webhook-certs/v1-alpha --domain example.com --owner Tester",
        ),
    );
    for line in &COMMANDS[1..5] {
        kb_ok(&dir, &words(line));
    }
    assert!(dir.join("src/webhook_certs/mod.rs").is_file());
    assert_formatted(&dir);
}
