//! The values of plugin-owned flags on one command line.
//!
//! Each plugin declares its flags per command ([`super::Plugin::flags`]);
//! the CLI adds them to the commands they hook, and the values reach every
//! plugin as [`Flags`]. A flag given for a plugin that is not in the
//! project's chain is refused.

use super::{Chain, Hook, PLUGINS};
use anyhow::{Result, bail};
use clap::ArgMatches;
use clap::parser::ValueSource;
use std::collections::BTreeMap;

/// One flag's value.
#[derive(Debug, Clone)]
struct Value {
    /// The value given, or the flag's default.
    text: Option<String>,
    /// It was given on the command line.
    given: bool,
    /// The key of the plugin that owns it.
    plugin: &'static str,
}

/// Plugin flag values by flag name.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    values: BTreeMap<String, Value>,
}

impl Flags {
    /// Every plugin's flags on `hook`'s command, with their defaults.
    pub fn defaults(hook: Hook) -> Self {
        let mut flags = Self::default();
        for (plugin, arg) in plugin_args(hook) {
            let text = arg
                .get_default_values()
                .first()
                .map(|v| v.to_string_lossy().into_owned());
            flags.insert(plugin, arg.get_id().as_str(), text, false);
        }
        flags
    }

    /// The values parsed for `hook`'s command.
    pub fn from_matches(hook: Hook, matches: &ArgMatches) -> Self {
        let mut flags = Self::default();
        for (plugin, arg) in plugin_args(hook) {
            let id = arg.get_id().as_str();
            let text = matches.get_one::<String>(id).cloned();
            let given = matches.value_source(id) == Some(ValueSource::CommandLine);
            flags.insert(plugin, id, text, given);
        }
        flags
    }

    /// Sets a flag as if given on the command line (for `alpha generate`).
    pub fn set(&mut self, name: &str, value: &str) {
        if let Some(flag) = self.values.get_mut(name) {
            flag.text = Some(value.to_string());
            flag.given = true;
        }
    }

    /// The flag's value, if it has one.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.values.get(name)?.text.as_deref()
    }

    /// Whether a boolean flag is true.
    pub fn is_on(&self, name: &str) -> bool {
        self.text(name) == Some("true")
    }

    /// Refuses a flag given for a plugin the chain does not run.
    pub fn check_chain(&self, chain: &Chain) -> Result<()> {
        for (name, flag) in &self.values {
            if flag.given && !chain.contains(flag.plugin) {
                bail!(
                    "--{name} is a flag of the plugin {}, which this project's plugin chain ({}) does not run",
                    flag.plugin,
                    chain.layout.join(",")
                );
            }
        }
        Ok(())
    }

    fn insert(&mut self, plugin: &'static str, name: &str, text: Option<String>, given: bool) {
        let value = Value {
            text,
            given,
            plugin,
        };
        self.values.insert(name.to_string(), value);
    }
}

/// Every plugin's flags on `hook`'s command, with the plugin's key.
pub fn plugin_args(hook: Hook) -> Vec<(&'static str, clap::Arg)> {
    PLUGINS
        .iter()
        .flat_map(|p| p.flags(hook).into_iter().map(|arg| (p.key(), arg)))
        .collect()
}

/// A boolean plugin flag as kubebuilder spells them: `--name`,
/// `--name=true` or `--name=false`, with a default.
pub fn bool_flag(name: &'static str, default: bool, help: &'static str) -> clap::Arg {
    clap::Arg::new(name)
        .long(name)
        .help(help)
        .num_args(0..=1)
        .require_equals(true)
        .default_missing_value("true")
        .default_value(if default { "true" } else { "false" })
        .value_parser(["true", "false"])
}

/// A plugin flag that takes a text value.
pub fn text_flag(name: &'static str, help: &'static str) -> clap::Arg {
    clap::Arg::new(name).long(name).help(help)
}
