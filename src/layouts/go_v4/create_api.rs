//! `create api` for go/v4: API types, controllers, and every file they touch.

use super::core_types;
use super::resource_view::{Origin, ResourceSpec, ResourceView, go_identifier};
use super::{STORAGE_VERSION_MARKER, base_context, read_go_header, types_file};
use crate::layouts::{ApiRequest, ExternalApi};
use crate::machinery::{Change, Plan, Templates};
use crate::naming::pascal_case;
use crate::project::{ApiEntry, ProjectFile, ResourceEntry};
use anyhow::{Result, bail};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Files rendered once per package, project or kind and shared by later
/// resources, matched by the end of their names.
const SHARED_FILES: &[&str] = &[
    "groupversion_info.go",
    "suite_test.go",
    "kustomization.yaml",
    "kustomizeconfig.yaml",
    "_admin_role.yaml",
    "_editor_role.yaml",
    "_viewer_role.yaml",
];

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

/// Plans `create api` and records the resource in `project`.
pub fn plan(dir: &Path, project: &mut ProjectFile, request: &ApiRequest) -> Result<Plan> {
    let origin = origin_of(request)?;
    let existing = project
        .resources
        .iter()
        .position(|r| r.is(&request.group, &request.version, &request.kind));
    check_against_project(project, existing, request, &origin)?;

    let multigroup = project.multigroup == Some(true);
    let repo = project.repo.clone().unwrap_or_default();
    let domain = project.domain.clone().unwrap_or_default();
    let recorded_plural = existing.and_then(|i| project.resources[i].plural.clone());
    let spec = ResourceSpec {
        group: &request.group,
        version: &request.version,
        kind: &request.kind,
        plural: request.plural.clone().or(recorded_plural),
        namespaced: request.namespaced,
        ssa: request.ssa,
    };
    let resource = ResourceView::new(&spec, &origin, &repo, &domain, multigroup);
    let controller = controller_view(request, &repo, multigroup);

    let templates = Templates::load(super::TEMPLATE_DIR, &["create-api"])?;
    let mut context = base_context(project, &read_go_header(dir))?;
    context.insert("resource", &resource);
    context.insert("controller", &controller);
    let group_dir = if multigroup {
        request.group.as_str()
    } else {
        ""
    };
    let rbac_prefix = if multigroup {
        format!("{}_", request.group)
    } else {
        String::new()
    };
    context.insert("rbac_prefix", &rbac_prefix);
    let vars = [
        ("group_dir", group_dir),
        ("group", request.group.as_str()),
        ("version", request.version.as_str()),
        ("kind", resource.kind_lower.as_str()),
        ("rbac_prefix", rbac_prefix.as_str()),
        ("controller", controller.file.as_str()),
    ];

    let mut plan = Plan::new();
    let render = |name: &str| templates.render(&format!("create-api/fragments/{name}"), &context);
    if request.resource {
        for template in templates.tree("create-api/resource") {
            let path = template.output_with(&vars);
            let contents = templates.render(&template.name, &context)?;
            plan.push(file_change(path, contents));
        }
        let group_version_info = templates
            .tree("create-api/resource")
            .into_iter()
            .map(|t| t.output_with(&vars))
            .find(|p| p.ends_with("groupversion_info.go"));
        if let (true, Some(path)) = (request.ssa, group_version_info) {
            plan.push(Change::Insert {
                path,
                marker: "+kubebuilder:object:generate=true".into(),
                fragment: "// +kubebuilder:ac:generate=true".into(),
            });
        }
        if let Some(change) = storage_version(dir, project, request, group_dir) {
            plan.push(change);
        }
        plan.push(insert(
            "config/crd/kustomization.yaml",
            "+kubebuilder:scaffold:crdkustomizeresource",
            render("crd-resource.yaml.tera")?,
        ));
        plan.push(insert(
            "config/samples/kustomization.yaml",
            "+kubebuilder:scaffold:manifestskustomizesamples",
            render("samples-resource.yaml.tera")?,
        ));
        plan.push(Change::Append {
            path: "config/rbac/kustomization.yaml".into(),
            text: render("rbac-roles-header.yaml.tera")?,
        });
        plan.push(Change::Append {
            path: "config/rbac/kustomization.yaml".into(),
            text: render("rbac-roles.yaml.tera")?,
        });
        plan.push(Change::Replace {
            path: "config/default/kustomization.yaml".into(),
            from: "#- ../crd\n".into(),
            to: "- ../crd\n".into(),
        });
    }
    if !resource.core {
        plan.push(insert(
            "cmd/main.go",
            "+kubebuilder:scaffold:imports",
            render("main-imports-api.go.tera")?,
        ));
        plan.push(insert(
            "cmd/main.go",
            "+kubebuilder:scaffold:scheme",
            render("main-scheme.go.tera")?,
        ));
    }
    if let Origin::External(external) = &origin {
        plan_external_module(dir, external, &mut plan)?;
    }
    if request.controller {
        for template in templates.tree("create-api/controller") {
            let path = template.output_with(&vars);
            if controller.is_secondary && path.to_string_lossy().ends_with("_controller_test.go") {
                continue;
            }
            let contents = templates.render(&template.name, &context)?;
            plan.push(file_change(path, contents));
        }
        if !resource.core {
            let suite: PathBuf = ["internal", "controller", group_dir, "suite_test.go"]
                .iter()
                .filter(|s| !s.is_empty())
                .collect();
            plan.push(Change::Insert {
                path: suite.clone(),
                marker: "+kubebuilder:scaffold:imports".into(),
                fragment: render("main-imports-api.go.tera")?,
            });
            plan.push(Change::Insert {
                path: suite,
                marker: "+kubebuilder:scaffold:scheme".into(),
                fragment: render("suite-scheme.go.tera")?,
            });
        }
        plan.push(insert(
            "cmd/main.go",
            "+kubebuilder:scaffold:imports",
            render("main-imports-controller.go.tera")?,
        ));
        plan.push(insert(
            "cmd/main.go",
            "+kubebuilder:scaffold:builder",
            render("main-builder.go.tera")?,
        ));
    }
    record_in_project(project, existing, request, &origin, &resource);
    Ok(plan)
}

/// When the kind already has an API at another version and none of its
/// versions is marked as the storage version, marks the first one: a CRD with
/// several versions needs exactly one, and the oldest holds the stored data.
fn storage_version(
    dir: &Path,
    project: &ProjectFile,
    request: &ApiRequest,
    group_dir: &str,
) -> Option<Change> {
    let others: Vec<&str> = project
        .resources
        .iter()
        .filter(|r| {
            r.group.as_deref() == Some(request.group.as_str())
                && r.kind == request.kind
                && r.version != request.version
                && r.api.is_some()
        })
        .map(|r| r.version.as_str())
        .collect();
    let marked = others.iter().any(|version| {
        std::fs::read_to_string(dir.join(types_file(group_dir, version, &request.kind)))
            .is_ok_and(|text| text.contains(STORAGE_VERSION_MARKER))
    });
    let first = others.first()?;
    (!marked).then(|| Change::Insert {
        path: types_file(group_dir, first, &request.kind),
        marker: "+kubebuilder:object:root=true".into(),
        fragment: STORAGE_VERSION_MARKER.into(),
    })
}

/// An insertion at a scaffold marker.
fn insert(path: &str, marker: &str, fragment: String) -> Change {
    Change::Insert {
        path: path.into(),
        marker: marker.into(),
        fragment,
    }
}

/// Creates a file; files shared by several resources are only created when missing.
fn file_change(path: PathBuf, contents: String) -> Change {
    let shared = path.file_name().is_some_and(|name| {
        SHARED_FILES
            .iter()
            .any(|s| name.to_string_lossy().ends_with(s))
    });
    if shared {
        Change::CreateIfMissing { path, contents }
    } else {
        Change::Create { path, contents }
    }
}

/// Works out whether the type is the project's own, built-in or external.
fn origin_of(request: &ApiRequest) -> Result<Origin> {
    if let Some(external) = &request.external {
        return Ok(Origin::External(external.clone()));
    }
    let Some(core) = core_types::core_group(&request.group) else {
        return Ok(Origin::Own);
    };
    core_types::check_core_kind(&request.group, &request.version, &request.kind)?;
    if request.resource {
        bail!(
            "{}/{} {} is a built-in Kubernetes type: it gets a controller only; pass --resource=false",
            request.group,
            request.version,
            request.kind
        );
    }
    Ok(Origin::Core(core))
}

/// Refuses requests that clash with what PROJECT records.
fn check_against_project(
    project: &ProjectFile,
    existing: Option<usize>,
    request: &ApiRequest,
    origin: &Origin,
) -> Result<()> {
    let gvk = format!("{}/{} {}", request.group, request.version, request.kind);
    let entry = existing.map(|i| &project.resources[i]);
    let has_api = entry.is_some_and(|e| e.api.is_some());
    if request.resource && has_api && !request.force {
        bail!("the API {gvk} already exists; pass --force to scaffold it again");
    }
    if !request.resource && matches!(origin, Origin::Own) && !has_api {
        bail!(
            "there is no API {gvk} in PROJECT to add a controller to; create it with --resource=true"
        );
    }
    if request.controller {
        let name = controller_name(request);
        let taken = entry.is_some_and(|e| e.controller_names().contains(&name));
        if taken && !request.force {
            bail!(
                "the controller {name:?} for {gvk} already exists; pass --controller-name to add another, or --force"
            );
        }
    }
    Ok(())
}

/// The controller's name: `--controller-name`, or the lowercased kind.
fn controller_name(request: &ApiRequest) -> String {
    request
        .controller_name
        .clone()
        .unwrap_or_else(|| request.kind.to_ascii_lowercase())
}

/// Builds `controller.*` for templates.
fn controller_view(request: &ApiRequest, repo: &str, multigroup: bool) -> ControllerView {
    let name = controller_name(request);
    let kind_lower = request.kind.to_ascii_lowercase();
    let is_secondary = name != kind_lower;
    let type_stem = if is_secondary {
        pascal_case(&name)
    } else {
        request.kind.clone()
    };
    let (package, import_path, import_alias, log_name) = if multigroup {
        let package = go_identifier(&request.group);
        (
            package.clone(),
            format!("{repo}/internal/controller/{}", request.group),
            format!("{package}controller"),
            format!("{}-{name}", request.group),
        )
    } else {
        (
            "controller".to_string(),
            format!("{repo}/internal/controller"),
            "controller".to_string(),
            name.clone(),
        )
    };
    ControllerView {
        file: name.replace('-', "_"),
        type_name: format!("{type_stem}Reconciler"),
        qualifier: format!("{import_alias}."),
        setup_name: log_name.clone(),
        name,
        package,
        import_path,
        import_alias,
        log_name,
        is_secondary,
    }
}

/// Adds an external module with a pinned version to go.mod; without a
/// version, the post-step `go get` resolves it.
fn plan_external_module(dir: &Path, external: &ExternalApi, plan: &mut Plan) -> Result<()> {
    let Some((module, version)) = external.module.split_once('@') else {
        return Ok(());
    };
    let go_mod = std::fs::read_to_string(dir.join("go.mod")).unwrap_or_default();
    let already = go_mod
        .lines()
        .any(|line| line.split_whitespace().any(|word| word == module));
    if !already {
        plan.push(Change::Append {
            path: "go.mod".into(),
            text: format!("\nrequire {module} {version}\n"),
        });
    }
    Ok(())
}

/// Adds or updates the resource's entry in PROJECT.
fn record_in_project(
    project: &mut ProjectFile,
    existing: Option<usize>,
    request: &ApiRequest,
    origin: &Origin,
    resource: &ResourceView,
) {
    let index = existing.unwrap_or_else(|| {
        project.resources.push(ResourceEntry {
            group: Some(request.group.clone()),
            version: request.version.clone(),
            kind: request.kind.clone(),
            ..ResourceEntry::default()
        });
        project.resources.len() - 1
    });
    let entry = &mut project.resources[index];
    match origin {
        Origin::Own => {
            entry.domain = Some(resource.domain.clone());
            entry.path = Some(resource.import_path.clone());
        }
        Origin::Core(_) => {
            entry.core = Some(true);
            entry.path = Some(resource.import_path.clone());
        }
        Origin::External(external) => {
            entry.external = Some(true);
            entry.domain = Some(external.domain.clone());
            entry.module = Some(external.module.clone());
            entry.path = Some(external.path.clone());
        }
    }
    if request.resource {
        let api = entry.api.get_or_insert_with(ApiEntry::default);
        api.crd_version = Some("v1".into());
        api.namespaced = request.namespaced.then_some(true);
        api.ssa = request.ssa.then_some(true);
    }
    if request.plural.is_some() {
        entry.plural = request.plural.clone();
    }
    if request.controller {
        entry.add_controller(&controller_name(request));
    }
}
