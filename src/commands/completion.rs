//! `kubebuilder-rs completion <shell>`.

use clap_complete::Shell;

/// Writes the completion script for `shell` to standard output.
pub fn run(shell: Shell) {
    let mut command = crate::cli::command();
    clap_complete::generate(
        shell,
        &mut command,
        "kubebuilder-rs",
        &mut std::io::stdout(),
    );
}
