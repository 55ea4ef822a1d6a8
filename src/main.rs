//! The `kubebuilder-rs` binary: parse the command line, run it, report errors on one line.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = kubebuilder_rs::cli::Cli::parse();
    match kubebuilder_rs::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("Error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
