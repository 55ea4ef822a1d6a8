//! Turns each object of the kustomize output into a chart template.
//!
//! The object keeps its YAML; what depends on the release is replaced by
//! Helm expressions: the prefixed names (`<prefix>webhook-service` →
//! the `resourceName` helper), the namespace (→ `.Release.Namespace`), the
//! manager's ServiceAccount (→ the `serviceAccountName` helper), the
//! `app.kubernetes.io/name` and `managed-by` labels. Each template is
//! switched by the values of its area (`crd.enabled`, `webhook.enabled`, …).
//!
//! Replacements are made in the parsed object with placeholder words, which
//! the YAML writer leaves unquoted, and the placeholders are swapped for
//! their Helm text in the written YAML.

use super::manifests::{Manifests, Object, text_at};
use anyhow::Result;
use serde_norway::{Mapping, Value};

/// One template of the chart, relative to its `templates/` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartTemplate {
    /// `<area>/<file>.yaml`.
    pub path: String,
    /// The template text.
    pub contents: String,
}

/// Kinds whose objects the chart's own templates provide.
const OWN_TEMPLATES: &[(&str, &str)] = &[("Service", "controller-manager-metrics-service")];

/// The templates of every object of `manifests` but those the chart's own
/// templates provide; `chart` is the chart's name (its helpers' prefix).
pub fn templates(manifests: &Manifests, chart: &str) -> Result<Vec<ChartTemplate>> {
    let mut out = Vec::new();
    for object in &manifests.objects {
        let suffix = manifests.suffix(&object.name);
        let own = OWN_TEMPLATES
            .iter()
            .any(|(kind, name)| object.kind == *kind && suffix == Some(*name));
        if own {
            continue;
        }
        let writer = Writer {
            manifests,
            chart,
            placeholders: Vec::new(),
        };
        out.push(writer.template(object)?);
    }
    Ok(out)
}

/// Writes one object as a template, collecting its placeholders.
struct Writer<'a> {
    manifests: &'a Manifests,
    chart: &'a str,
    /// Helm text by placeholder number; `(true, …)` replaces a whole line.
    placeholders: Vec<(bool, String)>,
}

impl Writer<'_> {
    fn template(mut self, object: &Object) -> Result<ChartTemplate> {
        let area = area(object, self.manifests);
        let suffix = self.manifests.suffix(&object.name).unwrap_or(&object.name);
        let mut value = object.value.clone();
        self.replace_strings(&mut value, None);
        self.add_chart_labels(&mut value, object);
        self.add_switches(&mut value, object);
        let yaml = serde_norway::to_string(&value)?;
        let yaml = self.fill(&yaml);
        let mut contents = match condition(object, self.manifests) {
            Some(condition) => format!("{{{{- if {condition} }}}}\n{yaml}{{{{- end }}}}\n"),
            None => yaml,
        };
        if converts_by_webhook(object) {
            contents.insert_str(0, CONVERSION_GUARD);
        }
        Ok(ChartTemplate {
            path: format!("{area}/{suffix}.yaml"),
            contents,
        })
    }

    /// A placeholder word for `helm` text.
    fn placeholder(&mut self, helm: String, whole_line: bool) -> String {
        self.placeholders.push((whole_line, helm));
        format!("HELMPLACEHOLDER{}X", self.placeholders.len() - 1)
    }

    /// Replaces names, the namespace and the release labels in every string.
    fn replace_strings(&mut self, value: &mut Value, key: Option<&str>) {
        match value {
            Value::String(text) => {
                if let Some(helm) = self.helm_text(text, key) {
                    *text = self.placeholder(helm, false);
                }
            }
            Value::Sequence(items) => {
                for item in items {
                    self.replace_strings(item, key);
                }
            }
            Value::Mapping(map) => {
                for (k, v) in map.iter_mut() {
                    self.replace_strings(v, k.as_str());
                }
            }
            Value::Tagged(tagged) => self.replace_strings(&mut tagged.value, key),
            _ => {}
        }
    }

    /// The Helm text for the string `text` found under `key`, if it depends
    /// on the release.
    fn helm_text(&self, text: &str, key: Option<&str>) -> Option<String> {
        match key {
            Some("app.kubernetes.io/name") if format!("{text}-") == self.manifests.prefix => {
                return Some(format!("{{{{ include \"{}.name\" . }}}}", self.chart));
            }
            Some("app.kubernetes.io/managed-by") if text == "kustomize" => {
                return Some("{{ .Release.Service }}".to_string());
            }
            _ => {}
        }
        if let Some(helm) = self.name_or_namespace(text) {
            return Some(helm);
        }
        // `<namespace>/<name>` (CA injection), `<name>.<namespace>.svc` (DNS names).
        let mut changed = false;
        let mut out = String::new();
        for (i, piece) in text.split(['/', '.']).enumerate() {
            let separator = separator_before(text, i);
            out.push_str(separator);
            match self.name_or_namespace(piece) {
                Some(helm) => {
                    changed = true;
                    out.push_str(&helm);
                }
                None => out.push_str(piece),
            }
        }
        changed.then_some(out)
    }

    /// The Helm text for a whole name or the namespace.
    fn name_or_namespace(&self, text: &str) -> Option<String> {
        if text == self.manifests.namespace {
            return Some("{{ .Release.Namespace }}".to_string());
        }
        if self.manifests.service_account() == Some(text) {
            return Some(format!(
                "{{{{ include \"{}.serviceAccountName\" . }}}}",
                self.chart
            ));
        }
        let suffix = self.manifests.suffix(text)?;
        self.manifests
            .names(text)
            .then(|| resource_name(self.chart, suffix))
    }

    /// Adds the release's labels to the object's own labels.
    fn add_chart_labels(&mut self, value: &mut Value, object: &Object) {
        let Some(metadata) = value.get_mut("metadata").and_then(Value::as_mapping_mut) else {
            return;
        };
        let is_crd = object.kind == "CustomResourceDefinition";
        let labels = metadata
            .entry("labels".into())
            .or_insert_with(|| Value::Mapping(Mapping::new()));
        let Some(labels) = labels.as_mapping_mut() else {
            return;
        };
        let chart = "{{ .Chart.Name }}-{{ .Chart.Version | replace \"+\" \"_\" }}".to_string();
        let instance = "{{ .Release.Name }}".to_string();
        let chart = self.placeholder(chart, false);
        let instance = self.placeholder(instance, false);
        labels.insert("helm.sh/chart".into(), chart.into());
        labels.insert("app.kubernetes.io/instance".into(), instance.into());
        if is_crd && !labels.contains_key("app.kubernetes.io/managed-by") {
            let service = self.placeholder("{{ .Release.Service }}".to_string(), false);
            labels.insert("app.kubernetes.io/managed-by".into(), service.into());
        }
    }

    /// Adds the lines switched by values inside the object: a CRD's
    /// keep policy, the CA injection of webhook configurations, and the
    /// Role form of the manager's ClusterRole and its binding.
    fn add_switches(&mut self, value: &mut Value, object: &Object) {
        match object.kind.as_str() {
            "CustomResourceDefinition" => {
                let line =
                    "{{- if .Values.crd.keep }}\n\"helm.sh/resource-policy\": keep\n{{- end }}";
                self.add_line(value, &["metadata", "annotations"], line);
            }
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => {
                self.switch_ca_injection(value);
            }
            "ClusterRole" | "ClusterRoleBinding" if self.is_manager_rbac(object) => {
                self.switch_role_scope(value);
            }
            _ => {}
        }
    }

    fn is_manager_rbac(&self, object: &Object) -> bool {
        matches!(
            self.manifests.suffix(&object.name),
            Some("manager-role" | "manager-rolebinding")
        )
    }

    /// The CA injection annotation, kept only while cert-manager is enabled.
    fn switch_ca_injection(&mut self, value: &mut Value) {
        let key = Value::from("cert-manager.io/inject-ca-from");
        let annotations = value
            .get_mut("metadata")
            .and_then(|m| m.get_mut("annotations"))
            .and_then(Value::as_mapping_mut);
        let Some(injected) = annotations.and_then(|a| a.remove(&key)) else {
            return;
        };
        let Some(text) = injected.as_str() else {
            return;
        };
        let text = self.fill(text);
        let line = format!(
            "{{{{- if .Values.certManager.enabled }}}}\ncert-manager.io/inject-ca-from: {text}\n{{{{- end }}}}"
        );
        self.add_line(value, &["metadata", "annotations"], &line);
    }

    /// `rbac.namespaced`: the manager's rules as a Role in the release
    /// namespace, bound by a RoleBinding, instead of cluster-wide.
    fn switch_role_scope(&mut self, value: &mut Value) {
        let scoped = |kind: &str| {
            format!(
                "{{{{ if .Values.rbac.namespaced }}}}{kind}{{{{ else }}}}Cluster{kind}{{{{ end }}}}"
            )
        };
        for path in [&["kind"][..], &["roleRef", "kind"][..]] {
            let Some(kind) = super::manifests::text_at(value, path).map(str::to_string) else {
                continue;
            };
            let Some(short) = kind.strip_prefix("Cluster") else {
                continue;
            };
            let helm = scoped(short);
            let word = self.placeholder(helm, false);
            let (last, parents) = path.split_last().unwrap_or((&"kind", &[]));
            let parent = parents.iter().try_fold(&mut *value, |v, k| v.get_mut(*k));
            if let Some(map) = parent.and_then(Value::as_mapping_mut) {
                map.insert((*last).into(), word.into());
            }
        }
        let line =
            "{{- if .Values.rbac.namespaced }}\nnamespace: {{ .Release.Namespace }}\n{{- end }}";
        self.add_line(value, &["metadata"], line);
    }

    /// Adds a whole-line placeholder to the mapping at `path` (created if
    /// missing), which becomes `lines` at that mapping's indentation.
    fn add_line(&mut self, value: &mut Value, path: &[&str], lines: &str) {
        let word = self.placeholder(lines.to_string(), true);
        let mut target = value;
        for key in path {
            let Some(map) = target.as_mapping_mut() else {
                return;
            };
            target = map
                .entry((*key).into())
                .or_insert_with(|| Value::Mapping(Mapping::new()));
            if target.is_null() {
                *target = Value::Mapping(Mapping::new());
            }
        }
        if let Some(map) = target.as_mapping_mut() {
            map.insert(word.into(), Value::Null);
        }
    }

    /// Swaps the placeholders in `yaml` for their Helm text.
    fn fill(&self, yaml: &str) -> String {
        let mut out = String::with_capacity(yaml.len());
        for line in yaml.split_inclusive('\n') {
            out.push_str(&self.fill_line(line));
        }
        out
    }

    fn fill_line(&self, line: &str) -> String {
        for (n, (whole, helm)) in self.placeholders.iter().enumerate().rev() {
            let word = format!("HELMPLACEHOLDER{n}X");
            if !line.contains(&word) {
                continue;
            }
            if *whole {
                let indent = &line[..line.len() - line.trim_start().len()];
                return helm.lines().map(|l| format!("{indent}{l}\n")).collect();
            }
            return self.fill_line(&line.replace(&word, helm));
        }
        line.to_string()
    }
}

/// The separator in `text` before its `index`-th piece split at `/` and `.`.
fn separator_before(text: &str, index: usize) -> &str {
    if index == 0 {
        return "";
    }
    let mut seen = 0;
    for (at, c) in text.char_indices() {
        if c == '/' || c == '.' {
            seen += 1;
            if seen == index {
                return &text[at..at + 1];
            }
        }
    }
    ""
}

/// The `resourceName` helper for a kustomize name suffix.
pub(super) fn resource_name(chart: &str, suffix: &str) -> String {
    format!(
        "{{{{ include \"{chart}.resourceName\" (dict \"suffix\" \"{suffix}\" \"context\" $) }}}}"
    )
}

/// The folder of `templates/` an object goes to, after the `config/` folder
/// kustomize/v2 scaffolds it in.
fn area(object: &Object, manifests: &Manifests) -> &'static str {
    let suffix = manifests.suffix(&object.name).unwrap_or_default();
    match object.kind.as_str() {
        "CustomResourceDefinition" => "crd",
        "ServiceAccount" | "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" => "rbac",
        "Certificate" | "Issuer" | "ClusterIssuer" => "cert-manager",
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => "webhook",
        "Service" if suffix.contains("webhook") => "webhook",
        "Service" if suffix.contains("metrics") => "metrics",
        "ServiceMonitor" => "prometheus",
        "NetworkPolicy" => "network-policy",
        _ => "extra",
    }
}

/// Refuses to render a CRD whose versions a webhook converts while the
/// webhook server is switched off: the API server could not serve it.
const CONVERSION_GUARD: &str = "{{- if and .Values.crd.enabled (not .Values.webhook.enabled) }}\n{{- fail \"a CRD converted by a webhook needs webhook.enabled=true\" }}\n{{- end }}\n";

/// Whether `object` is a CRD converted by the manager's webhook.
pub(super) fn converts_by_webhook(object: &Object) -> bool {
    object.kind == "CustomResourceDefinition"
        && text_at(&object.value, &["spec", "conversion", "strategy"]) == Some("Webhook")
}

/// The values that switch an object on, as a Helm condition.
fn condition(object: &Object, manifests: &Manifests) -> Option<&'static str> {
    let suffix = manifests.suffix(&object.name).unwrap_or_default();
    let metrics_auth = [
        "metrics-auth-role",
        "metrics-auth-rolebinding",
        "metrics-reader",
    ];
    let helper_role = ["-admin-role", "-editor-role", "-viewer-role"];
    Some(match area(object, manifests) {
        "crd" => ".Values.crd.enabled",
        "rbac" if object.kind == "ServiceAccount" => "ne .Values.serviceAccount.enabled false",
        "rbac" if metrics_auth.contains(&suffix) => {
            "and .Values.metrics.enabled .Values.metrics.secure"
        }
        "rbac" if helper_role.iter().any(|end| suffix.ends_with(end)) => {
            ".Values.rbac.helpers.enabled"
        }
        "cert-manager" if suffix.contains("metrics") => {
            "and .Values.certManager.enabled .Values.metrics.enabled .Values.metrics.secure"
        }
        "cert-manager" if suffix == "serving-cert" => {
            "and .Values.certManager.enabled .Values.webhook.enabled"
        }
        "cert-manager" => ".Values.certManager.enabled",
        "webhook" => ".Values.webhook.enabled",
        "metrics" => ".Values.metrics.enabled",
        "prometheus" => ".Values.prometheus.enabled",
        "network-policy" if suffix.contains("webhook") => {
            "and .Values.networkPolicy.enabled .Values.webhook.enabled"
        }
        "network-policy" if suffix == "allow-metrics-traffic" => {
            "and .Values.networkPolicy.enabled .Values.metrics.enabled"
        }
        "network-policy" => ".Values.networkPolicy.enabled",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "apiVersion: v1
kind: ServiceAccount
metadata:
  labels:
    app.kubernetes.io/managed-by: kustomize
    app.kubernetes.io/name: shop
  name: shop-controller-manager
  namespace: shop-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: shop-manager-rolebinding
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: shop-manager-role
subjects:
- kind: ServiceAccount
  name: shop-controller-manager
  namespace: shop-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: shop-manager-role
rules: []
---
apiVersion: v1
kind: Service
metadata:
  name: shop-webhook-service
  namespace: shop-system
spec:
  ports:
  - port: 443
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  annotations:
    cert-manager.io/inject-ca-from: shop-system/shop-serving-cert
  name: shop-validating-webhook-configuration
webhooks:
- clientConfig:
    service:
      name: shop-webhook-service
      namespace: shop-system
      path: /validate
  name: vcart.kb.io
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: shop-serving-cert
  namespace: shop-system
spec:
  dnsNames:
  - shop-webhook-service.shop-system.svc
  secretName: webhook-server-cert
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    control-plane: controller-manager
  name: shop-controller-manager
  namespace: shop-system
spec:
  template:
    spec:
      serviceAccountName: shop-controller-manager
";

    fn chart() -> Vec<ChartTemplate> {
        let manifests = Manifests::parse(OUTPUT, "dist/install.yaml").unwrap();
        templates(&manifests, "shop").unwrap()
    }

    fn template(path: &str) -> String {
        chart()
            .into_iter()
            .find(|t| t.path == path)
            .unwrap_or_else(|| panic!("no {path}"))
            .contents
    }

    #[test]
    fn objects_go_to_the_folders_of_their_area() {
        let paths: Vec<String> = chart().into_iter().map(|t| t.path).collect();
        assert_eq!(
            paths,
            [
                "rbac/controller-manager.yaml",
                "rbac/manager-rolebinding.yaml",
                "rbac/manager-role.yaml",
                "webhook/webhook-service.yaml",
                "webhook/validating-webhook-configuration.yaml",
                "cert-manager/serving-cert.yaml",
            ]
        );
    }

    #[test]
    fn names_and_namespace_follow_the_release() {
        let binding = template("rbac/manager-rolebinding.yaml");
        assert!(binding.contains("name: {{ include \"shop.serviceAccountName\" . }}\n"));
        assert!(binding.contains("namespace: {{ .Release.Namespace }}\n"));
        assert!(binding.contains(
            "name: {{ include \"shop.resourceName\" (dict \"suffix\" \"manager-role\" \"context\" $) }}"
        ));
        assert!(!binding.contains("shop-"), "{binding}");
        let cert = template("cert-manager/serving-cert.yaml");
        assert!(
            cert.starts_with("{{- if and .Values.certManager.enabled .Values.webhook.enabled }}\n")
        );
        assert!(cert.contains(
            "- {{ include \"shop.resourceName\" (dict \"suffix\" \"webhook-service\" \"context\" $) }}.{{ .Release.Namespace }}.svc\n"
        ));
        assert!(cert.contains("secretName: webhook-server-cert"));
    }

    #[test]
    fn values_switch_lines_inside_objects() {
        let webhook = template("webhook/validating-webhook-configuration.yaml");
        assert!(webhook.starts_with("{{- if .Values.webhook.enabled }}\n"));
        assert!(webhook.contains(
            "  annotations:\n    {{- if .Values.certManager.enabled }}\n    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include \"shop.resourceName\" (dict \"suffix\" \"serving-cert\" \"context\" $) }}\n    {{- end }}\n"
        ), "{webhook}");
        let role = template("rbac/manager-role.yaml");
        assert!(role.contains(
            "kind: {{ if .Values.rbac.namespaced }}Role{{ else }}ClusterRole{{ end }}\n"
        ));
        assert!(role.contains("  {{- if .Values.rbac.namespaced }}\n  namespace: {{ .Release.Namespace }}\n  {{- end }}\n"), "{role}");
        let account = template("rbac/controller-manager.yaml");
        assert!(account.contains("app.kubernetes.io/name: {{ include \"shop.name\" . }}"));
        assert!(account.contains("app.kubernetes.io/managed-by: {{ .Release.Service }}"));
    }
}
