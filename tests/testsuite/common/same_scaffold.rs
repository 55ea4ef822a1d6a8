//! What kubebuilder and kubebuilder-rs wrote for the same commands, compared
//! where the two must agree: the set of files, PROJECT's keys and values
//! (`cliVersion` aside; comments are not values) and the exported Go names
//! of every Go file both wrote. File contents are not compared beyond that
//! (kubebuilder-rs words everything itself); the versions both pin are
//! listed, and kubebuilder-rs's may only be newer.

use super::snapshot_tree;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The tool names used in difference lines.
const KB: &str = "kubebuilder";
const RS: &str = "kubebuilder-rs";

/// The outcome of comparing two project trees.
#[derive(Default)]
pub struct Comparison {
    /// One line per difference, e.g.
    /// `file only in kubebuilder: go.sum`.
    pub differences: Vec<String>,
    /// Versions kubebuilder-rs pins newer than kubebuilder, one line each.
    pub newer_pins: Vec<String>,
    /// Files both wrote, and how many of them differ in content.
    pub common_files: usize,
    pub reworded_files: usize,
}

/// Compares the project kubebuilder wrote in `kb` with the one
/// kubebuilder-rs wrote in `rs` for the same commands.
pub fn compare(kb: &Path, rs: &Path) -> Comparison {
    let (kb_files, rs_files) = (files(kb), files(rs));
    let mut result = Comparison::default();
    let paths = |files: &BTreeMap<PathBuf, Vec<u8>>| files.keys().cloned().collect();
    for (path, only_in) in symmetric(&paths(&kb_files), &paths(&rs_files)) {
        result
            .differences
            .push(format!("file only in {only_in}: {}", path.display()));
    }
    for (path, kb_bytes) in &kb_files {
        let Some(rs_bytes) = rs_files.get(path) else {
            continue;
        };
        result.common_files += 1;
        result.reworded_files += usize::from(kb_bytes != rs_bytes);
        let (kb_text, rs_text) = (text(kb_bytes), text(rs_bytes));
        let name = path.to_string_lossy();
        if name == "PROJECT" {
            result
                .differences
                .extend(project_differences(&kb_text, &rs_text));
        } else if name.ends_with(".go") {
            let (kb_names, rs_names) = (exported_names(&kb_text), exported_names(&rs_text));
            for (go_name, only_in) in symmetric(&kb_names, &rs_names) {
                result
                    .differences
                    .push(format!("Go name only in {only_in}: {name} {go_name}"));
            }
        }
        let pins = match name.as_ref() {
            "go.mod" => Some((go_mod_pins(&kb_text), go_mod_pins(&rs_text))),
            "Makefile" => Some((makefile_pins(&kb_text), makefile_pins(&rs_text))),
            _ => None,
        };
        if let Some((kb_pins, rs_pins)) = pins {
            compare_pins(&name, &kb_pins, &rs_pins, &mut result);
        }
    }
    result
}

/// Every file below `dir` with its bytes (directories left out).
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot_tree(dir)
        .into_iter()
        .filter(|(path, _)| !path.to_string_lossy().ends_with('/'))
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The items of only one of two sets, each with the tool that has it.
fn symmetric<K: Ord + Clone>(kb: &BTreeSet<K>, rs: &BTreeSet<K>) -> Vec<(K, &'static str)> {
    let only = |a: &BTreeSet<K>, b: &BTreeSet<K>, tool| {
        a.difference(b)
            .map(|k| (k.clone(), tool))
            .collect::<Vec<_>>()
    };
    let mut keys = only(kb, rs, KB);
    keys.extend(only(rs, kb, RS));
    keys
}

/// PROJECT's values that differ, `cliVersion` aside, one line each.
fn project_differences(kb: &str, rs: &str) -> Vec<String> {
    let (kb_values, rs_values) = (flatten_yaml(kb), flatten_yaml(rs));
    let keys: BTreeSet<&String> = kb_values.keys().chain(rs_values.keys()).collect();
    keys.into_iter()
        .filter(|key| key.as_str() != "cliVersion")
        .filter(|key| kb_values.get(*key) != rs_values.get(*key))
        .map(|key| {
            let value = |values: &BTreeMap<String, String>| {
                values.get(key).cloned().unwrap_or_else(|| "absent".into())
            };
            format!(
                "PROJECT {key}: {KB} {}, {RS} {}",
                value(&kb_values),
                value(&rs_values)
            )
        })
        .collect()
}

/// Every scalar of a YAML document by its path (`resources[2].api.namespaced`).
fn flatten_yaml(text: &str) -> BTreeMap<String, String> {
    let value: serde_norway::Value = serde_norway::from_str(text).expect("PROJECT is YAML");
    let mut out = BTreeMap::new();
    flatten_into(&value, String::new(), &mut out);
    out
}

fn flatten_into(value: &serde_norway::Value, path: String, out: &mut BTreeMap<String, String>) {
    use serde_norway::Value;
    match value {
        Value::Mapping(map) if !map.is_empty() => {
            for (key, item) in map {
                let key = serde_norway::to_string(key).unwrap_or_default();
                let key = key.trim();
                let child = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{path}.{key}")
                };
                flatten_into(item, child, out);
            }
        }
        Value::Sequence(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                flatten_into(item, format!("{path}[{index}]"), out);
            }
        }
        other => {
            let text = serde_norway::to_string(other).unwrap_or_default();
            out.insert(path, text.trim().to_string());
        }
    }
}

/// The exported names a Go file declares at the top level, found by a
/// line scan of gofmt'ed source: functions, types, variables, constants,
/// and of exported types `Type.Method` and `Type.Field` (struct fields and
/// interface methods).
pub fn exported_names(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    // Inside `var (`, `const (`, `type (` (prefix "") or a struct or
    // interface body (prefix "Type.").
    let mut block: Option<String> = None;
    // A member counts when it and its type are exported.
    let exported = |name: &str| name.starts_with(|c: char| c.is_ascii_uppercase());
    let mut add = |name: &str, prefix: &str| {
        if exported(name) && (prefix.is_empty() || exported(prefix)) {
            names.insert(format!("{prefix}{name}"));
        }
    };
    for line in source.lines() {
        if let Some(prefix) = &block {
            if line.starts_with(')') || line.starts_with('}') {
                block = None;
            } else if let Some(entry) = line.strip_prefix('\t') {
                add(identifier(entry), prefix);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("func (") {
            let Some((receiver, after)) = rest.split_once(") ") else {
                continue;
            };
            let receiver_type = receiver.rsplit([' ', '*']).next().unwrap_or("");
            let receiver_type = identifier(receiver_type);
            add(identifier(after), &format!("{receiver_type}."));
        } else if let Some(rest) = line.strip_prefix("func ") {
            add(identifier(rest), "");
        } else if matches!(line, "var (" | "const (" | "type (") {
            block = Some(String::new());
        } else if let Some(rest) = ["var ", "const "]
            .iter()
            .find_map(|keyword| line.strip_prefix(keyword))
        {
            add(identifier(rest), "");
        } else if let Some(rest) = line.strip_prefix("type ") {
            let name = identifier(rest);
            add(name, "");
            if line.ends_with(" struct {") || line.ends_with(" interface {") {
                block = Some(format!("{name}."));
            }
        }
    }
    names
}

/// The Go identifier `text` starts with (empty when none).
fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// go.mod's `go` line and its direct requirements, by module.
pub fn go_mod_pins(text: &str) -> BTreeMap<String, String> {
    let mut pins = BTreeMap::new();
    let mut in_require = false;
    for line in text.lines() {
        let line = line.trim();
        if line == "require (" {
            in_require = true;
        } else if line == ")" {
            in_require = false;
        } else if let Some(version) = line.strip_prefix("go ") {
            pins.insert("go".to_string(), version.to_string());
        } else if !line.contains("// indirect") {
            let requirement = line.strip_prefix("require ").filter(|_| !in_require);
            if let Some((module, version)) = requirement
                .or(in_require.then_some(line))
                .and_then(|r| r.split_once(' '))
            {
                pins.insert(module.to_string(), version.trim().to_string());
            }
        }
    }
    pins
}

/// The Makefile's `NAME_VERSION ?= vX.Y.Z` lines whose value is a version.
pub fn makefile_pins(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once(" ?= "))
        .filter(|(name, value)| name.ends_with("_VERSION") && version_numbers(value).is_some())
        .map(|(name, value)| (name.to_string(), value.trim().to_string()))
        .collect()
}

/// `v1.2.3` or `1.2.3` as numbers; `None` for anything else.
fn version_numbers(text: &str) -> Option<Vec<u64>> {
    text.trim()
        .trim_start_matches('v')
        .split('.')
        .map(|part| part.parse().ok())
        .collect()
}

/// Adds a line for each version both files pin differently: a newer
/// kubebuilder-rs pin is listed, an older one is a difference.
fn compare_pins(
    file: &str,
    kb: &BTreeMap<String, String>,
    rs: &BTreeMap<String, String>,
    result: &mut Comparison,
) {
    for (name, kb_version) in kb {
        let Some(rs_version) = rs.get(name).filter(|v| *v != kb_version) else {
            continue;
        };
        let line = format!("{file} {name}: {KB} {kb_version}, {RS} {rs_version}");
        match (version_numbers(kb_version), version_numbers(rs_version)) {
            (Some(old), Some(new)) if new > old => result.newer_pins.push(line),
            _ => result.differences.push(format!("pin not newer: {line}")),
        }
    }
}
