//! `create api` for the Rust layout: the kind's module under `src/api/`,
//! its controller under `src/controller/`, and the lines that wire them
//! into the crate, the manager, `make manifests` and the integration tests.
//! Which fragment goes where is declared in
//! `scaffolds/rust/v1-alpha/create-api/fragments.toml`.

use super::names::{controller_module, crate_ident, module_ident, own_api_module, snake_case};
use super::test_suites::suite_file;
use super::{TEMPLATE_DIR, base_context, external, read_rust_header};
use crate::machinery::{Context, Fragments, Plan, Templates, path_vars};
use crate::plugins::ApiContext;
use crate::project::ProjectFile;
use crate::resource::{Origin, Resource};
use anyhow::{Result, bail};
use serde::Serialize;

/// The kind's type, as templates see it (`api.*`).
#[derive(Debug, Serialize)]
struct ApiView {
    /// The group's module name (`foo_policy` for `foo.policy`).
    group_module: String,
    /// The kind's module name (`first_mate`).
    kind_module: String,
    /// The module holding the type, as the crate's own code names it
    /// (`crate::api::v1`, `k8s_openapi::api::apps::v1`).
    type_module: String,
    /// The same module as tests and binaries name it (`guestbook::api::v1`).
    external_module: String,
    /// The type from `src/api/mod.rs` (`v1::Captain`, `crew::v1::Captain`).
    crd_path: String,
    /// The API group in RBAC rules (empty for the core group).
    rbac_group: String,
    /// The type comes from another crate (k8s-openapi's built-in types, an
    /// external type): it has no status or finalizer of this project's.
    foreign: bool,
    /// `group/version` of the type, as objects of it name it (`apiVersion`).
    api_version: String,
}

/// The controller, as templates see it (`controller.*`).
#[derive(Debug, Serialize)]
struct ControllerView {
    /// Its name, in logs, events and metrics (`captain`, `captain-backup`).
    name: String,
    /// Its module name (`captain`, `captain_backup`).
    module: String,
    /// Its module from `src/controller/` (`captain`, `crew::captain`).
    path: String,
    /// Its module among the integration tests (`captain`, `crew_captain`).
    test_module: String,
}

/// The variables `create api` templates of this layout get, and the values
/// of the braced segments of their paths; plugins that scaffold Rust code
/// for a resource (deploy-image/v1-alpha) share them.
pub(crate) fn template_context(ctx: &ApiContext) -> (Context, Vec<(&'static str, String)>) {
    let (project, resource) = (ctx.project, ctx.resource);
    let multigroup = project.multigroup == Some(true);
    let api = api_view(resource, project);
    let controller_name = ctx.options.controller_name(resource);
    let controller = controller_view(&controller_name, resource, multigroup);
    let group_dir = if multigroup {
        api.group_module.clone()
    } else {
        String::new()
    };
    let suite = suite_file(ctx.files, "controllers");
    let vars = vec![
        ("group_dir", group_dir),
        ("version", resource.version.clone()),
        ("kind", api.kind_module.clone()),
        ("controller", controller.module.clone()),
        ("test", controller.test_module.clone()),
        ("suite", suite.to_string()),
    ];
    let mut context = base_context(project, &read_rust_header(ctx.files));
    context.insert("resource", resource);
    context.insert("api", &api);
    context.insert("controller", &controller);
    context.insert("suite_module", &(suite == "mod.rs"));
    (context, vars)
}

/// Plans the Rust side of `create api`.
pub fn plan(ctx: &ApiContext, plan: &mut Plan) -> Result<()> {
    let multigroup = ctx.project.multigroup == Some(true);
    let templates = Templates::load(TEMPLATE_DIR, &["create-api", "test-support", "test-suite"])?;
    let fragments =
        Fragments::load(TEMPLATE_DIR, "create-api")?.with_places(super::places::PLACES)?;
    let (context, owned_vars) = template_context(ctx);
    let vars = path_vars(&owned_vars);
    let render = Render {
        templates: &templates,
        fragments: &fragments,
        context: &context,
        vars: &vars,
    };
    let own_controller = ctx.options.controller_name(ctx.resource) == ctx.resource.kind_lower;

    if ctx.options.resource {
        if multigroup {
            render.files("create-api/api-group", plan)?;
            render.fragments("api-group", plan)?;
        }
        render.files("create-api/api", plan)?;
        render.fragments("api", plan)?;
    }
    if ctx.options.controller {
        refuse_manager_without_runner(ctx)?;
        if multigroup {
            render.files("create-api/controller-group", plan)?;
            render.fragments("controller-group", plan)?;
        }
        render.files("create-api/controller", plan)?;
        render.fragments("controller", plan)?;
        // Only a kind of the project's own runs kube's finalizer helper.
        if matches!(ctx.resource.origin, Origin::Own) {
            render.fragments("finalizer", plan)?;
        }
        if own_controller {
            render.files("test-support", plan)?;
            if suite_file(ctx.files, "controllers") == "mod.rs" {
                render.files("test-suite", plan)?;
                render.fragments("controller-suite", plan)?;
            }
            render.files("create-api/controller-test", plan)?;
            render.fragments("controller-test", plan)?;
        }
    }
    Ok(())
}

/// The module of the manager that exports the reconcile runner.
const MANAGER_MODULE: &str = "src/manager/mod.rs";

/// Refuses a controller for a project whose manager has no `Runner`: one
/// scaffolded before the runner existed, whose `src/main.rs` also lacks the
/// `controllers` the new controller's line goes into. The new controller
/// would not build there.
fn refuse_manager_without_runner(ctx: &ApiContext) -> Result<()> {
    let text = ctx.files.read_to_string(MANAGER_MODULE).unwrap_or_default();
    if text
        .lines()
        .any(|line| line.trim() == "pub use reconciler::Runner;")
    {
        return Ok(());
    }
    bail!(
        "{MANAGER_MODULE} does not export the reconcile runner (`pub use reconciler::Runner;`) that a new controller runs on: the project's manager predates it; scaffold the project again with `kubebuilder-rs alpha generate` and carry your code over, or create the API with --controller=false"
    )
}

/// Templates, fragments and values of one command, rendered into a plan.
pub(super) struct Render<'a> {
    pub(super) templates: &'a Templates,
    pub(super) fragments: &'a Fragments,
    pub(super) context: &'a Context,
    pub(super) vars: &'a [(&'a str, &'a str)],
}

impl Render<'_> {
    /// Plans every file of `folder`, each by the rule its `files.toml`
    /// declares (module files and shared folders are kept when present).
    pub(super) fn files(&self, folder: &str, plan: &mut Plan) -> Result<()> {
        self.templates
            .plan_tree(folder, self.context, self.vars, plan)
    }

    /// Plans the fragment group `group`.
    pub(super) fn fragments(&self, group: &str, plan: &mut Plan) -> Result<()> {
        self.fragments
            .plan(group, self.templates, self.context, self.vars, plan)
    }
}

/// Builds `api.*` for templates.
fn api_view(resource: &Resource, project: &ProjectFile) -> ApiView {
    let crate_name = crate_ident(project.project_name.as_deref().unwrap_or_default());
    let own_module = own_api_module(resource, project);
    let (type_module, external_module) = match &resource.origin {
        Origin::Core(core) => {
            let module = format!("k8s_openapi::api::{}::{}", core.package, resource.version);
            (module.clone(), module)
        }
        Origin::External(external) => external::type_modules(external, &crate_name),
        Origin::Own => (
            format!("crate::{own_module}"),
            format!("{crate_name}::{own_module}"),
        ),
    };
    let crd_path = format!(
        "{}::{}",
        own_module.trim_start_matches("api::"),
        resource.kind
    );
    ApiView {
        group_module: module_ident(&resource.group),
        kind_module: snake_case(&resource.kind),
        type_module,
        external_module,
        crd_path,
        rbac_group: resource.qualified_group.clone(),
        foreign: !matches!(resource.origin, Origin::Own),
        api_version: api_version(resource),
    }
}

/// `group/version` of the resource's objects (`v1` in the core group).
pub(super) fn api_version(resource: &Resource) -> String {
    if resource.qualified_group.is_empty() {
        resource.version.clone()
    } else {
        format!("{}/{}", resource.qualified_group, resource.version)
    }
}

/// Builds `controller.*` for templates.
fn controller_view(name: &str, resource: &Resource, multigroup: bool) -> ControllerView {
    let module = controller_module(name, resource);
    let (path, test_module) = if multigroup {
        let group = module_ident(&resource.group);
        (format!("{group}::{module}"), format!("{group}_{module}"))
    } else {
        (module.clone(), module.clone())
    };
    ControllerView {
        name: name.to_string(),
        module,
        path,
        test_module,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(multigroup: bool) -> ProjectFile {
        ProjectFile {
            domain: Some("example.com".into()),
            project_name: Some("ship-yard".into()),
            multigroup: multigroup.then_some(true),
            ..ProjectFile::default()
        }
    }

    #[test]
    fn own_types_live_under_the_crate_api_module() {
        let project = project(true);
        let resource = Resource::new(
            &project,
            "foo.policy",
            "v1",
            "HealthCheckPolicy",
            None,
            true,
        );
        let view = api_view(&resource, &project);
        assert_eq!(view.type_module, "crate::api::foo_policy::v1");
        assert_eq!(view.external_module, "ship_yard::api::foo_policy::v1");
        assert_eq!(view.crd_path, "foo_policy::v1::HealthCheckPolicy");
        assert_eq!(view.kind_module, "health_check_policy");
        assert_eq!(view.rbac_group, "foo.policy.example.com");
    }

    #[test]
    fn core_types_come_from_k8s_openapi() {
        let project = project(false);
        let resource = Resource::new(&project, "apps", "v1", "Deployment", None, false);
        let view = api_view(&resource, &project);
        assert_eq!(view.type_module, "k8s_openapi::api::apps::v1");
        assert_eq!(view.rbac_group, "apps");
        let resource = Resource::new(&project, "core", "v1", "Pod", None, false);
        assert_eq!(api_view(&resource, &project).rbac_group, "");
    }

    #[test]
    fn external_types_are_named_by_their_rust_path() {
        let project = project(false);
        let mut resource =
            Resource::new(&project, "cert-manager", "v1", "Certificate", None, false);
        let external = crate::resource::ExternalApi {
            path: "cert_types::v1".into(),
            domain: "io".into(),
            module: "cert-types@1".into(),
        };
        resource.set_origin(Origin::External(external), "example.com");
        let view = api_view(&resource, &project);
        assert_eq!(view.type_module, "cert_types::v1");
        assert_eq!(view.external_module, "cert_types::v1");
        assert_eq!(view.rbac_group, "cert-manager.io");
        assert_eq!(view.api_version, "cert-manager.io/v1");
        assert!(view.foreign);
    }

    #[test]
    fn controllers_are_named_after_the_kind_or_their_own_name() {
        let project = project(true);
        let resource = Resource::new(&project, "crew", "v1", "FirstMate", None, true);
        let own = controller_view("firstmate", &resource, true);
        assert_eq!(
            (own.module.as_str(), own.path.as_str()),
            ("first_mate", "crew::first_mate")
        );
        assert_eq!(own.test_module, "crew_first_mate");
        let other = controller_view("mate-backup", &resource, false);
        assert_eq!(
            (other.module.as_str(), other.path.as_str()),
            ("mate_backup", "mate_backup")
        );
    }
}
