//! `alpha update` on projects kubebuilder-rs made.
//!
//! - Made by an earlier kubebuilder-rs (main at 196bb05, from before
//!   PROJECT named the tool and its scaffold; built from this repository's
//!   own history inside the test and cached by commit), for go/v4 and for
//!   rust/v1-alpha, with the user's code on top: `alpha update
//!   --from-binary <that build>` merges cleanly, keeps every line the user
//!   wrote, and `make test` passes on the result.
//! - Made by the current kubebuilder-rs (which records the pristine scaffold
//!   under `refs/kubebuilder-rs/pristine`) and updated, without
//!   `--from-binary`, by a build of the current source with one template
//!   edited: the template change lands and the user's code stays.
//!
//! The user's edits sit where the scaffold did not change since 196bb05 or
//! next to its changes, not on them (a conflict there is the fast tests'
//! subject). Needs Go, cargo, the module proxy, the crates the generated
//! projects use and the control plane (KUBEBUILDER_ASSETS), so it is ignored
//! by a plain `cargo test` and run by `scripts/test-all`.

use crate::common;
use crate::common::old_build::{SourceEdit, edited_binary, old_binary};
use crate::common::rust_project::{run, rust_env};
use crate::common::update_repo::{
    CAPTAIN_RULES, Edit, apply, assert_no_conflict_markers, assert_user_code_kept, check_out,
    commit_all, git, init_repo, update,
};
use crate::common::{empty_project_dir, output_ok, read, run_ok, shared_tools_bin, words};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The commit of main whose build made the "earlier kubebuilder-rs" projects.
const EARLIER: &str = "196bb05874de8f5b7597d7dddd99f80544ffca3d";

/// The output branch of an update from a project whose PROJECT says
/// `cliVersion: 0.1.0` (every build before the change).
const FROM_EARLIER: &str = "kubebuilder-rs-update-from-0.1.0-to-";

/// The user's code in the go/v4 project of 196bb05.
const GO_USER_CODE: &[Edit] = &[
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
        anchor: "\t// TODO(user): fetch the Captain with r.Get(ctx, req.NamespacedName, obj),
\t// ignore NotFound errors (the object was deleted), then act on its spec.
",
        with: "\tvar captain crewv1.Captain
\tif err := r.Get(ctx, req.NamespacedName, &captain); err != nil {
\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)
\t}
\tif captain.Spec.Ships > 8 {
\t\tlog.Info(\"a large fleet\", \"ships\", captain.Spec.Ships)
\t}
",
    },
    Edit::Replace {
        path: "internal/webhook/v1/captain_webhook.go",
        anchor: "\t// TODO(user): return an error for an invalid object.\n",
        with: "\tif err := validateShips(obj); err != nil {
\t\treturn nil, err
\t}
",
    },
    // At the end, where the current Makefile adds a definition too: both
    // are kept (the merge's order-free rule).
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

/// The user's code in the rust/v1-alpha project of 196bb05.
const RUST_USER_CODE: &[Edit] = &[
    Edit::Replace {
        path: "src/api/v1/captain.rs",
        anchor: "    pub foo: Option<String>,\n",
        with: "    pub foo: Option<String>,

    /// How many ships the captain commands.
    #[serde(default)]
    pub ships: i32,
",
    },
    Edit::Replace {
        path: "src/webhook/v1/captain.rs",
        anchor: "        Some(\"\") => Err(\"spec.foo must not be empty\".to_string()),\n",
        with: "        Some(\"\") => Err(\"spec.foo must not be empty\".to_string()),
        _ if !crate::fleet::fits(object.spec.ships) => {
            Err(format!(\"spec.ships must be at most {}\", crate::fleet::MAX_SHIPS))
        }
",
    },
    Edit::Replace {
        path: "src/webhook/v1/captain.rs",
        anchor: "                foo: foo.map(str::to_string),\n",
        with: "                foo: foo.map(str::to_string),
                ships: 3,
",
    },
    Edit::Replace {
        path: "tests/webhooks/captain_v1.rs",
        anchor: "        foo: Some(value.to_string()),\n",
        with: "        foo: Some(value.to_string()),
        ships: 3,
",
    },
    // The first line of the status the reconcile writes, which the
    // current scaffold keeps while it rewrites the reconcile around it.
    Edit::Replace {
        path: "src/controller/captain.rs",
        anchor: "    let mut status = captain.status.clone().unwrap_or_default();\n",
        with: "    let mut status = captain.status.clone().unwrap_or_default();
    tracing::debug!(controller = NAME, ships = captain.spec.ships, \"fleet size\");
",
    },
    Edit::Replace {
        path: "src/lib.rs",
        anchor: "pub mod webhook;\n",
        with: "pub mod webhook;
pub mod fleet;
",
    },
    Edit::Create {
        path: "src/fleet.rs",
        text: "//! Rules of the fleet that more than one part of the operator needs.

/// The largest fleet a captain may command.
pub const MAX_SHIPS: i32 = 12;

/// Whether a captain may command `ships` ships.
pub fn fits(ships: i32) -> bool {
    (0..=MAX_SHIPS).contains(&ships)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fleet_fits_up_to_the_maximum() {
        assert!(super::fits(12));
        assert!(!super::fits(13));
    }
}
",
    },
    // At the end, where the current Makefile adds definitions too: both
    // are kept (the merge's order-free rule).
    Edit::Append {
        path: "Makefile",
        text: "
.PHONY: fleet-report
fleet-report: ## Print the kinds of the sample objects.
\t@grep -h '^kind:' config/samples/*.yaml
",
    },
];

#[test]
#[ignore = "needs Go, cargo, the module proxy and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn updates_a_go_project_made_by_an_earlier_kubebuilder_rs() {
    assert_assets();
    let earlier = old_binary(EARLIER);
    let (tmp, dir) = fleet_made_by(
        &earlier,
        &[
            "init --domain example.com --repo example.com/fleet",
            "create api --group crew --version v1 --kind Captain --resource --controller",
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        ],
    );
    commit_all(&dir, "Scaffold the fleet operator");
    apply(&dir, GO_USER_CODE);
    run_ok(&dir, "make", &["manifests", "generate"]);
    commit_all(&dir, "Captains command ships");

    let earlier_arg = earlier.to_str().unwrap();
    let updated = update(
        &dir,
        &current(),
        &["--from-binary", earlier_arg],
        FROM_EARLIER,
    );
    let out = tmp.path().join("updated");
    check_out(&dir, &updated.branch, &out);
    assert_no_conflict_markers(&out);
    let scaffold = tmp.path().join("scaffold");
    check_out(&dir, "main~1", &scaffold);
    assert_user_code_kept(&out, &scaffold, GO_USER_CODE);
    assert!(
        out.join(".custom-gcl.yml").is_file(),
        "a file the current scaffold adds is missing"
    );
    run_ok(&out, "go", &["build", "./..."]);
    let mut make_test = Command::new("make");
    make_test
        .arg("test")
        .current_dir(&out)
        .env("LOCALBIN", shared_tools_bin());
    output_ok(&mut make_test, &out, "make", &["test"]);
}

#[test]
#[ignore = "needs cargo, the crates of generated projects and KUBEBUILDER_ASSETS; run by scripts/test-all"]
fn updates_a_rust_project_made_by_an_earlier_kubebuilder_rs() {
    assert_assets();
    let earlier = old_binary(EARLIER);
    let (tmp, dir) = fleet_made_by(
        &earlier,
        &[
            "init --plugins rust/v1-alpha --domain example.com --owner Tester",
            "create api --group crew --version v1 --kind Captain --resource --controller",
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        ],
    );
    commit_all(&dir, "Scaffold the fleet operator");
    apply(&dir, RUST_USER_CODE);
    // Committed without `make manifests`: the update regenerates the CRDs
    // (its post-steps), whatever the branch holds, so the old project's
    // build (every crate of that scaffold's dependency set, minutes from
    // empty caches) would test nothing here.
    let crd_path = "config/crd/bases/crew.example.com_captains.yaml";
    assert!(
        !std::fs::read_to_string(dir.join(crd_path))
            .unwrap_or_default()
            .contains("ships:"),
        "the CRD has the user's field before any make manifests"
    );
    commit_all(&dir, "Captains command ships");

    let earlier_arg = earlier.to_str().unwrap();
    let updated = update(
        &dir,
        &current(),
        &["--from-binary", earlier_arg],
        FROM_EARLIER,
    );
    let out = tmp.path().join("updated");
    check_out(&dir, &updated.branch, &out);
    assert_no_conflict_markers(&out);
    let scaffold = tmp.path().join("scaffold");
    check_out(&dir, "main~1", &scaffold);
    assert_user_code_kept(&out, &scaffold, RUST_USER_CODE);
    let crd = read(&out, crd_path);
    assert!(
        crd.contains("ships:"),
        "the update's post-steps did not regenerate the CRD with the user's field:\n{crd}"
    );
    let header = read(&dir, "hack/boilerplate.rs.txt");
    let added = read(&out, "src/manager/reconciler.rs");
    assert!(
        added.starts_with(header.lines().next().unwrap()),
        "a file the current scaffold adds lacks the project's license header \
         (hack/boilerplate.rs.txt):\n{}",
        added.lines().take(3).collect::<Vec<_>>().join("\n")
    );
    assert!(
        !out.join("src/webhook/tls.rs").exists(),
        "a file the current scaffold no longer writes, untouched by the user, was kept"
    );
    run(&rust_env(None), &out, "make", &["test"]);
}

/// The template edit of the "newer" build: a comment line and a line of
/// code in the go/v4 Makefile.
const TEMPLATE_EDIT: SourceEdit = SourceEdit {
    path: "scaffolds/go/v4/init/Makefile.jinja",
    find: "CONTAINER_TOOL ?= docker\n",
    replace: "CONTAINER_TOOL ?= docker

# Flags every go build of the manager gets (a template change made by the update tests).
GO_BUILD_FLAGS ?= -trimpath
",
};

/// The user's code in the project of the current kubebuilder-rs.
const CURRENT_USER_CODE: &[Edit] = &[
    Edit::Replace {
        path: "api/v1/captain_types.go",
        anchor: "\tFoo *string `json:\"foo,omitempty\"`\n",
        with: "\tFoo *string `json:\"foo,omitempty\"`

\t// ships is how many ships the captain commands.
\t// +optional
\tShips int32 `json:\"ships,omitempty\"`
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
    Edit::Create {
        path: "docs/fleet.md",
        text: "# The fleet operator\n\nCaptains command at most twelve ships.\n",
    },
];

#[test]
#[ignore = "needs cargo and the repository's git history; run by scripts/test-all"]
fn updates_a_project_made_after_the_change_across_a_template_change() {
    let newer = edited_binary(&TEMPLATE_EDIT);
    let (tmp, dir) = fleet_made_by(
        &current(),
        &[
            "init --domain example.com --repo example.com/fleet --fetch-deps=false --skip-go-version-check",
            "create api --group crew --version v1 --kind Captain --resource --controller --make=false",
        ],
    );
    git(
        &dir,
        &["rev-parse", "--verify", "refs/kubebuilder-rs/pristine"],
    );
    commit_all(&dir, "Scaffold the fleet operator");
    apply(&dir, CURRENT_USER_CODE);
    commit_all(&dir, "Captains command ships");

    assert!(
        !read(&dir, "Makefile").contains(TEMPLATE_EDIT.replace),
        "the current scaffold has the template change already"
    );
    let updated = update(
        &dir,
        &newer,
        &["--post-steps=false"],
        "kubebuilder-rs-update-from-0.1.0-",
    );
    let out = tmp.path().join("updated");
    check_out(&dir, &updated.branch, &out);
    assert_no_conflict_markers(&out);
    let scaffold = tmp.path().join("scaffold");
    check_out(&dir, "main~1", &scaffold);
    assert_user_code_kept(&out, &scaffold, CURRENT_USER_CODE);
    let makefile = read(&out, "Makefile");
    assert!(
        makefile.contains(TEMPLATE_EDIT.replace),
        "the template change did not land:\n{makefile}"
    );
}

/// The binary under test.
fn current() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_kubebuilder-rs"))
}

/// A git repository holding the project `fleet` that `binary` made with
/// `commands` (not committed yet).
fn fleet_made_by(binary: &Path, commands: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("fleet");
    init_repo(&dir);
    for line in commands {
        run_binary(binary, &dir, line);
    }
    (tmp, dir)
}

/// Runs `binary` with the words of `line` in `dir`, with the shared tools
/// and cargo build directory; panics on failure.
fn run_binary(binary: &Path, dir: &Path, line: &str) {
    let args = words(line);
    let mut command = Command::new(binary);
    command
        .args(&args)
        .current_dir(dir)
        .env("LOCALBIN", shared_tools_bin());
    common::rust_project::sharing_the_build_dir(&mut command);
    output_ok(&mut command, dir, "kubebuilder-rs", &args);
}

fn assert_assets() {
    assert!(
        std::env::var_os("KUBEBUILDER_ASSETS").is_some(),
        "KUBEBUILDER_ASSETS is not set; run through scripts/test-all"
    );
}
