//! The corpus of the edits users make most, each on its own branch of a
//! project made by an older tool, and `alpha update --dry-run` to the
//! current scaffold: the files that conflict are asserted per edit and per
//! starting point, and so are the files whose additions of both sides at
//! one place were kept (the order-free rule, docs/alpha-update.md).
//!
//! Starting points: kubebuilder v4.15.0 and v4.16.0 (go/v4), kubebuilder-rs
//! at 196bb05 (go/v4 and rust/v1-alpha), each project made with `init`, a
//! `create api` and a `create webhook`. Then one branch with every edit at
//! once is updated for real (no post-steps): no marker, every line of the
//! user's kept. The builds and `make test` of updated projects with a
//! Makefile target at the end are in go_alpha_update.rs and
//! rust_alpha_update.rs.
//!
//! Conflicting files per edit, before this rule (the merge of 0678f84) →
//! after. "Before" is 1 exactly where the order-free rule now merges the
//! file (the scaffold's lines at that place are code, so no other rule
//! resolved them); the Makefile of the kubebuilder-rs go/v4 project was also
//! run with the build of 0678f84. With every edit on one branch, a
//! kubebuilder project's `cmd/main.go` also conflicted (2 hunks): the
//! replay order was chosen by identical files only, and the user's import
//! left neither order's `cmd/main.go` identical; it is now chosen by the
//! lines shared too.
//!
//! | edit | kb v4.15.0 | kb v4.16.0 | kb-rs go | kb-rs rust |
//! | --- | --- | --- | --- | --- |
//! | Makefile target at the end | 0 → 0 | 0 → 0 | 1 → 0 | 1 → 0 |
//! | spec field | 0 → 0 | 0 → 0 | 0 → 0 | 0 → 0 |
//! | new API and webhook | 0 → 0 | 0 → 0 | 0 → 0 | 0 → 0 |
//! | kustomize patch | 0 → 0 | 0 → 0 | 0 → 0 | 0 → 0 |
//! | own files | 0 → 0 | 0 → 0 | 0 → 0 | 1 → 0 |
//! | Reconcile body | 0 → 0 | 0 → 0 | 0 → 0 | 0 → 0 |
//! | import in main | 1 → 0 | 1 → 0 | 0 → 0 | 0 → 0 |
//!
//! Needs Go and the module proxy (kubebuilder's replays), and builds
//! kubebuilder-rs at 196bb05 once; run by scripts/test-all's second lane.

use crate::common;
use crate::common::kubebuilder::kubebuilder_release;
use crate::common::old_build::old_binary;
use crate::common::update_repo::{
    Edit, apply, assert_no_conflict_markers, assert_user_code_kept, check_out, commit_all, git,
    init_repo, update,
};
use crate::common::{empty_project_dir, output_ok, shared_tools_bin, words};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The commit of main whose build made the "earlier kubebuilder-rs" projects.
const EARLIER: &str = "196bb05874de8f5b7597d7dddd99f80544ffca3d";

/// What made a project.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Start {
    /// A kubebuilder release (go/v4).
    Kubebuilder(&'static str),
    /// kubebuilder-rs at [`EARLIER`], go/v4.
    EarlierGo,
    /// kubebuilder-rs at [`EARLIER`], rust/v1-alpha.
    EarlierRust,
}

/// One edit of the corpus and what the update must give for it.
struct Case {
    name: &'static str,
    change: Change,
    /// The files that may conflict (none: the edit changes no line the
    /// scaffold changes).
    conflicts: &'static [&'static str],
    /// The files merged by the order-free rule.
    order_free: &'static [&'static str],
}

/// An edit: files changed, or commands of the tool that made the project.
enum Change {
    Files(&'static [Edit]),
    Commands(&'static [&'static str]),
}

const MAKEFILE_TARGET: Edit = Edit::Append {
    path: "Makefile",
    text: "
.PHONY: fleet-report
fleet-report: ## Print the kinds of the sample objects.
\t@grep -h '^kind:' config/samples/*.yaml
",
};

const KUSTOMIZE_PATCH: &[Edit] = &[
    Edit::Replace {
        path: "config/default/kustomization.yaml",
        anchor: "- path: manager_webhook_patch.yaml\n  target:\n    kind: Deployment\n",
        with: "- path: manager_webhook_patch.yaml\n  target:\n    kind: Deployment\n- path: manager_resources_patch.yaml\n  target:\n    kind: Deployment\n",
    },
    Edit::Create {
        path: "config/default/manager_resources_patch.yaml",
        text: "- op: add
  path: /spec/template/spec/priorityClassName
  value: system-cluster-critical
",
    },
];

/// A new API and its webhook added after the first scaffold: the same
/// commands in both layouts.
fn new_api_and_webhook() -> Case {
    Case {
        name: "new API and webhook",
        change: Change::Commands(&[
            "create api --group crew --version v1 --kind Lieutenant --resource --controller",
            "create webhook --group crew --version v1 --kind Lieutenant --defaulting",
        ]),
        conflicts: &[],
        order_free: &[],
    }
}

/// A kustomize patch added to config/default, in both layouts.
fn kustomize_patch() -> Case {
    Case {
        name: "kustomize patch",
        change: Change::Files(KUSTOMIZE_PATCH),
        conflicts: &[],
        order_free: &[],
    }
}

/// The Go corpus; `reconcile` is the edit of the start's Reconcile TODO,
/// `import_order_free` where the import in main merges by the order-free rule.
fn go_cases(reconcile: &'static [Edit], import_order_free: &'static [&'static str]) -> Vec<Case> {
    vec![
        Case {
            name: "Makefile target at the end",
            change: Change::Files(&[MAKEFILE_TARGET]),
            conflicts: &[],
            order_free: &[],
        },
        Case {
            name: "spec field",
            change: Change::Files(&[Edit::Replace {
                path: "api/v1/captain_types.go",
                anchor: "\tFoo *string `json:\"foo,omitempty\"`\n",
                with: "\tFoo *string `json:\"foo,omitempty\"`

\t// ships is how many ships the captain commands.
\t// +kubebuilder:validation:Minimum=0
\t// +optional
\tShips int32 `json:\"ships,omitempty\"`
",
            }]),
            conflicts: &[],
            order_free: &[],
        },
        new_api_and_webhook(),
        kustomize_patch(),
        Case {
            name: "own files",
            change: Change::Files(&[
                Edit::Create {
                    path: "internal/fleet/fleet.go",
                    text: "package fleet\n\n// Name is the fleet's name.\nconst Name = \"armada\"\n",
                },
                Edit::Create {
                    path: "docs/runbook.md",
                    text: "# Runbook\n\nRestart the manager.\n",
                },
            ]),
            conflicts: &[],
            order_free: &[],
        },
        Case {
            name: "Reconcile body",
            change: Change::Files(reconcile),
            conflicts: &[],
            order_free: &[],
        },
        Case {
            name: "import in main",
            change: Change::Files(&[
                Edit::Replace {
                    path: "cmd/main.go",
                    anchor: "\t\"os\"\n",
                    with: "\t\"os\"\n\t\"time\"\n",
                },
                Edit::Replace {
                    path: "cmd/main.go",
                    anchor: "\tflag.Parse()\n",
                    with: "\tflag.Parse()\n\tsetupLog.Info(\"starting\", \"at\", time.Now().UTC())\n",
                },
            ]),
            conflicts: &[],
            order_free: import_order_free,
        },
    ]
}

/// The body users write in kubebuilder's Reconcile.
const KUBEBUILDER_RECONCILE: &[Edit] = &[Edit::Replace {
    path: "internal/controller/captain_controller.go",
    anchor: "\t// TODO(user): your logic here\n",
    with: "\tvar captain crewv1.Captain
\tif err := r.Get(ctx, req.NamespacedName, &captain); err != nil {
\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)
\t}
",
}];

/// The body users write in the Reconcile of kubebuilder-rs at 196bb05.
const EARLIER_RECONCILE: &[Edit] = &[Edit::Replace {
    path: "internal/controller/captain_controller.go",
    anchor: "\t// TODO(user): fetch the Captain with r.Get(ctx, req.NamespacedName, obj),
\t// ignore NotFound errors (the object was deleted), then act on its spec.
",
    with: "\tvar captain crewv1.Captain
\tif err := r.Get(ctx, req.NamespacedName, &captain); err != nil {
\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)
\t}
\tlog.Info(\"reconciled\", \"foo\", captain.Spec.Foo)
",
}];

/// The Rust corpus.
fn rust_cases() -> Vec<Case> {
    vec![
        Case {
            name: "Makefile target at the end",
            change: Change::Files(&[MAKEFILE_TARGET]),
            conflicts: &[],
            order_free: &["Makefile"],
        },
        Case {
            name: "spec field",
            change: Change::Files(&[Edit::Replace {
                path: "src/api/v1/captain.rs",
                anchor: "    pub foo: Option<String>,\n",
                with: "    pub foo: Option<String>,

    /// How many ships the captain commands.
    #[serde(default)]
    pub ships: i32,
",
            }]),
            conflicts: &[],
            order_free: &[],
        },
        new_api_and_webhook(),
        kustomize_patch(),
        Case {
            name: "own files",
            change: Change::Files(&[
                Edit::Create {
                    path: "src/ships.rs",
                    text: "//! The fleet's ships.\n\n/// The most ships a captain commands.\npub const MAX: i32 = 12;\n",
                },
                Edit::Replace {
                    path: "src/lib.rs",
                    anchor: "pub mod manager;\n",
                    with: "pub mod manager;\npub mod ships;\n",
                },
            ]),
            conflicts: &[],
            order_free: &["src/lib.rs"],
        },
        Case {
            name: "Reconcile body",
            change: Change::Files(&[Edit::Replace {
                path: "src/controller/captain.rs",
                anchor: "    let mut status = captain.status.clone().unwrap_or_default();\n",
                with: "    let mut status = captain.status.clone().unwrap_or_default();
    tracing::debug!(controller = NAME, foo = ?captain.spec.foo, \"reconciling\");
",
            }]),
            conflicts: &[],
            order_free: &[],
        },
        Case {
            name: "import in main",
            change: Change::Files(&[Edit::Replace {
                path: "src/main.rs",
                anchor: "use clap::Parser;\n",
                with: "use clap::Parser;\nuse std::time::Instant;\n",
            }]),
            conflicts: &[],
            order_free: &[],
        },
    ]
}

#[test]
#[ignore = "needs Go, the module proxy and kubebuilder v4.15.0; run by scripts/test-all"]
fn corpus_from_kubebuilder_v4_15_0() {
    run_corpus(
        Start::Kubebuilder("v4.15.0"),
        go_cases(KUBEBUILDER_RECONCILE, &["cmd/main.go"]),
    );
}

#[test]
#[ignore = "needs Go, the module proxy and kubebuilder v4.16.0; run by scripts/test-all"]
fn corpus_from_kubebuilder_v4_16_0() {
    run_corpus(
        Start::Kubebuilder("v4.16.0"),
        go_cases(KUBEBUILDER_RECONCILE, &["cmd/main.go"]),
    );
}

#[test]
#[ignore = "builds kubebuilder-rs at an earlier commit; run by scripts/test-all"]
fn corpus_from_an_earlier_kubebuilder_rs_go_project() {
    let mut cases = go_cases(EARLIER_RECONCILE, &[]);
    cases[0].order_free = &["Makefile"];
    run_corpus(Start::EarlierGo, cases);
}

#[test]
#[ignore = "builds kubebuilder-rs at an earlier commit; run by scripts/test-all"]
fn corpus_from_an_earlier_kubebuilder_rs_rust_project() {
    run_corpus(Start::EarlierRust, rust_cases());
}

/// Makes the project of `start`, puts each case on its own branch, checks
/// what the dry run says of it, then updates a branch with every case.
fn run_corpus(start: Start, cases: Vec<Case>) {
    let (tmp, dir) = empty_project_dir("fleet");
    init_repo(&dir);
    let maker = Maker::new(start);
    maker.make(&dir);
    commit_all(&dir, "Scaffold the fleet operator");
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let branch = format!("case-{i}");
        git(&dir, &["switch", "-q", "-c", &branch, "main"]);
        maker.apply(&dir, &case.change);
        commit_all(&dir, case.name);
        git(&dir, &["switch", "-q", "main"]);
        let labels = maker.dry_run(&dir, &branch);
        let conflicts = labelled(&labels, "conflict", None);
        let order_free = labelled(&labels, "merged", Some("added at one place by both"));
        eprintln!(
            "corpus {start:?} | {} | conflicts {conflicts:?} | order-free {order_free:?}",
            case.name
        );
        if conflicts != case.conflicts || order_free != case.order_free {
            failures.push(format!(
                "{}: conflicts {conflicts:?} (expected {:?}), order-free {order_free:?} \
                 (expected {:?})\n{labels}",
                case.name, case.conflicts, case.order_free
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    update_all(&maker, &dir, tmp.path(), &cases);
}

/// Every case on one branch, updated for real without post-steps: no
/// marker, and every line the user wrote in the updated tree.
fn update_all(maker: &Maker, dir: &Path, tmp: &Path, cases: &[Case]) {
    git(dir, &["switch", "-q", "-c", "all", "main"]);
    for case in cases {
        maker.apply(dir, &case.change);
    }
    commit_all(dir, "Every edit of the corpus");
    let mut args = vec!["--post-steps=false", "--output-branch", "updated-all"];
    if let Some(binary) = &maker.from_binary {
        args.extend(["--from-binary", binary.to_str().unwrap()]);
    }
    update(dir, &current(), &args, "updated-all");
    let (out, scaffold) = (tmp.join("updated"), tmp.join("scaffold"));
    check_out(dir, "updated-all", &out);
    check_out(dir, "main", &scaffold);
    assert_no_conflict_markers(&out);
    for case in cases {
        if let Change::Files(edits) = case.change {
            assert_user_code_kept(&out, &scaffold, edits);
        }
    }
}

/// The paths of `labels` (the dry run's output) with `label`, and `note`
/// in their note when given.
fn labelled(labels: &str, label: &str, note: Option<&str>) -> Vec<String> {
    labels
        .lines()
        .filter(|line| line.split_whitespace().next() == Some(label))
        .filter(|line| note.is_none_or(|note| line.contains(note)))
        .filter_map(|line| line.split_whitespace().nth(1))
        .map(str::to_owned)
        .collect()
}

/// The binary under test.
fn current() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_kubebuilder-rs"))
}

/// The tool that made a project, and how the update makes its ancestor.
struct Maker {
    start: Start,
    binary: PathBuf,
    /// `--from-binary` (projects whose PROJECT says `cliVersion: 0.1.0`).
    from_binary: Option<PathBuf>,
    /// The tools directory its Makefile installs into.
    localbin: PathBuf,
}

impl Maker {
    fn new(start: Start) -> Self {
        match start {
            Start::Kubebuilder(release) => {
                let localbin = shared_tools_bin()
                    .with_file_name("kubebuilder-localbin")
                    .join(release);
                std::fs::create_dir_all(&localbin).unwrap();
                Self {
                    start,
                    binary: kubebuilder_release(release),
                    from_binary: None,
                    localbin,
                }
            }
            Start::EarlierGo | Start::EarlierRust => {
                let binary = old_binary(EARLIER);
                Self {
                    start,
                    from_binary: Some(binary.clone()),
                    binary,
                    localbin: shared_tools_bin(),
                }
            }
        }
    }

    /// Makes the project in `dir`: init, an API, its webhook.
    fn make(&self, dir: &Path) {
        let init = match self.start {
            Start::EarlierRust => {
                "init --plugins rust/v1-alpha --domain example.com --owner Tester"
            }
            _ => "init --domain example.com --repo example.com/fleet",
        };
        self.run(dir, init);
        self.run(
            dir,
            "create api --group crew --version v1 --kind Captain --resource --controller",
        );
        self.run(
            dir,
            "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        );
    }

    fn apply(&self, dir: &Path, change: &Change) {
        match change {
            Change::Files(edits) => apply(dir, edits),
            Change::Commands(lines) => lines.iter().for_each(|line| self.run(dir, line)),
        }
    }

    /// Runs the tool with the words of `line` in `dir`.
    fn run(&self, dir: &Path, line: &str) {
        let args = words(line);
        let mut command = Command::new(&self.binary);
        command
            .args(&args)
            .current_dir(dir)
            .env("LOCALBIN", &self.localbin)
            .stdin(std::process::Stdio::null());
        common::rust_project::sharing_the_build_dir(&mut command);
        output_ok(&mut command, dir, "the project's tool", &args);
    }

    /// `alpha update --dry-run` of `branch`: its output.
    fn dry_run(&self, dir: &Path, branch: &str) -> String {
        let mut command = Command::new(current());
        command
            .args(["alpha", "update", "--dry-run", "--from-branch", branch])
            .current_dir(dir)
            .env("LOCALBIN", shared_tools_bin())
            .stdin(std::process::Stdio::null());
        if let Some(binary) = &self.from_binary {
            command.arg("--from-binary").arg(binary);
        }
        let args = ["alpha", "update", "--dry-run"];
        output_ok(&mut command, dir, "kubebuilder-rs", &args)
    }
}
