//! `kubebuilder-rs completion <shell>`.

use crate::cli::Cli;
use clap::CommandFactory;
use clap_complete::Shell;

/// Writes the completion script for `shell` to standard output.
pub fn run(shell: Shell) {
    let mut command = Cli::command();
    clap_complete::generate(
        shell,
        &mut command,
        "kubebuilder-rs",
        &mut std::io::stdout(),
    );
}
