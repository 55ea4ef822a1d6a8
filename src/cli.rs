//! Command-line interface: flags and subcommands, with kubebuilder's names.

use clap::{ArgAction, Args, Parser, Subcommand};
use clap_complete::Shell;
use std::path::PathBuf;

/// Scaffold Kubernetes operator projects, the kubebuilder way.
#[derive(Debug, Parser)]
#[command(
    name = "kubebuilder-rs",
    version,
    about,
    after_help = "Examples:\n  kubebuilder-rs init --domain example.com --repo example.com/guestbook\n  kubebuilder-rs version\n  kubebuilder-rs completion bash > /etc/bash_completion.d/kubebuilder-rs"
)]
pub struct Cli {
    /// Plugin chain, comma-separated, by key or short name: on init the
    /// project's layout (default go/v4); on later commands optional plugins
    /// to run besides the project's chain (e.g. grafana/v1-alpha).
    #[arg(long, global = true)]
    pub plugins: Option<String>,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The command line with every plugin's own flags added to the commands
/// they hook (see [`crate::plugins::InitHook::args`] and the other hooks),
/// each with the help of the first plugin that declares it.
pub fn command() -> clap::Command {
    use crate::plugins::flags::plugin_args;
    with_plugin_flags(|hook| plugin_args(hook).into_iter().map(|(_, arg)| arg).collect())
}

/// [`command`] as the command line `argv` (program name first) run in
/// `cwd` shows it: its `--help` lists the flags of the plugins its chain
/// runs (see [`chain_of`]), and the external plugins of that chain add
/// theirs (see [`crate::plugins::external::command_line::extend`]).
pub fn command_for(argv: &[String], cwd: &std::path::Path) -> anyhow::Result<clap::Command> {
    use crate::plugins::flags::plugin_args_in;
    let command = match chain_of(argv, cwd) {
        Some(chain) => with_plugin_flags(|hook| plugin_args_in(hook, &chain)),
        None => command(),
    };
    crate::plugins::external::command_line::extend(
        command,
        argv,
        cwd,
        &crate::plugins::chain::external_item,
    )
}

/// The chain of built-in plugins the command of `argv` runs in `cwd`: for
/// `init`, the one `--plugins` names (else the default layout); for the
/// other commands, PROJECT's `layout` with the optional plugins `--plugins`
/// adds (the default layout where there is no PROJECT). `None` when there
/// is no command, or its chain cannot be resolved (the command then says
/// why).
fn chain_of(argv: &[String], cwd: &std::path::Path) -> Option<crate::plugins::Chain> {
    use crate::plugins::{Chain, Hook};
    let scan = crate::plugins::external::command_line::scan(argv)?;
    let plugins = scan.plugins.as_deref();
    let default = || Chain::parse(crate::plugins::chain::DEFAULT_CHAIN).ok();
    if scan.command == Hook::Init {
        return plugins.map_or_else(default, |spec| Chain::parse(spec).ok());
    }
    if !cwd.join(crate::project::FILE_NAME).exists() {
        // No project: the command will say so; its help is the default chain's.
        return default();
    }
    let project = crate::project::Project::load(cwd).ok()?;
    let chain = Chain::of_project(&project.file).ok()?;
    match plugins {
        Some(spec) => chain.with_extra(spec).ok(),
        None => Some(chain),
    }
}

/// The command line with `args_of(hook)` added to each command a plugin
/// can hook.
fn with_plugin_flags(args_of: impl Fn(crate::plugins::Hook) -> Vec<clap::Arg>) -> clap::Command {
    use crate::plugins::Hook;
    let mut command = <Cli as clap::CommandFactory>::command();
    for hook in Hook::ALL {
        let add = |sub: clap::Command| sub.args(args_of(hook));
        command = match hook.words() {
            [one] => command.mut_subcommand(*one, add),
            [outer, inner] => command.mut_subcommand(*outer, |c| c.mut_subcommand(*inner, add)),
            _ => unreachable!("a command is one or two words"),
        };
    }
    command
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Initialise a new project in the current directory.
    #[command(after_help = INIT_EXAMPLES)]
    Init(InitArgs),
    /// Scaffold an API or a webhook into the project.
    #[command(subcommand)]
    Create(CreateCommand),
    /// Change the project's settings (layout by group, namespace scope, license header) or add an optional plugin.
    #[command(after_help = EDIT_EXAMPLES)]
    Edit(EditArgs),
    /// Commands that may still change between releases.
    #[command(subcommand)]
    Alpha(AlphaCommand),
    /// Print the tool's version and the versions it scaffolds.
    #[command(after_help = "Examples:\n  kubebuilder-rs version")]
    Version,
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  kubebuilder-rs completion bash > ~/.local/share/bash-completion/completions/kubebuilder-rs\n  kubebuilder-rs completion zsh > \"${fpath[1]}/_kubebuilder-rs\"\n  kubebuilder-rs completion fish > ~/.config/fish/completions/kubebuilder-rs.fish\n  kubebuilder-rs completion powershell >> $PROFILE"
    )]
    Completion {
        /// The shell to write the script for.
        #[arg(value_enum)]
        shell: Shell,
    },
}

/// The `create` subcommands.
#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Scaffold an API type (CRD) and/or a controller.
    #[command(after_help = API_EXAMPLES)]
    Api(ApiArgs),
    /// Scaffold defaulting, validating and/or conversion webhooks for an API.
    #[command(after_help = WEBHOOK_EXAMPLES)]
    Webhook(WebhookArgs),
}

/// The `alpha` subcommands.
#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Re-scaffold the whole project from its PROJECT file with the current templates.
    #[command(after_help = GENERATE_EXAMPLES)]
    Generate(GenerateArgs),
    /// Carry the project to the current scaffold with a three-way merge, as a new branch.
    #[command(after_help = UPDATE_EXAMPLES)]
    Update(UpdateArgs),
}

const EDIT_EXAMPLES: &str = "Examples:
  # Add Grafana dashboards for the manager's metrics
  kubebuilder-rs edit --plugins grafana/v1-alpha

  # Organise later APIs by group (existing files stay; the command lists the moves)
  kubebuilder-rs edit --multigroup

  # Limit the manager to the namespaces in WATCH_NAMESPACE, rewriting the scaffolded files
  kubebuilder-rs edit --namespaced --force

  # Back to a cluster-wide manager
  kubebuilder-rs edit --namespaced=false --force

  # A new license header for generated code
  kubebuilder-rs edit --license apache2 --owner \"Example Corp\"
  kubebuilder-rs edit --license-file ./header.txt";

const GENERATE_EXAMPLES: &str = "Examples:
  # Re-scaffold in place; the original files move to a backup directory the command names
  kubebuilder-rs alpha generate

  # Re-scaffold ./old-project into a new directory, leaving the original untouched
  kubebuilder-rs alpha generate --input-dir ./old-project --output-dir ./new-project";

const UPDATE_EXAMPLES: &str = "Examples:
  # Merge the current scaffold into the project on main; the result is a new branch
  kubebuilder-rs alpha update

  # See what would change, file by file, without writing anything
  kubebuilder-rs alpha update --dry-run

  # A project made by an earlier kubebuilder-rs, with that build as the ancestor
  kubebuilder-rs alpha update --from-binary ./old/kubebuilder-rs

  # In automation: commit even with conflicts, push, and open an issue
  kubebuilder-rs alpha update --force --push --restore-path .github/workflows --open-gh-issue";

const WEBHOOK_EXAMPLES: &str = "Examples:
  # Defaulting and validation for an API of the project
  kubebuilder-rs create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation

  # Custom webhook paths
  kubebuilder-rs create webhook --group crew --version v1 --kind Admiral --defaulting --defaulting-path=/default-admiral

  # Conversion between the hub v1 and the spoke v2
  kubebuilder-rs create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2

  # Defaulting for a Kubernetes built-in type
  kubebuilder-rs create webhook --group core --version v1 --kind Pod --defaulting";

const API_EXAMPLES: &str = "Examples:
  # An API type and its controller
  kubebuilder-rs create api --group crew --version v1 --kind Captain

  # A second controller for the same API
  kubebuilder-rs create api --group crew --version v1 --kind Captain --controller-name captain-backup --resource=false

  # A cluster-scoped type with an irregular plural
  kubebuilder-rs create api --group crew --version v1 --kind Admiral --namespaced=false --plural admirales

  # A controller for a Kubernetes built-in type
  kubebuilder-rs create api --group apps --version v1 --kind Deployment --resource=false --controller

  # A controller for a type from another module
  kubebuilder-rs create api --group cert-manager --version v1 --kind Certificate --resource=false --controller \\
    --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 \\
    --external-api-domain io --external-api-module github.com/cert-manager/cert-manager@v1.18.2";

const INIT_EXAMPLES: &str = "Examples:
  # A project whose Go module is example.com/guestbook, with APIs under example.com
  kubebuilder-rs init --domain example.com --repo example.com/guestbook

  # The same, naming the layout's plugins one by one
  kubebuilder-rs init --plugins base.go.kubebuilder.io/v4,kustomize/v2 --domain example.com --repo example.com/guestbook

  # Only the kustomize manifests under config/, for a manager built another way
  kubebuilder-rs init --plugins kustomize/v2 --domain example.com

  # APIs organised by group, manager limited to its own namespace
  kubebuilder-rs init --domain example.com --repo example.com/fleet --multigroup --namespaced

  # Custom license header, no dependency download, see what would be written
  kubebuilder-rs init --domain example.com --license-file ./header.txt --fetch-deps=false --dry-run";

/// Flags of `create api`.
#[derive(Debug, Args)]
pub struct ApiArgs {
    #[command(flatten)]
    pub api: ResourceArgs,
    /// Scaffold the API type; asked when not given and a terminal is attached, else true.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true",
          require_equals = true)]
    pub resource: Option<bool>,
    /// Scaffold a controller; asked when not given and a terminal is attached, else true.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true",
          require_equals = true)]
    pub controller: Option<bool>,
    /// The type is namespace-scoped (--namespaced=false: cluster-scoped).
    #[arg(long, default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true", require_equals = true)]
    pub namespaced: bool,
    /// Name of the controller, to add another controller for the same API.
    #[arg(long)]
    pub controller_name: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

/// Flags of `create webhook`.
#[derive(Debug, Args)]
pub struct WebhookArgs {
    #[command(flatten)]
    pub api: ResourceArgs,
    /// Scaffold a defaulting (mutating) webhook.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub defaulting: bool,
    /// Scaffold a validating webhook.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub programmatic_validation: bool,
    /// Scaffold a conversion webhook; --version is the hub.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub conversion: bool,
    /// Versions converted to and from the hub (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub spoke: Vec<String>,
    /// Custom URL path of the defaulting webhook.
    #[arg(long)]
    pub defaulting_path: Option<String>,
    /// Custom URL path of the validating webhook.
    #[arg(long)]
    pub validation_path: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

/// Flags that name the API a `create` command works on.
#[derive(Debug, Args)]
pub struct ResourceArgs {
    /// API group, without the domain (e.g. crew, foo.policy; core, apps, batch for built-in types).
    #[arg(long)]
    pub group: String,
    /// API version (e.g. v1, v1alpha1, v2beta3); for a conversion webhook, the hub.
    #[arg(long)]
    pub version: String,
    /// Kind, in PascalCase (e.g. FirstMate).
    #[arg(long)]
    pub kind: String,
    /// Plural of the kind, when the computed one is wrong.
    #[arg(long)]
    pub plural: Option<String>,
}

/// Flags shared by every command that writes files.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// Print the planned file changes (with diffs) and write nothing.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub dry_run: bool,
    /// Overwrite files that already exist.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub force: bool,
}

/// Flags of `edit`.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// Organise APIs by group: api/<group>/<version>/ (--multigroup=false: api/<version>/).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true",
          require_equals = true)]
    pub multigroup: Option<bool>,
    /// Let the manager watch only the namespaces in WATCH_NAMESPACE, with namespaced RBAC
    /// (--namespaced=false: cluster-wide). Files are rewritten only with --force.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true",
          require_equals = true)]
    pub namespaced: Option<bool>,
    /// New license header for hack/boilerplate.go.txt: apache2 or none.
    #[arg(long)]
    pub license: Option<String>,
    /// Copyright owner named in the new license header.
    #[arg(long)]
    pub owner: Option<String>,
    /// File whose content becomes hack/boilerplate.go.txt (overrides --license).
    #[arg(long)]
    pub license_file: Option<PathBuf>,
    /// Print the planned file changes (with diffs) and write nothing.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub dry_run: bool,
    /// Rewrite scaffolded files the change needs (manual edits in the changed lines must still match).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub force: bool,
}

/// Flags of `alpha generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Directory holding the PROJECT file (default: the current directory).
    #[arg(long)]
    pub input_dir: Option<PathBuf>,
    /// Empty or missing directory to write the new scaffold to; without it the
    /// project is re-scaffolded in place after its files move to a backup directory.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// Run the post-steps of create api (code generation, gofmt, go mod tidy) on the result.
    #[arg(long = "make", default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true", require_equals = true)]
    pub run_make: bool,
    /// Print what would be written and how it differs from the original; write nothing.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub dry_run: bool,
    /// Do not check that the installed Go is new enough (--skip-go-version-check=false to check).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = true,
          default_missing_value = "true", require_equals = true)]
    pub skip_go_version_check: bool,
}

/// Flags of `alpha update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// The version that made the project (default: PROJECT's cliVersion),
    /// e.g. 4.15.0 for kubebuilder.
    #[arg(long)]
    pub from_version: Option<String>,
    /// The branch holding the project (default: the current branch).
    #[arg(long)]
    pub from_branch: Option<String>,
    /// Make the ancestor with this kubebuilder or kubebuilder-rs executable.
    #[arg(long, value_name = "PATH")]
    pub from_binary: Option<PathBuf>,
    /// Commit the result even when files conflict (the markers are committed).
    #[arg(long)]
    pub force: bool,
    /// Keep the scaffold's history (ancestor, upgrade, merge) instead of one commit.
    #[arg(long)]
    pub show_commits: bool,
    /// A path taken as the original branch has it, whatever the merge gives (repeatable).
    #[arg(long, value_name = "PATH")]
    pub restore_path: Vec<PathBuf>,
    /// The branch to write (default: kubebuilder-rs-update-from-<from>-to-<to>).
    #[arg(long)]
    pub output_branch: Option<String>,
    /// Push the output branch to origin.
    #[arg(long)]
    pub push: bool,
    /// The commit message of a clean update.
    #[arg(long)]
    pub merge_message: Option<String>,
    /// The commit message of an update committed with conflicts (--force).
    #[arg(long)]
    pub conflict_message: Option<String>,
    /// A git setting `key=value` for the update's git commands (repeatable);
    /// `disable` drops the defaults (merge.renameLimit, diff.renameLimit,
    /// merge.conflictStyle).
    #[arg(long, value_name = "KEY=VALUE")]
    pub git_config: Vec<String>,
    /// Open a GitHub issue about the update with `gh`.
    #[arg(long)]
    pub open_gh_issue: bool,
    /// Run the layout's post-steps (code generation, formatting, a check build) on the result.
    #[arg(long, default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true", require_equals = true)]
    pub post_steps: bool,
    /// Print what would happen to every file; write nothing, not even a branch.
    #[arg(long)]
    pub dry_run: bool,
}

/// Flags of `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Domain of the project's API groups (a group `crew` becomes `crew.<domain>`).
    #[arg(long, default_value = "my.domain")]
    pub domain: String,
    /// Project name; defaults to the directory's name.
    #[arg(long)]
    pub project_name: Option<String>,
    /// Copyright owner named in license headers.
    #[arg(long)]
    pub owner: Option<String>,
    /// License header for source files: apache2 or none.
    #[arg(long, default_value = "apache2")]
    pub license: String,
    /// File whose content becomes the license header (overrides --license).
    #[arg(long)]
    pub license_file: Option<PathBuf>,
    /// PROJECT file version; only 3 is supported.
    #[arg(long, default_value = "3")]
    pub project_version: String,
    /// Organise APIs by group: api/<group>/<version>/.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub multigroup: bool,
    /// Let the manager watch only the namespaces in WATCH_NAMESPACE, with namespaced RBAC.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false,
          default_missing_value = "true", require_equals = true)]
    pub namespaced: bool,
    #[command(flatten)]
    pub write: WriteArgs,
}
