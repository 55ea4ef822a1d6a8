//! Checks of Grafana dashboards: the structure Grafana needs to import one,
//! and the metric names its panels query (read from their PromQL).

use std::collections::BTreeSet;
use std::path::Path;

/// The panel types the dashboards use and Grafana ships.
const PANEL_TYPES: &[&str] = &[
    "timeseries",
    "stat",
    "gauge",
    "table",
    "row",
    "text",
    "heatmap",
];

/// Variables Grafana defines itself.
const BUILT_IN_VARIABLES: &[&str] = &["__interval", "__rate_interval", "__range"];

/// PromQL words that are not metric names: keywords, and the aggregation
/// operators (which may stand before `by (…)` rather than their argument).
const PROMQL_WORDS: &[&str] = &[
    "sum",
    "min",
    "max",
    "avg",
    "group",
    "stddev",
    "stdvar",
    "count",
    "count_values",
    "bottomk",
    "topk",
    "quantile",
    "limitk",
    "limit_ratio",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "bool",
    "and",
    "or",
    "unless",
    "offset",
    "inf",
    "nan",
];

/// What keeps `text` from being a dashboard Grafana imports; empty when
/// nothing does.
pub fn dashboard_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let value: serde_norway::Value = match serde_norway::from_str(text) {
        Ok(value) => value,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let text_key = |v: &serde_norway::Value, key: &str| {
        v.get(key).and_then(|k| k.as_str()).map(str::to_string)
    };
    for key in ["title", "uid"] {
        if text_key(&value, key).is_none_or(|t| t.is_empty()) {
            problems.push(format!("no `{key}` text"));
        }
    }
    if value
        .get("schemaVersion")
        .and_then(|v| v.as_u64())
        .is_none()
    {
        problems.push("no numeric `schemaVersion`".to_string());
    }
    let variables: BTreeSet<String> = value
        .get("templating")
        .and_then(|t| t.get("list"))
        .and_then(|l| l.as_sequence())
        .map(|list| list.iter().filter_map(|v| text_key(v, "name")).collect())
        .unwrap_or_default();
    let Some(panels) = value.get("panels").and_then(|p| p.as_sequence()) else {
        problems.push("no `panels` list".to_string());
        return problems;
    };
    if panels.is_empty() {
        problems.push("no panels".to_string());
    }
    let mut ids = BTreeSet::new();
    for (n, panel) in panels.iter().enumerate() {
        let title = text_key(panel, "title").unwrap_or_default();
        let at = format!("panel {n} ({title})");
        if title.is_empty() {
            problems.push(format!("{at}: no title"));
        }
        match panel.get("id").and_then(|i| i.as_u64()) {
            Some(id) if !ids.insert(id) => problems.push(format!("{at}: id {id} used twice")),
            None => problems.push(format!("{at}: no numeric id")),
            _ => {}
        }
        let kind = text_key(panel, "type").unwrap_or_default();
        if !PANEL_TYPES.contains(&kind.as_str()) {
            problems.push(format!("{at}: unknown type {kind:?}"));
        }
        let grid = panel.get("gridPos");
        for key in ["h", "w", "x", "y"] {
            if grid
                .and_then(|g| g.get(key))
                .and_then(|v| v.as_u64())
                .is_none()
            {
                problems.push(format!("{at}: gridPos.{key} is not a number"));
            }
        }
        if grid
            .and_then(|g| g.get("w"))
            .and_then(|v| v.as_u64())
            .is_some_and(|w| w > 24)
        {
            problems.push(format!("{at}: wider than Grafana's 24 columns"));
        }
        if kind == "row" {
            continue;
        }
        let targets = panel.get("targets").and_then(|t| t.as_sequence());
        let Some(targets) = targets.filter(|t| !t.is_empty()) else {
            problems.push(format!("{at}: no targets"));
            continue;
        };
        for target in targets {
            let Some(expr) = text_key(target, "expr").filter(|e| !e.is_empty()) else {
                problems.push(format!("{at}: a target without expr"));
                continue;
            };
            if text_key(target, "refId").is_none() {
                problems.push(format!("{at}: a target without refId"));
            }
            for name in variables_used(&expr) {
                if !variables.contains(&name) && !BUILT_IN_VARIABLES.contains(&name.as_str()) {
                    problems.push(format!("{at}: ${name} is not a dashboard variable"));
                }
            }
        }
    }
    problems
}

/// Every panel query (`targets[].expr`) of the dashboard `text`.
pub fn queries(text: &str) -> Vec<String> {
    let value: serde_norway::Value = serde_norway::from_str(text).expect("dashboard JSON");
    let panels = value
        .get("panels")
        .and_then(|p| p.as_sequence())
        .cloned()
        .unwrap_or_default();
    panels
        .iter()
        .filter_map(|p| p.get("targets")?.as_sequence().cloned())
        .flatten()
        .filter_map(|t| t.get("expr")?.as_str().map(str::to_string))
        .collect()
}

/// The metric names a PromQL query reads: the names of its selectors,
/// not its functions, aggregations, label names or keywords.
pub fn metric_names(expr: &str) -> BTreeSet<String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    let mut in_braces = false; // a selector's label matchers
    let mut in_group = false; // the label list of `by (…)`, `without (…)`, `on (…)`
    let mut in_string = None;
    let mut last_word = String::new();
    while i < chars.len() {
        let c = chars[i];
        if let Some(quote) = in_string {
            if c == '\\' {
                i += 1;
            } else if c == quote {
                in_string = None;
            }
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            // a number or a duration (`0.9`, `5m`, `1e3`)
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            last_word.clear();
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == ':' || c == '$' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || "_:$".contains(chars[i]))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let is_call = chars[i..].iter().find(|c| !c.is_whitespace()) == Some(&'(');
            let is_metric = !in_braces
                && !in_group
                && !is_call
                && !word.starts_with('$')
                && !PROMQL_WORDS.contains(&word.to_lowercase().as_str());
            if is_metric {
                names.insert(word.clone());
            }
            last_word = word;
            continue;
        }
        match c {
            '"' | '\'' | '`' => in_string = Some(c),
            '{' => in_braces = true,
            '}' => in_braces = false,
            '(' if matches!(last_word.as_str(), "by" | "without" | "on" | "ignoring") => {
                in_group = true;
            }
            ')' => in_group = false,
            '[' => {
                // a range or subquery: skip to its closing bracket
                while i < chars.len() && chars[i] != ']' {
                    i += 1;
                }
            }
            _ => {}
        }
        if !c.is_whitespace() {
            last_word.clear();
        }
        i += 1;
    }
    names
}

/// Every metric name a query of the Grafana dashboards (`grafana/*.json`) of the project in `dir` reads.
pub fn dashboard_metrics(dir: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(dir.join("grafana")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            for expr in queries(&text) {
                names.extend(metric_names(&expr));
            }
        }
    }
    names
}

/// The names of the samples in a Prometheus text exposition (`/metrics`):
/// a histogram's `_bucket`, `_sum` and `_count` each count.
pub fn exported_names(exposition: &str) -> BTreeSet<String> {
    exposition
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| line.split(['{', ' ']).next())
        .map(str::to_string)
        .collect()
}

/// The `$name` and `${name}` variables a query uses.
fn variables_used(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let braced = rest.starts_with('{');
        let body = if braced { &rest[1..] } else { rest };
        let name: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}
