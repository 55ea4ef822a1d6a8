//! The values of plugin-owned flags on one command line.
//!
//! Each plugin declares its flags per command ([`super::Plugin::flags`]);
//! the CLI adds them to the commands they hook, and the values reach every
//! plugin as [`Flags`]. Several plugins may declare the same flag (`--make`
//! of go/v4 and deploy-image/v1-alpha); the first declaration gives its
//! help and default. A flag given when none of its plugins is in the
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
    /// The keys of the plugins that declare it.
    plugins: Vec<&'static str>,
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
        for (plugins, arg) in plugin_args(hook) {
            let text = arg
                .get_default_values()
                .first()
                .map(|v| v.to_string_lossy().into_owned());
            flags.insert(plugins, arg.get_id().as_str(), text, false);
        }
        flags
    }

    /// The values parsed for `hook`'s command.
    pub fn from_matches(hook: Hook, matches: &ArgMatches) -> Self {
        let mut flags = Self::default();
        for (plugins, arg) in plugin_args(hook) {
            let id = arg.get_id().as_str();
            let text = matches.get_one::<String>(id).cloned();
            let given = matches.value_source(id) == Some(ValueSource::CommandLine);
            flags.insert(plugins, id, text, given);
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

    /// Refuses a flag given when the chain runs none of its plugins.
    pub fn check_chain(&self, chain: &Chain) -> Result<()> {
        for (name, flag) in &self.values {
            if flag.given && !flag.plugins.iter().any(|plugin| chain.contains(plugin)) {
                bail!(
                    "--{name} is a flag of the plugin {}, which this project's plugin chain ({}) does not run",
                    flag.plugins.join(" or "),
                    chain.layout.join(",")
                );
            }
        }
        Ok(())
    }

    fn insert(
        &mut self,
        plugins: Vec<&'static str>,
        name: &str,
        text: Option<String>,
        given: bool,
    ) {
        let value = Value {
            text,
            given,
            plugins,
        };
        self.values.insert(name.to_string(), value);
    }
}

/// Every plugin flag on `hook`'s command, once each, with the keys of the
/// plugins that declare it.
pub fn plugin_args(hook: Hook) -> Vec<(Vec<&'static str>, clap::Arg)> {
    let mut args: Vec<(Vec<&'static str>, clap::Arg)> = Vec::new();
    for plugin in PLUGINS {
        for arg in plugin.flags(hook) {
            match args.iter_mut().find(|(_, a)| a.get_id() == arg.get_id()) {
                Some((plugins, _)) => plugins.push(plugin.key()),
                None => args.push((vec![plugin.key()], arg)),
            }
        }
    }
    args
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::{deploy_image_v1alpha, go_v4};

    #[test]
    fn a_flag_declared_by_two_plugins_is_one_argument_with_both_owners() {
        let args = plugin_args(Hook::CreateApi);
        let makes: Vec<&Vec<&str>> = args
            .iter()
            .filter(|(_, arg)| arg.get_id() == "make")
            .map(|(plugins, _)| plugins)
            .collect();
        assert_eq!(makes, [&vec![go_v4::KEY, deploy_image_v1alpha::KEY]]);
    }

    #[test]
    fn a_shared_flag_is_accepted_when_any_of_its_plugins_runs() {
        let mut flags = Flags::defaults(Hook::CreateApi);
        flags.set("make", "false");
        let rust = Chain::parse("rust/v1-alpha").unwrap();
        assert!(flags.check_chain(&rust).is_err());
        let with_deploy_image = rust.with_extra("deploy-image/v1-alpha").unwrap();
        assert!(flags.check_chain(&with_deploy_image).is_ok());
    }
}
