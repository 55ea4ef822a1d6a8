//! Helpers shared by the integration tests.

pub mod actionlint;
pub mod cluster;
pub mod deploy_image;
pub mod envtest_index;
pub mod external;
pub mod grafana;
pub mod helm;
pub mod kill_points;
pub mod kubebuilder;
pub mod old_build;
pub mod old_manager;
pub mod rust_project;
pub mod same_scaffold;
pub mod sequences;
pub mod update_repo;

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The kubebuilder-rs binary under test, run in `dir`.
pub fn kb(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("kubebuilder-rs").expect("binary is built");
    cmd.current_dir(dir);
    cmd
}

/// The text of the file `path` below `dir`; panics naming it when it cannot
/// be read.
pub fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Asserts that `text` (the file `path`) holds every one of `needles`.
pub fn assert_holds(path: &str, text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{path} lacks {needle:?}:\n{text}");
    }
}

/// Asserts that `regenerated` holds the same files as `original`, byte for
/// byte, naming the first file that differs; returns `original`'s tree.
pub fn assert_same_files(original: &Path, regenerated: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let (original, regenerated) = (snapshot_tree(original), snapshot_tree(regenerated));
    assert_eq!(
        original.keys().collect::<Vec<_>>(),
        regenerated.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &original {
        assert!(regenerated[path] == *bytes, "{} differs", path.display());
    }
    original
}

/// Every file below `dir` with its bytes, keyed by relative path. Used to
/// prove that a refused command left a directory exactly as it was.
pub fn snapshot_tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    collect(dir, dir, &mut files);
    files
}

fn collect(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        let rel = path.strip_prefix(root).unwrap().to_path_buf();
        if path.is_dir() {
            files.insert(rel.join(""), Vec::new());
            collect(root, &path, files);
        } else {
            files.insert(rel, std::fs::read(&path).expect("readable file"));
        }
    }
}

/// A copy of the directory `from` at `to`, modes and times kept.
pub fn copy_tree(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("run cp");
    assert!(
        status.success(),
        "cp -a {} {} failed",
        from.display(),
        to.display()
    );
}

/// Text of standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Text of standard output.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A new empty directory named `name` inside a temp dir (the name matters:
/// it is the default project name).
pub fn empty_project_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join(name);
    std::fs::create_dir(&dir).expect("create project dir");
    (tmp, dir)
}

/// Runs `kubebuilder-rs init` without downloading dependencies; panics on failure.
pub fn init_project(dir: &Path, extra: &[&str]) {
    let output = kb(dir)
        .args([
            "init",
            "--domain",
            "example.com",
            "--repo",
            "example.com/guestbook",
        ])
        .args(["--fetch-deps=false", "--skip-go-version-check"])
        .args(extra)
        .output()
        .expect("run init");
    assert!(output.status.success(), "init failed: {}", stderr(&output));
}

/// Directory where the generated projects' tools (controller-gen, kustomize,
/// golangci-lint, setup-envtest) are installed once and shared by every test
/// project, through the Makefile's `LOCALBIN`. Outside the repository: the
/// tool cache kubebuilder-rs uses itself (`kubebuilder_rs::tools::tools_bin`).
pub fn shared_tools_bin() -> PathBuf {
    kubebuilder_rs::tools::tools_bin().unwrap_or_else(|err| panic!("{err:#}"))
}

/// A local TCP port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// Runs `program args` in `dir` with the shared tools dir as `LOCALBIN`,
/// prints how long it took, and panics with the command's output on failure.
pub fn run_ok(dir: &Path, program: &str, args: &[&str]) -> String {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env("LOCALBIN", shared_tools_bin());
    output_ok(&mut command, dir, program, args)
}

/// Runs `command`, which is `program args` in `dir`; prints how long it
/// took, panics with its output on failure, and returns its standard output
/// followed by its standard error.
pub fn output_ok(
    command: &mut std::process::Command,
    dir: &Path,
    program: &str,
    args: &[&str],
) -> String {
    let started = std::time::Instant::now();
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = format!("{}{}", stdout(&output), stderr(&output));
    assert!(
        output.status.success(),
        "`{program} {}` failed in {}:\n{text}",
        args.join(" "),
        dir.display()
    );
    eprintln!(
        "ok  {program} {}  ({:.1}s)",
        args.join(" "),
        started.elapsed().as_secs_f64()
    );
    text
}

/// Runs kubebuilder-rs `args` in `dir`; panics with its error output on
/// failure, prints how long it took, and returns its standard output.
pub fn kb_ok(dir: &Path, args: &[&str]) -> String {
    let started = std::time::Instant::now();
    let output = kb(dir).args(args).output().expect("run kubebuilder-rs");
    assert!(
        output.status.success(),
        "kubebuilder-rs {args:?} failed: {}",
        stderr(&output)
    );
    eprintln!(
        "ok  kubebuilder-rs {}  ({:.1}s)",
        args.join(" "),
        started.elapsed().as_secs_f64()
    );
    stdout(&output)
}

/// Runs kubebuilder-rs with `command` then `args` in `dir`, expects a refusal
/// whose single-line message contains every needle, and checks that the
/// directory is byte for byte as it was.
pub fn assert_refused(dir: &Path, command: &[&str], args: &[&str], needles: &[&str]) {
    assert_refused_in(dir, dir, command, args, needles);
}

/// As [`assert_refused`], running in `cwd` and checking that everything
/// below `watched` (which may hold more than `cwd`) is unchanged.
pub fn assert_refused_in(
    cwd: &Path,
    watched: &Path,
    command: &[&str],
    args: &[&str],
    needles: &[&str],
) {
    let before = snapshot_tree(watched);
    let output = kb(cwd)
        .args(command)
        .args(args)
        .output()
        .expect("run kubebuilder-rs");
    assert_one_line_refusal(&output, args, needles);
    assert_eq!(snapshot_tree(watched), before, "files changed for {args:?}");
}

/// Checks that `output` (of a command run with `args`) failed with one line
/// on standard error holding every needle.
pub fn assert_one_line_refusal(output: &Output, args: &[&str], needles: &[&str]) {
    let message = stderr(output);
    assert!(!output.status.success(), "expected a refusal for {args:?}");
    assert_eq!(
        message.trim().lines().count(),
        1,
        "one line expected: {message}"
    );
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} not in: {message}");
    }
}

/// An empty directory `name` for a test that runs golangci-lint, at a path
/// that stays the same from run to run (under the cache, keyed by the test's
/// name) and is kept until that test runs again. golangci-lint caches its
/// results by package content and reads the files again to drop issues in
/// generated code; a project in a deleted temp dir would make that fail.
pub fn persistent_project_dir(name: &str) -> PathBuf {
    let test = std::thread::current()
        .name()
        .unwrap_or("main")
        .replace("::", "-");
    let dir = shared_tools_bin()
        .with_file_name("test-projects")
        .join(test)
        .join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("clear the previous run's project");
    }
    std::fs::create_dir_all(&dir).expect("create project dir");
    dir
}

/// Runs kubebuilder-rs `args` in `dir` with its post-steps (`--make=true`),
/// sharing the tools directory; panics on failure and prints how long the
/// command took, post-steps included.
pub fn kb_with_make(dir: &Path, args: &[&str]) {
    let started = std::time::Instant::now();
    let output = kb(dir)
        .args(args)
        .arg("--make=true")
        .env("LOCALBIN", shared_tools_bin())
        .output()
        .expect("run kubebuilder-rs");
    assert!(
        output.status.success(),
        "kubebuilder-rs {args:?} failed: {}",
        stderr(&output)
    );
    eprintln!(
        "ok  kubebuilder-rs {} --make=true  ({:.1}s)",
        args.join(" "),
        started.elapsed().as_secs_f64()
    );
}

/// Checks what the post-steps promise: the project builds, every Go file is
/// formatted, and go.mod and go.sum are tidy (`go mod tidy` changes nothing).
pub fn assert_ready_to_build(dir: &Path) {
    run_ok(dir, "go", &["build", "./..."]);
    let unformatted = run_ok(dir, "gofmt", &["-l", "."]);
    assert!(
        unformatted.trim().is_empty(),
        "files left unformatted:\n{unformatted}"
    );
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let (go_mod, go_sum) = (read("go.mod"), read("go.sum"));
    run_ok(dir, "go", &["mod", "tidy"]);
    assert_eq!(read("go.mod"), go_mod, "go.mod was not tidy");
    assert_eq!(read("go.sum"), go_sum, "go.sum was not tidy");
}

/// The words of a command line, e.g. `words("create api --group crew")`.
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// insta's settings for every snapshot of the suite: all of them in
/// tests/snapshots, named by the test alone (not by its module).
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings
}

/// Runs kubebuilder-rs `args` in `dir` and snapshots what it changed: every
/// new file in full, and a unified diff of every edited file, under names
/// starting with `prefix`.
pub fn snapshot_command(dir: &Path, prefix: &str, args: &[&str]) {
    let before = snapshot_tree(dir);
    kb_ok(dir, args);
    let after = snapshot_tree(dir);
    let text = |bytes: &Vec<u8>| String::from_utf8(bytes.clone()).expect("text file");
    let mut settings = snapshot_settings();
    settings.add_filter(r"Copyright \d{4}", "Copyright [year]");
    settings.add_filter(r"cliVersion: \S+", "cliVersion: [version]");
    let new_files: BTreeMap<&PathBuf, String> = after
        .iter()
        .filter(|(path, _)| !before.contains_key(*path) && !path.to_string_lossy().ends_with('/'))
        .map(|(path, bytes)| (path, text(bytes)))
        .collect();
    let mut edits = String::new();
    for (path, bytes) in after
        .iter()
        .filter(|(p, b)| before.get(*p).is_some_and(|old| old != *b))
    {
        let label = path.display().to_string();
        let diff = similar::TextDiff::from_lines(text(&before[path]), text(bytes))
            .unified_diff()
            .header(&label, &label)
            .to_string();
        edits.push_str(&diff);
    }
    settings.bind(|| {
        for (path, contents) in &new_files {
            let name = format!("{prefix}__{}", path.display()).replace('/', "__");
            insta::assert_snapshot!(name, contents);
        }
        insta::assert_snapshot!(format!("{prefix}__edits"), edits);
    });
}

/// The one line of `message` that starts with `prefix` (a script's
/// refusal, `install-helm: …`); panics, showing `message`, unless there is
/// exactly one.
pub fn the_one_line<'a>(message: &'a str, prefix: &str) -> &'a str {
    let lines: Vec<&str> = message.lines().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(
        lines.len(),
        1,
        "one line starting {prefix:?} expected:\n{message}"
    );
    lines[0]
}

/// The value of `name ?= value` in the project's Makefile.
pub fn makefile_value(dir: &Path, name: &str) -> String {
    let makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    let prefix = format!("{name} ?= ");
    makefile
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` in the Makefile"))
        .to_string()
}

/// An exclusive lock on a file, held until dropped (closing the file
/// releases it): for what the tests of different lanes must not do at once.
pub struct FileLock {
    _held: std::fs::File,
}

impl FileLock {
    /// Waits for the lock on `path`, creating the file if need be.
    pub fn take(path: &Path) -> Self {
        use std::os::fd::AsRawFd as _;
        let file = std::fs::File::create(path).expect("create the lock file");
        // SAFETY: flock on a descriptor this value owns.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(taken, 0, "cannot lock {}", path.display());
        Self { _held: file }
    }
}
