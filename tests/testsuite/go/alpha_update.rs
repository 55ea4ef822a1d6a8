//! `alpha update` on projects kubebuilder made (releases v4.15.0 and
//! v4.16.0, installed from the Go module proxy): two APIs, a defaulting and
//! validating webhook, a controller for a built-in type, then the user's
//! code committed on top — spec fields with a validation marker, Reconcile
//! logic, a validation rule, a Makefile target and a Go file of the user's
//! own — and `make manifests generate` run as a user would.
//!
//! The update (the ancestor is kubebuilder's own scaffold, replayed by that
//! release from PROJECT's `cliVersion`) must leave the user's branch, index
//! and work tree as they were and write one branch where every line the user
//! wrote is intact, go.mod and the Makefile carry kubebuilder-rs's pins, and
//! `go build`, `make manifests generate` and `make test` pass.
//!
//! It prints the wall time of the update with and without its post-steps;
//! scripts/bench-alpha-update times them against what kubebuilder's own
//! `alpha update` does for the same project.
//!
//! Needs Go, the module proxy and the control plane (KUBEBUILDER_ASSETS), so
//! it is ignored by a plain `cargo test` and run by `scripts/test-all`.

use crate::common;
use crate::common::kubebuilder::kubebuilder_release;
use crate::common::same_scaffold::{go_mod_pins, makefile_pins};
use crate::common::update_repo::{
    CAPTAIN_RULES, Edit, apply, assert_no_conflict_markers, assert_user_code_kept, check_out,
    commit_all, git, init_repo, update,
};
use crate::common::{empty_project_dir, output_ok, read, run_ok, shared_tools_bin, words};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The commands that make the project, after `init`. PROJECT does not
/// record the order commands ran in, so the ancestor is kubebuilder's
/// replay of every `create api` in PROJECT's order and then every `create
/// webhook`; kubebuilder inserts each command's lines into cmd/main.go
/// where the earlier ones end, so a project made in another order (a
/// webhook before a later API) has a cmd/main.go the replay does not
/// reproduce, which then conflicts although the user never touched it.
const COMMANDS: &[&str] = &[
    "create api --group crew --version v1 --kind Captain --resource --controller",
    "create api --group crew --version v1 --kind FirstMate --resource --controller",
    "create api --group apps --version v1 --kind Deployment --resource=false --controller",
    "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
];

/// What the user wrote on top of the scaffold.
const USER_CODE: &[Edit] = &[
    Edit::Replace {
        path: "api/v1/captain_types.go",
        anchor: "\tFoo *string `json:\"foo,omitempty\"`\n",
        with: "\tFoo *string `json:\"foo,omitempty\"`

\t// ships is how many ships the captain commands.
\t// +kubebuilder:validation:Minimum=0
\t// +kubebuilder:validation:Maximum=12
\t// +optional
\tShips int32 `json:\"ships,omitempty\"`
",
    },
    Edit::Replace {
        path: "internal/controller/captain_controller.go",
        anchor: "\t// TODO(user): your logic here\n",
        with: "\tvar captain crewv1.Captain
\tif err := r.Get(ctx, req.NamespacedName, &captain); err != nil {
\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)
\t}
\tif captain.Spec.Ships > 8 {
\t\tlogf.FromContext(ctx).Info(\"a large fleet\", \"ships\", captain.Spec.Ships)
\t}
",
    },
    Edit::Replace {
        path: "internal/webhook/v1/captain_webhook.go",
        anchor: "\t// TODO(user): fill in your validation logic upon object creation.\n",
        with: "\tif err := validateShips(obj); err != nil {
\t\treturn nil, err
\t}
",
    },
    Edit::Append {
        path: "Makefile",
        text: "
.PHONY: fleet-report
fleet-report: ## Print the kinds of the sample objects.
\t@grep -h '^kind:' config/samples/*.yaml
",
    },
    CAPTAIN_RULES,
];

#[test]
#[ignore = "needs Go, kubebuilder and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn updates_a_project_made_by_kubebuilder_v4_15_0() {
    update_kubebuilder_project("v4.15.0");
}

#[test]
#[ignore = "needs Go, kubebuilder and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn updates_a_project_made_by_kubebuilder_v4_16_0() {
    update_kubebuilder_project("v4.16.0");
}

/// Case 1 for kubebuilder `release`.
fn update_kubebuilder_project(release: &str) {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
    let (tmp, dir) = empty_project_dir("fleet");
    init_repo(&dir);
    let kubebuilder = kubebuilder_release(release);
    make_project(&kubebuilder, release, &dir);
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_kubebuilder-rs"));

    let prefix = format!("kubebuilder-rs-update-from-{release}-to-");
    let full = update(&dir, &binary, &[], &prefix);
    let plain = update(
        &dir,
        &binary,
        &[
            "--post-steps=false",
            "--output-branch",
            "update-without-post-steps",
        ],
        "update-without-post-steps",
    );
    eprintln!(
        "figure: alpha update of a kubebuilder {release} project: {:.1}s with post-steps, \
         {:.1}s without",
        full.took.as_secs_f64(),
        plain.took.as_secs_f64()
    );

    let scaffold = tmp.path().join("scaffold");
    check_out(&dir, "main~1", &scaffold);
    let plain_out = tmp.path().join("without-post-steps");
    check_out(&dir, &plain.branch, &plain_out);
    assert_user_code_kept(&plain_out, &scaffold, USER_CODE);
    assert_no_conflict_markers(&plain_out);

    let out = tmp.path().join("updated");
    check_out(&dir, &full.branch, &out);
    assert_user_code_kept(&out, &scaffold, USER_CODE);
    assert_no_conflict_markers(&out);
    assert!(
        read(&out, "PROJECT").contains("cliVersion: kubebuilder-rs/"),
        "PROJECT does not name kubebuilder-rs:\n{}",
        read(&out, "PROJECT")
    );
    assert_pins(&dir, &out, tmp.path());
    run_ok(&out, "go", &["build", "./..."]);
    run_ok(&out, "make", &["manifests", "generate"]);
    let stale = git(&out, &["status", "--porcelain"]);
    assert!(
        stale.is_empty(),
        "the update's post-steps left generated files out of date:\n{stale}\n{}",
        git(&out, &["diff"])
    );
    make_test(&out);
}

/// Makes the project with kubebuilder in `dir` and commits it, then the
/// user's code and what `make manifests generate` regenerates for it.
fn make_project(kubebuilder: &Path, release: &str, dir: &Path) {
    let localbin = kubebuilder_localbin(release);
    let init = "init --domain example.com --repo example.com/fleet";
    for line in std::iter::once(init).chain(COMMANDS.iter().copied()) {
        let args = words(line);
        let mut command = Command::new(kubebuilder);
        command
            .args(&args)
            .current_dir(dir)
            .env("LOCALBIN", &localbin)
            .stdin(std::process::Stdio::null());
        output_ok(&mut command, dir, "kubebuilder", &args);
    }
    commit_all(dir, "Scaffold the fleet operator");
    apply(dir, USER_CODE);
    let mut make = Command::new("make");
    make.args(["manifests", "generate"])
        .current_dir(dir)
        .env("LOCALBIN", &localbin);
    output_ok(&mut make, dir, "make", &["manifests", "generate"]);
    let crd = read(dir, "config/crd/bases/crew.example.com_captains.yaml");
    assert!(
        crd.contains("ships:"),
        "the CRD lacks the user's field:\n{crd}"
    );
    commit_all(dir, "Captains command ships");
}

/// Checks that the updated project `out` pins what kubebuilder-rs pins: the
/// direct requirements and `go` line of the go.mod, and the Makefile's tool
/// versions, of kubebuilder-rs's scaffold of the same PROJECT. `dir` is the
/// user's project; the scaffold is made below `tmp`.
fn assert_pins(dir: &Path, out: &Path, tmp: &Path) {
    let scaffold = tmp.join("kubebuilder-rs-scaffold");
    common::kb_ok(
        dir,
        &[
            "alpha",
            "generate",
            "--input-dir",
            dir.to_str().unwrap(),
            "--output-dir",
            scaffold.to_str().unwrap(),
            "--make=false",
        ],
    );
    let pins = [
        ("go.mod", go_mod_pins as fn(&str) -> _),
        ("Makefile", makefile_pins),
    ];
    for (file, pins_of) in pins {
        let (wanted, user, got) = (
            pins_of(&read(&scaffold, file)),
            pins_of(&read(dir, file)),
            pins_of(&read(out, file)),
        );
        assert!(!wanted.is_empty(), "no pins found in the scaffold's {file}");
        let moved = wanted
            .iter()
            .filter(|(n, v)| user.get(*n) != Some(*v))
            .count();
        assert!(
            moved > 0,
            "the user's {file} already pins what kubebuilder-rs pins: the check proves nothing"
        );
        for (name, version) in &wanted {
            assert_eq!(
                got.get(name),
                Some(version),
                "{file} of the update pins {name} at {:?}, kubebuilder-rs at {version} \
                 (the user's project had {:?})",
                got.get(name),
                user.get(name)
            );
            if user.get(name) != Some(version) {
                eprintln!(
                    "    {file} {name}: {} -> {version}",
                    user.get(name).map_or("absent", String::as_str)
                );
            }
        }
    }
}

/// `make test` on the control plane of KUBEBUILDER_ASSETS.
fn make_test(dir: &Path) {
    let mut command = Command::new("make");
    command
        .arg("test")
        .current_dir(dir)
        .env("LOCALBIN", shared_tools_bin())
        // A Makefile that asks setup-envtest then gets KUBEBUILDER_ASSETS.
        .env("ENVTEST_USE_ENV", "true");
    output_ok(&mut command, dir, "make", &["test"]);
}

/// The tools directory (`LOCALBIN`) of kubebuilder `release`'s projects
/// here: the shared one holds links to the versions kubebuilder-rs pins,
/// which every other release's Makefile would flip (each flip costs a `go
/// install`, and the update's post-steps would pay for flipping them back).
fn kubebuilder_localbin(release: &str) -> PathBuf {
    let dir = shared_tools_bin()
        .with_file_name("kubebuilder-localbin")
        .join(release);
    std::fs::create_dir_all(&dir).expect("create the release's tools dir");
    dir
}
