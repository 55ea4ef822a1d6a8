//! kubebuilder-rs: scaffold Kubernetes operator projects the kubebuilder way.
//!
//! The crate is split by responsibility:
//! - [`cli`]: the command line (clap);
//! - [`commands`]: one module per command, turning flags into a plan;
//! - [`project`]: the PROJECT file model;
//! - [`naming`]: validation of names (domains, groups, versions, kinds, module paths);
//! - [`machinery`]: templates, plans, checks, all-or-nothing writes, dry runs;
//! - [`layouts`]: one module per project layout (go/v4 today).

pub mod cli;
pub mod commands;
pub mod layouts;
pub mod machinery;
pub mod naming;
pub mod plural;
pub mod project;

/// Runs a parsed command line in the current directory.
pub fn run(cli: cli::Cli) -> anyhow::Result<()> {
    let dir = std::env::current_dir()?;
    match cli.command {
        cli::Command::Init(args) => commands::init::run(&args, &dir),
        cli::Command::Create(cli::CreateCommand::Api(args)) => {
            commands::create_api::run(&args, &dir)
        }
        cli::Command::Create(cli::CreateCommand::Webhook(args)) => {
            commands::create_webhook::run(&args, &dir)
        }
        cli::Command::Edit(args) => commands::edit::run(&args, &dir),
        cli::Command::Alpha(cli::AlphaCommand::Generate(args)) => {
            commands::alpha_generate::run(&args, &dir)
        }
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
