//! The messages of kubebuilder's external plugin protocol, `v1alpha1`: one
//! request on the plugin's standard input, one response on its standard
//! output, both JSON.
//!
//! kubebuilder reads responses with Go's JSON decoder, which matches field
//! names without regard to case (`metadata.description` and
//! `metadata.Description` alike) and takes `null` as absent; so does
//! [`Response::parse`], so a plugin written for kubebuilder is read the same.

use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The protocol version spoken.
pub const API_VERSION: &str = "v1alpha1";

/// What a plugin is asked, as kubebuilder sends it.
#[derive(Debug, Clone, Serialize)]
pub struct Request {
    /// Always [`API_VERSION`].
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    /// The command line's flags meant for the plugins (see
    /// [`super::command_line::forwarded_args`]); for `flags` and
    /// `metadata`, `--init`, `--api`, `--webhook` or `--edit`.
    pub args: Vec<String>,
    /// `init`, `create api`, `create webhook`, `edit`, `flags` or `metadata`.
    pub command: String,
    /// The project's files by relative path.
    pub universe: BTreeMap<String, String>,
    /// The keys of the plugin chain.
    #[serde(rename = "pluginChain", skip_serializing_if = "Vec::is_empty")]
    pub plugin_chain: Vec<String>,
    /// PROJECT, as JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
}

impl Request {
    /// A `flags` or `metadata` request about the command `word` (`init`,
    /// `api`, `webhook`, `edit`).
    pub fn about(command: &str, word: &str) -> Self {
        Self {
            api_version: API_VERSION,
            args: vec![format!("--{word}")],
            command: command.to_string(),
            universe: BTreeMap::new(),
            plugin_chain: Vec::new(),
            config: None,
        }
    }
}

/// The help text a plugin gives for one command.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct Metadata {
    /// What the plugin does in the command.
    #[serde(rename = "Description", default)]
    pub description: String,
    /// Example command lines.
    #[serde(rename = "Examples", default)]
    pub examples: String,
}

/// One flag a plugin takes.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct Flag {
    /// The flag's name, without `--`.
    #[serde(rename = "Name", default)]
    pub name: String,
    /// `string`, `bool`, `int` or `float`; anything else is a string.
    #[serde(rename = "Type", default)]
    pub kind: String,
    /// Its default value, as text.
    #[serde(rename = "Default", default)]
    pub default: String,
    /// Its help.
    #[serde(rename = "Usage", default)]
    pub usage: String,
}

/// What a plugin answers.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Response {
    /// Must be [`API_VERSION`].
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    /// The command answered.
    #[serde(default)]
    pub command: String,
    /// Help for a `metadata` request.
    #[serde(default)]
    pub metadata: Metadata,
    /// The files the plugin wants the project to hold, by relative path.
    #[serde(default)]
    pub universe: BTreeMap<String, String>,
    /// The plugin failed.
    #[serde(default)]
    pub error: bool,
    /// Why it failed.
    #[serde(rename = "errorMsgs", default)]
    pub error_msgs: Vec<String>,
    /// Its flags, for a `flags` request.
    #[serde(default)]
    pub flags: Vec<Flag>,
}

impl Response {
    /// Reads the standard output `out` of the plugin `key`. Refuses text
    /// that is not a JSON response, another protocol version, and a
    /// response that says the plugin failed (with its messages).
    pub fn parse(key: &str, out: &[u8]) -> Result<Self> {
        let value: Value = serde_json::from_slice(out).map_err(|e| {
            let text = String::from_utf8_lossy(out);
            let start: String = text.trim().chars().take(60).collect();
            anyhow::anyhow!(
                "the external plugin {key} answered with text that is not JSON ({e}), starting {start:?}; a plugin must print one JSON response on standard output, and its logs on standard error"
            )
        })?;
        let response: Response = serde_json::from_value(normalized(value))
            .with_context(|| {
                format!("the external plugin {key} answered with a malformed response")
            })
            .map_err(|e| anyhow::anyhow!("{e:#}"))?;
        if response.api_version != API_VERSION {
            bail!(
                "the external plugin {key} answered with apiVersion {:?}; kubebuilder-rs speaks {API_VERSION:?}: use a version of the plugin made for it",
                response.api_version
            );
        }
        if response.error {
            let messages = if response.error_msgs.is_empty() {
                "no reason given".to_string()
            } else {
                response.error_msgs.join("; ")
            };
            bail!("the external plugin {key} failed: {messages}");
        }
        Ok(response)
    }
}

/// The field names of a response and its parts, as they are spelled here.
const RESPONSE_FIELDS: &[&str] = &[
    "apiVersion",
    "command",
    "metadata",
    "universe",
    "error",
    "errorMsgs",
    "flags",
];
const METADATA_FIELDS: &[&str] = &["Description", "Examples"];
const FLAG_FIELDS: &[&str] = &["Name", "Type", "Default", "Usage"];

/// `value` with its field names spelled as [`Response`] spells them
/// whatever their case, and `null` fields left out, as Go's decoder reads
/// them. The keys of `universe` (file paths) are kept as they are.
fn normalized(value: Value) -> Value {
    let mut response = fields(value, RESPONSE_FIELDS);
    if let Value::Object(map) = &mut response {
        if let Some(metadata) = map.remove("metadata") {
            map.insert("metadata".into(), fields(metadata, METADATA_FIELDS));
        }
        if let Some(Value::Array(flags)) = map.remove("flags") {
            let flags = flags.into_iter().map(|f| fields(f, FLAG_FIELDS)).collect();
            map.insert("flags".into(), Value::Array(flags));
        }
    }
    response
}

/// The object `value` with keys that match one of `names` but for case
/// renamed to it, and `null` members dropped.
fn fields(value: Value, names: &[&str]) -> Value {
    let Value::Object(map) = value else {
        return value;
    };
    let renamed = map
        .into_iter()
        .filter(|(_, member)| !member.is_null())
        .map(|(key, member)| {
            let name = names
                .iter()
                .find(|name| name.eq_ignore_ascii_case(&key))
                .map_or(key, |name| name.to_string());
            (name, member)
        })
        .collect();
    Value::Object(renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_has_kubebuilders_field_names() {
        let mut request = Request::about("flags", "init");
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(
            json,
            r#"{"apiVersion":"v1alpha1","args":["--init"],"command":"flags","universe":{}}"#
        );
        request.plugin_chain = vec!["acme/v1".into()];
        request.config = Some(serde_json::json!({"version": "3"}));
        let json = serde_json::to_string(&request).unwrap();
        assert!(json.ends_with(r#""pluginChain":["acme/v1"],"config":{"version":"3"}}"#));
    }

    #[test]
    fn field_names_are_read_whatever_their_case() {
        let out = br#"{"APIVERSION":"v1alpha1","metadata":{"description":"d","EXAMPLES":"e"},
            "flags":[{"name":"team","type":"string","default":"x","usage":"u"}],
            "universe":{"Docs/A.md":"a"},"errorMsgs":null}"#;
        let response = Response::parse("acme/v1", out).unwrap();
        assert_eq!(response.metadata.description, "d");
        assert_eq!(response.metadata.examples, "e");
        assert_eq!(response.flags[0].name, "team");
        assert_eq!(response.flags[0].default, "x");
        assert!(response.universe.contains_key("Docs/A.md"));
    }

    #[test]
    fn bad_responses_are_refused_with_the_reason() {
        let refusal = |out: &str| {
            Response::parse("acme/v1", out.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert!(refusal("hello").contains("not JSON"));
        assert!(refusal(r#"{"apiVersion":"v2"}"#).contains("\"v2\""));
        let err = refusal(r#"{"apiVersion":"v1alpha1","error":true,"errorMsgs":["a","b"]}"#);
        assert!(err.contains("failed: a; b"), "{err}");
        assert!(refusal(r#"{"apiVersion":"v1alpha1","universe":{"a":1}}"#).contains("malformed"));
    }
}
