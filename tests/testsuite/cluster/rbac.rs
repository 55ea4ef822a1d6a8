//! The manager's permissions as generated, checked in the test cluster for
//! both layouts. Each grant one part of the manager needs is taken away
//! (the RBAC marker of a controller or of a webhook's check, the rule of
//! config/rbac/leader_election_role.yaml for the Lease or for events) and
//! the project deployed again: that part fails with the API server's
//! forbidden error where a user would look for it. With the grant back and
//! the project deployed again, the part recovers.

use super::production::Deployed;
use super::text;

use std::path::Path;
use std::time::{Duration, Instant};

/// Where a layout's grants stand in a project.
pub struct Grants<'a> {
    /// A file and its one line that grants the Memcached controller its
    /// Deployments.
    pub controller: (&'a str, &'a str),
    /// A file and its one line that grants the webhooks' check the
    /// ConfigMaps it lists (see `webhook_check_lists_config_maps` in
    /// tests/testsuite/cluster/mod.rs).
    pub webhook: (&'a str, &'a str),
}

/// The generated Role of leader election, in every layout.
const LEADER_ELECTION_ROLE: &str = "config/rbac/leader_election_role.yaml";

/// Every check of this module, in turn, on the deployed manager of
/// `project` (one replica, the Memcached sample at two Ready Pods, as
/// `ready` tells). `deploy` runs `make deploy` with the manager's image.
pub fn as_generated(
    deployed: &Deployed,
    project: &Path,
    grants: &Grants,
    deploy: &dyn Fn(),
    ready: &dyn Fn(&str) -> bool,
) {
    let started = Instant::now();
    controller_and_webhook_need_their_grants(deployed, project, grants, deploy, ready);
    leader_election_needs_the_lease(deployed, project, deploy);
    leader_election_records_events(deployed, project, deploy);
    eprintln!(
        "figure: {} RBAC checks took {:.0} s",
        deployed.name,
        started.elapsed().as_secs_f64()
    );
}

/// Without the controller's marker and the rule of the webhooks' check
/// (taken away together, each part's failure told apart by what was
/// forbidden): a new size is refused (the forbidden error on Deployments in
/// the manager's log, the Deployment stays at two Ready Pods) and a valid
/// object is refused with the forbidden error the check met on ConfigMaps.
/// With both back, the size is reached and the object admitted.
fn controller_and_webhook_need_their_grants(
    deployed: &Deployed,
    project: &Path,
    grants: &Grants,
    deploy: &dyn Fn(),
    ready: &dyn Fn(&str) -> bool,
) {
    let without = || {
        let resized = Instant::now();
        deployed.set_sample_size(3);
        let mut refusal = String::new();
        wait_for(
            deployed,
            Duration::from_secs(90),
            "a forbidden refusal by the webhooks",
            || {
                let out = deployed.create_valid("rbac-check", true);
                refusal = text(&out.stderr);
                !out.status.success() && refusal.contains("forbidden")
            },
        );
        assert!(
            refusal.contains("configmaps"),
            "the refusal does not name what was forbidden: {refusal}"
        );
        wait_for(
            deployed,
            Duration::from_secs(120),
            "the controller's forbidden error in the log",
            || {
                deployed
                    .manager_log()
                    .lines()
                    .any(|l| l.contains("forbidden") && l.contains("deployments"))
            },
        );
        // Long enough for a reconcile that could have scaled to have done so.
        let settle = Duration::from_secs(10).saturating_sub(resized.elapsed());
        std::thread::sleep(settle.max(Duration::from_secs(3)));
        assert!(ready("2"), "the size changed without the permission");
    };
    let with = || {
        wait_for(
            deployed,
            Duration::from_secs(90),
            "admission with the rule back",
            || deployed.create_valid("rbac-check", true).status.success(),
        );
        wait_for(
            deployed,
            Duration::from_secs(180),
            "size 3 with the marker back",
            || ready("3"),
        );
    };
    let (controller_file, controller_line) = grants.controller;
    let (webhook_file, webhook_line) = grants.webhook;
    without_then_with(
        project,
        &[
            (controller_file, &without_line(controller_line)),
            (webhook_file, &without_line(webhook_line)),
        ],
        deploy,
        &without,
        &with,
    );
}

/// Without the Lease rule, the leader cannot renew and stops (its Pod
/// restarts), the restarted manager cannot take the Lease (forbidden in
/// its log) and a Memcached created then is not reconciled; with the rule
/// back, the manager leads again and reconciles it.
fn leader_election_needs_the_lease(deployed: &Deployed, project: &Path, deploy: &dyn Fn()) {
    let name = "lease-check".to_string();
    let restarts = deployed.restart_counts();
    let without = || {
        wait_for(
            deployed,
            Duration::from_secs(120),
            "the leader's restart",
            || deployed.restart_counts() != restarts,
        );
        wait_for(
            deployed,
            Duration::from_secs(60),
            "the Lease refused in the log",
            || {
                deployed
                    .manager_log()
                    .lines()
                    .any(|l| l.contains("leases.coordination.k8s.io") && l.contains("forbidden"))
            },
        );
        deployed.create_memcached(&name);
        std::thread::sleep(Duration::from_secs(15));
        assert!(
            !deployed.exists("deployment", &name, Some(deployed.samples)),
            "a manager without the Lease reconciled {name}"
        );
    };
    let with = || deployed.wait_reconciled(std::slice::from_ref(&name), Duration::from_secs(120));
    without_then_with(
        project,
        &[(LEADER_ELECTION_ROLE, &without_rule_for("leases"))],
        deploy,
        &without,
        &with,
    );
    deployed.kubectl(&[
        "delete",
        &deployed.memcacheds(),
        &name,
        "-n",
        deployed.samples,
    ]);
}

/// A new leader records a `LeaderElection` event on the Lease. Without the
/// events rule, the next leader's log has the forbidden error and no event
/// names it, while it leads on; with the rule back, the next leader's event
/// is recorded.
fn leader_election_records_events(deployed: &Deployed, project: &Path, deploy: &dyn Fn()) {
    let without = || {
        let leader = deployed.next_leader();
        wait_for(
            deployed,
            Duration::from_secs(60),
            "events refused in the log",
            || {
                deployed
                    .pod_log(&leader)
                    .lines()
                    .any(|l| l.contains("events") && l.contains("forbidden"))
            },
        );
        assert!(
            !deployed.leader_events().contains(&leader),
            "an event names {leader} without the events rule"
        );
    };
    let with = || {
        let leader = deployed.next_leader();
        wait_for(
            deployed,
            Duration::from_secs(60),
            "the new leader's event",
            || deployed.leader_events().contains(&leader),
        );
    };
    without_then_with(
        project,
        &[(LEADER_ELECTION_ROLE, &without_rule_for("events"))],
        deploy,
        &without,
        &with,
    );
}

/// A file of a project and what takes a grant out of its text.
type Edit<'a> = (&'a str, &'a dyn Fn(&str) -> String);

/// Edits each file of `project` with its remover (which must change it)
/// and deploys, runs `without`; puts the files back as they were, deploys
/// again and runs `with`.
fn without_then_with(
    project: &Path,
    edits: &[Edit],
    deploy: &dyn Fn(),
    without: &dyn Fn(),
    with: &dyn Fn(),
) {
    let mut sources = Vec::new();
    for (file, remove) in edits {
        let path = project.join(file);
        let source = std::fs::read_to_string(&path).unwrap();
        let removed = remove(&source);
        assert_ne!(removed, source, "nothing to remove in {file}");
        std::fs::write(&path, removed).unwrap();
        sources.push((path, source));
    }
    deploy();
    without();
    for (path, source) in &sources {
        std::fs::write(path, source).unwrap();
    }
    deploy();
    with();
}

/// Removes the one line containing `needle`.
fn without_line(needle: &str) -> impl Fn(&str) -> String + '_ {
    move |source| {
        let lines: Vec<&str> = source.lines().filter(|l| l.contains(needle)).collect();
        assert_eq!(lines.len(), 1, "one line holds {needle:?}:\n{source}");
        source.replacen(&format!("{}\n", lines[0]), "", 1)
    }
}

/// Removes from a Role's YAML the rule (a `- apiGroups:` item) whose
/// resources are just `resource`.
fn without_rule_for(resource: &str) -> impl Fn(&str) -> String + '_ {
    move |source| {
        let (head, rules) = source.split_once("rules:\n").expect("a Role with rules");
        let items: Vec<String> = rules
            .split("- apiGroups:")
            .skip(1)
            .map(|item| format!("- apiGroups:{item}"))
            .collect();
        let wanted = format!("  resources:\n  - {resource}\n");
        let kept: Vec<&String> = items.iter().filter(|i| !i.contains(&wanted)).collect();
        assert_eq!(kept.len() + 1, items.len(), "one rule for {resource}");
        format!(
            "{head}rules:\n{}",
            kept.iter().map(|i| i.as_str()).collect::<String>()
        )
    }
}

/// Waits up to `limit` for `done`, failing with `what` and the manager's
/// log when it never is.
fn wait_for(deployed: &Deployed, limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(
            Instant::now() < deadline,
            "no {what} within {limit:?}; the manager's log:\n{}",
            deployed.manager_log()
        );
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[test]
fn a_rule_is_removed_from_a_role_by_its_resource() {
    let role = "kind: Role\nrules:\n- apiGroups:\n  - coordination.k8s.io\n  resources:\n  - leases\n  verbs:\n  - get\n- apiGroups:\n  - \"\"\n  resources:\n  - events\n  verbs:\n  - create\n";
    let without = without_rule_for("leases")(role);
    assert_eq!(
        without,
        "kind: Role\nrules:\n- apiGroups:\n  - \"\"\n  resources:\n  - events\n  verbs:\n  - create\n"
    );
    assert!(!without_rule_for("events")(role).contains("events"));
}
