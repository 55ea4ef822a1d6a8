//! The chart's default values, read from the kustomize output: the
//! manager's image, replicas, arguments, environment, resources and
//! security contexts as `config/manager` and its patches set them, and
//! which parts (metrics, webhooks, cert-manager) the output holds.

use super::manifests::{DEFAULT_CONTAINER, Manifests, text_at, value_at};
use super::objects::{converts_by_webhook, resource_name};
use anyhow::Result;
use serde::Serialize;
use serde_norway::Value;

/// Arguments the chart's manager template sets from values itself.
const TEMPLATED_ARGS: &[&str] = &[
    "--metrics-bind-address",
    "--metrics-secure",
    "--health-probe-bind-address",
    "--webhook-port",
    "--webhook-cert-path",
    "--metrics-cert-path",
];

/// Port the kustomize/v2 manager serves metrics on.
const DEFAULT_METRICS_PORT: u16 = 8443;

/// Port the kustomize/v2 manager serves webhooks on.
const DEFAULT_WEBHOOK_PORT: u16 = 9443;

/// Port the kustomize/v2 manager serves its health probes on.
const DEFAULT_HEALTH_PROBE_PORT: u16 = 8081;

/// What values.yaml and the manager template are rendered with.
#[derive(Debug, Clone, Serialize)]
pub struct Values {
    /// Image repository, without the tag.
    pub repository: String,
    /// Image tag; empty (also for `latest`, as kubebuilder) for the chart's appVersion.
    pub tag: String,
    /// `imagePullPolicy`.
    pub pull_policy: String,
    /// `replicas`.
    pub replicas: u64,
    /// The manager's own arguments (each as YAML text).
    pub args: Vec<String>,
    /// The container's `env`, as YAML block text (as are the next three).
    pub env: Option<String>,
    /// `resources`.
    pub resources: Option<String>,
    /// The Pod's `securityContext`.
    pub pod_security_context: Option<String>,
    /// The container's `securityContext`.
    pub security_context: Option<String>,
    /// `terminationGracePeriodSeconds`.
    pub termination_grace_period: Option<u64>,
    /// Port of the liveness and readiness probes.
    pub health_probe_port: u16,
    /// The output serves metrics (a metrics Service exists).
    pub metrics: bool,
    /// Metrics port.
    pub metrics_port: u16,
    /// Metrics over HTTPS with authentication.
    pub metrics_secure: bool,
    /// The manager mounts a metrics certificate from cert-manager.
    pub metrics_certs: bool,
    /// The output has webhook configurations.
    pub webhook: bool,
    /// Webhook server port.
    pub webhook_port: u16,
    /// The manager is given `--webhook-port` (v4.16's kustomize output); the
    /// chart then passes it too, and older managers never see it.
    pub webhook_port_flag: bool,
    /// The output has cert-manager objects.
    pub cert_manager: bool,
    /// The output has a ServiceMonitor.
    pub prometheus: bool,
    /// The output has network policies.
    pub network_policy: bool,
}

impl Values {
    /// The values the kustomize output `manifests` stands for, in the chart
    /// `chart` (its helpers' prefix).
    pub fn from_manifests(manifests: &Manifests, chart: &str) -> Result<Self> {
        let pod = value_at(&manifests.manager, &["spec", "template", "spec"]);
        let wanted = text_at(
            &manifests.manager,
            &[
                "spec",
                "template",
                "metadata",
                "annotations",
                DEFAULT_CONTAINER,
            ],
        )
        .filter(|name| !name.is_empty())
        .unwrap_or("manager");
        let container = pod
            .and_then(|p| p.get("containers"))
            .and_then(Value::as_sequence)
            .and_then(|containers| {
                containers
                    .iter()
                    .find(|c| text_at(c, &["name"]) == Some(wanted))
                    .or(containers.first())
            });
        let empty = Value::Null;
        let container = container.unwrap_or(&empty);
        let (repository, tag) = split_image(text_at(container, &["image"]).unwrap_or("controller"));
        let args = string_list(container.get("args"));
        let metrics_address = flag_value(&args, "--metrics-bind-address");
        let metrics_port = address_port(metrics_address).unwrap_or(DEFAULT_METRICS_PORT);
        let webhook_flag = flag_value(&args, "--webhook-port");
        Ok(Self {
            repository,
            tag: if tag == "latest" { String::new() } else { tag },
            pull_policy: text_at(container, &["imagePullPolicy"])
                .unwrap_or("IfNotPresent")
                .to_string(),
            replicas: value_at(&manifests.manager, &["spec", "replicas"])
                .and_then(Value::as_u64)
                .unwrap_or(1),
            args: own_args(&args)?,
            env: yaml_block(release_env(container.get("env"), manifests, chart).as_ref())?,
            resources: yaml_block(container.get("resources"))?,
            pod_security_context: yaml_block(pod.and_then(|p| p.get("securityContext")))?,
            security_context: yaml_block(container.get("securityContext"))?,
            termination_grace_period: pod
                .and_then(|p| p.get("terminationGracePeriodSeconds"))
                .and_then(Value::as_u64),
            health_probe_port: address_port(flag_value(&args, "--health-probe-bind-address"))
                .unwrap_or(DEFAULT_HEALTH_PROBE_PORT),
            metrics: metrics_address != Some("0") && has_service(manifests, "metrics"),
            metrics_port,
            metrics_secure: flag_value(&args, "--metrics-secure") != Some("false"),
            metrics_certs: flag_value(&args, "--metrics-cert-path").is_some(),
            webhook: manifests.has_kind("ValidatingWebhookConfiguration")
                || manifests.has_kind("MutatingWebhookConfiguration")
                || has_service(manifests, "webhook")
                || manifests.objects.iter().any(converts_by_webhook),
            webhook_port: webhook_flag
                .and_then(|port| port.parse().ok())
                .filter(|&port| port > 0)
                .or_else(|| webhook_container_port(container))
                .or_else(|| webhook_target_port(manifests))
                .unwrap_or(DEFAULT_WEBHOOK_PORT),
            webhook_port_flag: webhook_flag.is_some(),
            cert_manager: manifests.has_kind("Certificate"),
            prometheus: manifests.has_kind("ServiceMonitor"),
            network_policy: manifests.has_kind("NetworkPolicy"),
        })
    }
}

/// `repository:tag` split at the tag; a digest stays in the repository.
fn split_image(image: &str) -> (String, String) {
    if image.contains('@') {
        return (image.to_string(), String::new());
    }
    match image.rsplit_once(':') {
        Some((repository, tag)) if !tag.contains('/') => (repository.to_string(), tag.to_string()),
        _ => (image.to_string(), String::new()),
    }
}

/// The strings of a YAML list.
fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_sequence)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The value of `--flag=value` among `args`.
fn flag_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .find_map(|arg| arg.strip_prefix(flag)?.strip_prefix('='))
}

/// The arguments the chart does not set itself, each as a YAML scalar.
fn own_args(args: &[String]) -> Result<Vec<String>> {
    args.iter()
        .filter(|arg| {
            let name = arg.split('=').next().unwrap_or_default();
            !TEMPLATED_ARGS.contains(&name)
        })
        .map(|arg| Ok(serde_norway::to_string(arg)?.trim_end().to_string()))
        .collect()
}

/// Whether the output has a Service whose name holds `part`.
fn has_service(manifests: &Manifests, part: &str) -> bool {
    manifests
        .objects
        .iter()
        .any(|o| o.kind == "Service" && o.name.contains(part))
}

/// The port of an address such as `:8081` or `127.0.0.1:8081`.
fn address_port(address: Option<&str>) -> Option<u16> {
    address?.rsplit(':').next()?.parse().ok()
}

/// The container port named `webhook-server`.
fn webhook_container_port(container: &Value) -> Option<u16> {
    container
        .get("ports")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .find(|port| text_at(port, &["name"]) == Some("webhook-server"))
        .and_then(|port| port.get("containerPort")?.as_u64())
        .and_then(|port| u16::try_from(port).ok())
}

/// The numeric `targetPort` of the webhook Service: the Pod port the
/// webhook server listens on (the Service itself is reached on 443).
fn webhook_target_port(manifests: &Manifests) -> Option<u16> {
    let service = manifests
        .objects
        .iter()
        .find(|o| o.kind == "Service" && o.name.ends_with("webhook-service"))?;
    let port = value_at(&service.value, &["spec", "ports"])?
        .as_sequence()?
        .first()?;
    port.get("targetPort")
        .or_else(|| port.get("port"))?
        .as_u64()
        .and_then(|port| u16::try_from(port).ok())
}

/// The container's `env` with each value that names an object of the
/// output (`<prefix><suffix>`, e.g. the Secret webhook-certs/v1-alpha's
/// manager keeps its certificates in) as the chart names that object: the
/// `resourceName` helper, which the manager template renders with `tpl`.
/// So a release of any name finds its own objects.
fn release_env(env: Option<&Value>, manifests: &Manifests, chart: &str) -> Option<Value> {
    let mut env = env?.clone();
    for variable in env.as_sequence_mut().into_iter().flatten() {
        let Some(value) = variable.get_mut("value") else {
            continue;
        };
        let named = value.as_str().and_then(|text| {
            let object = manifests.objects.iter().any(|o| o.name == text);
            manifests.suffix(text).filter(|_| object)
        });
        if let Some(suffix) = named {
            *value = Value::String(resource_name(chart, suffix));
        }
    }
    Some(env)
}

/// A non-empty YAML value as block text, without its last newline.
fn yaml_block(value: Option<&Value>) -> Result<Option<String>> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let empty = value.as_mapping().is_some_and(|m| m.is_empty())
        || value.as_sequence().is_some_and(|s| s.is_empty());
    if empty {
        return Ok(None);
    }
    Ok(Some(serde_norway::to_string(value)?.trim_end().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "apiVersion: v1
kind: Service
metadata:
  name: shop-controller-manager-metrics-service
  namespace: shop-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    control-plane: controller-manager
  name: shop-controller-manager
  namespace: shop-system
spec:
  replicas: 2
  template:
    spec:
      containers:
      - args:
        - --metrics-bind-address=:8080
        - --metrics-secure=false
        - --leader-elect
        - --health-probe-bind-address=:8081
        env:
        - name: MODE
          value: fast
        image: example.com/shop:v1.2.3
        name: manager
        resources:
          limits:
            cpu: 500m
";

    /// The values read from the kustomize output `output`.
    fn values_of(output: &str) -> Values {
        let manifests = Manifests::parse(output, "dist/install.yaml").unwrap();
        Values::from_manifests(&manifests, "shop").unwrap()
    }

    #[test]
    fn values_come_from_the_manager_deployment() {
        let values = values_of(OUTPUT);
        assert_eq!(
            (values.repository.as_str(), values.tag.as_str()),
            ("example.com/shop", "v1.2.3")
        );
        assert_eq!(values.replicas, 2);
        assert_eq!(values.args, ["--leader-elect"]);
        assert_eq!(values.env.as_deref(), Some("- name: MODE\n  value: fast"));
        assert_eq!(values.resources.as_deref(), Some("limits:\n  cpu: 500m"));
        assert!(values.metrics && !values.metrics_secure);
        assert_eq!(values.metrics_port, 8080);
        assert!(!values.webhook && !values.cert_manager);
        assert_eq!(values.pull_policy, "IfNotPresent");
    }

    #[test]
    fn the_webhook_port_is_the_webhook_services_target_port_without_a_container_port() {
        let service = "---
apiVersion: v1
kind: Service
metadata:
  name: shop-webhook-service
  namespace: shop-system
spec:
  ports:
  - port: 443
    targetPort: 9666
";
        let values = values_of(&format!("{OUTPUT}{service}"));
        assert!(values.webhook && !values.webhook_port_flag);
        assert_eq!(values.webhook_port, 9666);
        assert_eq!(values.health_probe_port, 8081);
        let named = service.replace("targetPort: 9666", "targetPort: webhook-server");
        let values = values_of(&format!("{OUTPUT}{named}"));
        assert_eq!(values.webhook_port, DEFAULT_WEBHOOK_PORT);
    }

    #[test]
    fn an_env_value_naming_an_object_of_the_output_follows_the_release() {
        let output = OUTPUT.replace(
            "        - name: MODE\n          value: fast\n",
            "        - name: MODE\n          value: fast\n        - name: WEBHOOK_SERVICE\n          value: shop-webhook-service\n        - name: OTHER\n          value: shop-elsewhere\n",
        );
        let service = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: shop-webhook-service\n  namespace: shop-system\n";
        let env = values_of(&format!("{output}{service}")).env.unwrap();
        assert!(
            env.contains("value: '{{ include \"shop.resourceName\" (dict \"suffix\" \"webhook-service\" \"context\" $) }}'"),
            "{env}"
        );
        // Not an object's name: kept as it is; so is one without the prefix.
        assert!(env.contains("value: shop-elsewhere"), "{env}");
        assert!(env.contains("value: fast"), "{env}");
    }

    #[test]
    fn a_latest_tag_is_left_to_the_charts_app_version() {
        let output = OUTPUT.replace("example.com/shop:v1.2.3", "controller:latest");
        let values = values_of(&output);
        assert_eq!(
            (values.repository.as_str(), values.tag.as_str()),
            ("controller", "")
        );
    }

    #[test]
    fn the_manager_container_is_the_pods_default_container() {
        let output = OUTPUT.replace(
            "  template:\n    spec:\n      containers:\n",
            "  template:\n    metadata:\n      annotations:\n        kubectl.kubernetes.io/default-container: operator\n    spec:\n      containers:\n      - name: proxy\n        image: example.com/proxy:v9\n      - name: operator\n        image: example.com/op:v2\n",
        );
        let values = values_of(&output);
        assert_eq!(
            (values.repository.as_str(), values.tag.as_str()),
            ("example.com/op", "v2")
        );
    }

    #[test]
    fn images_split_at_the_tag_only() {
        assert_eq!(
            split_image("reg:5000/a/b"),
            ("reg:5000/a/b".into(), String::new())
        );
        assert_eq!(
            split_image("reg:5000/a/b:v1"),
            ("reg:5000/a/b".into(), "v1".into())
        );
        assert_eq!(
            split_image("a@sha256:00"),
            ("a@sha256:00".into(), String::new())
        );
    }
}
