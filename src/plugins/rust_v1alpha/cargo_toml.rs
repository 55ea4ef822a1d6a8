//! Edits of a generated project's `Cargo.toml` through toml_edit, so the
//! user's own entries, comments and formatting stay as they are. A command
//! that needs a dependency, a feature or a binary plans the edited file as a
//! [`Change::Write`](crate::machinery::Change::Write) of the result.

use anyhow::{Context as _, Result};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Value, value};

/// `Cargo.toml` text with `name` as a dependency of `version` with
/// `features`; an existing entry keeps its version and gains the features
/// it lacks.
pub fn with_dependency(text: &str, name: &str, version: &str, features: &[&str]) -> Result<String> {
    dependency(text, name, version, features, true)
}

/// Like [`with_dependency`], but a new entry turns the crate's default
/// features off (`default-features = false`), e.g. to keep rustls on the
/// crypto provider kube uses.
pub fn with_dependency_without_defaults(
    text: &str,
    name: &str,
    version: &str,
    features: &[&str],
) -> Result<String> {
    dependency(text, name, version, features, false)
}

fn dependency(
    text: &str,
    name: &str,
    version: &str,
    features: &[&str],
    default_features: bool,
) -> Result<String> {
    let mut doc = parse(text)?;
    let deps = dependencies(&mut doc)?;
    match deps.get_mut(name) {
        None => {
            let mut entry = InlineTable::new();
            entry.insert("version", version.into());
            if !default_features {
                entry.insert("default-features", false.into());
            }
            if !features.is_empty() {
                entry.insert("features", Value::Array(features.iter().copied().collect()));
            }
            let item = if features.is_empty() && default_features {
                value(version)
            } else {
                value(entry)
            };
            deps.insert(name, item);
        }
        Some(item) => add_features(item, features)?,
    }
    Ok(doc.to_string())
}

/// `Cargo.toml` text with `name` as a dependency on the crate in the
/// directory `path` (`name = { path = "../name" }`); an existing entry is
/// left as it is.
pub fn with_path_dependency(text: &str, name: &str, path: &str) -> Result<String> {
    let mut doc = parse(text)?;
    let deps = dependencies(&mut doc)?;
    if deps.get(name).is_none() {
        let mut entry = InlineTable::new();
        entry.insert("path", path.into());
        deps.insert(name, value(entry));
    }
    Ok(doc.to_string())
}

/// Whether `[dependencies]` has the crate whose identifier in code is
/// `ident` (`acme_types` for the package `acme-types`).
pub fn has_dependency(text: &str, ident: &str) -> Result<bool> {
    let doc = parse(text)?;
    let found = doc
        .get("dependencies")
        .and_then(Item::as_table_like)
        .is_some_and(|deps| deps.iter().any(|(name, _)| name.replace('-', "_") == ident));
    Ok(found)
}

/// The `[dependencies]` table, created when missing.
fn dependencies(doc: &mut DocumentMut) -> Result<&mut dyn toml_edit::TableLike> {
    doc.entry("dependencies")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .context("Cargo.toml: [dependencies] is not a table")
}

/// `Cargo.toml` text with a `[[bin]]` target `name` built from `path`,
/// unless the crate already has a binary of that name.
pub fn with_binary(text: &str, name: &str, path: &str) -> Result<String> {
    let mut doc = parse(text)?;
    let bins = doc
        .entry("bin")
        .or_insert_with(|| Item::ArrayOfTables(Default::default()))
        .as_array_of_tables_mut()
        .context("Cargo.toml: bin is not an array of tables")?;
    let present = bins
        .iter()
        .any(|bin| bin.get("name").and_then(Item::as_str) == Some(name));
    if !present {
        let mut bin = toml_edit::Table::new();
        bin.insert("name", value(name));
        bin.insert("path", value(path));
        bins.push(bin);
    }
    Ok(doc.to_string())
}

fn parse(text: &str) -> Result<DocumentMut> {
    text.parse()
        .context("Cargo.toml is not valid TOML; fix it, then run the command again")
}

/// Adds `features` to a dependency entry written as `"1"` or as a table.
fn add_features(item: &mut Item, features: &[&str]) -> Result<()> {
    if features.is_empty() {
        return Ok(());
    }
    if let Some(version) = item.as_str().map(str::to_string) {
        let mut entry = InlineTable::new();
        entry.insert("version", version.into());
        *item = value(entry);
    }
    let table = item
        .as_table_like_mut()
        .context("Cargo.toml: a dependency is neither a version nor a table")?;
    let list = table
        .entry("features")
        .or_insert(Item::Value(Value::Array(Array::new())))
        .as_array_mut()
        .context("Cargo.toml: a dependency's features are not a list")?;
    for feature in features {
        if !list.iter().any(|f| f.as_str() == Some(feature)) {
            list.push(*feature);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO: &str = "[package]\nname = \"x\" # mine\n\n[dependencies]\n# the client\nkube = { version = \"5.0.0\", features = [\"runtime\"] }\nserde = \"1\"\n";

    #[test]
    fn a_new_dependency_is_added_and_the_rest_kept() {
        let out = with_dependency(CARGO, "json-patch", "5", &[]).unwrap();
        assert!(out.starts_with(CARGO.trim_end()), "{out}");
        assert!(out.ends_with("json-patch = \"5\"\n"), "{out}");
    }

    #[test]
    fn features_are_added_once() {
        let out = with_dependency(CARGO, "kube", "9", &["admission", "runtime"]).unwrap();
        assert!(out.contains("# the client\n"), "{out}");
        assert!(
            out.contains("kube = { version = \"5.0.0\", features = [\"runtime\", \"admission\"] }"),
            "{out}"
        );
        let out = with_dependency(CARGO, "serde", "1", &["derive"]).unwrap();
        assert!(
            out.contains("serde = { version = \"1\", features = [\"derive\"] }"),
            "{out}"
        );
        assert_eq!(
            with_dependency(&out, "serde", "1", &["derive"]).unwrap(),
            out
        );
    }

    #[test]
    fn a_binary_is_added_once() {
        let out = with_binary(CARGO, "tool", "src/bin/tool.rs").unwrap();
        assert!(
            out.contains("[[bin]]\nname = \"tool\"\npath = \"src/bin/tool.rs\"\n"),
            "{out}"
        );
        assert_eq!(with_binary(&out, "tool", "src/bin/tool.rs").unwrap(), out);
        assert!(with_dependency("[dependencies", "a", "1", &[]).is_err());
    }

    #[test]
    fn a_path_dependency_is_added_once_and_found() {
        let out = with_path_dependency(CARGO, "acme-types", "../acme-types").unwrap();
        assert!(out.starts_with(CARGO.trim_end()), "{out}");
        assert!(
            out.ends_with("acme-types = { path = \"../acme-types\" }\n"),
            "{out}"
        );
        assert_eq!(
            with_path_dependency(&out, "acme-types", "../x").unwrap(),
            out
        );
        assert!(has_dependency(&out, "acme_types").unwrap());
        assert!(!has_dependency(CARGO, "acme_types").unwrap());
    }
}
