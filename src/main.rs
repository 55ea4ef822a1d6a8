//! kubebuilder-rs: scaffold Kubernetes operator projects.

mod cli;
mod commands;
mod layouts;
mod machinery;
mod naming;
mod project;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("Error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Dispatches a parsed command line.
fn run(cli: cli::Cli) -> anyhow::Result<()> {
    let dir = std::env::current_dir()?;
    match cli.command {
        cli::Command::Init(args) => commands::init::run(&args, &dir),
        cli::Command::Version => {
            commands::version::run();
            Ok(())
        }
        cli::Command::Completion { shell } => {
            commands::completion::run(shell);
            Ok(())
        }
    }
}
