//! PROJECT's `cliVersion`: which tool and which version made the project.
//!
//! kubebuilder writes its release (`4.16.0`). kubebuilder-rs writes
//! `kubebuilder-rs/<version>+g<commit>.s<scaffold digest>`: the prefix makes
//! kubebuilder's own `alpha update` refuse it as an invalid version instead of
//! looking for a kubebuilder release, and the digest changes whenever the
//! scaffold does. Every kubebuilder-rs build before this form wrote `0.1.0`.

/// Who made a project, as its `cliVersion` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A kubebuilder release, `v`-prefixed (`v4.16.0`).
    Kubebuilder(String),
    /// kubebuilder-rs with this form: its package version, commit (when the
    /// build knew it) and scaffold digest.
    KubebuilderRs {
        /// The crate version, e.g. `0.1.0`.
        version: String,
        /// The commit the build came from.
        commit: Option<String>,
        /// The digest of the scaffold it writes.
        digest: String,
    },
    /// A kubebuilder-rs build from before this form (`0.x`).
    KubebuilderRsLegacy(String),
    /// Anything else (`(devel)`, an empty string).
    Unknown(String),
}

/// Reads a `cliVersion` value.
pub fn parse(_value: &str) -> Origin {
    todo!("cliVersion parsing")
}

/// The `cliVersion` this build writes.
pub fn current() -> String {
    todo!("cliVersion of this build")
}
