//! kubebuilder-rs: scaffold Kubernetes operator projects the kubebuilder way.
//!
//! The crate is split by responsibility:
//! - [`cli`]: the command line (clap);
//! - [`commands`]: one module per command, turning its command line into a typed request;
//! - [`ops`]: the operations the requests ask for, running the plugin chain into one plan,
//!   and PROJECT turned into requests;
//! - [`project`]: the PROJECT file model and its bookkeeping;
//! - [`resource`]: the resource model, naming and validation;
//! - [`machinery`]: templates, fragments, plans, checks, all-or-nothing writes, dry runs;
//! - [`plugins`]: one module per plugin (layouts are plugins too);
//! - [`tools`]: the cache of tools kubebuilder-rs installs for itself.

pub mod cli;
pub mod commands;
pub mod machinery;
pub mod ops;
pub mod plugins;
pub mod project;
pub mod resource;
pub mod tools;

use clap::ArgMatches;
use plugins::{Flags, Hook};

/// Locks the project in `dir` for this command (see [`machinery::lock`]) and
/// finishes or undoes a write an earlier command left unfinished (see
/// [`machinery::journal`]).
pub fn open_project(dir: &std::path::Path) -> anyhow::Result<machinery::lock::ProjectLock> {
    let lock = machinery::lock::ProjectLock::acquire(dir)?;
    machinery::journal::recover(dir)?;
    Ok(lock)
}

/// Runs a parsed command line in the current directory; `matches` holds
/// the values of the plugins' own flags, and `argv` is the command line
/// (program name first), part of which external plugins get.
pub fn run(cli: cli::Cli, matches: &ArgMatches, argv: &[String]) -> anyhow::Result<()> {
    let dir = std::env::current_dir()?;
    let _lock = match &cli.command {
        cli::Command::Version | cli::Command::Completion { .. } | cli::Command::Alpha(_) => None,
        _ => Some(open_project(&dir)?),
    };
    let plugins = cli.plugins.as_deref();
    let flags = |hook: Hook, path: &[&str]| {
        let sub = path
            .iter()
            .try_fold(matches, |m, name| m.subcommand_matches(name));
        sub.map_or_else(|| Flags::defaults(hook), |m| Flags::from_matches(hook, m))
            .forwarding(plugins::external::command_line::forwarded_args(argv))
    };
    let record = scaffold_record_dir(&cli.command, &dir);
    let result = match cli.command {
        cli::Command::Init(args) => {
            commands::init::run(&args, plugins, &flags(Hook::Init, &["init"]), &dir)
        }
        cli::Command::Create(cli::CreateCommand::Api(args)) => {
            let flags = flags(Hook::CreateApi, &["create", "api"]);
            commands::create_api::run(&args, plugins, &flags, &dir)
        }
        cli::Command::Create(cli::CreateCommand::Webhook(args)) => {
            let flags = flags(Hook::CreateWebhook, &["create", "webhook"]);
            commands::create_webhook::run(&args, plugins, &flags, &dir)
        }
        cli::Command::Edit(args) => {
            commands::edit::run(&args, plugins, &flags(Hook::Edit, &["edit"]), &dir)
        }
        cli::Command::Alpha(cli::AlphaCommand::Generate(args)) => {
            commands::alpha_generate::run(&args, &dir)
        }
        cli::Command::Alpha(cli::AlphaCommand::Update(args)) => {
            commands::alpha_update::run(&args, &dir)
        }
        cli::Command::Version => {
            commands::version::run();
            Ok(())
        }
        cli::Command::Completion { shell } => {
            commands::completion::run(shell);
            Ok(())
        }
    };
    if let (Ok(()), Some(dir)) = (&result, record) {
        commands::alpha_update::record::record_project(&dir);
    }
    result
}

/// The project directory whose scaffold is recorded for `alpha update`
/// (see [`machinery::pristine`]) once `command` succeeds: that of every
/// scaffolding command that writes (not with `--dry-run`), `alpha generate`
/// only in place.
fn scaffold_record_dir(
    command: &cli::Command,
    dir: &std::path::Path,
) -> Option<std::path::PathBuf> {
    let writes = match command {
        cli::Command::Init(args) => !args.write.dry_run,
        cli::Command::Create(cli::CreateCommand::Api(args)) => !args.write.dry_run,
        cli::Command::Create(cli::CreateCommand::Webhook(args)) => !args.write.dry_run,
        cli::Command::Edit(args) => !args.dry_run,
        cli::Command::Alpha(cli::AlphaCommand::Generate(args)) => {
            return (!args.dry_run && args.output_dir.is_none())
                .then(|| dir.join(args.input_dir.as_deref().unwrap_or(dir)));
        }
        _ => false,
    };
    writes.then(|| dir.to_path_buf())
}
