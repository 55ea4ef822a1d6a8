//! `create api` for go/v4: the Go type, its controller, and the Go files
//! they are wired into. Which fragment goes where is declared in
//! `scaffolds/go/v4/create-api/fragments.toml`.

use super::resource_view::{ResourceView, go_identifier};
use super::{STORAGE_VERSION_MARKER, TEMPLATE_DIR, base_context, read_go_header, ssa, types_file};
use crate::machinery::{Change, Fragments, Plan, Source, Templates};
use crate::plugins::{ApiContext, ApiTemplateContext, Output};
use crate::project::ProjectFile;
use crate::resource::naming::pascal_case;
use crate::resource::{ExternalApi, Origin, Resource};
use anyhow::Result;
use serde::Serialize;

/// The controller, as templates see it (`controller.*`).
#[derive(Debug, Serialize)]
pub struct ControllerView {
    name: String,
    type_name: String,
    file: String,
    package: String,
    import_path: String,
    import_alias: String,
    qualifier: String,
    log_name: String,
    setup_name: String,
    is_secondary: bool,
}

/// What go/v4's `create api` templates get: what every layout gives other
/// plugins (the variables: `resource`, `controller` and the project-wide
/// ones; the path segments `group_dir`, `version`, `kind`, `controller`),
/// and whether the controller is a further one for its kind.
pub(crate) struct GoApiTemplates {
    /// The variables and path segments.
    pub api: ApiTemplateContext,
    /// The controller is a further one for its kind (`--controller-name`).
    secondary_controller: bool,
}

/// The template context of `create api` for the request in `ctx`; plugins
/// that scaffold Go code for a resource (deploy-image/v1-alpha) share it.
pub(crate) fn template_context(ctx: &ApiContext) -> Result<GoApiTemplates> {
    let project = ctx.project;
    let resource = ctx.resource;
    let multigroup = project.multigroup == Some(true);
    let repo = project.repo.clone().unwrap_or_default();
    let mut view = ResourceView::new(resource, &repo, multigroup, ctx.options.ssa);
    view.ac_opt_out = !ctx.options.ssa && ssa::package_has_ssa(project, resource);
    let controller = controller_view(
        &ctx.options.controller_name(resource),
        resource,
        &repo,
        multigroup,
    );
    let mut context = base_context(project, &read_go_header(ctx.files))?;
    context.insert("resource", &view);
    context.insert("controller", &controller);
    let group_dir = if multigroup {
        resource.group.clone()
    } else {
        String::new()
    };
    let vars = vec![
        ("group_dir", group_dir),
        ("version", resource.version.clone()),
        ("kind", resource.kind_lower.clone()),
        ("controller", controller.file.clone()),
    ];
    Ok(GoApiTemplates {
        api: ApiTemplateContext { context, vars },
        secondary_controller: controller.is_secondary,
    })
}

/// Plans the Go side of `create api`.
pub fn plan(ctx: &ApiContext, out: &mut Output) -> Result<()> {
    let project = ctx.project;
    let resource = ctx.resource;
    let templates = Templates::load(TEMPLATE_DIR, &["create-api"])?;
    let fragments = Fragments::load(TEMPLATE_DIR, "create-api")?;
    let api = template_context(ctx)?;
    let context = &api.api.context;
    let vars = api.api.path_vars();
    let group_dir = api.api.var("group_dir");

    if ctx.options.resource {
        templates.plan_tree("create-api/resource", context, &vars, &mut out.plan)?;
        if let Some(change) = storage_version(ctx.files, project, resource, group_dir) {
            out.plan.push(change);
        }
        if ctx.options.ssa {
            ssa::plan(ctx, group_dir, out)?;
        }
    }
    let plan = &mut out.plan;
    if !resource.core {
        fragments.plan("api-scheme", &templates, context, &vars, plan)?;
    }
    if let Origin::External(external) = &resource.origin {
        plan_external_module(ctx.files, external, plan);
    }
    if ctx.options.controller {
        // A secondary controller of a kind gets no test of its own.
        templates.plan_tree_with(
            "create-api/controller",
            context,
            &vars,
            plan,
            |file, plan| {
                let is_test = file.path.to_string_lossy().ends_with("_controller_test.go");
                if api.secondary_controller && is_test {
                    return Ok(());
                }
                file.plan(plan)
            },
        )?;
        if !resource.core {
            fragments.plan("controller-suite", &templates, context, &vars, plan)?;
        }
        fragments.plan("controller", &templates, context, &vars, plan)?;
    }
    Ok(())
}

/// When the kind already has an API at another version and none of its
/// versions is marked as the storage version, marks the first one: a CRD with
/// several versions needs exactly one, and the oldest holds the stored data.
fn storage_version(
    files: Source,
    project: &ProjectFile,
    resource: &Resource,
    group_dir: &str,
) -> Option<Change> {
    let others: Vec<&str> = project
        .resources
        .iter()
        .filter(|r| {
            r.group.as_deref() == Some(resource.group.as_str())
                && r.kind == resource.kind
                && r.version != resource.version
                && r.api.is_some()
        })
        .map(|r| r.version.as_str())
        .collect();
    let marked = others.iter().any(|version| {
        files
            .read_to_string(types_file(group_dir, version, &resource.kind))
            .is_ok_and(|text| text.contains(STORAGE_VERSION_MARKER))
    });
    let first = others.first()?;
    (!marked).then(|| Change::Insert {
        path: types_file(group_dir, first, &resource.kind),
        marker: "+kubebuilder:object:root=true".into(),
        fragment: STORAGE_VERSION_MARKER.into(),
        fallback: None,
    })
}

/// Builds `controller.*` for templates.
fn controller_view(
    name: &str,
    resource: &Resource,
    repo: &str,
    multigroup: bool,
) -> ControllerView {
    let is_secondary = name != resource.kind_lower;
    let type_stem = if is_secondary {
        pascal_case(name)
    } else {
        resource.kind.clone()
    };
    let group = &resource.group;
    let (package, import_path, import_alias, log_name) = if multigroup {
        let package = go_identifier(group);
        (
            package.clone(),
            format!("{repo}/internal/controller/{group}"),
            format!("{package}controller"),
            format!("{group}-{name}"),
        )
    } else {
        (
            "controller".to_string(),
            format!("{repo}/internal/controller"),
            "controller".to_string(),
            name.to_string(),
        )
    };
    ControllerView {
        file: name.replace('-', "_"),
        type_name: format!("{type_stem}Reconciler"),
        qualifier: format!("{import_alias}."),
        setup_name: log_name.clone(),
        name: name.to_string(),
        package,
        import_path,
        import_alias,
        log_name,
        is_secondary,
    }
}

/// Adds an external module with a pinned version to go.mod; without a
/// version, the post-step `go get` resolves it.
fn plan_external_module(files: Source, external: &ExternalApi, plan: &mut Plan) {
    let Some((module, version)) = external.module.split_once('@') else {
        return;
    };
    let go_mod = files.read_to_string("go.mod").unwrap_or_default();
    let already = go_mod
        .lines()
        .any(|line| line.split_whitespace().any(|word| word == module));
    if !already {
        plan.push(Change::Append {
            path: "go.mod".into(),
            text: format!("\nrequire {module} {version}\n"),
        });
    }
}
