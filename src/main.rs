//! The `kubebuilder-rs` binary: parse the command line, run it, report errors on one line.

use clap::FromArgMatches;
use std::process::ExitCode;

fn main() -> ExitCode {
    restore_default_sigpipe();
    let argv_os: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let argv: Vec<String> = argv_os
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    let command = match kubebuilder_rs::cli::command_for(&argv, &cwd) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("Error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    let matches = command.get_matches_from(argv_os);
    let cli = match kubebuilder_rs::cli::Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    match kubebuilder_rs::run(cli, &matches, &argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("Error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Lets a closed pipe end the process quietly, as for other command-line
/// tools (`kubebuilder-rs create api --dry-run | head`), instead of making
/// every later write to standard output fail and panic.
#[cfg(unix)]
fn restore_default_sigpipe() {
    // SAFETY: setting a signal's disposition to its default has no
    // preconditions; nothing else in the process handles SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_default_sigpipe() {}
