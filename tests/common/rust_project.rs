//! Generated rust/v1-alpha projects in the slow tests: the one cargo target
//! directory they share, the environment cargo and make run in, and the
//! manager binary of a project, built and kept apart from the others'.

use super::cluster::{Background, ControlPlane, Env, assets, env_for};
use super::{kb_ok, output_ok, shared_tools_bin, words};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cargo target directory every generated Rust project shares:
/// `rust-target` beside the tools dir. Each project's binaries are
/// `target/debug/manager` and `manifests`, so two processes building
/// different projects in it at once could run each other's: scripts/test-all
/// runs every test that builds one in its first lane.
pub fn shared_target_dir() -> PathBuf {
    shared_tools_bin().with_file_name("rust-target")
}

/// An environment for cargo and make in generated projects, on `plane` if any.
pub fn rust_env(plane: Option<&ControlPlane>) -> Env {
    match plane {
        Some(plane) => env_for(plane),
        // The same PATH as on the control plane: a build script that
        // watches PATH would otherwise make cargo rebuild between steps.
        None => Env {
            kubeconfig: PathBuf::from("/nonexistent"),
            path: format!(
                "{}:{}",
                assets().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        },
    }
}

/// Runs `program args` in `dir` with the shared target dir (every make
/// target that builds must see it, or cargo starts from an empty target
/// directory) and KUBEBUILDER_ASSETS, and returns its output; panics on
/// failure.
pub fn run(env: &Env, dir: &Path, program: &str, args: &[&str]) -> String {
    let mut command = env.command(dir, program, args);
    command
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("KUBEBUILDER_ASSETS", assets());
    output_ok(&mut command, dir, program, args)
}

/// The commands after `init` of the e2e suites' project: an API with a
/// controller, defaulting and validating webhooks, and a conversion
/// webhook to a second version.
pub const WEBHOOK_PROJECT: &[&str] = &[
    "create api --group ship --version v1 --kind Frigate --resource --controller",
    "create webhook --group ship --version v1 --kind Frigate --defaulting --programmatic-validation",
    "create api --group ship --version v2 --kind Frigate --resource --controller=false",
    "create webhook --group ship --version v1 --kind Frigate --conversion --spoke v2",
];

/// Scaffolds a rust/v1-alpha project in `dir`: `init` (domain example.com),
/// then each of `commands`.
pub fn scaffold(dir: &Path, commands: &[&str]) {
    kb_ok(
        dir,
        &words("init --plugins rust/v1-alpha --domain example.com --owner Tester"),
    );
    for line in commands {
        kb_ok(dir, &words(line));
    }
}

/// Builds the project's manager and returns a copy of the binary inside
/// `dir`. Every project's manager is `target/debug/manager` of the shared
/// target directory, so the build and the copy hold a lock that other
/// tests building a manager wait for.
pub fn build_manager(env: &Env, dir: &Path) -> PathBuf {
    let _lock = ManagerBuildLock::take();
    run(env, dir, "cargo", &["build", "--bin", "manager"]);
    let copy = dir.join("manager.bin");
    std::fs::copy(shared_target_dir().join("debug/manager"), &copy).expect("copy the manager");
    copy
}

/// [`run`] holding the lock of [`build_manager`]: for a command that builds
/// a binary of the shared target directory and runs it from there (`make
/// manifests` runs `cargo run --bin manifests`), which another project's
/// build could replace in between.
pub fn run_locked(env: &Env, dir: &Path, program: &str, args: &[&str]) -> String {
    let _lock = ManagerBuildLock::take();
    run(env, dir, program, args)
}

/// Removes from `command` what cargo sets for this test process, as a
/// generated project's e2e suite does when it runs make: build scripts that
/// watch those variables would otherwise rebuild the project's dependencies
/// at every step.
pub fn without_cargo_test_env(command: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars() {
        let by_cargo = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"]
            .iter()
            .any(|prefix| key.starts_with(prefix));
        if by_cargo || ["CARGO", "CARGO_CRATE_NAME", "LD_LIBRARY_PATH"].contains(&key.as_str()) {
            command.env_remove(&key);
        }
    }
    command
}

/// Runs `body` holding the lock of [`build_manager`]: for a make target run
/// with the shared target directory by hand (`make test-e2e` builds and runs
/// the project's binaries from it).
pub fn holding_the_build_lock<T>(body: impl FnOnce() -> T) -> T {
    let _lock = ManagerBuildLock::take();
    body()
}

/// Starts `binary` (from [`build_manager`]) with `args` on `env`'s cluster,
/// its output in `log`; interrupted when the returned value drops.
pub fn start_manager(env: &Env, binary: &Path, args: &[&str], log: &Path) -> Background {
    let mut command = Command::new(binary);
    command
        .args(args)
        .env("KUBECONFIG", &env.kubeconfig)
        .env("PATH", &env.path);
    Background::logged(&mut command, log)
}

/// An exclusive lock on a file beside the shared target directory (one lock
/// per target directory), held until dropped.
struct ManagerBuildLock(std::fs::File);

impl ManagerBuildLock {
    fn take() -> Self {
        use std::os::fd::AsRawFd as _;
        let target = shared_target_dir();
        let path = target.with_extension("lock");
        let file = std::fs::File::create(&path).expect("create the build lock");
        // SAFETY: flock on a descriptor this value owns.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(taken, 0, "cannot lock {}", path.display());
        Self(file)
    }
}
