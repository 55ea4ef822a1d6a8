//! The operand a deploy-image controller runs: read from the flags of
//! `create api`, checked, and recorded in (or read back from) the plugin's
//! PROJECT section.
//!
//! PROJECT keeps the values as kubebuilder writes them, strings under each
//! resource's `options`: `image`, `containerCommand` (the comma-separated
//! command), `containerPort` and `runAsUser`.

use anyhow::{Result, bail};
use clap::ArgAction;
use serde::{Deserialize, Serialize};
use serde_norway::{Mapping, Number};

/// The plugin's flags on `create api`.
#[derive(Debug, Clone, clap::Args)]
pub struct DeployImageOptions {
    /// `--image`.
    #[arg(
        long,
        value_name = "image",
        help = "deploy-image/v1-alpha: the container image the controller deploys (e.g. memcached:1.6.26-alpine3.19)"
    )]
    pub image: Option<String>,
    /// `--image-container-command`.
    #[arg(
        long,
        value_name = "image-container-command",
        help = "deploy-image/v1-alpha: the container's command and arguments, comma-separated (e.g. memcached,--memory-limit=64,-v)"
    )]
    pub image_container_command: Option<String>,
    /// `--image-container-port`.
    #[arg(
        long,
        value_name = "image-container-port",
        help = "deploy-image/v1-alpha: the port the container listens on (e.g. 11211); adds containerPort to the spec"
    )]
    pub image_container_port: Option<String>,
    /// `--run-as-user`.
    #[arg(
        long,
        value_name = "run-as-user",
        help = "deploy-image/v1-alpha: the non-root user ID the container runs as (e.g. 1001)"
    )]
    pub run_as_user: Option<String>,
    /// `--make`, which go/v4 declares too and acts on: declared here so
    /// that the flag is accepted with this plugin in any layout.
    #[arg(long, value_name = "make", action = ArgAction::Set, num_args = 0..=1,
          default_value_t = true, default_missing_value = "true", require_equals = true,
          help = "deploy-image/v1-alpha: run make generate afterwards (--make=false to skip); the Rust layout has no generated code, so there it does nothing")]
    pub make: bool,
    /// `--manifests`: run `make manifests` afterwards.
    #[arg(long, value_name = "manifests", action = ArgAction::Set, num_args = 0..=1,
          default_value_t = true, default_missing_value = "true", require_equals = true,
          help = "deploy-image/v1-alpha: run make manifests afterwards, for the new RBAC rules and CRD (--manifests=false to skip)")]
    pub manifests: bool,
}

/// The highest user ID Kubernetes accepts in `runAsUser`.
const MAX_USER_ID: u32 = 2_147_483_647;

/// What the generated controller deploys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    /// Container image reference, e.g. `memcached:1.6.26-alpine3.19`.
    pub image: String,
    /// The container's command, one item per argument (empty: the image's own).
    pub command: Vec<String>,
    /// The port the container listens on.
    pub container_port: Option<u16>,
    /// The non-root user ID the container runs as.
    pub run_as_user: Option<u32>,
}

impl Operand {
    /// Checks the four values as given on the command line (or recorded in
    /// PROJECT); an empty value counts as not given.
    pub fn parse(
        image: Option<&str>,
        command: Option<&str>,
        port: Option<&str>,
        user: Option<&str>,
    ) -> Result<Self> {
        let given = |value: Option<&str>| value.filter(|v| !v.is_empty()).map(str::to_string);
        let Some(image) = given(image) else {
            bail!(
                "deploy-image/v1-alpha needs --image, the container image its controller deploys (e.g. --image memcached:1.6.26-alpine3.19)"
            );
        };
        check_image(&image)?;
        Ok(Self {
            image,
            command: given(command).map_or_else(|| Ok(Vec::new()), |c| parse_command(&c))?,
            container_port: given(port).map(|p| parse_port(&p)).transpose()?,
            run_as_user: given(user).map(|u| parse_user(&u)).transpose()?,
        })
    }

    /// The plugin's options that give this operand, its post-steps on.
    pub fn flags(&self) -> DeployImageOptions {
        DeployImageOptions {
            image: Some(self.image.clone()),
            image_container_command: (!self.command.is_empty()).then(|| self.command.join(",")),
            image_container_port: self.container_port.map(|port| port.to_string()),
            run_as_user: self.run_as_user.map(|user| user.to_string()),
            make: true,
            manifests: true,
        }
    }

    /// The `options` PROJECT records, values as strings.
    pub fn to_options(&self) -> Options {
        let text = |value: String| Some(OptionValue::Text(value));
        Options {
            image: text(self.image.clone()),
            container_command: (!self.command.is_empty())
                .then(|| self.command.join(","))
                .and_then(text),
            container_port: self.container_port.and_then(|p| text(p.to_string())),
            run_as_user: self.run_as_user.and_then(|u| text(u.to_string())),
            extra: Mapping::new(),
        }
    }

    /// The operand PROJECT's `options` record.
    pub fn from_options(options: &Options) -> Result<Self> {
        let text = |value: &Option<OptionValue>| value.as_ref().map(OptionValue::text);
        Self::parse(
            text(&options.image).as_deref(),
            text(&options.container_command).as_deref(),
            text(&options.container_port).as_deref(),
            text(&options.run_as_user).as_deref(),
        )
    }

    /// The environment variable that passes the image to the manager:
    /// the kind in capitals, then `_IMAGE` (`MEMCACHED_IMAGE`).
    pub fn env_var(kind: &str) -> String {
        format!("{}_IMAGE", kind.to_ascii_uppercase())
    }
}

/// A resource's `options` in the plugin's PROJECT section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    /// `--image`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<OptionValue>,
    /// `--image-container-command`, comma-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_command: Option<OptionValue>,
    /// `--image-container-port`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_port: Option<OptionValue>,
    /// `--run-as-user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_as_user: Option<OptionValue>,
    /// Any other key, kept as it was.
    #[serde(flatten)]
    pub extra: Mapping,
}

/// One recorded option. kubebuilder writes strings; a number a user wrote
/// is read too, and written back as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// A string, as kubebuilder writes every option.
    Text(String),
    /// A number.
    Number(Number),
}

impl OptionValue {
    /// The value as flag text.
    fn text(&self) -> String {
        match self {
            OptionValue::Text(text) => text.clone(),
            OptionValue::Number(number) => number.to_string(),
        }
    }
}

/// Refuses what cannot be an image reference (and could not be written
/// into Go and YAML as it is): a name of letters, digits and `. _ - / : @`,
/// starting with a letter or digit.
fn check_image(image: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-/:@".contains(c);
    let starts_well = image.starts_with(|c: char| c.is_ascii_alphanumeric());
    if !starts_well || !image.chars().all(allowed) || image.len() > 255 {
        bail!(
            "--image {image:?} is not an image reference: use letters, digits and . _ - / : @, starting with a letter or digit (e.g. memcached:1.6.26-alpine3.19)"
        );
    }
    Ok(())
}

/// Splits `--image-container-command` at commas; refuses empty items and
/// control characters.
fn parse_command(command: &str) -> Result<Vec<String>> {
    let items: Vec<String> = command.split(',').map(str::to_string).collect();
    if items.iter().any(|item| item.trim().is_empty()) {
        bail!(
            "--image-container-command {command:?} has an empty item: give the command and its arguments separated by single commas (e.g. memcached,--memory-limit=64,-v)"
        );
    }
    if command.chars().any(char::is_control) {
        bail!(
            "--image-container-command {command:?} holds a control character: give printable text only"
        );
    }
    Ok(items)
}

/// `--image-container-port`: a port number from 1 to 65535.
fn parse_port(port: &str) -> Result<u16> {
    match port.parse::<u16>() {
        Ok(number) if number > 0 => Ok(number),
        _ => bail!("--image-container-port {port:?} is not a port: give a number from 1 to 65535"),
    }
}

/// `--run-as-user`: a non-root user ID, from 1 to 2147483647 (the pod runs
/// with `runAsNonRoot`, so user 0 could never start).
fn parse_user(user: &str) -> Result<u32> {
    match user.parse::<u32>() {
        Ok(id) if (1..=MAX_USER_ID).contains(&id) => Ok(id),
        _ => bail!(
            "--run-as-user {user:?} is not a non-root user ID: give a number from 1 to {MAX_USER_ID} (the container must not run as root)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(image: &str, command: &str, port: &str, user: &str) -> Result<Operand> {
        Operand::parse(Some(image), Some(command), Some(port), Some(user))
    }

    #[test]
    fn the_quick_start_values_are_read_and_recorded_as_given() {
        let operand = parse(
            "memcached:1.6.26-alpine3.19",
            "memcached,--memory-limit=64,-o,modern,-v",
            "11211",
            "1001",
        )
        .unwrap();
        assert_eq!(
            operand.command,
            ["memcached", "--memory-limit=64", "-o", "modern", "-v"]
        );
        assert_eq!(operand.container_port, Some(11211));
        assert_eq!(operand.run_as_user, Some(1001));
        let options = operand.to_options();
        let text = |value: &str| Some(OptionValue::Text(value.into()));
        assert_eq!(
            options.container_command,
            text("memcached,--memory-limit=64,-o,modern,-v")
        );
        assert_eq!(options.container_port, text("11211"));
        assert_eq!(Operand::from_options(&options).unwrap(), operand);
    }

    #[test]
    fn only_the_image_is_required() {
        let operand = Operand::parse(Some("busybox:1.36"), None, Some(""), None).unwrap();
        assert!(operand.command.is_empty());
        assert_eq!(operand.container_port, None);
        let flags = operand.flags();
        assert_eq!(flags.image.as_deref(), Some("busybox:1.36"));
        let given = [&flags.image_container_command, &flags.image_container_port];
        assert!(given.iter().all(|value| value.is_none()), "{flags:?}");
        let err = Operand::parse(None, None, None, None).unwrap_err();
        assert!(err.to_string().contains("needs --image"), "{err}");
    }

    #[test]
    fn bad_values_are_named_with_what_is_allowed() {
        for (args, words) in [
            (
                ("bad image", "", "", ""),
                "\"bad image\" is not an image reference",
            ),
            (("-x", "", "", ""), "is not an image reference"),
            (("x:1", "a,,b", "", ""), "has an empty item"),
            (
                ("x:1", "", "abc", ""),
                "\"abc\" is not a port: give a number from 1 to 65535",
            ),
            (("x:1", "", "0", ""), "\"0\" is not a port"),
            (("x:1", "", "70000", ""), "\"70000\" is not a port"),
            (("x:1", "", "", "0"), "\"0\" is not a non-root user ID"),
            (("x:1", "", "", "-5"), "\"-5\" is not a non-root user ID"),
            (("x:1", "", "", "abc"), "\"abc\" is not a non-root user ID"),
        ] {
            let (image, command, port, user) = args;
            let err = parse(image, command, port, user).unwrap_err().to_string();
            assert!(err.contains(words), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn the_env_var_is_the_kind_in_capitals() {
        assert_eq!(Operand::env_var("Memcached"), "MEMCACHED_IMAGE");
        assert_eq!(Operand::env_var("FirstMate"), "FIRSTMATE_IMAGE");
    }
}
