//! The project's kustomize output (`make build-installer`'s
//! `dist/install.yaml`), read as the objects a chart must hold.
//!
//! kustomize/v2's `config/default` names every object `<prefix><name>`
//! (its `namePrefix`, the project name and a dash) and puts the namespaced
//! ones in one namespace. The manager's Deployment (`<prefix>controller-manager`,
//! labelled `control-plane: controller-manager`) gives away both; the chart
//! replaces them with the release's names and namespace.

use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use serde_norway::Value;

/// The label kustomize/v2 gives the manager's Deployment and Pods.
const MANAGER_LABEL: (&str, &str) = ("control-plane", "controller-manager");

/// The Pod annotation naming the container `kubectl` picks by default.
pub const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

/// One object of the kustomize output.
#[derive(Debug, Clone)]
pub struct Object {
    /// `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// The whole object.
    pub value: Value,
}

/// The kustomize output of a project.
#[derive(Debug, Clone)]
pub struct Manifests {
    /// Every object but the manager's Deployment and the Namespace, in file order.
    pub objects: Vec<Object>,
    /// The manager's Deployment.
    pub manager: Value,
    /// The name prefix kustomize gave every object (`<project>-`).
    pub prefix: String,
    /// The namespace the namespaced objects are in.
    pub namespace: String,
}

impl Manifests {
    /// Reads the multi-document YAML `text` of the file `path` names.
    pub fn parse(text: &str, path: &str) -> Result<Self> {
        let mut documents = Vec::new();
        for document in serde_norway::Deserializer::from_str(text) {
            let value = Value::deserialize(document)
                .with_context(|| format!("{path} is not valid YAML"))?;
            if !value.is_null() {
                documents.push(value);
            }
        }
        let objects = documents
            .into_iter()
            .map(|value| object(value, path))
            .collect::<Result<Vec<_>>>()?;
        let position = manager_position(&objects, path)?;
        let mut objects = objects;
        let manager = objects.remove(position);
        let prefix = manager
            .name
            .strip_suffix("controller-manager")
            .unwrap_or_default()
            .to_string();
        let namespace = text_at(&manager.value, &["metadata", "namespace"])
            .unwrap_or("default")
            .to_string();
        objects.retain(|o| o.kind != "Namespace");
        Ok(Self {
            objects,
            manager: manager.value,
            prefix,
            namespace,
        })
    }

    /// `name` without the kustomize prefix, if it has it.
    pub fn suffix<'a>(&self, name: &'a str) -> Option<&'a str> {
        name.strip_prefix(self.prefix.as_str())
            .filter(|rest| !rest.is_empty())
    }

    /// Whether an object of `kind` is in the output.
    pub fn has_kind(&self, kind: &str) -> bool {
        self.objects.iter().any(|o| o.kind == kind)
    }

    /// The name of the manager's ServiceAccount, if the output has one.
    pub fn service_account(&self) -> Option<&str> {
        let name = text_at(
            &self.manager,
            &["spec", "template", "spec", "serviceAccountName"],
        )?;
        self.objects
            .iter()
            .any(|o| o.kind == "ServiceAccount" && o.name == name)
            .then_some(name)
    }

    /// Whether the object with `name` is in the output (so the chart names it).
    pub fn names(&self, name: &str) -> bool {
        self.objects.iter().any(|o| o.name == name)
    }
}

/// The string at `path` in `value`.
pub fn text_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    value_at(value, path)?.as_str()
}

/// The value at `path` in `value`.
pub fn value_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |value, key| value.get(*key))
}

/// Checks that a document is a Kubernetes object and names it.
fn object(value: Value, path: &str) -> Result<Object> {
    let kind = text_at(&value, &["kind"]);
    let name = text_at(&value, &["metadata", "name"]);
    let (Some(kind), Some(name)) = (kind, name) else {
        bail!(
            "{path} holds a document without kind and metadata.name: it must hold only Kubernetes objects"
        );
    };
    Ok(Object {
        kind: kind.to_string(),
        name: name.to_string(),
        value,
    })
}

/// Where the manager's Deployment is among `objects`, as kubebuilder finds
/// it: the only Deployment; else the first labelled
/// `control-plane: controller-manager`, naming a default container, with a
/// container named `manager`, or named `*controller-manager*`, in that order.
fn manager_position(objects: &[Object], path: &str) -> Result<usize> {
    let deployments: Vec<usize> = (0..objects.len())
        .filter(|&i| objects[i].kind == "Deployment")
        .collect();
    let (label, wanted) = MANAGER_LABEL;
    let tests: [&dyn Fn(&Object) -> bool; 4] = [
        &|o| text_at(&o.value, &["metadata", "labels", label]) == Some(wanted),
        &|o| {
            let path = [
                "spec",
                "template",
                "metadata",
                "annotations",
                DEFAULT_CONTAINER,
            ];
            text_at(&o.value, &path).is_some_and(|c| !c.is_empty())
        },
        &|o| has_manager_container(&o.value),
        &|o| o.name.contains("controller-manager"),
    ];
    match deployments.as_slice() {
        [] => bail!(
            "{path} has no manager Deployment (it holds no Deployment at all): give the output of `make build-installer` with --manifests"
        ),
        [only] => Ok(*only),
        several => tests
            .iter()
            .find_map(|test| several.iter().copied().find(|&i| test(&objects[i])))
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{path} has {} Deployments and none is recognisably the manager: label the manager's Deployment `{label}: {wanted}`",
                    several.len()
                )
            }),
    }
}

/// Whether a Deployment has a container named `manager`.
fn has_manager_container(deployment: &Value) -> bool {
    value_at(deployment, &["spec", "template", "spec", "containers"])
        .and_then(Value::as_sequence)
        .is_some_and(|containers| {
            containers
                .iter()
                .any(|c| text_at(c, &["name"]) == Some("manager"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "apiVersion: v1
kind: Namespace
metadata:
  name: shop-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop-controller-manager
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
  template:
    spec:
      serviceAccountName: shop-controller-manager
";

    #[test]
    fn the_manager_gives_the_prefix_and_the_namespace() {
        let manifests = Manifests::parse(OUTPUT, "dist/install.yaml").unwrap();
        assert_eq!(manifests.prefix, "shop-");
        assert_eq!(manifests.namespace, "shop-system");
        assert_eq!(
            manifests.objects.len(),
            1,
            "the Namespace and Deployment are set apart"
        );
        assert_eq!(manifests.service_account(), Some("shop-controller-manager"));
        assert_eq!(
            manifests.suffix("shop-webhook-service"),
            Some("webhook-service")
        );
        assert_eq!(manifests.suffix("frigates.ship.example.com"), None);
    }

    #[test]
    fn output_without_a_manager_is_refused() {
        let error = Manifests::parse("kind: ConfigMap\nmetadata: {name: x}\n", "m.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("m.yaml has no manager Deployment"),
            "{error}"
        );
        let error = Manifests::parse("just: text\n", "m.yaml")
            .unwrap_err()
            .to_string();
        assert!(error.contains("without kind"), "{error}");
    }
}
