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
//!   implements the crate's plugin interface; the others use only its
//!   [`Hook`](crate::plugins::Hook), the command a plugin takes part in).

pub mod command_line;
pub mod discover;
pub mod plugin;
pub mod protocol;
pub mod run;
pub mod universe;

pub use discover::External;

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
