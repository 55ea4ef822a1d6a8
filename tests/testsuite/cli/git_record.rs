//! Which git processes a scaffolding command runs, and what it leaves in
//! git: none outside a work tree or below its top level; at the top level,
//! the scaffold record written without git, exactly as git's own plumbing
//! writes it (the same trees and messages as a record git wrote, objects
//! git reads and checks).
//!
//! `git` is found through `PATH`; each test puts a `git` of its own first,
//! which logs its arguments and runs the real one.

use crate::common::{empty_project_dir, kb, kb_ok, stderr, stdout};
use sha1::Digest as _;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The ref holding the scaffold record.
const RECORD: &str = "refs/kubebuilder-rs/pristine";

/// The commands run in each project (go/v4, no post-steps).
const COMMANDS: [&str; 4] = [
    "init --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check",
    "create api --group crew --version v1 --kind Captain --resource --controller --make=false",
    "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --make=false",
    "create api --group sea --version v1 --kind Whale --resource --controller --make=false",
];

/// The real git.
fn real_git() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join("git"))
        .find(|path| path.is_file())
        .expect("git on PATH")
}

/// A folder in `tmp` holding a `git` that appends its arguments to the
/// file `log`, then runs the real git; `PATH` with that folder first.
fn logging_git(tmp: &Path, log: &Path) -> std::ffi::OsString {
    let bin = tmp.join("shim-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real_git().display()
    );
    let shim = bin.join("git");
    std::fs::write(&shim, script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var_os("PATH").unwrap();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap()
}

/// Runs `commands` in `dir` with the extra environment `env`; panics when
/// one fails or warns.
fn run_commands(dir: &Path, commands: &[&str], env: &[(&str, &OsStr)]) {
    for command in commands {
        let output = kb(dir)
            .args(command.split_whitespace())
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(output.status.success(), "{command}: {}", stderr(&output));
        assert!(
            !stderr(&output).contains("Warning"),
            "{command}: {}",
            stderr(&output)
        );
    }
}

/// The git calls logged in `log`, one a line.
fn calls(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Runs `git args` in `dir`; its standard output, trimmed.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(real_git())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
    stdout(&output).trim().to_string()
}

/// A new git repository `ship` (the project's name) in a new folder `name`
/// of `tmp`.
fn repository(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name).join("ship");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    dir
}

/// The record's commits, oldest first: (tree, message).
fn record(dir: &Path) -> Vec<(String, String)> {
    let log = git(dir, &["log", "--reverse", "--format=%T%x00%B%x01", RECORD]);
    log.split('\u{1}')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let (tree, message) = entry.split_once('\0').unwrap();
            (tree.to_string(), message.to_string())
        })
        .collect()
}

#[test]
fn no_git_process_runs_outside_a_work_tree_or_below_its_top_level() {
    let (tmp, dir) = empty_project_dir("ship");
    let log = tmp.path().join("git.log");
    let path = logging_git(tmp.path(), &log);
    run_commands(&dir, &COMMANDS, &[("PATH", &path)]);
    assert_eq!(calls(&log), Vec::<String>::new(), "outside a work tree");

    let top = repository(tmp.path(), "repo");
    let below = top.join("operators/ship");
    std::fs::create_dir_all(&below).unwrap();
    run_commands(&below, &COMMANDS, &[("PATH", &path)]);
    assert_eq!(calls(&log), Vec::<String>::new(), "below the top level");
    assert!(
        git(&top, &["for-each-ref", RECORD]).is_empty(),
        "a record below the top level"
    );
}

#[test]
fn the_record_is_written_without_git_as_git_writes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("git.log");
    let path = logging_git(tmp.path(), &log);
    let ours = repository(tmp.path(), "ours");
    run_commands(&ours, &COMMANDS, &[("PATH", &path)]);
    assert_eq!(calls(&log), Vec::<String>::new(), "git ran");

    // The same commands where the environment leaves the record to git's
    // plumbing (a setting passed the way `git -c` passes it).
    let by_git = repository(tmp.path(), "by-git");
    let setting = OsStr::new("'core.quotepath=true'");
    run_commands(
        &by_git,
        &COMMANDS,
        &[("PATH", &path), ("GIT_CONFIG_PARAMETERS", setting)],
    );
    assert!(
        calls(&log)
            .iter()
            .any(|call| call.starts_with("commit-tree")),
        "git wrote no record: {:?}",
        calls(&log)
    );

    let (written, expected) = (record(&ours), record(&by_git));
    assert_eq!(written.len(), COMMANDS.len());
    assert_eq!(written, expected, "the record differs from git's");
    git(&ours, &["fsck", "--strict", "--no-dangling"]);
    let counts = git(&ours, &["count-objects", "-v"]);
    let packs = format!("packs: {}", COMMANDS.len());
    assert!(
        counts.lines().any(|line| line == "count: 0") && counts.lines().any(|line| line == packs),
        "each command's record is one pack, no loose object: {counts}"
    );
    let tip = git(&ours, &["rev-parse", RECORD]);
    assert_eq!(git(&ours, &["cat-file", "-t", &tip]), "commit");
    let project_blob = git(&ours, &["hash-object", "PROJECT"]);
    assert_eq!(
        git(&ours, &["rev-parse", &format!("{RECORD}:PROJECT")]),
        git(&by_git, &["rev-parse", &format!("{RECORD}:PROJECT")])
    );
    assert!(
        written
            .last()
            .unwrap()
            .1
            .ends_with(&format!("Project-Blob: {project_blob}")),
        "{:?}",
        written.last()
    );
    let author = git(
        &ours,
        &["log", "-1", "--format=%an <%ae> %cn <%ce>", RECORD],
    );
    assert_eq!(
        author,
        "kubebuilder-rs <kubebuilder-rs@localhost> kubebuilder-rs <kubebuilder-rs@localhost>"
    );
    assert_eq!(
        git(&ours, &["status", "--porcelain", "--ignored"]),
        git(&by_git, &["status", "--porcelain", "--ignored"]),
        "the work tree and index are untouched"
    );
}

#[test]
fn a_record_already_packed_by_git_is_continued() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("git.log");
    let path = logging_git(tmp.path(), &log);
    let dir = repository(tmp.path(), "packed");
    let (init, rest) = COMMANDS.split_first().unwrap();
    let output = kb(&dir).args(init.split_whitespace()).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    git(&dir, &["gc", "--quiet", "--prune=now"]);
    assert!(git(&dir, &["count-objects"]).starts_with("0 objects"));
    for command in rest {
        let output = kb(&dir)
            .args(command.split_whitespace())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{command}: {}", stderr(&output));
    }
    assert_eq!(
        calls(&log),
        Vec::<String>::new(),
        "the packed record is read in-process"
    );
    assert_eq!(record(&dir).len(), COMMANDS.len());
    git(&dir, &["fsck", "--strict", "--no-dangling"]);
}

/// Projects of every plugin that takes part in a re-scaffold, each a list
/// of commands (no post-steps).
const RICH_PROJECTS: [&[&str]; 2] = [
    &[
        "init --plugins go/v4,grafana.kubebuilder.io/v1-alpha,autoupdate.kubebuilder.io/v1-alpha --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check --license none",
        "create api --group crew --version v1 --kind Captain --resource --controller --make=false",
        "create api --group crew --version v2 --kind Captain --resource --controller=false --make=false",
        "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --conversion --spoke v2 --make=false",
        "create api --plugins deploy-image.go.kubebuilder.io/v1-alpha --group cache --version v1alpha1 --kind Memcached --image memcached:1.6 --make=false --manifests=false",
        "create webhook --group apps --version v1 --kind Deployment --defaulting --make=false",
    ],
    &[
        "init --plugins rust/v1-alpha,webhook-certs/v1-alpha --domain example.com --project-name fleet",
        "create api --group crew --version v1 --kind Captain --resource --controller",
        "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        "create api --group sea --version v1 --kind Whale --resource --controller",
    ],
];

/// The files of `tree` in the repository `dir`: path, mode, bytes.
fn files_of_tree(dir: &Path, tree: &str) -> Vec<(String, String, Vec<u8>)> {
    let listing = git(dir, &["ls-tree", "-r", "-z", tree]);
    listing
        .split('\0')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (meta, path) = line.split_once('\t').unwrap();
            let parts: Vec<&str> = meta.split_whitespace().collect();
            let bytes = Command::new(real_git())
                .args(["cat-file", "blob", parts[2]])
                .current_dir(dir)
                .output()
                .unwrap()
                .stdout;
            (path.to_string(), parts[0].to_string(), bytes)
        })
        .collect()
}

/// The files below `root` as git would record them: path, mode, bytes.
fn files_of_dir(root: &Path) -> Vec<(String, String, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let executable = path.metadata().unwrap().permissions().mode() & 0o111 != 0;
            let mode = if executable { "100755" } else { "100644" };
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            files.push((relative, mode.to_string(), std::fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

/// The record of a project is the scaffold `alpha generate` writes of its
/// PROJECT: the one is made in memory (no temporary directory: `TMPDIR`
/// leads nowhere), the other in a staging directory, through the same
/// plans, for every plugin that takes part in them.
#[test]
fn the_record_made_in_memory_is_the_scaffold_alpha_generate_writes() {
    for commands in RICH_PROJECTS {
        let tmp = tempfile::tempdir().unwrap();
        let dir = repository(tmp.path(), "repo");
        let nowhere = tmp.path().join("no-such-dir");
        run_commands(&dir, commands, &[("TMPDIR", nowhere.as_os_str())]);
        assert_record_is_generated(&dir, &tmp.path().join("generated"), commands[0]);
    }
}

/// Commands that add steps in the middle of a project's replay (a webhook
/// or a controller for an older kind), change PROJECT's sections (a plugin
/// added, a deploy-image resource) or add a step at its end: each record
/// a command resumes from the last one's checkpoints is still the
/// scaffold of its PROJECT.
const RESUMED: [&[&str]; 2] = [
    &[
        "init --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check",
        "create api --group crew --version v1 --kind Captain --resource --controller --make=false",
        "create api --group crew --version v1 --kind Deckhand --resource --controller --make=false",
        "create api --group sea --version v1 --kind Whale --resource --controller --make=false",
        "create webhook --group crew --version v1 --kind Captain --defaulting --make=false",
        "create api --group crew --version v1 --kind Deckhand --resource=false --controller --controller-name deckhand-backup --make=false",
        "create webhook --group sea --version v1 --kind Whale --programmatic-validation --make=false",
        "edit --plugins grafana.kubebuilder.io/v1-alpha",
        "create webhook --group crew --version v1 --kind Deckhand --defaulting --programmatic-validation --make=false",
        "create api --plugins deploy-image.go.kubebuilder.io/v1-alpha --group cache --version v1alpha1 --kind Memcached --image memcached:1.6 --make=false --manifests=false",
        "create webhook --group core --version v1 --kind Pod --defaulting --make=false",
    ],
    &[
        "init --plugins rust/v1-alpha --domain example.com --project-name fleet",
        "create api --group crew --version v1 --kind Captain --resource --controller",
        "create api --group sea --version v1 --kind Whale --resource --controller",
        "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
        "create webhook --group sea --version v1 --kind Whale --defaulting",
    ],
];

#[test]
fn each_record_resumed_from_checkpoints_is_the_scaffold_of_its_project() {
    for commands in RESUMED {
        let tmp = tempfile::tempdir().unwrap();
        let dir = repository(tmp.path(), "repo");
        for (n, command) in commands.iter().enumerate() {
            run_commands(&dir, &[command], &[]);
            let generated = tmp.path().join(format!("generated-{n}"));
            assert_record_is_generated(&dir, &generated, command);
        }
    }
}

/// A command replays only the steps its PROJECT does not share with the
/// last record's: the files of the steps it shares come from the
/// checkpoints kept in the repository, so a change made there (the
/// checksum made again) shows in the next record.
#[test]
fn a_command_starts_its_record_from_the_steps_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = repository(tmp.path(), "repo");
    run_commands(&dir, &COMMANDS[..2], &[]);
    let kept = dir.join(".git/kubebuilder-rs/record-checkpoints");
    let bytes = std::fs::read(&kept).expect("the record's checkpoints are kept");
    let text = String::from_utf8(bytes).unwrap();
    let line = "# Container image that docker-build, docker-push, deploy and build-installer use.";
    let mark = format!(
        "{:<width$}",
        "# Made from the checkpoint",
        width = line.len()
    );
    let marked = text.replacen(line, &mark, 1);
    assert_ne!(marked, text, "init's Makefile is among the checkpoints");
    // The checksum line of the step holding the Makefile, redone.
    let at = marked.find(&mark).unwrap();
    let step = marked[..at].rfind("\nstep ").unwrap() + 1;
    let sum = at + marked[at..].find("\nsum ").unwrap() + 1;
    let after_sum = sum + marked[sum..].find('\n').unwrap() + 1;
    let checksum: String = sha1::Sha1::digest(&marked.as_bytes()[step..sum])
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let fixed = format!("{}sum {checksum}\n{}", &marked[..sum], &marked[after_sum..]);
    std::fs::write(&kept, fixed).unwrap();

    run_commands(&dir, &COMMANDS[3..], &[]);
    let makefile = git(&dir, &["show", &format!("{RECORD}:Makefile")]);
    assert!(
        makefile.starts_with("# Made from the checkpoint"),
        "{makefile}"
    );
}

/// Checks that the newest record of the project in the repository `dir`
/// holds the files `alpha generate --output-dir out` writes, with their
/// modes; `label` names the case.
fn assert_record_is_generated(dir: &Path, out: &Path, label: &str) {
    let out_dir = out.to_str().expect("a UTF-8 temporary path");
    kb_ok(
        dir,
        &["alpha", "generate", "--make=false", "--output-dir", out_dir],
    );
    let recorded = files_of_tree(dir, RECORD);
    let written = files_of_dir(out);
    let names = |files: &[(String, String, Vec<u8>)]| -> Vec<String> {
        files
            .iter()
            .map(|(path, mode, _)| format!("{mode} {path}"))
            .collect()
    };
    assert_eq!(names(&recorded), names(&written), "{label}");
    for (record, generate) in recorded.iter().zip(&written) {
        assert!(
            record.2 == generate.2,
            "{} differs between the record and alpha generate ({label})",
            record.0,
        );
    }
}
