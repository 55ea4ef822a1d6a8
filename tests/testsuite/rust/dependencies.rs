//! What a plugin's Rust code adds to a rust/v1-alpha project's dependencies
//! must not change the features of a crate the layout already builds: cargo
//! compiles a crate once per feature set, so one new feature on a crate many
//! others depend on (a macro library's, say) compiles kube, serde, tokio and
//! all above them a second time, in every build directory and every image
//! layer the two kinds of project share. webhook-certs/v1-alpha's certificate
//! code once did so (x509-parser's derive macros turned on a feature of
//! `syn`), which cost a cold image build of its project minutes.
//!
//! Needs cargo and the crates.io index (`cargo tree` resolves both projects;
//! nothing is compiled). Run by `scripts/test-all`.

use crate::common::rust_project::{self, WEBHOOK_PROJECT, sharing_the_build_dir};
use crate::common::{empty_project_dir, kb_ok, output_ok, words};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Every crate a project builds, by name and version, with the feature sets
/// it is compiled with (one a way it is built: for the target, for build
/// scripts and macros), from `cargo tree`; the project's own crate left out.
fn builds(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let args = [
        "tree", "--target", "all", "--prefix", "none", "--format", "{p}|{f}",
    ];
    let mut command = Command::new("cargo");
    command.args(args).current_dir(dir);
    let tree = output_ok(sharing_the_build_dir(&mut command), dir, "cargo", &args);
    let mut builds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in tree.lines().filter(|line| !line.contains(" (/")) {
        let (package, features) = line
            .trim_end_matches(" (*)")
            .split_once('|')
            .unwrap_or((line, ""));
        builds
            .entry(package.to_string())
            .or_default()
            .insert(features.to_string());
    }
    builds
}

#[test]
#[ignore = "needs cargo and the crates.io index; run by scripts/test-all"]
fn webhook_certificates_build_no_crate_of_the_layout_with_other_features() {
    let (_plain_tmp, plain) = empty_project_dir("plain");
    rust_project::scaffold(&plain, WEBHOOK_PROJECT);
    let (_certs_tmp, certs) = empty_project_dir("certs");
    kb_ok(
        &certs,
        &words(
            "init --plugins rust/v1-alpha,webhook-certs/v1-alpha --domain example.com --owner Tester",
        ),
    );
    for line in WEBHOOK_PROJECT {
        kb_ok(&certs, &words(line));
    }
    let (plain, certs) = (builds(&plain), builds(&certs));
    assert!(
        plain.keys().any(|package| package.starts_with("kube ")),
        "no kube in: {:?}",
        plain.keys()
    );
    let changed: Vec<String> = plain
        .iter()
        .filter_map(|(package, features)| {
            let with_certs = certs.get(package)?;
            (with_certs != features).then(|| format!("{package}: {features:?} -> {with_certs:?}"))
        })
        .collect();
    assert!(
        changed.is_empty(),
        "webhook-certs/v1-alpha changes the features of crates the layout builds:\n{}",
        changed.join("\n")
    );
}
