//! kubebuilder's external plugins: executables found on disk and spoken to
//! in JSON over standard input and output, run as kubebuilder v4.16.0 runs
//! them (see docs/external-plugins.md).
//!
//! - [`discover`]: where plugins live and which one a key names;
//! - [`protocol`]: the request and response as JSON;
//! - [`run`]: one call of a plugin, bounded in time;
//! - [`universe`]: the project files sent, and the files returned turned
//!   into changes of the command's plan;
//! - [`command_line`]: the plugin's flags and help on our command line, and
//!   the arguments forwarded to it;
//! - [`plugin`]: the plugin as one of the chain's plugins (the only file that
//!   knows the crate's plugin interface).

pub mod command_line;
pub mod discover;
pub mod plugin;
pub mod protocol;
pub mod run;
pub mod universe;

pub use discover::External;

/// The commands an external plugin takes part in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `init`.
    Init,
    /// `create api`.
    CreateApi,
    /// `create webhook`.
    CreateWebhook,
    /// `edit`.
    Edit,
}

impl Command {
    /// The request's `command` for this command.
    pub fn request_name(self) -> &'static str {
        match self {
            Command::Init => "init",
            Command::CreateApi => "create api",
            Command::CreateWebhook => "create webhook",
            Command::Edit => "edit",
        }
    }

    /// The word the `flags` and `metadata` requests name it by
    /// (their `args` hold `--<word>`).
    pub fn word(self) -> &'static str {
        match self {
            Command::Init => "init",
            Command::CreateApi => "api",
            Command::CreateWebhook => "webhook",
            Command::Edit => "edit",
        }
    }
}

/// The plugin chain an external plugin is told about, and the `layout` of
/// the PROJECT it is sent: the project's layout with the plugin's own key
/// moved to the front (added when the layout lacks it), as kubebuilder
/// v4.16.0 sends them while the plugin runs.
pub fn chain_seen_by(key: &str, layout: &[String]) -> Vec<String> {
    std::iter::once(key.to_string())
        .chain(layout.iter().filter(|item| *item != key).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_sees_its_own_key_first() {
        let layout = ["go.kubebuilder.io/v4".to_string(), "acme/v1".to_string()];
        assert_eq!(
            chain_seen_by("acme/v1", &layout),
            ["acme/v1", "go.kubebuilder.io/v4"]
        );
        assert_eq!(
            chain_seen_by("other/v2", &layout[..1]),
            ["other/v2", "go.kubebuilder.io/v4"]
        );
    }
}
