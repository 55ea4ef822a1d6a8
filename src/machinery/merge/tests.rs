use super::*;
use crate::machinery::tree::{MODE_EXECUTABLE, MODE_FILE};
use std::process::Command;

/// A layout's source files (`.src`, `//` comments), for the tests.
const SOURCE: SlashComments = SlashComments {
    extension: "src",
    directives: &["tool:"],
};

fn options() -> MergeOptions<'static> {
    MergeOptions {
        original_label: "main".into(),
        ancestor_label: "ancestor".into(),
        upgrade_label: "upgrade".into(),
        slash_comments: vec![SOURCE],
        ..MergeOptions::default()
    }
}

fn tree(files: &[(&str, &str)]) -> Tree {
    files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), Entry::file(t.as_bytes())))
        .collect()
}

/// Merges one file given as optional texts; returns its text and result.
fn one(
    path: &str,
    a: Option<&str>,
    o: Option<&str>,
    u: Option<&str>,
    opts: &MergeOptions,
) -> (Option<String>, FileResult) {
    let t = |x: Option<&str>| x.map(|x| tree(&[(path, x)])).unwrap_or_default();
    let result = merge_trees(&t(a), &t(o), &t(u), opts);
    let text = result
        .tree
        .get(Path::new(path))
        .map(|e| String::from_utf8(e.bytes.clone()).unwrap());
    (text, result.files[Path::new(path)].clone())
}

fn outcome(a: Option<&str>, o: Option<&str>, u: Option<&str>) -> (Option<String>, Outcome) {
    let (text, file) = one("f.txt", a, o, u, &options());
    (text, file.outcome)
}

#[test]
fn table_rows() {
    let s = |x: &str| Some(x.to_owned());
    assert_eq!(
        outcome(Some("a\n"), Some("x\n"), Some("x\n")),
        (s("x\n"), Outcome::Unchanged)
    );
    assert_eq!(
        outcome(Some("a\n"), Some("o\n"), Some("a\n")),
        (s("o\n"), Outcome::Unchanged)
    );
    assert_eq!(
        outcome(Some("a\n"), Some("a\n"), Some("u\n")),
        (s("u\n"), Outcome::Updated)
    );
    assert_eq!(outcome(None, None, Some("u\n")), (s("u\n"), Outcome::Added));
    assert_eq!(
        outcome(Some("a\n"), Some("a\n"), None),
        (None, Outcome::Removed)
    );
    assert_eq!(
        outcome(Some("a\n"), Some("o\n"), None),
        (s("o\n"), Outcome::Kept)
    );
    assert_eq!(outcome(Some("a\n"), None, None), (None, Outcome::Unchanged));
}

#[test]
fn deleted_by_user_changed_by_scaffold_stays_deleted_as_conflict() {
    let (text, file) = one("f.txt", Some("a\n"), None, Some("u\n"), &options());
    assert_eq!(text, None);
    assert_eq!(file.outcome, Outcome::Conflict);
    assert_eq!(
        file.note.as_deref(),
        Some("deleted on main, changed by the scaffold")
    );
}

#[test]
fn no_ancestor_two_way_merge() {
    let (text, file) = one("f.txt", None, Some("a\nb\n"), Some("a\nc\n"), &options());
    assert_eq!(file.outcome, Outcome::Conflict);
    assert_eq!(
        text.unwrap(),
        "a\n<<<<<<< main\nb\n=======\nc\n>>>>>>> upgrade\n"
    );
}

#[test]
fn user_only_files_stay_unlisted_and_listed_paths_cover_both_scaffolds() {
    let a = tree(&[("gone", "g\n"), ("same", "s\n")]);
    let o = tree(&[("gone", "g\n"), ("same", "s\n"), ("mine", "m\n")]);
    let u = tree(&[("same", "s\n"), ("new", "n\n")]);
    let result = merge_trees(&a, &o, &u, &options());
    let listed: Vec<_> = result.files.keys().map(|p| p.to_str().unwrap()).collect();
    assert_eq!(listed, vec!["gone", "new", "same"]);
    let kept: Vec<_> = result.tree.keys().map(|p| p.to_str().unwrap()).collect();
    assert_eq!(kept, vec!["mine", "new", "same"]);
}

#[test]
fn modes_follow_the_side_the_file_came_from() {
    let exec = |t: &str| Entry {
        bytes: t.as_bytes().to_vec(),
        mode: MODE_EXECUTABLE,
    };
    let p = PathBuf::from("run.sh");
    let a: Tree = [(p.clone(), Entry::file("a\n"))].into();
    let o: Tree = [(p.clone(), exec("a\n"))].into();
    let u: Tree = [(p.clone(), Entry::file("u\n"))].into();
    // O == A in bytes: the file comes from U with U's mode.
    assert_eq!(merge_trees(&a, &o, &u, &options()).tree[&p].mode, MODE_FILE);
    let o: Tree = [(p.clone(), exec("a\nmine\n"))].into();
    let u: Tree = [(p.clone(), Entry::file("first\na\n"))].into();
    let merged = merge_trees(&a, &o, &u, &options());
    assert_eq!(merged.files[&p].outcome, Outcome::Merged);
    assert_eq!(merged.tree[&p].mode, MODE_EXECUTABLE);
    assert_eq!(merged.tree[&p].bytes, b"first\na\nmine\n");
}

#[test]
fn regenerated_paths_keep_the_users_file() {
    let mut opts = options();
    opts.regenerated = vec!["**/zz_generated.*".into(), "deps.lock".into()];
    let path = "api/v1/zz_generated.deepcopy.src";
    let (text, file) = one(path, Some("a\n"), Some("o\n"), Some("u\n"), &opts);
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some("o\n"), Outcome::Regenerated)
    );
    let (text, file) = one("deps.lock", Some("a\n"), None, Some("u\n"), &opts);
    assert_eq!((text, file.outcome), (None, Outcome::Regenerated));
}

#[test]
fn crlf_compares_normalised_and_merges_in_the_users_style() {
    let (text, file) = one("f.txt", Some("a\n"), Some("a\r\n"), Some("u\n"), &options());
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some("u\n"), Outcome::Updated)
    );
    let (text, file) = one(
        "f.txt",
        Some("a\nb\nc\n"),
        Some("A\r\nb\r\nc\r\n"),
        Some("a\nb\nC\n"),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Merged);
    assert_eq!(text.unwrap(), "A\r\nb\r\nC\r\n");
}

#[test]
fn binary_files_that_all_differ_keep_the_users_bytes_as_conflict() {
    let p = PathBuf::from("logo.png");
    let t = |b: &[u8]| -> Tree { [(p.clone(), Entry::file(b))].into() };
    let result = merge_trees(
        &t(b"\xff\x00a"),
        &t(b"\xff\x00o"),
        &t(b"\xff\x00u"),
        &options(),
    );
    assert_eq!(result.tree[&p].bytes, b"\xff\x00o");
    assert_eq!(result.files[&p].outcome, Outcome::Conflict);
    assert_eq!(result.files[&p].note.as_deref(), Some("binary"));
    assert_eq!(result.conflicts(), vec![p.as_path()]);
}

#[test]
fn markers_in_merge_and_diff3_style() {
    let (a, o, u) = ("1\nx\n2\n", "1\nmine\n2\n", "1\ntheirs\n2\n");
    let (text, _) = one("f.txt", Some(a), Some(o), Some(u), &options());
    assert_eq!(
        text.unwrap(),
        "1\n<<<<<<< main\nmine\n=======\ntheirs\n>>>>>>> upgrade\n2\n"
    );
    let mut opts = options();
    opts.style = ConflictStyle::Diff3;
    let (text, file) = one("f.txt", Some(a), Some(o), Some(u), &opts);
    assert_eq!(file.outcome, Outcome::Conflict);
    assert_eq!(
        text.unwrap(),
        "1\n<<<<<<< main\nmine\n||||||| ancestor\nx\n=======\ntheirs\n>>>>>>> upgrade\n2\n"
    );
}

#[test]
fn missing_final_newline_is_closed_inside_markers() {
    let (text, _) = one(
        "f.txt",
        Some("1\nx"),
        Some("1\nmine"),
        Some("1\ntheirs"),
        &options(),
    );
    assert_eq!(
        text.unwrap(),
        "1\n<<<<<<< main\nmine\n=======\ntheirs\n>>>>>>> upgrade\n"
    );
    let (text, file) = one(
        "f.txt",
        Some("1\n2"),
        Some("0\n1\n2"),
        Some("1\n2\n"),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Merged);
    assert_eq!(text.unwrap(), "0\n1\n2\n");
}

/// `git merge-file -p` on the three texts (labels main/ancestor/upgrade).
fn git_merge_file(a: &str, o: &str, u: &str, diff3: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("o", o), ("a", a), ("u", u)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let mut command = Command::new("git");
    command.current_dir(dir.path()).args(["merge-file", "-p"]);
    if diff3 {
        command.arg("--diff3");
    }
    let labels = [
        "-L", "main", "-L", "ancestor", "-L", "upgrade", "o", "a", "u",
    ];
    let output = command.args(labels).output().expect("git runs");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn line_merge_agrees_with_git_merge_file() {
    let fixtures = [
        (
            "module x\n\nproc A() {\n\treturn 1\n}\n\nproc B() {\n\treturn 2\n}\n",
            "module x\n\nuse \"fmt\"\n\nproc A() {\n\treturn 1\n}\n\nproc B() {\n\treturn 2\n}\n",
            "module x\n\nproc A() {\n\treturn 1\n}\n\nproc B() {\n\treturn 3\n}\n",
        ),
        (
            "a\nb\nc\nd\ne\nf\n",
            "a\nB\nc\nd\ne\nf\n",
            "a\nb\nc\nd\nE\nf\ng\n",
        ),
        ("a\nb\nc\n", "a\nmine\nc\n", "a\ntheirs\nc\n"),
        ("a\nb\nc\n", "a\nsame\nc\n", "a\nsame\nc\n"),
        ("a\nb\nc\n", "A\nb\nc\n", "a\nB\nc\n"),
        ("a\nb\nc\nd\n", "a\nx\ny\nd\n", "a\nx\nz\nd\n"),
        // Two-way (empty ancestor): conflicts split where the sides agree,
        // joined across at most three lines or lines without letters.
        ("", "a\nb\nc\nd\ne\nf\ng\nh\n", "a\nB\nc\nd\ne\nf\nG\nh\n"),
        ("", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n"),
        ("", "a\nb\n}\n\n}\n)\nc\n", "a\nB\n}\n\n}\n)\nC\n"),
        ("", "x\n", "y\n"),
    ];
    for (a, o, u) in fixtures {
        for diff3 in [false, true] {
            let mut opts = options();
            if diff3 {
                opts.style = ConflictStyle::Diff3;
            }
            let ours = text::merge_text(Path::new("f.txt"), a, o, u, &opts).text;
            assert_eq!(ours, git_merge_file(a, o, u, diff3), "{a:?} {o:?} {u:?}");
        }
    }
}

const CODE_ANCESTOR: &str = "\
proc (r *R) Sync(ctx Context, req Request) (Result, error) {
\t_ = log.From(ctx)

\t// TODO(user): your logic here

\treturn Result{}, nil
}
";

const CODE_USER: &str = "\
proc (r *R) Sync(ctx Context, req Request) (Result, error) {
\t_ = log.From(ctx)

\tif err := r.sync(ctx, req); err != nil {
\t\treturn Result{}, err
\t}

\treturn Result{}, nil
}
";

const CODE_UPGRADE: &str = "\
proc (r *R) Sync(ctx Context, req Request) (Result, error) {
\t_ = log.From(ctx)

\t// TODO(user): write the reconcile logic here: compare the
\t// desired state with the cluster's and act on the difference.
\t/* see the docs */

\treturn Result{}, nil
}
";

#[test]
fn reworded_todo_against_user_code_takes_the_users_side() {
    let path = "internal/controller/r_controller.src";
    let (text, file) = one(
        path,
        Some(CODE_ANCESTOR),
        Some(CODE_USER),
        Some(CODE_UPGRADE),
        &options(),
    );
    assert_eq!(text.as_deref(), Some(CODE_USER));
    assert_ne!(file.outcome, Outcome::Conflict);
    // Without the rule (an unknown file type) it conflicts.
    let (_, file) = one(
        "r.txt",
        Some(CODE_ANCESTOR),
        Some(CODE_USER),
        Some(CODE_UPGRADE),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
}

#[test]
fn comment_rule_hunk_level_keeps_other_scaffold_changes() {
    let a = "// header\nmodule x\n\n// old doc\nvar a = 1\n\nvar b = 2\n";
    let o = "// header\nmodule x\n\n// my doc\nvar a = 10\n\nvar b = 2\n";
    let u = "// header\nmodule x\n\n/*\n new doc\n*/\nvar a = 1\n\nvar b = 3\n";
    let (text, file) = one("x.src", Some(a), Some(o), Some(u), &options());
    assert_eq!(file.outcome, Outcome::Merged);
    assert_eq!(
        text.unwrap(),
        "// header\nmodule x\n\n// my doc\nvar a = 10\n\nvar b = 3\n"
    );
}

#[test]
fn comment_rule_for_yaml_and_makefile() {
    let a = "# scaffolded\nkind: X\n# edit here\nspec: {}\n";
    let o = "# scaffolded\nkind: X\nspec:\n  replicas: 2\n";
    let u = "# scaffolded by the tool\nkind: X\n# edit below\nspec: {}\n";
    let (text, file) = one("config/x.yaml", Some(a), Some(o), Some(u), &options());
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some(o), Outcome::Unchanged)
    );
    let a = "## Build\nbuild:\n\tcc build\n";
    let o = "## Build\nbuild: gen\n\tcc build\n";
    let u = "## Build the manager\nbuild:\n\tcc build\n";
    let (text, file) = one("Makefile", Some(a), Some(o), Some(u), &options());
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some(o), Outcome::Unchanged)
    );
    // A code change of the scaffold in the same hunk still conflicts.
    let u = "## Build the manager\nbuild: fmt\n\tcc build\n";
    let (_, file) = one("Makefile", Some(a), Some(o), Some(u), &options());
    assert_eq!(file.outcome, Outcome::Conflict);
}

#[test]
fn directive_comments_are_code_for_the_rule() {
    let a = "module x\n\n// +kubebuilder:rbac:verbs=get\nproc R() {}\n";
    let o = "module x\n\n// +kubebuilder:rbac:verbs=get;list\nproc R() {}\n";
    let u = "module x\n\n// +kubebuilder:rbac:verbs=get;watch\nproc R() {}\n";
    let (_, file) = one("x.src", Some(a), Some(o), Some(u), &options());
    assert_eq!(file.outcome, Outcome::Conflict);
    let a = "module x\n\n//tool:build a\nproc R() {}\n";
    let o = "module x\n\n//tool:build b\nproc R() {}\n";
    let u = "module x\n\n//tool:build c\nproc R() {}\n";
    let (_, file) = one("x.src", Some(a), Some(o), Some(u), &options());
    assert_eq!(file.outcome, Outcome::Conflict);
}

#[test]
fn user_insertion_next_to_a_scaffold_rewrite_keeps_both() {
    let a = "all: build\n\nbuild:\n\tcc build ./...\n";
    let o = "all: build\n\nbuild:\n\tcc build ./...\n\ndeploy-local:\n\tkubectl apply -k config\n";
    let u = "all: build\n\nbuild:\n\tcc build -trimpath ./...\n";
    let (text, file) = one("Makefile", Some(a), Some(o), Some(u), &options());
    assert_eq!(file.outcome, Outcome::Merged);
    assert_eq!(
        text.unwrap(),
        "all: build\n\nbuild:\n\tcc build -trimpath ./...\n\ndeploy-local:\n\tkubectl apply -k config\n"
    );
}

#[test]
fn insertion_rule_refuses_when_the_scaffold_inserts_at_the_same_point_or_repeats_a_line() {
    let a = "a\nb\n";
    let (_, file) = one(
        "f.txt",
        Some(a),
        Some("a\nmine\nb\n"),
        Some("a\ntheirs\nb\n"),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
    let (_, file) = one(
        "f.txt",
        Some(a),
        Some("a\nb\nx\n"),
        Some("a\nB\nx\n"),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
}

struct Upper;

impl FileMerger for Upper {
    fn handles(&self, path: &Path) -> bool {
        path == Path::new("deps.list")
    }
    fn merge(&self, _: &str, original: &str, _: &str) -> Option<String> {
        Some(original.to_uppercase())
    }
}

#[test]
fn file_mergers_are_asked_before_the_line_merge() {
    let mut opts = options();
    opts.mergers = vec![&Upper];
    let (text, file) = one("deps.list", Some("a\n"), Some("o\n"), Some("u\n"), &opts);
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some("O\n"), Outcome::Merged)
    );
}

#[test]
fn file_level_comment_rule_keeps_the_users_file_whole() {
    let a = "# managed by the tool\nx: 1\ny: 2\n";
    let o = "# managed by the tool\nx: 1\ny: 3\n";
    let u = "# made by the tool, edit freely\nx: 1\ny: 2\n";
    let (text, file) = one("config/a.yaml", Some(a), Some(o), Some(u), &options());
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some(o), Outcome::Unchanged)
    );
    assert_eq!(
        file.note.as_deref(),
        Some("the scaffold changed only comments")
    );
}

#[test]
fn symbolic_links_that_all_differ_keep_the_users_link_as_conflict() {
    let p = PathBuf::from("link");
    let link = |target: &str| -> Tree {
        let entry = Entry {
            bytes: target.as_bytes().to_vec(),
            mode: crate::machinery::tree::MODE_SYMLINK,
        };
        [(p.clone(), entry)].into()
    };
    let result = merge_trees(&link("a"), &link("o"), &link("u"), &options());
    assert_eq!(result.tree[&p].bytes, b"o");
    assert_eq!(result.files[&p].note.as_deref(), Some("symbolic link"));
}

const MAKEFILE: &str = "\
.PHONY: build
build: ## Build.
\tgo build

define go-install-tool
go install $(2)
endef
";

/// Every line of `side` is in `merged`, in the same order.
fn keeps_every_line(merged: &str, side: &str) -> bool {
    let mut rest = merged.lines();
    side.lines().all(|line| rest.any(|m| m == line))
}

#[test]
fn makefile_additions_of_both_at_the_end_keep_the_scaffolds_then_the_users() {
    let user = format!("{MAKEFILE}\n.PHONY: report\nreport: ## Mine.\n\t@echo report\n");
    let upgrade = format!("{MAKEFILE}\ndefine gomodver\ngo list -m $(1)\nendef\n");
    let (text, file) = one(
        "Makefile",
        Some(MAKEFILE),
        Some(&user),
        Some(&upgrade),
        &options(),
    );
    let text = text.unwrap();
    assert_eq!(file.outcome, Outcome::Merged);
    assert_eq!(file.note.as_deref(), Some(ORDER_FREE_NOTE));
    assert_eq!(
        text,
        format!(
            "{MAKEFILE}\ndefine gomodver\ngo list -m $(1)\nendef\n\n.PHONY: report\nreport: ## Mine.\n\t@echo report\n"
        )
    );
    assert!(keeps_every_line(&text, &user) && keeps_every_line(&text, &upgrade));
}

#[test]
fn makefile_additions_naming_the_same_target_or_inside_a_recipe_still_conflict() {
    let user = format!("{MAKEFILE}\nreport:\n\t@echo mine\n");
    let upgrade = format!("{MAKEFILE}\nreport:\n\t@echo theirs\n");
    let (text, file) = one(
        "Makefile",
        Some(MAKEFILE),
        Some(&user),
        Some(&upgrade),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
    assert!(text.unwrap().contains("<<<<<<< main"));
    let inside = |line: &str| MAKEFILE.replace("\tgo build\n", &format!("\tgo build\n{line}"));
    let (_, file) = one(
        "Makefile",
        Some(MAKEFILE),
        Some(&inside("\tgo vet\n")),
        Some(&inside("x:\n\techo x\n")),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
}

#[test]
fn kustomization_list_items_added_by_both_are_kept() {
    let base = "resources:\n- ../crd\n- ../rbac\npatches:\n- path: a.yaml\n";
    let user = "resources:\n- ../crd\n- ../rbac\n- ../mine\npatches:\n- path: a.yaml\n- path: mine.yaml\n  target:\n    kind: Deployment\n";
    let upgrade = "resources:\n- ../crd\n- ../rbac\n- ../metrics\npatches:\n- path: a.yaml\n- path: theirs.yaml\n";
    let path = "config/default/kustomization.yaml";
    let (text, file) = one(path, Some(base), Some(user), Some(upgrade), &options());
    assert_eq!(file.outcome, Outcome::Merged);
    assert_eq!(
        text.unwrap(),
        "resources:\n- ../crd\n- ../rbac\n- ../metrics\n- ../mine\npatches:\n- path: a.yaml\n- path: theirs.yaml\n- path: mine.yaml\n  target:\n    kind: Deployment\n"
    );
    let same =
        "resources:\n- ../crd\n- ../rbac\n- ../metrics\n- ../mine\npatches:\n- path: a.yaml\n";
    let (_, file) = one(path, Some(base), Some(same), Some(upgrade), &options());
    assert_eq!(file.outcome, Outcome::Conflict, "one item added by both");
}

#[test]
fn ignore_file_patterns_added_by_both_are_kept_unless_one_negates() {
    let base = "bin/\n";
    let (text, file) = one(
        ".gitignore",
        Some(base),
        Some("bin/\n*.swp\n"),
        Some("bin/\ndist/\n"),
        &options(),
    );
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some("bin/\ndist/\n*.swp\n"), Outcome::Merged)
    );
    let (_, file) = one(
        ".dockerignore",
        Some(base),
        Some("bin/\n!bin/keep\n"),
        Some("bin/\ndist/\n"),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
}

/// A layout's rule for the tests: `.src` lines `use x` commute.
struct UseLines;

impl OrderFree for UseLines {
    fn handles(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "src")
    }
    fn units(&self, _: &Point, inserted: &[&str]) -> Option<Vec<String>> {
        inserted
            .iter()
            .map(|l| l.strip_prefix("use ").map(str::to_owned))
            .collect()
    }
}

#[test]
fn a_layouts_order_free_rule_is_asked_for_its_files_only() {
    let (a, o, u) = (
        "use a\n\nmain\n",
        "use a\nuse b\n\nmain\n",
        "use a\nuse c\n\nmain\n",
    );
    let mut opts = options();
    opts.order_free = vec![&UseLines];
    let (text, file) = one("m.src", Some(a), Some(o), Some(u), &opts);
    assert_eq!(
        (text.as_deref(), file.outcome),
        (Some("use a\nuse c\nuse b\n\nmain\n"), Outcome::Merged)
    );
    let (_, file) = one("m.txt", Some(a), Some(o), Some(u), &opts);
    assert_eq!(file.outcome, Outcome::Conflict, "another file type");
    let (_, file) = one("m.src", Some(a), Some("use a\nx\n\nmain\n"), Some(u), &opts);
    assert_eq!(file.outcome, Outcome::Conflict, "not a unit");
    let (_, file) = one("m.src", Some(a), Some(o), Some(u), &options());
    assert_eq!(file.outcome, Outcome::Conflict, "no rule given");
}

#[test]
fn an_overlapping_change_still_conflicts_with_an_order_free_rule() {
    let user = MAKEFILE.replace("go install $(2)", "go install -v $(2)") + "x:\n\techo x\n";
    let upgrade =
        MAKEFILE.replace("go install $(2)", "GOBIN=$(1) go install $(2)") + "y:\n\techo y\n";
    let (_, file) = one(
        "Makefile",
        Some(MAKEFILE),
        Some(&user),
        Some(&upgrade),
        &options(),
    );
    assert_eq!(file.outcome, Outcome::Conflict);
}

#[test]
fn shared_lines_count_the_unchanged_lines_in_order() {
    assert_eq!(shared_lines("a\nb\nc\n", "a\nx\nc\n"), 2);
    assert_eq!(shared_lines("a\nb\n", "b\na\n"), 1);
    assert_eq!(shared_lines("", "a\n"), 0);
}
