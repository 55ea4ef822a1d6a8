//! `kustomize.common.kubebuilder.io/v2` (short `kustomize/v2`): the
//! deployment manifests under `config/`, as kubebuilder's kustomize/v2
//! plugin lays them out. It knows nothing of the project's language, so
//! every layout whose manager reads the same flags can reuse it, and
//! `init --plugins kustomize/v2` alone writes PROJECT and `config/` only.

mod manager_env;

use super::{
    ApiContext, CreateApiHook, CreateWebhookHook, EditContext, EditHook, InitContext, InitHook,
    ManifestsLayout, Output, Plugin, Role, WebhookContext,
};
use crate::machinery::rewrite::{self, Rewrite, read_if_present};
use crate::machinery::{Change, Context, Fragments, Source, Templates};
use crate::project::ProjectFile;
use crate::resource::Resource;
use anyhow::{Result, bail};
use std::path::Path;

/// The plugin's key.
pub const KEY: &str = "kustomize.common.kubebuilder.io/v2";

/// Folder of this plugin's templates under `scaffolds/`.
const TEMPLATE_DIR: &str = "kustomize/v2";

/// Files of `init` whose content depends on `namespaced`, relative to the
/// project root (their templates are `init/<path>.jinja`).
const NAMESPACE_DEPENDENT: &[&str] = &[
    "config/manager/manager.yaml",
    "config/rbac/role.yaml",
    "config/rbac/role_binding.yaml",
];

/// The manager's Deployment, whose environment other plugins extend.
const MANAGER_PATH: &str = "config/manager/manager.yaml";

/// The variable that limits a namespaced manager to its namespace.
const WATCH_NAMESPACE: &str = "WATCH_NAMESPACE";

/// The line init writes above a namespaced manager's `env` list.
const WATCH_NAMESPACE_COMMENT: &str =
    "        # The manager only watches the namespace it is deployed in.\n";

/// The manager's RBAC rules: the init placeholder, or controller-gen's output.
const ROLE_PATH: &str = "config/rbac/role.yaml";

/// The kustomize/v2 plugin.
pub struct Kustomize;

impl Plugin for Kustomize {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("kustomize/v2")
    }

    fn role(&self) -> Role {
        Role::Manifests
    }

    joins!(
        init: InitHook,
        create_api: CreateApiHook,
        create_webhook: CreateWebhookHook,
        edit: EditHook,
        manifests_layout: ManifestsLayout,
    );
}

impl InitHook for Kustomize {
    fn plan(&self, ctx: &InitContext, project: &ProjectFile, out: &mut Output) -> Result<()> {
        let templates = Templates::load(TEMPLATE_DIR, &["init"])?;
        let mut context = base_context(project);
        context.insert("cert_manager", &ctx.chain.cert_manager_for_webhooks());
        templates.plan_tree("init", &context, &[], &mut out.plan)
    }
}

impl CreateApiHook for Kustomize {
    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        if !ctx.options.resource {
            return Ok(());
        }
        let templates = Templates::load(TEMPLATE_DIR, &["create-api"])?;
        let fragments = Fragments::load(TEMPLATE_DIR, "create-api")?;
        let (context, group_prefix) = resource_context(ctx.project, ctx.resource);
        let vars = [
            ("group", ctx.resource.group.as_str()),
            ("version", ctx.resource.version.as_str()),
            ("kind", ctx.resource.kind_lower.as_str()),
            ("group_prefix", group_prefix.as_str()),
        ];
        templates.plan_tree("create-api/resource", &context, &vars, &mut out.plan)?;
        fragments.plan("resource", &templates, &context, &vars, &mut out.plan)
    }
}

impl CreateWebhookHook for Kustomize {
    fn plan(&self, ctx: &WebhookContext, out: &mut Output) -> Result<()> {
        let templates = Templates::load(TEMPLATE_DIR, &["create-webhook"])?;
        let fragments = Fragments::load(TEMPLATE_DIR, "create-webhook")?;
        let (mut context, group_prefix) = resource_context(ctx.project, ctx.resource);
        context.insert("manager_webhook_port", &ctx.manager_webhook_port);
        let vars = [
            ("group_prefix", group_prefix.as_str()),
            ("plural", ctx.resource.plural.as_str()),
        ];
        let cert_manager = ctx.chain.cert_manager_for_webhooks();
        templates.plan_tree("create-webhook/webhook", &context, &vars, &mut out.plan)?;
        if cert_manager {
            templates.plan_tree(
                "create-webhook/cert-manager",
                &context,
                &vars,
                &mut out.plan,
            )?;
        }
        if ctx.options.conversion {
            templates.plan_tree("create-webhook/conversion", &context, &vars, &mut out.plan)?;
        }
        let options = ctx.options;
        let groups = [
            (true, "common"),
            (options.defaulting, "defaulting"),
            (options.validation, "validation"),
            (options.conversion, "conversion"),
            (cert_manager, "cert-manager"),
            (
                cert_manager && options.defaulting,
                "cert-manager-defaulting",
            ),
            (
                cert_manager && options.validation,
                "cert-manager-validation",
            ),
            (
                cert_manager && options.conversion,
                "cert-manager-conversion",
            ),
        ];
        for (_, group) in groups.iter().filter(|(wanted, _)| *wanted) {
            fragments.plan(group, &templates, &context, &vars, &mut out.plan)?;
        }
        Ok(())
    }
}

impl EditHook for Kustomize {
    /// Settings reach `config/` through [`EditHook::namespace_rewrites`]
    /// only; the plugin is never added to a project by `edit`.
    fn plan(&self, _ctx: &EditContext, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn namespace_rewrites(
        &self,
        files: Source,
        project: &ProjectFile,
        namespaced: bool,
    ) -> Result<Vec<Rewrite>> {
        let namespace = format!(
            "{}-system",
            project.project_name.as_deref().unwrap_or_default()
        );
        let context_in = |namespaced: bool| {
            let mut mode = project.clone();
            mode.namespaced = namespaced.then_some(true);
            base_context(&mode)
        };
        let (from, to) = (context_in(!namespaced), context_in(namespaced));
        rewrite::init_template_rewrites(
            TEMPLATE_DIR,
            NAMESPACE_DEPENDENT,
            files,
            (&from, &to),
            |path, current| match path {
                ROLE_PATH => Some(switch_generated_role(current, namespaced, &namespace)),
                MANAGER_PATH => Some(switch_watch_namespace(current, namespaced)),
                _ => None,
            },
        )
    }
}

impl ManifestsLayout for Kustomize {
    fn plan_manager_env(
        &self,
        files: Source,
        name: &str,
        value: &str,
        by: &str,
        out: &mut Output,
    ) -> Result<()> {
        let path = Path::new(MANAGER_PATH);
        let Some(text) = read_if_present(files, path)? else {
            bail!(
                "{MANAGER_PATH} does not exist, and {by} passes {name} to the manager there: restore it (the kustomize/v2 plugin writes it on init)"
            );
        };
        let text = text.replace("\r\n", "\n");
        let contents = manager_env::with_env_var(&text, name, value)?;
        out.plan.push(Change::Write {
            path: path.into(),
            contents,
        });
        Ok(())
    }
}

/// The variables every kustomize/v2 template gets, from PROJECT.
fn base_context(project: &ProjectFile) -> Context {
    let mut context = Context::new();
    context.insert(
        "project_name",
        project.project_name.as_deref().unwrap_or_default(),
    );
    context.insert("multigroup", &(project.multigroup == Some(true)));
    context.insert("namespaced", &(project.namespaced == Some(true)));
    // Whether cert-manager gives the webhook server its certificate; `init`
    // asks the chain.
    context.insert("cert_manager", &true);
    context
}

/// The context of a resource's templates, and the prefix of its role and
/// CRD conversion patch file names (`<group>_` in multigroup projects).
fn resource_context(project: &ProjectFile, resource: &Resource) -> (Context, String) {
    let mut context = base_context(project);
    let group_prefix = if project.multigroup == Some(true) && !resource.group.is_empty() {
        format!("{}_", resource.group)
    } else {
        String::new()
    };
    context.insert("resource", resource);
    context.insert("group_prefix", &group_prefix);
    (context, group_prefix)
}

/// Adds or removes `WATCH_NAMESPACE` in the manager's environment, for a
/// manager.yaml whose `env` list holds more (deploy-image's images).
fn switch_watch_namespace(text: &str, namespaced: bool) -> Result<String, String> {
    let switched = if namespaced {
        let from_namespace = [
            "valueFrom:",
            "  fieldRef:",
            "    fieldPath: metadata.namespace",
        ];
        manager_env::with_env_item(text, WATCH_NAMESPACE, &from_namespace)
    } else {
        // The comment init writes above a namespaced manager's list goes too.
        manager_env::without_env_item(text, WATCH_NAMESPACE)
            .map(|text| text.replace(WATCH_NAMESPACE_COMMENT, ""))
    };
    switched.map_err(|e| e.to_string())
}

/// Switches controller-gen's output for the manager role between a
/// ClusterRole and a Role in `namespace` (its first document only).
fn switch_generated_role(text: &str, namespaced: bool, namespace: &str) -> Result<String, String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let kind_at = lines
        .iter()
        .position(|line| line.starts_with("kind:"))
        .filter(|&i| matches!(lines[i].trim_end(), "kind: ClusterRole" | "kind: Role"))
        .ok_or("it holds neither the scaffolded role nor controller-gen's ClusterRole or Role")?;
    let name_at = lines[kind_at..]
        .iter()
        .position(|line| line.trim_end() == "  name: manager-role")
        .map(|i| i + kind_at)
        .ok_or("its first document has no `  name: manager-role`")?;
    let namespace_line = format!("  namespace: {namespace}\n");
    let has_namespace = lines.get(name_at + 1) == Some(&namespace_line.as_str());
    lines[kind_at] = if namespaced {
        "kind: Role\n"
    } else {
        "kind: ClusterRole\n"
    };
    match (namespaced, has_namespace) {
        (true, false) => lines.insert(name_at + 1, &namespace_line),
        (false, true) => {
            lines.remove(name_at + 1);
        }
        _ => {}
    }
    Ok(lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_listed_init_files_depend_on_namespaced() {
        let project = ProjectFile {
            project_name: Some("x".into()),
            ..ProjectFile::default()
        };
        let namespaced = ProjectFile {
            namespaced: Some(true),
            ..project.clone()
        };
        let (cluster, scoped) = (base_context(&project), base_context(&namespaced));
        let differ = rewrite::init_files_that_differ(TEMPLATE_DIR, &cluster, &scoped).unwrap();
        assert_eq!(differ, NAMESPACE_DEPENDENT);
    }

    #[test]
    fn generated_role_switches_kind_and_namespace() {
        let cluster = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules:\n- apiGroups:\n  - apps\n";
        let role = switch_generated_role(cluster, true, "p-system").unwrap();
        assert_eq!(
            role,
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: manager-role\n  namespace: p-system\nrules:\n- apiGroups:\n  - apps\n"
        );
        assert_eq!(
            switch_generated_role(&role, false, "p-system").unwrap(),
            cluster
        );
        assert!(switch_generated_role("kind: Secret\n", true, "p-system").is_err());
    }
}
