//! Plugin flags: the values of every plugin's own flags on one command line.
//!
//! Each plugin declares its flags per command as a typed options struct
//! deriving [`clap::Args`]; its hook returns them with [`args_of`] (see
//! [`super::InitHook::args`]), the CLI adds them to the commands they hook,
//! and the plugin reads its struct back with [`Flags::get`]. A replay (`alpha
//! generate`) gives a plugin its typed options as values instead
//! ([`Flags::replayed`], from the hooks' `replay_options`): nothing is
//! turned into strings and parsed again. Several plugins may declare the
//! same flag (`--make` of go/v4 and deploy-image/v1-alpha); the first
//! declaration gives its help and default. A flag given when none of its
//! plugins is in the project's chain is refused.

use super::{Chain, Hook, PLUGINS, Plugin, Role};
use anyhow::{Result, anyhow, bail};
use clap::parser::ValueSource;
use clap::{ArgMatches, FromArgMatches};
use std::any::Any;
use std::sync::Arc;

/// One plugin's typed options given as a value (see [`Flags::replayed`]).
#[derive(Clone)]
pub struct Given(Arc<dyn Any + Send + Sync>);

impl Given {
    /// `options`, the typed options struct a plugin reads with [`Flags::get`].
    pub fn new<T: Any + Send + Sync>(options: T) -> Self {
        Self(Arc::new(options))
    }

    /// The options, if they are a `T`.
    fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Given(..)")
    }
}

/// A flag and the keys of the plugins that declare it.
#[derive(Debug, Clone)]
struct Owners {
    /// The flag's argument id.
    id: String,
    /// The flag as given on the command line, without `--`.
    long: String,
    /// The keys of the plugins that declare it.
    plugins: Vec<&'static str>,
}

/// The plugin flags of one command, as parsed.
#[derive(Debug, Clone)]
pub struct Flags {
    /// The parsed command line (or replay arguments).
    matches: ArgMatches,
    /// Every plugin flag of the command, with its plugins.
    owners: Vec<Owners>,
    /// The command line as external plugins get it (see
    /// [`Flags::forwarding`]).
    forwarded: Vec<String>,
    /// Typed options given as values, which [`Flags::get`] returns before
    /// reading `matches`.
    given: Vec<Given>,
}

impl Flags {
    /// Every plugin's flags on `hook`'s command, with their defaults.
    pub fn defaults(hook: Hook) -> Self {
        Self::parse(hook, &[]).expect("no arguments always parse")
    }

    /// The values parsed for `hook`'s command.
    pub fn from_matches(hook: Hook, matches: &ArgMatches) -> Self {
        Self {
            matches: matches.clone(),
            owners: owners(hook),
            forwarded: Vec::new(),
            given: Vec::new(),
        }
    }

    /// The flags of a replayed `hook` command: the plugins' `given` typed
    /// options, and every other flag's default.
    pub fn replayed(hook: Hook, given: Vec<Given>) -> Self {
        Self {
            given,
            ..Self::defaults(hook)
        }
    }

    /// These flags with `args`, the command line's flags as kubebuilder
    /// forwards them to external plugins (see
    /// [`crate::plugins::external::command_line::forwarded_args`]).
    pub fn forwarding(mut self, args: Vec<String>) -> Self {
        self.forwarded = args;
        self
    }

    /// The command line's flags as external plugins get them.
    pub fn forwarded(&self) -> &[String] {
        &self.forwarded
    }

    /// The plugin flags the arguments `args` give on `hook`'s command.
    pub fn parse(hook: Hook, args: &[String]) -> Result<Self> {
        let command = clap::Command::new(hook.command())
            .no_binary_name(true)
            .disable_help_flag(true)
            .args(plugin_args(hook).into_iter().map(|(_, arg)| arg));
        let matches = command.try_get_matches_from(args).map_err(|e| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            anyhow!(
                "cannot parse `{} {}`: {}",
                hook.command(),
                args.join(" "),
                first.trim_start_matches("error: ")
            )
        })?;
        Ok(Self::from_matches(hook, &matches))
    }

    /// The typed options `T` of one plugin: as given, else read from the
    /// parsed flags.
    pub fn get<T: FromArgMatches + Clone + Any>(&self) -> Result<T> {
        if let Some(options) = self.given.iter().find_map(Given::get::<T>) {
            return Ok(options.clone());
        }
        T::from_arg_matches(&self.matches).map_err(|e| anyhow!("{}", e.to_string().trim_end()))
    }

    /// Refuses a flag given when the chain runs none of its plugins.
    pub fn check_chain(&self, chain: &Chain) -> Result<()> {
        for flag in &self.owners {
            let given = self.matches.value_source(&flag.id) == Some(ValueSource::CommandLine);
            if given && !flag.plugins.iter().any(|plugin| chain.contains(plugin)) {
                bail!(
                    "--{} is a flag of the plugin {}, which this project's plugin chain ({}) does not run{}",
                    flag.long,
                    flag.plugins.join(" or "),
                    chain.keys.join(","),
                    how_to_add(&flag.plugins)
                );
            }
        }
        Ok(())
    }
}

/// How to run the optional plugin of `keys` (when one of them is optional):
/// name it with `--plugins`.
fn how_to_add(keys: &[&str]) -> String {
    keys.iter()
        .filter_map(|key| PLUGINS.iter().find(|p| p.key() == *key))
        .find(|plugin| plugin.role() == Role::Optional)
        .map(|plugin| {
            let name = plugin.short_name().unwrap_or(plugin.key());
            format!("; add it with --plugins {name}")
        })
        .unwrap_or_default()
}

/// Every plugin flag on `hook`'s command with its plugins.
fn owners(hook: Hook) -> Vec<Owners> {
    plugin_args(hook)
        .into_iter()
        .map(|(plugins, arg)| Owners {
            id: arg.get_id().to_string(),
            long: arg.get_long().unwrap_or_default().to_string(),
            plugins,
        })
        .collect()
}

/// The flags `plugin` declares on `hook`'s command.
fn args_of_plugin(plugin: &dyn Plugin, hook: Hook) -> Vec<clap::Arg> {
    let args = match hook {
        Hook::Init => plugin.init().map(|h| h.args()),
        Hook::CreateApi => plugin.create_api().map(|h| h.args()),
        Hook::CreateWebhook => plugin.create_webhook().map(|h| h.args()),
        Hook::Edit => plugin.edit().map(|h| h.args()),
    };
    args.unwrap_or_default()
}

/// Every plugin flag on `hook`'s command, once each, with the keys of the
/// plugins that declare it and the first declaration's help and default.
pub fn plugin_args(hook: Hook) -> Vec<(Vec<&'static str>, clap::Arg)> {
    let mut args: Vec<(Vec<&'static str>, clap::Arg)> = Vec::new();
    for plugin in PLUGINS {
        for arg in args_of_plugin(*plugin, hook) {
            match args.iter_mut().find(|(_, a)| a.get_id() == arg.get_id()) {
                Some((plugins, _)) => plugins.push(plugin.key()),
                None => args.push((vec![plugin.key()], arg)),
            }
        }
    }
    args
}

/// [`plugin_args`] as `hook`'s command shows them where `chain` runs: each
/// flag with the help of the first plugin of the chain that declares it,
/// and those of plugins the chain does not run hidden. They still parse,
/// so that [`Flags::check_chain`] refuses them naming their plugin.
pub fn plugin_args_in(hook: Hook, chain: &Chain) -> Vec<clap::Arg> {
    let in_chain: Vec<clap::Arg> = chain
        .iter()
        .flat_map(|plugin| args_of_plugin(plugin, hook))
        .collect();
    plugin_args(hook)
        .into_iter()
        .map(
            |(_, arg)| match in_chain.iter().find(|own| own.get_id() == arg.get_id()) {
                Some(own) => own.clone(),
                None => arg.hide(true),
            },
        )
        .collect()
}

/// The flags of the typed options `T`, for a hook's `args`. They take
/// their place in `--help` where the command adds them.
pub fn args_of<T: clap::Args>() -> Vec<clap::Arg> {
    let command = T::augment_args(clap::Command::new("options").next_display_order(None));
    command.get_arguments().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO: &str = "base.go.kubebuilder.io/v4";
    const DEPLOY_IMAGE: &str = "deploy-image.go.kubebuilder.io/v1-alpha";

    #[test]
    fn a_flag_declared_by_two_plugins_is_one_argument_with_both_owners() {
        let args = plugin_args(Hook::CreateApi);
        let makes: Vec<&Vec<&str>> = args
            .iter()
            .filter(|(_, arg)| arg.get_long() == Some("make"))
            .map(|(plugins, _)| plugins)
            .collect();
        assert_eq!(makes, [&vec![GO, DEPLOY_IMAGE]]);
    }

    #[test]
    fn a_shared_flag_is_accepted_when_any_of_its_plugins_runs() {
        let flags = Flags::parse(Hook::CreateApi, &["--make=false".to_string()]).unwrap();
        let rust = Chain::parse("rust/v1-alpha").unwrap();
        assert!(flags.check_chain(&rust).is_err());
        let with_deploy_image = rust.clone().with_extra("deploy-image/v1-alpha").unwrap();
        assert!(flags.check_chain(&with_deploy_image).is_ok());
        assert!(Flags::defaults(Hook::CreateApi).check_chain(&rust).is_ok());
    }

    /// One plugin flag read back, as a plugin reads its options.
    #[derive(Debug, Clone, clap::Args)]
    struct Make {
        #[arg(long, action = clap::ArgAction::Set)]
        make: bool,
    }

    fn make(args: &[&str]) -> Result<bool> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        Ok(Flags::parse(Hook::CreateApi, &args)?.get::<Make>()?.make)
    }

    #[test]
    fn bool_flags_take_kubebuilders_three_spellings() {
        assert!(make(&[]).unwrap());
        assert!(make(&["--make"]).unwrap());
        assert!(make(&["--make=true"]).unwrap());
        assert!(!make(&["--make=false"]).unwrap());
        assert!(make(&["--make=maybe"]).is_err());
        assert!(make(&["--make", "false"]).is_err());
    }

    #[test]
    fn arguments_parse_through_the_plugins_definitions() {
        let args = ["--repo=example.com/x".to_string()];
        let flags = Flags::parse(Hook::Init, &args).unwrap();
        assert!(flags.check_chain(&Chain::parse("go/v4").unwrap()).is_ok());
        let err = Flags::parse(Hook::Init, &["--nope".to_string()]).unwrap_err();
        assert!(
            err.to_string().contains("cannot parse `init --nope`"),
            "{err}"
        );
    }

    #[test]
    fn given_options_are_read_as_they_are_and_the_others_are_the_defaults() {
        let given = Flags::replayed(Hook::CreateApi, vec![Given::new(Make { make: false })]);
        assert!(!given.get::<Make>().unwrap().make);
        let other = Flags::replayed(Hook::CreateApi, vec![Given::new(String::from("x"))]);
        assert!(other.get::<Make>().unwrap().make);
    }
}
