//! `scripts/test-all`, the README's test command, run for its own steps:
//! against an empty cache directory, as on a new machine, with stand-ins for
//! the heavy commands (cargo, rustup and the control plane's build), so what
//! the script does before, between and after the slow lanes is checked in
//! every run of the suite. The stand-in cargo records each call with the
//! directories it was handed and checks that they exist, as the real lanes
//! need them to.

use std::collections::BTreeSet;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

/// A `cargo` that appends `ARGS\tTOOLS_BIN\tASSETS\tTMPDIR\tNICE` to
/// `$STUB_LOG` for every call. A slow lane (`-- --ignored`) fails unless `KUBEBUILDER_ASSETS` (but
/// for the shared tools' run, which comes before the control plane) and its
/// tools directory exist, and fails on purpose when it runs a test module
/// `$STUB_FAIL_TEST` names (one or more, a space between). The cluster's lane leaves a file `kept` in
/// `$TMPDIR/buildah-cache` when there is one. The fast tests (`cargo test`) log a line
/// `fast-tests-ended` when they end; with `$STUB_FAST_WAITS_FOR_LANES`
/// they last until all three lanes have started, or 60 s. With
/// `$STUB_LANE_LEAVES_PROCESSES`, the cluster's lane starts two processes
/// in sessions of their own, as a test's control plane and manager are (one
/// naming a file in `$TMPDIR`, one working there), writes their pids to
/// `left-pids` and its own to `lane-pid` beside the log, and runs on for
/// 60 s, and the fast tests fail once it has started them.
const STUB_CARGO: &str = r#"#!/usr/bin/env bash
set -eu
printf '%s\t%s\t%s\t%s\t%s\n' "$*" "${KUBEBUILDER_RS_TOOLS_BIN:-}" "${KUBEBUILDER_ASSETS:-}" "${TMPDIR:-}" "$(nice)" >>"$STUB_LOG"
stage=${STUB_LOG%/*}
case " $* " in
" test ")
  if [ -n "${STUB_FAST_WAITS_FOR_LANES:-}" ]; then
    for _ in $(seq 1 600); do
      [ "$(grep -c -e '--ignored .*::' "$STUB_LOG")" -lt 4 ] || break
      sleep 0.1
    done
  fi
  if [ -n "${STUB_LANE_LEAVES_PROCESSES:-}" ]; then
    for _ in $(seq 1 600); do
      [ ! -f "$stage/lane-pid" ] || break
      sleep 0.1
    done
    echo "stub fast tests: a snapshot differs"
    exit 101
  fi
  printf 'fast-tests-ended\t\t\t\t\n' >>"$STUB_LOG" ;;
*" --ignored "*" suite::shared_tools:: "*)
  [ -d "$KUBEBUILDER_RS_CACHE/tools-bin" ] || { echo "stub cargo: no tools directory" >&2; exit 3; }
  if [ "${STUB_FAIL_TEST:-}" = suite::shared_tools ]; then
    echo "stub tools: golangci-lint failed to build"
    exit 101
  fi ;;
*" --ignored "*)
  # The cluster's lane builds images: podman keeps its cache mounts there.
  [[ " $* " != *" cluster:: "* ]] || [ ! -d "$TMPDIR/buildah-cache" ] || touch "$TMPDIR/buildah-cache/kept"
  # The first lane takes a while, as the real one does.
  [[ " $* " != *" rust::layout:: "* ]] || sleep 3
  [ -d "${KUBEBUILDER_ASSETS:-}" ] || { echo "stub cargo: no KUBEBUILDER_ASSETS directory" >&2; exit 3; }
  tools=${KUBEBUILDER_RS_TOOLS_BIN:-$KUBEBUILDER_RS_CACHE/tools-bin}
  [ -d "$tools" ] || { echo "stub cargo: no tools directory $tools" >&2; exit 3; }
  for failing in ${STUB_FAIL_TEST:-}; do
    if [[ " $* " == *" $failing:: "* ]]; then
      echo "stub lane: $failing failed"
      exit 101
    fi
  done
  if [ -n "${STUB_LANE_LEAVES_PROCESSES:-}" ] && [[ " $* " == *" cluster:: "* ]]; then
    mkdir -p "$TMPDIR/manager"
    : >"$TMPDIR/apiserver.log"
    # shellcheck disable=SC2016 # $$, $0 and $1 belong to the inner shell
    setsid -f bash -c 'echo $$ >>"$0"; exec tail -f "$1"' "$stage/left-pids" "$TMPDIR/apiserver.log" \
      </dev/null >/dev/null 2>&1
    # shellcheck disable=SC2016
    (cd "$TMPDIR/manager" && setsid -f bash -c 'echo $$ >>"$0"; exec sleep 600' "$stage/left-pids" \
      </dev/null >/dev/null 2>&1)
    while [ "$(wc -l <"$stage/left-pids" 2>/dev/null || echo 0)" -lt 2 ]; do sleep 0.1; done
    echo $$ >"$stage/lane-pid"
    sleep 60
  fi ;;
esac
"#;

/// A control plane whose `assets` makes and prints a directory under the
/// cache, or fails with a log line when `$STUB_CONTROL_PLANE_FAILS` is set.
const STUB_CONTROL_PLANE: &str = r#"#!/usr/bin/env bash
set -eu
[ "$1" = assets ] || { echo "stub control-plane: unexpected $*" >&2; exit 2; }
if [ -n "${STUB_CONTROL_PLANE_FAILS:-}" ]; then
  echo "stub control-plane: go build kube-apiserver failed" >&2
  exit 1
fi
dir="$KUBEBUILDER_RS_CACHE/envtest/stub"
mkdir -p "$dir"
echo "$dir"
"#;

/// The cluster script, whose `assets` fails with a log line when
/// `$STUB_CLUSTER_FAILS` is set, and otherwise writes its nice value as it
/// starts to `cluster-nice` beside the cargo stand-in's log. Its `clean`
/// appends to `cluster-cleans` there whether `$TMPDIR` and the cluster
/// lane's cargo (`lane-pid`) were still there.
const STUB_CLUSTER: &str = r#"#!/usr/bin/env bash
set -eu
stage=${STUB_LOG%/*}
if [ "$1" = clean ]; then
  tmpdir=gone lane=gone
  [ ! -d "$TMPDIR" ] || tmpdir=there
  [ ! -f "$stage/lane-pid" ] || ! kill -0 "$(cat "$stage/lane-pid")" 2>/dev/null || lane=running
  echo "tmpdir $tmpdir, lane $lane" >>"$stage/cluster-cleans"
  exit 0
fi
[ "$1" = assets ] || { echo "stub cluster: unexpected $*" >&2; exit 2; }
if [ -n "${STUB_CLUSTER_FAILS:-}" ]; then
  echo "stub cluster: go build kubelet failed" >&2
  exit 1
fi
ps -o ni= -p $$ | tr -d ' ' >"$stage/cluster-nice"
echo "$KUBEBUILDER_RS_CACHE/cluster/stub"
"#;

/// A `shellcheck` that appends its arguments, one a line, to
/// `shellcheck.log` beside the cargo stand-in's log: the real one takes
/// seconds, and runs once in the suite's own run.
const STUB_SHELLCHECK: &str = r#"#!/usr/bin/env bash
printf '%s\n' "$@" >>"${STUB_LOG%/*}/shellcheck.log"
"#;

/// The suite's own scripts, relative to the repository and sorted: the
/// files right under `.ci`, `scripts` and `tests/support`.
fn suite_scripts() -> Vec<String> {
    let mut scripts: Vec<String> = [".ci", "scripts", "tests/support"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(repo().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            path.strip_prefix(repo())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    scripts.sort();
    scripts
}

/// The repository's root.
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory with the stand-ins on a `bin/` to put first on PATH.
struct Stage {
    dir: tempfile::TempDir,
}

impl Stage {
    fn new() -> Stage {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        write_executable(&bin.join("cargo"), STUB_CARGO);
        write_executable(&bin.join("rustup"), "#!/bin/sh\nexit 0\n");
        write_executable(&bin.join("shellcheck"), STUB_SHELLCHECK);
        write_executable(&dir.path().join("control-plane"), STUB_CONTROL_PLANE);
        write_executable(&dir.path().join("cluster"), STUB_CLUSTER);
        Stage { dir }
    }

    /// The cache directory the script is given; it does not exist until a
    /// test or the script makes it.
    fn cache(&self) -> PathBuf {
        self.dir.path().join("new-machine/cache/kubebuilder-rs")
    }

    /// Runs `bash scripts/test-all` with the stand-ins and `extra` variables,
    /// its TMPDIR in the stage.
    fn run(&self, extra: &[(&str, &str)]) -> Output {
        self.command(extra)
            .env("TMPDIR", self.dir.path())
            .output()
            .unwrap()
    }

    /// The script's command with the stand-ins and `extra` variables, and no
    /// TMPDIR.
    fn command(&self, extra: &[(&str, &str)]) -> Command {
        let path = format!(
            "{}:{}",
            self.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap()
        );
        let mut command = Command::new("bash");
        command
            .arg(repo().join("scripts/test-all"))
            .env("PATH", path)
            .env("KUBEBUILDER_RS_CACHE", self.cache())
            .env(
                "TEST_ALL_CONTROL_PLANE",
                self.dir.path().join("control-plane"),
            )
            .env("TEST_ALL_CLUSTER", self.dir.path().join("cluster"))
            .env("STUB_LOG", self.dir.path().join("cargo.log"))
            .env_remove("TMPDIR")
            .env_remove("KUBEBUILDER_ASSETS")
            .env_remove("KUBEBUILDER_RS_TOOLS_BIN");
        for (key, value) in extra {
            command.env(key, value);
        }
        command
    }

    /// The files the stand-in shellcheck was given, relative to the
    /// repository, sorted.
    fn shellchecked(&self) -> Vec<String> {
        let log =
            std::fs::read_to_string(self.dir.path().join("shellcheck.log")).unwrap_or_default();
        let mut files: Vec<String> = log
            .lines()
            .filter(|arg| !arg.starts_with('-'))
            .map(|file| file.trim_start_matches("./").to_string())
            .collect();
        files.sort();
        files
    }

    /// The stand-in cargo's calls, one record per call.
    fn cargo_calls(&self) -> Vec<CargoCall> {
        let log = std::fs::read_to_string(self.dir.path().join("cargo.log")).unwrap_or_default();
        log.lines().map(CargoCall::parse).collect()
    }
}

/// One call of the stand-in cargo. The marker it logs (`fast-tests-ended`)
/// reads the same way, its value in the last field.
#[derive(Debug)]
struct CargoCall {
    args: Vec<String>,
    tools_bin: String,
    assets: String,
    tmpdir: String,
    nice: String,
}

impl CargoCall {
    fn parse(line: &str) -> CargoCall {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 5, "a stub cargo record: {line:?}");
        CargoCall {
            args: fields[0].split_whitespace().map(str::to_string).collect(),
            tools_bin: fields[1].to_string(),
            assets: fields[2].to_string(),
            tmpdir: fields[3].to_string(),
            nice: fields[4].to_string(),
        }
    }

    /// A run of ignored tests: the shared tools' or a slow lane.
    fn runs_ignored(&self) -> bool {
        self.args.iter().any(|a| a == "--ignored")
    }

    /// A slow lane: the ignored tests of some modules, after the tools.
    fn is_lane(&self) -> bool {
        self.runs_ignored() && self.filters() != ["suite::shared_tools::"]
    }

    /// The test binaries named with `--test`.
    fn binaries(&self) -> Vec<&str> {
        self.args
            .windows(2)
            .filter(|pair| pair[0] == "--test")
            .map(|pair| pair[1].as_str())
            .collect()
    }

    /// The test name filters given to the test binary (after `--`).
    fn filters(&self) -> Vec<&str> {
        let after = self.args.iter().skip_while(|arg| *arg != "--").skip(1);
        after
            .filter(|arg| !arg.starts_with('-'))
            .map(String::as_str)
            .collect()
    }
}

fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The source files of the test binary (tests/testsuite) whose source
/// satisfies `holds`, each with the module path its tests' names start with
/// (`go/init.rs` is `go::init::`, `cluster/mod.rs` is `cluster::`).
fn test_modules_where(holds: impl Fn(&str) -> bool) -> BTreeSet<String> {
    let root = repo().join("tests/testsuite");
    let mut found = BTreeSet::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs")
                && holds(&std::fs::read_to_string(&path).unwrap())
            {
                found.insert(module_path(
                    &path.strip_prefix(&root).unwrap().with_extension(""),
                ));
            }
        }
    }
    found
}

/// `go/init` is `go::init::`; a `mod` or `main` file is its directory's.
fn module_path(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "main")) {
        parts.pop();
    }
    parts.iter().map(|part| format!("{part}::")).collect()
}

/// The module paths of the files that hold slow (`#[ignore]`) tests.
fn slow_test_modules() -> BTreeSet<String> {
    test_modules_where(|source| {
        source
            .lines()
            .any(|line| line.trim_start().starts_with("#[ignore"))
    })
}

/// Generated Rust projects share cargo's build directory
/// (tests/testsuite/common/rust_project.rs), never a target directory: every project's
/// binaries have the same names (`target/debug/manager`), so two lanes
/// building projects in one target directory could run each other's. Only
/// the old kubebuilder-rs builds (tests/testsuite/common/old_build.rs, one at a time
/// under a lock) have a target directory of their own.
#[test]
fn no_slow_test_points_generated_projects_at_a_shared_target_directory() {
    let setters = test_modules_where(|source| source.contains(".env(\"CARGO_TARGET_DIR\""));
    assert_eq!(
        setters,
        BTreeSet::from(["common::old_build::".to_string()]),
        "tests and helpers setting CARGO_TARGET_DIR"
    );
}

fn assert_passed(output: &Output) {
    assert!(
        output.status.success(),
        "test-all failed:\n--- stdout\n{}\n--- stderr\n{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert!(text(&output.stdout).contains("all tests passed"));
}

#[test]
fn from_an_empty_cache_every_step_has_its_directories_and_each_slow_test_module_runs_once() {
    let stage = Stage::new();
    assert!(!stage.cache().exists());
    let output = stage.run(&[]);
    assert_passed(&output);
    assert_eq!(
        stage.shellchecked(),
        suite_scripts(),
        "shellcheck checks each of the suite's scripts once"
    );

    let calls = stage.cargo_calls();
    let firsts: Vec<&str> = calls.iter().map(|c| c.args[0].as_str()).collect();
    assert_eq!(
        firsts[..3],
        ["fmt", "clippy", "test"],
        "checks, then the build of the tests: {calls:#?}"
    );
    assert_eq!(calls[2].args, ["test", "--no-run"], "{calls:#?}");
    assert_eq!(firsts.len(), 9, "{calls:#?}");
    let tools_at = calls
        .iter()
        .position(|c| c.runs_ignored() && c.filters() == ["suite::shared_tools::"])
        .expect("the shared tools are built");
    assert_eq!(
        calls[tools_at].tools_bin, "",
        "the shared tools go to the first lane's tools directory"
    );
    assert!(
        calls.iter().any(|c| c.args == ["test"]),
        "the fast tests run: {calls:#?}"
    );
    let lanes: Vec<&CargoCall> = calls.iter().filter(|c| c.is_lane()).collect();
    assert!(
        calls
            .iter()
            .enumerate()
            .all(|(at, call)| !call.is_lane() || at > tools_at),
        "every lane starts after the shared tools' run: {calls:#?}"
    );
    assert_eq!(lanes.len(), 3, "three slow lanes: {calls:#?}");
    let cache = stage.cache();
    for lane in &lanes {
        assert_eq!(
            Path::new(&lane.assets),
            cache.join("envtest/stub"),
            "each lane gets the control plane the build printed"
        );
        assert_eq!(lane.binaries(), ["testsuite"], "{lane:#?}");
    }
    let lane_with_tools = |dir: &str| -> Vec<&CargoCall> {
        lanes
            .iter()
            .copied()
            .filter(|lane| lane.tools_bin == dir)
            .collect()
    };
    let first = lane_with_tools("");
    let second = lane_with_tools(cache.join("tools-bin-second-lane").to_str().unwrap());
    let cluster = lane_with_tools(cache.join("tools-bin-cluster-lane").to_str().unwrap());
    assert_eq!(
        (first.len(), second.len(), cluster.len()),
        (1, 1, 1),
        "one call for each lane, each lane with its own tools directory: {calls:#?}"
    );
    assert_eq!(
        cluster[0].filters(),
        ["cluster::"],
        "the cluster's tests have a lane of their own: {calls:#?}"
    );
    assert!(cache.join("tools-bin").is_dir());
    // A filter picks the tests whose names hold it: each module with slow
    // tests is picked by exactly one filter of one run, and every filter
    // picks some module with slow tests.
    let filters: Vec<&str> = calls
        .iter()
        .filter(|c| c.runs_ignored())
        .flat_map(CargoCall::filters)
        .collect();
    let slow = slow_test_modules();
    for module in &slow {
        let picked_by: Vec<&&str> = filters.iter().filter(|f| module.contains(**f)).collect();
        assert_eq!(
            picked_by.len(),
            1,
            "the slow tests of {module} must run exactly once; picked by {picked_by:?}"
        );
    }
    for filter in &filters {
        assert!(
            slow.iter().any(|module| module.contains(filter)),
            "{filter} picks no module with slow tests: {slow:#?}"
        );
    }
}

#[test]
fn a_warm_cache_seeds_the_second_lane_and_drops_stale_incremental_caches() {
    let stage = Stage::new();
    let cache = stage.cache();
    let tools = cache.join("tools-bin");
    std::fs::create_dir_all(tools.join("k8s/1.37.2-linux-amd64")).unwrap();
    std::fs::write(tools.join("controller-gen-v0.20.0"), "tool").unwrap();
    std::fs::write(tools.join("k8s/1.37.2-linux-amd64/etcd"), "etcd").unwrap();
    // Each lane's build directory (see common::rust_project::shared_build_dir).
    let lanes = ["rust-target", "rust-target-cluster-lane"]
        .map(|dir| cache.join(dir).join("debug/incremental"));
    let day_ago = SystemTime::now() - Duration::from_secs(24 * 3600);
    for incremental in &lanes {
        for name in ["stale", "fresh"] {
            std::fs::create_dir_all(incremental.join(name)).unwrap();
        }
        std::fs::File::open(incremental.join("stale"))
            .unwrap()
            .set_modified(day_ago)
            .unwrap();
    }

    assert_passed(&stage.run(&[]));

    let seeded = cache.join("tools-bin-second-lane");
    for tool in ["controller-gen-v0.20.0", "k8s/1.37.2-linux-amd64/etcd"] {
        let original = std::fs::metadata(tools.join(tool)).unwrap();
        let link = std::fs::metadata(seeded.join(tool))
            .unwrap_or_else(|err| panic!("{tool} is not in the second lane's tools: {err}"));
        assert_eq!(
            original.ino(),
            link.ino(),
            "{tool} is a hard link, not a copy"
        );
    }
    for incremental in &lanes {
        assert!(
            !incremental.join("stale").exists(),
            "a day-old incremental cache stays in {}",
            incremental.display()
        );
        assert!(
            incremental.join("fresh").exists(),
            "a fresh incremental cache was dropped from {}",
            incremental.display()
        );
    }
}

/// Runs the script with the tests of `module` failing and checks that the run
/// fails, shows `lane`'s output and names its exit status.
/// Runs the script with the test modules of `failing` (module, lane) failing,
/// checks that the run fails, shows each one's output and names each lane
/// with its exit status; returns the run's stderr.
fn assert_failing_lanes_fail_the_run(failing: &[(&str, &str)]) -> String {
    let modules: Vec<&str> = failing.iter().map(|(module, _)| *module).collect();
    let stage = Stage::new();
    let output = stage.run(&[("STUB_FAIL_TEST", &modules.join(" "))]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(!output.status.success(), "{stdout}");
    for (module, lane) in failing {
        assert!(
            stdout.contains(&format!("stub lane: {module} failed")),
            "the {lane} lane's output is shown: {stdout}"
        );
        assert!(
            stderr.contains(&format!("{lane} lane exit 101")),
            "{stderr}"
        );
    }
    stderr
}

#[test]
fn a_failing_first_lane_fails_the_run_and_shows_its_output() {
    assert_failing_lanes_fail_the_run(&[("rust::layout", "first")]);
}

#[test]
fn a_failing_second_lane_fails_the_run_and_shows_its_output() {
    assert_failing_lanes_fail_the_run(&[("go::alpha_generate", "second")]);
}

#[test]
fn a_failing_cluster_lane_fails_the_run_and_shows_its_output() {
    assert_failing_lanes_fail_the_run(&[("cluster", "cluster")]);
}

#[test]
fn two_failing_lanes_are_both_named() {
    let stderr =
        assert_failing_lanes_fail_the_run(&[("rust::layout", "first"), ("cluster", "cluster")]);
    assert!(
        stderr.contains("slow tests failed (first lane exit 101, cluster lane exit 101)"),
        "{stderr}"
    );
}

#[test]
fn every_lane_starts_beside_the_fast_tests_once_the_shared_tools_are_built() {
    let stage = Stage::new();
    assert_passed(&stage.run(&[("STUB_FAST_WAITS_FOR_LANES", "1")]));
    let calls = stage.cargo_calls();
    let at = |what: &dyn Fn(&CargoCall) -> bool| {
        calls
            .iter()
            .position(what)
            .unwrap_or_else(|| panic!("{calls:#?}"))
    };
    let fast_ended = at(&|c| c.args == ["fast-tests-ended"]);
    let tools = at(&|c| c.runs_ignored() && c.filters() == ["suite::shared_tools::"]);
    let lanes: Vec<usize> = (0..calls.len()).filter(|&i| calls[i].is_lane()).collect();
    assert_eq!(lanes.len(), 3, "{calls:#?}");
    for lane in lanes {
        assert!(
            tools < lane && lane < fast_ended,
            "a lane waited for the fast tests, or did not wait for the shared tools: {calls:#?}"
        );
    }
}

/// This process's nice value, as `nice` prints it.
fn own_nice() -> i32 {
    let own = Command::new("nice").output().unwrap();
    String::from_utf8_lossy(&own.stdout).trim().parse().unwrap()
}

#[test]
fn the_cluster_assets_build_at_the_priority_of_the_rest_from_the_start() {
    let stage = Stage::new();
    assert_passed(&stage.run(&[]));
    let nice = std::fs::read_to_string(stage.dir.path().join("cluster-nice")).unwrap();
    assert_eq!(
        nice.trim(),
        own_nice().to_string(),
        "the cluster's build started at another priority than the run's"
    );
}

#[test]
fn the_cluster_lane_runs_at_the_run_s_priority_and_the_other_lanes_below_it() {
    let stage = Stage::new();
    assert_passed(&stage.run(&[]));
    let calls = stage.cargo_calls();
    let own = own_nice();
    let lanes: Vec<&CargoCall> = calls.iter().filter(|c| c.is_lane()).collect();
    assert_eq!(lanes.len(), 3, "{calls:#?}");
    for lane in lanes {
        let wanted = if lane.filters() == ["cluster::"] {
            own
        } else {
            (own + 3).min(19)
        };
        assert_eq!(
            lane.nice,
            wanted.to_string(),
            "the nice value of the lane running {:?} (the run's is {own})",
            lane.filters()
        );
    }
}

#[test]
fn without_a_tmpdir_the_tests_get_one_in_memory_removed_at_the_end() {
    let stage = Stage::new();
    let output = stage.command(&[]).output().unwrap();
    assert_passed(&output);
    let calls = stage.cargo_calls();
    let tmpdir = &calls.iter().find(|c| c.args == ["test"]).unwrap().tmpdir;
    assert!(
        tmpdir.starts_with("/dev/shm/kubebuilder-rs-tests."),
        "the fast tests' TMPDIR: {tmpdir:?}"
    );
    assert!(
        calls
            .iter()
            .filter(|c| c.runs_ignored())
            .all(|c| &c.tmpdir == tmpdir),
        "every lane shares it: {calls:#?}"
    );
    assert!(!Path::new(tmpdir).exists(), "{tmpdir} is left behind");
    // But for podman's build cache, kept with the suite's caches.
    let kept = stage.cache().join("buildah-cache/kept");
    assert!(kept.is_file(), "{} is not there", kept.display());

    // A TMPDIR the caller chose is kept.
    let chosen = Stage::new();
    assert_passed(&chosen.run(&[]));
    assert!(
        chosen
            .cargo_calls()
            .iter()
            .filter(|c| c.args != ["fast-tests-ended"])
            .all(|c| Path::new(&c.tmpdir) == chosen.dir.path()),
        "{:#?}",
        chosen.cargo_calls()
    );
}

/// Whether process `pid` runs (a zombie does not).
fn runs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

/// The stand-in lane's processes, killed when the test ends whatever its
/// outcome.
struct LeftProcesses(PathBuf);

impl LeftProcesses {
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .map(|line| line.trim().parse().unwrap())
            .collect()
    }
}

impl Drop for LeftProcesses {
    fn drop(&mut self) {
        for pid in self.pids() {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

#[test]
fn a_run_stopped_early_takes_down_what_its_running_lanes_started_before_removing_their_directory() {
    let stage = Stage::new();
    let left = LeftProcesses(stage.dir.path().join("left-pids"));
    let output = stage
        .command(&[
            ("STUB_LANE_LEAVES_PROCESSES", "1"),
            ("STUB_FAST_WAITS_FOR_LANES", "1"),
        ])
        .output()
        .unwrap();
    assert!(!output.status.success(), "the fast tests failed");
    assert!(
        text(&output.stdout).contains("a snapshot differs"),
        "{}",
        text(&output.stdout)
    );
    let pids = left.pids();
    assert_eq!(pids.len(), 2, "the lane started its processes");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("stopping what the tests left running in")
            && stderr.contains("tail -f")
            && stderr.contains("sleep 600"),
        "the run names what it stops: {stderr}"
    );
    // Killed processes in sessions of their own are reaped by init: give it
    // a moment on a loaded machine.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|&pid| runs(pid)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let running: Vec<u32> = pids.iter().copied().filter(|&pid| runs(pid)).collect();
    assert_eq!(
        running,
        Vec::<u32>::new(),
        "still running after the run ended"
    );
    let cleans =
        std::fs::read_to_string(stage.dir.path().join("cluster-cleans")).unwrap_or_default();
    assert_eq!(
        cleans, "tmpdir there, lane gone\n",
        "`cluster clean` once, after the lane stopped and before its directory went"
    );
    let tmpdir = stage
        .cargo_calls()
        .iter()
        .find(|c| c.args == ["test"])
        .unwrap()
        .tmpdir
        .clone();
    assert!(!Path::new(&tmpdir).exists(), "{tmpdir} is left behind");
}

#[test]
fn a_failed_shared_tools_step_stops_the_run_with_its_output_and_runs_no_lane() {
    let stage = Stage::new();
    let output = stage.run(&[("STUB_FAIL_TEST", "suite::shared_tools")]);
    assert!(!output.status.success());
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        stderr.contains("building the shared tools failed"),
        "{stderr}"
    );
    assert!(
        stdout.contains("golangci-lint failed to build"),
        "the step's output is shown: {stdout}"
    );
    assert!(
        stage.cargo_calls().iter().all(|call| !call.is_lane()),
        "no slow lane runs without the shared tools: {:#?}",
        stage.cargo_calls()
    );
}

#[test]
fn a_failed_cluster_build_fails_the_run_with_its_log_and_runs_no_cluster_test() {
    let stage = Stage::new();
    let output = stage.run(&[("STUB_CLUSTER_FAILS", "1")]);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("building the cluster's node failed"),
        "{stderr}"
    );
    assert!(stderr.contains("go build kubelet failed"), "{stderr}");
    assert!(
        text(&output.stdout).contains("the cluster's lane did not run"),
        "{}",
        text(&output.stdout)
    );
    assert!(
        stage
            .cargo_calls()
            .iter()
            .all(|call| call.filters() != ["cluster::"] || !call.runs_ignored()),
        "no cluster test runs without the node: {:#?}",
        stage.cargo_calls()
    );
}

#[test]
fn a_failed_control_plane_build_stops_the_run_with_its_log() {
    let stage = Stage::new();
    let output = stage.run(&[("STUB_CONTROL_PLANE_FAILS", "1")]);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("building the control plane failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("go build kube-apiserver failed"),
        "{stderr}"
    );
    assert!(
        stage.cargo_calls().iter().all(|call| !call.is_lane()),
        "no slow lane runs without a control plane"
    );
}
