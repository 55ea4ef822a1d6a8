//! A YAML writer that formats the PROJECT file the way kubebuilder's Go YAML
//! library does: mapping keys sorted in natural order, sequences at the same
//! indentation as their key, two-space nesting, and strings double-quoted
//! only when they would otherwise read back as another type.

use serde_norway::{Mapping, Value};
use std::cmp::Ordering;

/// Formats `value` (normally a mapping) as a YAML document without a `---` line.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Mapping(map) => write_mapping(&mut out, map, 0),
        Value::Sequence(items) => write_sequence(&mut out, items, 0),
        scalar => {
            out.push_str(&scalar_text(scalar));
            out.push('\n');
        }
    }
    out
}

/// Writes a block mapping whose keys start at column `indent`.
fn write_mapping(out: &mut String, map: &Mapping, indent: usize) {
    let mut entries: Vec<(&Value, &Value)> = map.iter().collect();
    entries.sort_by(|(a, _), (b, _)| natural_cmp(&key_text(a), &key_text(b)));
    for (key, value) in entries {
        out.push_str(&" ".repeat(indent));
        out.push_str(&scalar_text(key));
        out.push(':');
        write_child(out, value, indent, indent + 2);
    }
}

/// Writes a block sequence whose dashes start at column `indent`.
fn write_sequence(out: &mut String, items: &[Value], indent: usize) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            Value::Mapping(map) if !map.is_empty() => {
                // The first key goes on the dash line; the rest align with it.
                let mut nested = String::new();
                write_mapping(&mut nested, map, indent + 2);
                out.push(' ');
                out.push_str(&nested[indent + 2..]);
            }
            _ => write_child(out, item, indent, indent + 2),
        }
    }
}

/// Writes the value after `key:` or `-`: inline when it is a scalar or an
/// empty collection, on the following lines otherwise. Sequences under a key
/// stay at the key's own indentation, as Go's YAML writer puts them.
fn write_child(out: &mut String, value: &Value, key_indent: usize, nested_indent: usize) {
    match value {
        Value::Mapping(map) if !map.is_empty() => {
            out.push('\n');
            write_mapping(out, map, nested_indent);
        }
        Value::Sequence(items) if !items.is_empty() => {
            out.push('\n');
            write_sequence(out, items, key_indent);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar_text(other));
            out.push('\n');
        }
    }
}

/// The text of a mapping key used for sorting.
fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        other => scalar_text(other),
    }
}

/// Formats a scalar (or an empty collection) on one line.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote_if_needed(s),
        Value::Sequence(_) => "[]".to_string(),
        Value::Mapping(_) => "{}".to_string(),
        Value::Tagged(tagged) => scalar_text(&tagged.value),
    }
}

/// Leaves a string plain when it reads back as the same string; otherwise
/// quotes it: double quotes for text that looks like another type, single
/// quotes for text holding YAML punctuation.
fn quote_if_needed(s: &str) -> String {
    if looks_like_other_type(s) {
        return format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    }
    if needs_quotes(s) {
        return format!("'{}'", s.replace('\'', "''"));
    }
    s.to_string()
}

/// Whether a plain scalar with this text would be read as null, a boolean or
/// a number instead of a string.
fn looks_like_other_type(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes",
        "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N",
        ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN",
    ];
    WORDS.contains(&s) || s.parse::<f64>().is_ok() || s.parse::<i64>().is_ok() || is_prefixed_int(s)
}

/// Hexadecimal, octal and binary integers (`0x1f`, `0o17`, `0b101`).
fn is_prefixed_int(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    [("0x", 16), ("0o", 8), ("0b", 2)]
        .iter()
        .any(|(prefix, radix)| {
            body.strip_prefix(prefix).is_some_and(|digits| {
                !digits.is_empty() && i64::from_str_radix(digits, *radix).is_ok()
            })
        })
}

/// Whether a string holds characters that a plain YAML scalar cannot.
fn needs_quotes(s: &str) -> bool {
    const LEADING: &[char] = &[
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`', ' ',
    ];
    s.starts_with(LEADING)
        || s.ends_with(' ')
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.contains(['\n', '\t'])
}

/// Orders keys as Go's YAML writer does: other characters before letters, and
/// runs of digits by their numeric value.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] == b[i] {
            i += 1;
            continue;
        }
        let (a_letter, b_letter) = (a[i].is_alphabetic(), b[i].is_alphabetic());
        if a_letter && b_letter {
            return a[i].cmp(&b[i]);
        }
        if a_letter || b_letter {
            return if a_letter {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        let (a_num, a_end) = digit_run(&a, i);
        let (b_num, b_end) = digit_run(&b, i);
        return a_num
            .cmp(&b_num)
            .then(a_end.cmp(&b_end))
            .then(a[i].cmp(&b[i]));
    }
    a.len().cmp(&b.len())
}

/// The numeric value of the digits starting at `start`, and where they end.
fn digit_run(chars: &[char], start: usize) -> (u128, usize) {
    let mut value: u128 = 0;
    let mut end = start;
    while let Some(digit) = chars.get(end).and_then(|c| c.to_digit(10)) {
        value = value.saturating_mul(10).saturating_add(u128::from(digit));
        end += 1;
    }
    (value, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        to_string(&serde_norway::from_str(text).unwrap())
    }

    #[test]
    fn sorts_keys_and_keeps_sequences_unindented() {
        let out = round_trip("version: \"3\"\nlayout:\n  - go.kubebuilder.io/v4\ndomain: a.b\n");
        assert_eq!(
            out,
            "domain: a.b\nlayout:\n- go.kubebuilder.io/v4\nversion: \"3\"\n"
        );
    }

    #[test]
    fn nests_mappings_inside_sequences() {
        let text = "resources:\n- api:\n    crdVersion: v1\n    namespaced: true\n  controller: true\n  kind: Captain\n";
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn quotes_only_ambiguous_strings() {
        assert_eq!(quote_if_needed("3"), "\"3\"");
        assert_eq!(quote_if_needed("true"), "\"true\"");
        assert_eq!(quote_if_needed("4.13.0"), "4.13.0");
        assert_eq!(quote_if_needed("example.com/x"), "example.com/x");
        assert_eq!(quote_if_needed("a: b"), "'a: b'");
    }

    #[test]
    fn natural_order_puts_punctuation_before_letters_and_numbers_by_value() {
        assert_eq!(natural_cmp("v2", "v10"), Ordering::Less);
        assert_eq!(natural_cmp("a.b", "ab"), Ordering::Less);
        assert_eq!(natural_cmp("api", "controller"), Ordering::Less);
    }
}
