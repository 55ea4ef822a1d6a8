//! The custom metrics a user lists in `grafana/custom-metrics/config.yaml`.
//!
//! The file holds one key, `customMetrics`, a list of entries with the keys
//! `metric` and `type` (required) and `expr` and `unit` (optional). Each
//! entry becomes one panel of `grafana/custom-metrics/custom-metrics-dashboard.json`.
//! A missing `expr` is derived from the metric and its type, a missing `unit`
//! is guessed from the metric name. While the list is empty (the commented
//! example the plugin writes), no custom dashboard is generated.

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;

/// The metric types an entry may have, in the order error messages list them.
const TYPES: [&str; 3] = ["counter", "gauge", "histogram"];

/// The keys an entry may have, for error messages.
const KEYS: &str = "metric, type, expr, unit";

/// Label filter every derived query uses; the dashboard defines both variables.
const SELECTOR: &str = r#"{job="$job", namespace="$namespace"}"#;

/// One custom metric the user listed in grafana/custom-metrics/config.yaml.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CustomMetric {
    /// Metric name as exported on `/metrics`.
    pub metric: String,
    /// `counter`, `gauge` or `histogram`, lower case.
    pub r#type: String,
    /// PromQL query of the panel: the user's, or one derived from the type.
    pub expr: String,
    /// Grafana unit of the panel: the user's, or one guessed from the name.
    pub unit: String,
    /// Panel title: `<metric> (<type>)`.
    pub title: String,
    /// `expr` escaped for the inside of a JSON string (no surrounding quotes).
    pub expr_json: String,
    /// `unit` escaped for the inside of a JSON string (no surrounding quotes).
    pub unit_json: String,
    /// `title` escaped for the inside of a JSON string (no surrounding quotes).
    pub title_json: String,
    /// Grafana panel type: `table` for an `_info` metric (its labels are the
    /// data), `timeseries` otherwise.
    pub panel_type: String,
}

/// The file as written: only `customMetrics` is read, other keys are ignored.
#[derive(Debug, Default, Deserialize)]
struct RawConfig {
    /// The entries; `None` when the key is missing or has no value.
    #[serde(rename = "customMetrics", default)]
    custom_metrics: Option<Vec<serde_norway::Value>>,
}

/// One entry as written, before it is checked.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    /// Metric name.
    metric: Option<String>,
    /// Metric type.
    r#type: Option<String>,
    /// PromQL query.
    expr: Option<String>,
    /// Grafana unit.
    unit: Option<String>,
}

/// Parses the text of config.yaml; Ok(empty vec) when it lists none (e.g. the commented example).
/// A bad entry is an error naming the entry and what is allowed (one line), e.g. unknown type.
pub fn parse_custom_metrics(text: &str) -> Result<Vec<CustomMetric>> {
    let raw: Option<RawConfig> = serde_norway::from_str(text)
        .map_err(|e| anyhow!("grafana/custom-metrics/config.yaml is not valid YAML: {e}"))?;
    let entries = raw.and_then(|c| c.custom_metrics).unwrap_or_default();
    entries
        .into_iter()
        .enumerate()
        .map(|(index, value)| parse_entry(index + 1, value))
        .collect()
}

/// Checks entry number `number` (from 1) and fills in what it leaves out.
fn parse_entry(number: usize, value: serde_norway::Value) -> Result<CustomMetric> {
    let raw: RawEntry = serde_norway::from_value(value).map_err(|e| {
        anyhow!("custom metric #{number}: {e} (an entry is a map with the keys {KEYS})")
    })?;
    let metric = required_metric(number, raw.metric)?;
    let r#type = required_type(number, &metric, raw.r#type)?;
    let expr = match non_empty(raw.expr) {
        Some(expr) => unescape_quotes(&expr),
        None => default_expr(&metric, &r#type),
    };
    let unit = non_empty(raw.unit).unwrap_or_else(|| default_unit(&metric).to_string());
    Ok(build(metric, r#type, expr, unit))
}

/// Assembles a checked entry with its derived fields.
fn build(metric: String, r#type: String, expr: String, unit: String) -> CustomMetric {
    let title = format!("{metric} ({type})", type = r#type);
    let panel_type = if metric.ends_with("_info") {
        "table"
    } else {
        "timeseries"
    };
    CustomMetric {
        expr_json: json_escape(&expr),
        unit_json: json_escape(&unit),
        title_json: json_escape(&title),
        panel_type: panel_type.to_string(),
        metric,
        r#type,
        expr,
        unit,
        title,
    }
}

/// The trimmed value, or `None` when it is missing or blank.
fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The entry's metric name, which must be a valid Prometheus metric name.
fn required_metric(number: usize, metric: Option<String>) -> Result<String> {
    let Some(metric) = non_empty(metric) else {
        bail!("custom metric #{number}: `metric` is required (the name of an exported metric)");
    };
    if !is_metric_name(&metric) {
        bail!(
            "custom metric #{number}: `{metric}` is not a Prometheus metric name \
             (letters, digits, `_` and `:`, not starting with a digit)"
        );
    }
    Ok(metric)
}

/// The entry's type in lower case, which must be one of [`TYPES`].
fn required_type(number: usize, metric: &str, r#type: Option<String>) -> Result<String> {
    let allowed = TYPES.join(", ");
    let Some(given) = non_empty(r#type) else {
        bail!("custom metric #{number} ({metric}): `type` is required (one of {allowed})");
    };
    let lower = given.to_ascii_lowercase();
    if !TYPES.contains(&lower.as_str()) {
        bail!("custom metric #{number} ({metric}): unknown type `{given}` (one of {allowed})");
    }
    Ok(lower)
}

/// Whether `name` matches `[a-zA-Z_:][a-zA-Z0-9_:]*`.
fn is_metric_name(name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    name.chars()
        .next()
        .is_some_and(|c| !c.is_ascii_digit() && word(c))
        && name.chars().all(word)
}

/// The query of a metric without `expr`: the per-second rate of a counter
/// summed per instance and pod, the 90th percentile of a histogram (from its
/// `_bucket` series), the value of a gauge.
fn default_expr(metric: &str, r#type: &str) -> String {
    match r#type {
        "counter" => format!("sum(rate({metric}{SELECTOR}[5m])) by (instance, pod)"),
        "histogram" => {
            let buckets = bucket_series(metric);
            format!(
                "histogram_quantile(0.90, sum by(instance, le) (rate({buckets}{SELECTOR}[5m])))"
            )
        }
        _ => format!("{metric}{SELECTOR}"),
    }
}

/// The `_bucket` series of a histogram, whether or not the name has the suffix.
fn bucket_series(metric: &str) -> String {
    if metric.ends_with("_bucket") {
        metric.to_string()
    } else {
        format!("{metric}_bucket")
    }
}

/// The unit of a metric without `unit`, guessed from words in its name.
fn default_unit(metric: &str) -> &'static str {
    let name = metric.to_ascii_lowercase();
    if name.contains("second") || name.contains("duration") {
        "s"
    } else if name.contains("byte") {
        "bytes"
    } else if name.contains("ratio") {
        "percentunit"
    } else {
        "none"
    }
}

/// Turns `\"` back into `"`: kubebuilder's example writes the quotes of an
/// `expr` pre-escaped for JSON, and such files must keep working.
fn unescape_quotes(expr: &str) -> String {
    expr.replace("\\\"", "\"")
}

/// Escapes `text` for the inside of a JSON string literal.
fn json_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example file the plugin writes lists no metric.
    const EXAMPLE: &str = include_str!(
        "../../../scaffolds/grafana/v1-alpha/edit/grafana/custom-metrics/config.yaml.jinja"
    );

    fn one(text: &str) -> CustomMetric {
        let mut metrics = parse_custom_metrics(text).expect("parses");
        assert_eq!(metrics.len(), 1, "{metrics:?}");
        metrics.remove(0)
    }

    fn error(text: &str) -> String {
        parse_custom_metrics(text).expect_err("refused").to_string()
    }

    #[test]
    fn example_and_empty_files_list_nothing() {
        assert!(parse_custom_metrics(EXAMPLE).expect("example").is_empty());
        assert!(parse_custom_metrics("").expect("empty").is_empty());
        assert!(
            parse_custom_metrics("---\n# only a comment\n")
                .expect("comment")
                .is_empty()
        );
        assert!(
            parse_custom_metrics("customMetrics: []\n")
                .expect("list")
                .is_empty()
        );
        assert!(
            parse_custom_metrics("other: 1\n")
                .expect("other key")
                .is_empty()
        );
    }

    #[test]
    fn uncommented_example_lists_three_metrics() {
        let (head, entries) = EXAMPLE.split_once("customMetrics:\n").expect("key");
        let uncommented: Vec<&str> = entries.lines().map(|l| l.trim_start_matches('#')).collect();
        let text = format!("{head}customMetrics:\n{}\n", uncommented.join("\n"));
        let metrics = parse_custom_metrics(&text).expect("parses");
        let types: Vec<&str> = metrics.iter().map(|m| m.r#type.as_str()).collect();
        assert_eq!(types, ["counter", "histogram", "gauge"]);
        assert_eq!(
            metrics[2].expr,
            r#"max by (pod) (myapp_pending_items{job="$job", namespace="$namespace"})"#
        );
    }

    #[test]
    fn counter_gets_a_rate() {
        let m = one("customMetrics:\n  - metric: foo_total\n    type: counter\n");
        assert_eq!(
            m.expr,
            r#"sum(rate(foo_total{job="$job", namespace="$namespace"}[5m])) by (instance, pod)"#
        );
        assert_eq!(m.unit, "none");
        assert_eq!(m.title, "foo_total (counter)");
        assert_eq!(m.panel_type, "timeseries");
    }

    #[test]
    fn histogram_gets_a_quantile_of_its_buckets() {
        let expected = r#"histogram_quantile(0.90, sum by(instance, le) (rate(foo_seconds_bucket{job="$job", namespace="$namespace"}[5m])))"#;
        for name in ["foo_seconds", "foo_seconds_bucket"] {
            let m = one(&format!(
                "customMetrics:\n- metric: {name}\n  type: histogram\n"
            ));
            assert_eq!(m.expr, expected);
            assert_eq!(m.unit, "s");
        }
    }

    #[test]
    fn gauge_gets_its_value() {
        let m = one("customMetrics:\n- metric: cache_bytes\n  type: Gauge\n");
        assert_eq!(m.r#type, "gauge");
        assert_eq!(m.expr, r#"cache_bytes{job="$job", namespace="$namespace"}"#);
        assert_eq!(m.unit, "bytes");
    }

    #[test]
    fn given_expr_and_unit_are_kept() {
        let text = "customMetrics:\n- metric: hit_ratio\n  type: gauge\n  unit: percent\n  expr: avg(hit_ratio{job=\\\"$job\\\"})\n";
        let m = one(text);
        assert_eq!(m.expr, r#"avg(hit_ratio{job="$job"})"#);
        assert_eq!(m.expr_json, r#"avg(hit_ratio{job=\"$job\"})"#);
        assert_eq!(m.unit, "percent");
    }

    #[test]
    fn units_are_guessed_from_the_name() {
        assert_eq!(default_unit("x_duration_total"), "s");
        assert_eq!(default_unit("x_ratio"), "percentunit");
        assert_eq!(default_unit("x_items"), "none");
    }

    #[test]
    fn info_metric_is_a_table() {
        let m = one("customMetrics:\n- metric: build_info\n  type: gauge\n");
        assert_eq!(m.panel_type, "table");
    }

    #[test]
    fn unknown_type_is_refused() {
        let message = error("customMetrics:\n- metric: foo\n  type: summary\n");
        assert!(message.contains("#1 (foo)"), "{message}");
        assert!(message.contains("unknown type `summary`"), "{message}");
        assert!(message.contains("counter, gauge, histogram"), "{message}");
        assert!(!message.contains('\n'), "{message}");
    }

    #[test]
    fn missing_fields_and_bad_names_are_refused() {
        let no_type = error("customMetrics:\n- metric: foo\n- metric: bar\n  type: gauge\n");
        assert!(no_type.contains("`type` is required"), "{no_type}");
        let no_metric = error("customMetrics:\n- metric: a\n  type: gauge\n- type: gauge\n");
        assert!(
            no_metric.starts_with("custom metric #2: `metric` is required"),
            "{no_metric}"
        );
        let bad_name = error("customMetrics:\n- metric: 9lives\n  type: gauge\n");
        assert!(
            bad_name.contains("not a Prometheus metric name"),
            "{bad_name}"
        );
    }

    #[test]
    fn unknown_keys_and_bad_yaml_are_refused() {
        let typo = error("customMetrics:\n- metric: foo\n  type: gauge\n  exp: foo\n");
        assert!(
            typo.contains("custom metric #1") && typo.contains(KEYS),
            "{typo}"
        );
        let not_map = error("customMetrics:\n- foo\n");
        assert!(not_map.contains("custom metric #1"), "{not_map}");
        assert!(error("customMetrics: [").contains("not valid YAML"));
    }

    #[test]
    fn json_escape_handles_quotes_backslashes_and_controls() {
        assert_eq!(json_escape("a\"b\\c\nd\u{1}"), "a\\\"b\\\\c\\nd\\u0001");
    }
}
