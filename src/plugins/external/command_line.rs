//! External plugins on our command line: the flags a plugin takes, bound
//! on the command it joins beside the built-in plugins' flags; its help in
//! that command's `--help`; and the arguments forwarded to it.
//!
//! The chain must be known before the command line is parsed, so the
//! arguments are scanned first for the command and `--plugins`, and
//! PROJECT's `layout` is read from the current directory.

use super::protocol::{Flag, Request};
use super::{External, run};
use crate::plugins::Hook;
use anyhow::Result;
use std::path::Path;

/// Flags kubebuilder binds itself, never a plugin's.
const RESERVED: &[&str] = &["group", "version", "kind", "help", "plugins"];

/// The flags of the command line `argv` kubebuilder forwards to external
/// plugins: every `--flag` but `--plugins`, each with the argument after it
/// unless that starts with `--`.
pub fn forwarded_args(argv: &[String]) -> Vec<String> {
    let mut args = Vec::new();
    for (i, arg) in argv.iter().enumerate() {
        let plugins = arg == "--plugins" || arg.starts_with("--plugins=");
        if !arg.starts_with("--") || plugins {
            continue;
        }
        args.push(arg.clone());
        if let Some(next) = argv.get(i + 1).filter(|next| !next.starts_with("--")) {
            args.push(next.clone());
        }
    }
    args
}

/// The command a command line runs, and its `--plugins` value.
#[derive(Debug, PartialEq, Eq)]
pub struct Scan {
    /// The command.
    pub command: Hook,
    /// `--plugins`, as given.
    pub plugins: Option<String>,
}

/// The word the `flags` and `metadata` requests name a command by (their
/// `args` hold `--<word>`): its last word.
fn request_word(hook: Hook) -> &'static str {
    hook.words().last().copied().unwrap_or_default()
}

/// Finds the command of `argv` (program name first) and `--plugins`,
/// without parsing the rest.
pub fn scan(argv: &[String]) -> Option<Scan> {
    let mut words = Vec::new();
    let mut plugins = None;
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--plugins" {
            plugins = args.next().cloned();
        } else if let Some(value) = arg.strip_prefix("--plugins=") {
            plugins = Some(value.to_string());
        } else if !arg.starts_with('-') && words.len() < 2 {
            words.push(arg.as_str());
        }
    }
    let command = match words.as_slice() {
        ["init", ..] => Hook::Init,
        ["edit", ..] => Hook::Edit,
        ["create", "api"] => Hook::CreateApi,
        ["create", "webhook"] => Hook::CreateWebhook,
        _ => return None,
    };
    Some(Scan { command, plugins })
}

/// The external plugins of the chain `argv` runs in `cwd`: those `--plugins`
/// names and, after `init`, those of PROJECT's `layout`. `external` gives
/// the external plugin a chain item names (`None` for a built-in one).
fn chain_externals(
    scan: &Scan,
    cwd: &Path,
    external: &dyn Fn(&str) -> Result<Option<&'static External>>,
) -> Result<Vec<&'static External>> {
    // Each name with where it comes from, for messages.
    let mut names: Vec<(String, &str)> = Vec::new();
    if scan.command != Hook::Init
        && let Ok(project) = crate::project::Project::load(cwd)
    {
        names.extend(
            project
                .file
                .layout
                .into_iter()
                .map(|n| (n, "PROJECT's layout: ")),
        );
    }
    if let Some(spec) = &scan.plugins {
        names.extend(spec.split(',').map(|s| (s.trim().to_string(), "")));
    }
    let mut found: Vec<&'static External> = Vec::new();
    for (name, origin) in names.iter().filter(|(name, _)| !name.is_empty()) {
        let plugin = external(name).map_err(|e| anyhow::anyhow!("{origin}{e}"))?;
        if let Some(plugin) = plugin
            && !found.iter().any(|p| p.key == plugin.key)
        {
            found.push(plugin);
        }
    }
    Ok(found)
}

/// `root` (the whole command line) with the flags and help of the external
/// plugins that the command of `argv` runs in `cwd`. Without such plugins
/// nothing is run and `root` comes back as it was.
pub fn extend(
    root: clap::Command,
    argv: &[String],
    cwd: &Path,
    external: &dyn Fn(&str) -> Result<Option<&'static External>>,
) -> Result<clap::Command> {
    let Some(scan) = scan(argv) else {
        return Ok(root);
    };
    let plugins = chain_externals(&scan, cwd, external)?;
    if plugins.is_empty() {
        return Ok(root);
    }
    let limit = run::timeout()?;
    let help = argv.iter().any(|arg| arg == "--help" || arg == "-h");
    let path = scan.command.words();
    let add = |mut command: clap::Command| {
        for plugin in &plugins {
            command = with_plugin(command, plugin, scan.command, argv, cwd, limit, help);
        }
        command
    };
    Ok(match path {
        [one] => root.mut_subcommand(*one, add),
        [outer, inner] => root.mut_subcommand(*outer, |c| c.mut_subcommand(*inner, add)),
        _ => unreachable!("a command is one or two words"),
    })
}

/// `command` with the flags of `plugin` (asked with a `flags` request; the
/// flags of `argv` it does not know when the plugin cannot tell, as
/// kubebuilder does) and, for `--help`, its description and examples.
fn with_plugin(
    mut command: clap::Command,
    plugin: &External,
    which: Hook,
    argv: &[String],
    cwd: &Path,
    limit: std::time::Duration,
    help: bool,
) -> clap::Command {
    let request = Request::about("flags", request_word(which));
    let flags = match run::call(&plugin.key, &plugin.path, cwd, &request, limit) {
        Ok(response) => response.flags,
        Err(_) => flags_given(argv),
    };
    for flag in flags {
        let taken = command
            .get_arguments()
            .any(|arg| arg.get_long() == Some(flag.name.as_str()));
        if !taken && !RESERVED.contains(&flag.name.as_str()) && !flag.name.is_empty() {
            command = command.arg(arg_for(&flag));
        }
    }
    if help {
        let text = help_text(plugin, which, cwd, limit);
        let before = command
            .get_after_help()
            .map(|text| format!("{text}\n\n"))
            .unwrap_or_default();
        command = command.after_help(format!("{before}{text}"));
    }
    command
}

/// The flags given on `argv`, as the flags of a plugin that does not say
/// which it takes: a flag followed by a value takes text, one followed by
/// another flag (or by nothing) is a switch.
fn flags_given(argv: &[String]) -> Vec<Flag> {
    let usage = "Not declared by the external plugin (it answered no `flags` request); passed on to it as given.";
    let mut flags: Vec<Flag> = Vec::new();
    for (i, arg) in argv.iter().enumerate() {
        let Some(name) = arg.strip_prefix("--") else {
            continue;
        };
        let (name, inline) = match name.split_once('=') {
            Some((name, _)) => (name, true),
            None => (name, false),
        };
        let switch = !inline && argv.get(i + 1).is_none_or(|next| next.starts_with("--"));
        if !flags.iter().any(|f| f.name == name) {
            flags.push(Flag {
                name: name.to_string(),
                kind: if switch { "bool" } else { "string" }.to_string(),
                default: String::new(),
                usage: usage.to_string(),
            });
        }
    }
    flags
}

/// The command-line argument for a plugin's flag: text (`string`, and any
/// type kubebuilder does not know), a switch (`bool`: `--x`, `--x=false`),
/// or a number (`int`, `float`).
fn arg_for(flag: &Flag) -> clap::Arg {
    let name: &'static str = Box::leak(flag.name.clone().into_boxed_str());
    let arg = clap::Arg::new(name).long(name).help(flag.usage.clone());
    let default = (!flag.default.is_empty()).then(|| leak(&flag.default));
    match flag.kind.as_str() {
        "bool" => arg
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .value_parser(["true", "false"])
            .default_value(if flag.default == "true" {
                "true"
            } else {
                "false"
            }),
        "int" => arg
            .value_parser(clap::value_parser!(i64))
            .default_value(default),
        "float" => arg
            .value_parser(clap::value_parser!(f64))
            .default_value(default),
        _ => arg.default_value(default),
    }
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}

/// What `--help` shows of `plugin` in `which` command: its description and
/// examples from a `metadata` request, or a note that it gave none.
fn help_text(plugin: &External, which: Hook, cwd: &Path, limit: std::time::Duration) -> String {
    let request = Request::about("metadata", request_word(which));
    let metadata = run::call(&plugin.key, &plugin.path, cwd, &request, limit)
        .map(|response| response.metadata)
        .unwrap_or_default();
    let description = if metadata.description.trim().is_empty() {
        "It gave no description; see its own documentation.".to_string()
    } else {
        metadata.description.trim().to_string()
    };
    let mut text = format!(
        "External plugin {} ({}):\n  {description}",
        plugin.key,
        plugin.path.display()
    );
    if !metadata.examples.trim().is_empty() {
        text.push_str(&format!(
            "\n\nExamples of {}:\n{}",
            plugin.key,
            metadata.examples.trim_end()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn flags_are_forwarded_as_kubebuilder_forwards_them() {
        let line = "kb init --plugins go/v4,acme/v1 --domain example.com --oncall --team x --plugins=y --make=false";
        assert_eq!(
            forwarded_args(&argv(line)),
            argv("--domain example.com --oncall --team x --make=false")
        );
    }

    #[test]
    fn the_command_and_plugins_are_found_before_parsing() {
        let scan_of = |line: &str| scan(&argv(line));
        assert_eq!(
            scan_of("kb --plugins a/v1 create api --group g"),
            Some(Scan {
                command: Hook::CreateApi,
                plugins: Some("a/v1".into())
            })
        );
        assert_eq!(
            scan_of("kb init --plugins=a/v1").map(|s| s.command),
            Some(Hook::Init)
        );
        assert_eq!(scan_of("kb version"), None);
        assert_eq!(scan_of("kb alpha generate --plugins a/v1"), None);
    }

    #[test]
    fn undeclared_flags_are_switches_or_take_text() {
        let flags = flags_given(&argv("kb init --team x --oncall --tier=3 --last"));
        let kinds: Vec<(&str, &str)> = flags
            .iter()
            .map(|f| (f.name.as_str(), f.kind.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("team", "string"),
                ("oncall", "bool"),
                ("tier", "string"),
                ("last", "bool")
            ]
        );
    }
}
