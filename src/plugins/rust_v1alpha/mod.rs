//! `base.rust.kubebuilder-rs.io/v1-alpha`: Rust operators on kube-rs. With
//! `kustomize.common.kubebuilder.io/v2` it forms the `rust/v1-alpha` bundle,
//! so a Rust project gets the same `config/` tree and make targets as a
//! go/v4 one.
//!
//! Everything Rust lives here: the crate name, Rust module paths, the
//! license header of `.rs` files and the pinned crate versions
//! (`scaffolds/rust/v1-alpha/versions.toml`). The generated project needs no
//! Go toolchain, so this plugin has no post-steps.

pub mod cargo_toml;
pub(crate) mod create_api;
mod create_webhook;
mod edit;
mod external;
mod metrics;
mod names;
mod order_free;
mod places;
mod test_suites;
mod versions;

pub use versions::{Versions, versions};

use super::flags::args_of;
use super::{
    ApiContext, ApiTemplateContext, CreateApiHook, CreateWebhookHook, DomainOption, EditContext,
    EditHook, Flags, InitContext, InitHook, Layout, Library, License, Output, Plugin, Role,
    Toolchain, UpdateHook, WebhookContext,
};
use crate::machinery::clock::current_year;
use crate::machinery::steps::{Progress, Step};
use crate::machinery::{Change, Context, Plan, Source, Templates};
use crate::project::ProjectFile;
use crate::resource::{Origin, Resource};
use anyhow::{Context as _, Result, bail};
use std::path::Path;
use std::process::{Command, Stdio};

/// The plugin's key.
pub const KEY: &str = "base.rust.kubebuilder-rs.io/v1-alpha";

/// Folder of this plugin's templates under `scaffolds/`.
pub(super) const TEMPLATE_DIR: &str = "rust/v1-alpha";

/// The manager's command line, a clap `Parser` struct.
const FLAGS_PATH: &str = "src/manager/flags.rs";

/// Where the license header of generated Rust files is kept in a project.
const BOILERPLATE_PATH: &str = "hack/boilerplate.rs.txt";

/// The folder of the webhook server and the webhooks' modules.
const WEBHOOK_DIR: &str = "src/webhook";

/// The Rust base plugin.
pub struct RustBase;

impl Plugin for RustBase {
    fn key(&self) -> &'static str {
        KEY
    }

    fn role(&self) -> Role {
        Role::Language
    }

    joins!(
        init: InitHook,
        create_api: CreateApiHook,
        create_webhook: CreateWebhookHook,
        edit: EditHook,
        layout: Layout,
        update: UpdateHook,
    );
}

impl InitHook for RustBase {
    fn prepare(&self, _ctx: &InitContext, project: &mut ProjectFile) -> Result<()> {
        let name = project.project_name.as_deref().unwrap_or_default();
        names::check_crate_name(name)
    }

    fn plan(&self, ctx: &InitContext, project: &ProjectFile, out: &mut Output) -> Result<()> {
        let templates = Templates::load(TEMPLATE_DIR, &["init", "licenses"])?;
        let boilerplate =
            ctx.license
                .boilerplate(&templates, &current_year().to_string(), ctx.owner)?;
        let mut context = base_context(project, &rust_header(&boilerplate));
        context.insert("cert_manager", &ctx.chain.cert_manager_for_webhooks());
        templates.plan_tree("init", &context, &[], &mut out.plan)?;
        out.plan.push(Change::Create {
            path: BOILERPLATE_PATH.into(),
            contents: boilerplate,
        });
        Ok(())
    }

    fn next_steps(&self) -> Option<&'static str> {
        Some(
            "Next: define an API with\n  kubebuilder-rs create api --group <group> --version <version> --kind <Kind>\nthen `make manifests` writes the CRDs and `make test` runs the tests (cargo only, no Go).",
        )
    }
}

impl CreateApiHook for RustBase {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<external::ExternalApiOptions>()
    }

    fn shape_resource(
        &self,
        project: &ProjectFile,
        flags: &Flags,
        resource: &mut Resource,
    ) -> Result<()> {
        names::check_resource_modules(resource)?;
        // An external type replayed from PROJECT keeps its recorded path.
        if resource.external || shape_external(project, flags, resource)? {
            return Ok(());
        }
        check_k8s_openapi_module(resource)?;
        resource.path = Some(names::type_module(resource, project));
        Ok(())
    }

    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        if let Origin::External(external) = &ctx.resource.origin {
            external::plan_dependency(ctx.files, external, &mut out.plan)?;
        }
        create_api::plan(ctx, &mut out.plan)
    }
}

impl CreateWebhookHook for RustBase {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<external::ExternalApiOptions>()
    }

    fn domain_option(&self, flags: &Flags) -> Result<Option<DomainOption>> {
        let options: external::ExternalApiOptions = flags.get()?;
        Ok(Some(DomainOption {
            name: "--external-api-domain",
            value: options.external_api_domain,
            describes_new_type: options.external_api_path.is_some(),
        }))
    }

    fn shape_resource(
        &self,
        project: &ProjectFile,
        flags: &Flags,
        resource: &mut Resource,
    ) -> Result<()> {
        // An external type PROJECT records keeps its recorded path and
        // crate; the flags then only picked the entry.
        if resource.external {
            return Ok(());
        }
        if shape_external(project, flags, resource)? {
            return names::check_resource_modules(resource);
        }
        // A built-in type's webhook uses k8s-openapi's type, whose module
        // PROJECT records as `path`, as `create api` does.
        if matches!(resource.origin, Origin::Core(_)) {
            check_k8s_openapi_module(resource)?;
            resource.path = Some(names::type_module(resource, project));
        }
        Ok(())
    }

    fn plan(&self, ctx: &WebhookContext, out: &mut Output) -> Result<()> {
        create_webhook::plan(ctx, &mut out.plan)
    }
}

/// Makes `resource` the external type the flags describe, if they describe
/// one (PROJECT's `path` is then the Rust path given); says whether they did.
fn shape_external(project: &ProjectFile, flags: &Flags, resource: &mut Resource) -> Result<bool> {
    let options: external::ExternalApiOptions = flags.get()?;
    let Some(external) = external::external_api(&options)? else {
        return Ok(false);
    };
    let domain = project.domain.clone().unwrap_or_default();
    resource.set_origin(Origin::External(external), &domain);
    Ok(true)
}

impl EditHook for RustBase {
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        edit::plan(ctx, out)
    }
}

impl Layout for RustBase {
    fn name(&self) -> &'static str {
        "rust/v1-alpha"
    }

    fn language(&self) -> &'static str {
        "rust"
    }

    fn toolchain(&self) -> Option<Toolchain> {
        Some(Toolchain::Cargo)
    }

    fn versions(&self) -> Vec<(&'static str, String)> {
        let v = versions();
        vec![
            ("Rust", v.get("rust").to_string()),
            ("kube", v.get("kube").to_string()),
            (
                "k8s-openapi",
                format!(
                    "{} (Kubernetes {})",
                    v.get("k8s_openapi"),
                    v.get("k8s_openapi_feature")
                ),
            ),
        ]
    }

    fn api_template_context(&self, ctx: &ApiContext) -> Result<ApiTemplateContext> {
        let (context, vars) = create_api::template_context(ctx);
        Ok(ApiTemplateContext { context, vars })
    }

    fn make_manifests(&self, dir: &Path) -> Result<()> {
        make_manifests(dir)
    }

    fn manager_takes_flag(&self, files: Source, name: &str) -> Result<bool> {
        // clap derives `--webhook-port` from the field `webhook_port`, unless
        // the field names it with `long = "webhook-port"`.
        let field = format!("{}:", name.replace('-', "_"));
        let literal = format!("\"{name}\"");
        super::source_defines_flag(files, FLAGS_PATH, &[&field, &literal])
    }

    fn manager_exports_metric(&self, name: &str) -> bool {
        metrics::exported(name)
    }

    fn webhook_dir(&self) -> &'static str {
        WEBHOOK_DIR
    }

    /// Adds each library to Cargo.toml's `[dependencies]` (see
    /// [`cargo_toml::with_dependency`]), on top of the edit this command
    /// already planned there.
    fn plan_libraries(&self, files: Source, libraries: &[Library], plan: &mut Plan) -> Result<()> {
        let path = Path::new("Cargo.toml");
        let mut text = match plan.planned_contents(path) {
            Some(planned) => planned.to_string(),
            None => files
                .read_to_string(path)
                .with_context(|| format!("cannot read {}", files.shown(path).display()))?,
        };
        for library in libraries {
            let features: Vec<&str> = library.features.iter().map(String::as_str).collect();
            text = cargo_toml::with_dependency(&text, &library.name, &library.version, &features)?;
        }
        plan.rewrite(path.to_path_buf(), text);
        Ok(())
    }

    fn source_header(&self, files: Source) -> String {
        read_rust_header(files)
    }

    fn current_license(&self, files: Source) -> Option<License> {
        files
            .read_to_string(BOILERPLATE_PATH)
            .ok()
            .map(License::Custom)
    }
}

impl UpdateHook for RustBase {
    fn steps(
        &self,
        _dir: &Path,
        conflicted: &[std::path::PathBuf],
    ) -> Vec<crate::machinery::steps::Step> {
        update_steps(conflicted)
    }

    fn regenerated_files(&self) -> &'static [&'static str] {
        REGENERATED
    }

    fn order_free(&self) -> Vec<&'static dyn crate::machinery::merge::OrderFree> {
        vec![&order_free::ModAndUseItems]
    }

    fn slash_comments(&self) -> &'static [crate::machinery::merge::SlashComments] {
        &[crate::machinery::merge::SlashComments {
            extension: "rs",
            directives: &[],
        }]
    }
}

/// Refuses a built-in type whose group and version k8s-openapi has no
/// module for, naming the versions of that group it has.
fn check_k8s_openapi_module(resource: &Resource) -> Result<()> {
    let Origin::Core(core) = &resource.origin else {
        return Ok(());
    };
    let pinned = versions();
    let module = format!("{}/{}", core.package, resource.version);
    if pinned.k8s_openapi_modules.contains(&module) {
        return Ok(());
    }
    let prefix = format!("{}/", core.package);
    let served: Vec<&str> = pinned
        .k8s_openapi_modules
        .iter()
        .filter_map(|m| m.strip_prefix(&prefix))
        .collect();
    let allowed = if served.is_empty() {
        format!("it has no module for the group {}", resource.group)
    } else {
        format!("use a version it serves: {}", served.join(", "))
    };
    bail!(
        "{}/{} {}: k8s-openapi {} has no module api::{}::{} for this layout; {allowed}",
        resource.group,
        resource.version,
        resource.kind,
        pinned.get("k8s_openapi"),
        core.package,
        resource.version
    )
}

/// Runs `make manifests` in the Rust project at `dir`, which builds and runs
/// its `manifests` binary with cargo.
fn make_manifests(dir: &Path) -> Result<()> {
    let cargo = Command::new("cargo")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !cargo.is_ok_and(|status| status.success()) {
        bail!(
            "the files are written, but cargo is not installed: install Rust (https://rustup.rs), then run `make manifests` in {}",
            dir.display()
        );
    }
    Progress::new().run(dir, &Step::new("make", &["manifests"]))
}

/// What the toolchain writes (`make manifests` from the code, cargo's lock
/// file, `make build-installer`): `alpha update` keeps these as the user
/// has them and lets the post-steps write them again.
const REGENERATED: &[&str] = &[
    "config/crd/bases/**",
    "config/rbac/role.yaml",
    "Cargo.lock",
    "dist/**",
];

/// `alpha update`'s post-steps: `make manifests` (it builds and runs the
/// project's manifests binary) and `cargo build` (the rest of the crate, on
/// the dependencies that build compiled: a `cargo check` would compile
/// every dependency again, in check mode), leaving out what a conflicted
/// file would break: no make target with the Makefile conflicted, neither
/// step with a Rust file or Cargo.toml conflicted. go/v4's are the same in
/// kind (`make manifests generate fmt`, `go build ./...`).
fn update_steps(conflicted: &[std::path::PathBuf]) -> Vec<crate::machinery::steps::Step> {
    use crate::machinery::steps::Step;
    let any = |test: &dyn Fn(&Path) -> bool| conflicted.iter().any(|path| test(path));
    if any(&|path| {
        path.extension().is_some_and(|ext| ext == "rs") || path == Path::new("Cargo.toml")
    }) {
        return Vec::new();
    }
    let mut steps = Vec::new();
    if !any(&|path| path == Path::new("Makefile")) {
        steps.push(Step::new("make", &["manifests"]));
    }
    steps.push(Step::new("cargo", &["build"]));
    steps
}

#[cfg(test)]
mod update_step_tests {
    use super::*;

    fn names(conflicted: &[&str]) -> Vec<String> {
        let conflicted: Vec<std::path::PathBuf> =
            conflicted.iter().map(std::path::PathBuf::from).collect();
        update_steps(&conflicted)
            .into_iter()
            .map(|s| s.name)
            .collect()
    }

    #[test]
    fn conflicted_files_leave_out_the_steps_they_break() {
        assert_eq!(names(&[]), ["make manifests", "cargo build"]);
        assert_eq!(names(&["Makefile"]), ["cargo build"]);
        assert!(names(&["src/api/captain.rs"]).is_empty());
        assert!(names(&["Cargo.toml"]).is_empty());
        assert_eq!(names(&["README.md"]), ["make manifests", "cargo build"]);
    }
}

/// The variables every template of this plugin gets, from PROJECT and the
/// license header of `.rs` files.
fn base_context(project: &ProjectFile, header: &str) -> Context {
    let project_name = project.project_name.as_deref().unwrap_or_default();
    let domain = project.domain.as_deref().unwrap_or_default();
    let mut context = Context::new();
    context.insert("project_name", project_name);
    context.insert("crate_name", &names::crate_ident(project_name));
    context.insert("domain", domain);
    context.insert(
        "lease_name",
        &format!("{:08x}.{domain}", names::fnv1a_32(project_name)),
    );
    context.insert("multigroup", &(project.multigroup == Some(true)));
    context.insert("namespaced", &(project.namespaced == Some(true)));
    context.insert("header", header);
    context.insert("versions", &versions().crates);
    // Whether cert-manager gives the webhooks their certificate: init asks
    // the chain, which may hold a plugin that supplies it instead.
    context.insert("cert_manager", &true);
    context
}

/// The header of `.rs` files in the project `files`, from its boilerplate
/// file (none when the file is missing or empty).
fn read_rust_header(files: Source) -> String {
    let boilerplate = files.read_to_string(BOILERPLATE_PATH).unwrap_or_default();
    rust_header(&boilerplate)
}

/// The header of generated `.rs` files: the boilerplate followed by a blank
/// line, or nothing when the project has no license header.
fn rust_header(boilerplate: &str) -> String {
    let trimmed = boilerplate.trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_empty_without_a_license() {
        assert_eq!(rust_header(""), "");
        assert_eq!(rust_header("// x\n\n"), "// x\n\n");
    }
}
