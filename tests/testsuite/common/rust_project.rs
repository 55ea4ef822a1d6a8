//! Generated rust/v1-alpha projects in the slow tests: the one cargo target
//! directory they share, the environment cargo and make run in, and the
//! manager binary of a project, built and kept apart from the others'.

use super::cluster::{Background, ControlPlane, Env, assets, env_for};
use super::{kb_ok, output_ok, shared_tools_bin, words};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cargo build directory (`build.build-dir`) the generated Rust projects
/// of this lane share: `rust-target` beside the tools dir, with the lane's
/// suffix (`tools-bin-cluster-lane` gives `rust-target-cluster-lane`).
/// Their dependencies are compiled there once a lane; each project's own
/// binaries (`manager`, `manifests`, the same names in every project) go to
/// its own `target/`. Not one directory for every lane: cargo keys a
/// project's own crate there by its name and version, not its path, so a
/// `shipyard` scaffolded in one lane and built after another lane built its
/// own `shipyard` would find that build fresh (its sources are older) and
/// run the other project's binaries. Within a lane the tests run one at a
/// time, and each project's sources are newer than any earlier build.
pub fn shared_build_dir() -> PathBuf {
    let tools = shared_tools_bin();
    let name = tools.file_name().unwrap_or_default().to_string_lossy();
    let lane = name.strip_prefix("tools-bin").unwrap_or_default();
    tools.with_file_name(format!("rust-target{lane}"))
}

/// Points `command`'s cargo builds at [`shared_build_dir`], their binaries
/// at the project's own `target/` (whatever `CARGO_TARGET_DIR` this process
/// has), without what cargo set for this test process (see
/// [`without_cargo_test_env`]). Every build in the shared directory must
/// see the same variables: a dependency whose build script watches one
/// (ring watches `CARGO_PKG_NAME` and `CARGO_MANIFEST_DIR`) is otherwise
/// rebuilt by each build that sees another value, and a build in another
/// lane can then miss the library it was about to link.
pub fn sharing_the_build_dir(command: &mut Command) -> &mut Command {
    without_cargo_test_env(command)
        .env("CARGO_BUILD_BUILD_DIR", shared_build_dir())
        .env_remove("CARGO_TARGET_DIR")
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

/// Runs `program args` in `dir` with the shared build dir (every make
/// target that builds must see it, or cargo compiles every dependency again)
/// and KUBEBUILDER_ASSETS, and returns its output; panics on failure.
pub fn run(env: &Env, dir: &Path, program: &str, args: &[&str]) -> String {
    let mut command = env.command(dir, program, args);
    sharing_the_build_dir(&mut command).env("KUBEBUILDER_ASSETS", assets());
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

/// Builds the project's manager and returns the binary, in the project's
/// own `target/`.
pub fn build_manager(env: &Env, dir: &Path) -> PathBuf {
    run(env, dir, "cargo", &["build", "--bin", "manager"]);
    dir.join("target/debug/manager")
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
        let one_of = ["CARGO", "CARGO_CRATE_NAME", "OUT_DIR", "LD_LIBRARY_PATH"];
        if by_cargo || one_of.contains(&key.as_str()) {
            command.env_remove(&key);
        }
    }
    command
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
