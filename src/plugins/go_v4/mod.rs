//! `base.go.kubebuilder.io/v4`: Go operators on controller-runtime, laid
//! out file for file as kubebuilder's go/v4 plugin. With
//! `kustomize.common.kubebuilder.io/v2` it forms the `go/v4` bundle.
//!
//! Everything Go lives here: module paths, `--repo`, the Go version check,
//! `--fetch-deps`, `--external-api-*`, and the post-steps on the Go
//! toolchain (`--make`).

pub(crate) mod create_api;
mod create_webhook;
mod edit;
pub mod go_mod_merge;
mod order_free;
mod places;
pub(crate) mod post_steps;
mod resource_view;
mod ssa;
mod toolchain;
mod versions;

pub use versions::{Versions, versions};

use super::flags::args_of;
use super::{
    AfterWrite, ApiContext, ApiTemplateContext, CreateApiHook, CreateWebhookHook, DomainOption,
    EditContext, EditHook, Flags, Given, InitContext, InitHook, Layout, License, Output, Plugin,
    ReplaySettings, Role, Toolchain, UpdateHook, WebhookContext,
};
use crate::machinery::clock::current_year;
use crate::machinery::rewrite::read_if_present;
use crate::machinery::{Change, Rewrite, Rule, Source, Templates};
use crate::project::ProjectFile;
use crate::project::bookkeeping::ApiOptions;
use crate::resource::{ExternalApi, Origin, Resource, naming};
use anyhow::{Context as _, Result, bail};
use clap::ArgAction;
use std::path::{Path, PathBuf};

/// The plugin's key.
pub const KEY: &str = "base.go.kubebuilder.io/v4";

/// Folder of this plugin's templates under `scaffolds/`.
pub(super) const TEMPLATE_DIR: &str = "go/v4";

/// The manager's source, which defines its command-line flags.
const MAIN_PATH: &str = "cmd/main.go";

/// Where the license header for Go files is kept in a generated project.
const BOILERPLATE_PATH: &str = "hack/boilerplate.go.txt";

/// The folder of the webhooks' code (one folder per group and version
/// below it).
const WEBHOOK_DIR: &str = "internal/webhook";

/// The Go base plugin.
pub struct GoBase;

impl Plugin for GoBase {
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

/// go/v4's flags on `init`.
#[derive(Debug, Clone, clap::Args)]
struct InitOptions {
    #[arg(
        long,
        value_name = "repo",
        help = "Go module path; read from an existing go.mod when not given"
    )]
    repo: Option<String>,
    #[arg(long, value_name = "skip-go-version-check", action = ArgAction::Set, num_args = 0..=1,
          default_value_t = false, default_missing_value = "true", require_equals = true,
          help = "Do not check that the installed Go is new enough")]
    skip_go_version_check: bool,
    #[arg(long, value_name = "fetch-deps", action = ArgAction::Set, num_args = 0..=1,
          default_value_t = true, default_missing_value = "true", require_equals = true,
          help = "Download dependencies (go mod tidy) after writing the files")]
    fetch_deps: bool,
}

/// go/v4's flags on `create api` and `create webhook`.
#[derive(Debug, Clone, clap::Args)]
struct CreateOptions {
    #[command(flatten)]
    external: ExternalApiOptions,
    #[arg(long, value_name = "make", action = ArgAction::Set, num_args = 0..=1,
          default_value_t = true, default_missing_value = "true", require_equals = true,
          help = "Run make generate, go fmt and go mod tidy afterwards (--make=false to skip)")]
    make: bool,
}

/// go/v4's flags on `create api`: those of [`CreateOptions`] and `--ssa`.
#[derive(Debug, Clone, clap::Args)]
struct CreateApiOptions {
    #[command(flatten)]
    create: CreateOptions,
    #[arg(long, value_name = "ssa", action = ArgAction::Set, num_args = 0..=1,
          default_value_t = false, default_missing_value = "true", require_equals = true,
          help = "Generate server-side-apply configurations for the type")]
    ssa: bool,
}

impl InitHook for GoBase {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<InitOptions>()
    }

    fn prepare(&self, ctx: &InitContext, project: &mut ProjectFile) -> Result<()> {
        let options: InitOptions = ctx.flags.get()?;
        if !options.skip_go_version_check {
            toolchain::check_go_version(&versions().go)?;
        }
        let repo = match options.repo {
            Some(repo) => repo,
            None => module_of_go_mod(ctx.files)?.with_context(|| {
                "cannot tell the Go module path: pass --repo (for example --repo github.com/example/guestbook)".to_string()
            })?,
        };
        naming::validate_go_module_path(&repo)?;
        project.repo = Some(repo);
        Ok(())
    }

    fn plan(&self, ctx: &InitContext, project: &ProjectFile, out: &mut Output) -> Result<()> {
        let templates = Templates::load(TEMPLATE_DIR, &["init", "licenses"])?;
        let repo = project.repo.clone().unwrap_or_default();
        // Like kubebuilder, the file keeps the placeholder YEAR, which
        // controller-gen and this tool replace with the current year.
        let boilerplate = ctx
            .license
            .boilerplate(&templates, YEAR_PLACEHOLDER, ctx.owner)?;
        let mut context = base_context(project, &go_header(&boilerplate))?;
        context.insert("cert_manager", &ctx.chain.cert_manager_for_webhooks());
        // An existing go.mod that already names the module is rewritten
        // rather than reported as a conflict, since `init` reads the module
        // path from it.
        let own_go_mod = module_of_go_mod(ctx.files).ok().flatten().as_deref() == Some(&repo);
        templates.plan_tree_with("init", &context, &[], &mut out.plan, |mut file, plan| {
            if own_go_mod && file.path == Path::new("go.mod") {
                file.rule = Rule::Write;
            }
            file.plan(plan)
        })?;
        out.plan.push(Change::Create {
            path: BOILERPLATE_PATH.into(),
            contents: boilerplate,
        });
        Ok(())
    }

    fn after_write(&self, ctx: &AfterWrite) -> Result<()> {
        let options: InitOptions = ctx.flags.get()?;
        if options.fetch_deps {
            fetch_deps(ctx.dir)?;
        }
        Ok(())
    }

    fn next_steps(&self) -> Option<&'static str> {
        Some(
            "Next: define an API with\n  kubebuilder-rs create api --group <group> --version <version> --kind <Kind>",
        )
    }

    fn replay_options(
        &self,
        project: &ProjectFile,
        settings: &ReplaySettings,
    ) -> Result<Option<Given>> {
        let repo = project
            .repo
            .clone()
            .context("PROJECT has no `repo` (the Go module path), which init needs; add it")?;
        Ok(Some(Given::new(InitOptions {
            repo: Some(repo),
            fetch_deps: false,
            skip_go_version_check: settings.skip_toolchain_check,
        })))
    }
}

/// Gives `resource` its Go package path and, unless `recorded` (a webhook
/// for an external type PROJECT records, which takes the recorded path and
/// module; --external-api-domain only picked the entry), the external type
/// the flags describe.
fn shape_resource(
    project: &ProjectFile,
    flags: &Flags,
    resource: &mut Resource,
    recorded: bool,
) -> Result<()> {
    let options: CreateOptions = flags.get()?;
    let external = if recorded {
        None
    } else {
        external_api(&options.external)?
    };
    if let Some(external) = external {
        let domain = project.domain.clone().unwrap_or_default();
        resource.set_origin(Origin::External(external), &domain);
    }
    resource.path = Some(resource_view::package_path(
        resource,
        project.repo.as_deref().unwrap_or_default(),
        project.multigroup == Some(true),
    ));
    Ok(())
}

impl CreateApiHook for GoBase {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<CreateApiOptions>()
    }

    fn shape_options(&self, flags: &Flags, options: &mut ApiOptions) -> Result<()> {
        let CreateApiOptions { ssa, .. } = flags.get()?;
        if ssa && !options.resource {
            bail!(
                "--ssa applies to the API type this command creates: drop --ssa, or drop --resource=false"
            );
        }
        options.ssa = ssa;
        Ok(())
    }

    fn shape_resource(
        &self,
        project: &ProjectFile,
        flags: &Flags,
        resource: &mut Resource,
    ) -> Result<()> {
        shape_resource(project, flags, resource, false)
    }

    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        create_api::plan(ctx, out)
    }

    fn after_write(&self, ctx: &AfterWrite) -> Result<()> {
        let options: CreateOptions = ctx.flags.get()?;
        if !options.make {
            return Ok(());
        }
        // Only the new version's API package needs generated code;
        // an unversioned external module is resolved by `go get`.
        let external = external_api(&options.external)?;
        let changes = post_steps::Changes {
            written: ctx.written,
            go_get: unversioned_module(external.as_ref()).into_iter().collect(),
            api_packages: post_steps::api_packages(
                ctx.written,
                ctx.resource.map(|r| r.version.as_str()),
            ),
        };
        post_steps::require_go(ctx.dir)?;
        post_steps::run(ctx.dir, &changes)
    }
}

impl CreateWebhookHook for GoBase {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<CreateOptions>()
    }

    fn domain_option(&self, flags: &Flags) -> Result<Option<DomainOption>> {
        let options: CreateOptions = flags.get()?;
        Ok(Some(DomainOption {
            name: "--external-api-domain",
            value: options.external.external_api_domain,
            describes_new_type: options.external.external_api_path.is_some(),
        }))
    }

    fn shape_resource(
        &self,
        project: &ProjectFile,
        flags: &Flags,
        resource: &mut Resource,
    ) -> Result<()> {
        let recorded = resource.external;
        shape_resource(project, flags, resource, recorded)
    }

    fn plan(&self, ctx: &WebhookContext, out: &mut Output) -> Result<()> {
        create_webhook::plan(ctx, &mut out.plan)
    }

    fn after_write(&self, ctx: &AfterWrite) -> Result<()> {
        let options: CreateOptions = ctx.flags.get()?;
        if !options.make {
            return Ok(());
        }
        // Webhooks change no API types, so no code is generated; a
        // missing external module is found by the import check.
        let changes = post_steps::Changes {
            written: ctx.written,
            go_get: Vec::new(),
            api_packages: Default::default(),
        };
        post_steps::require_go(ctx.dir)?;
        post_steps::run(ctx.dir, &changes)
    }
}

impl EditHook for GoBase {
    fn plan(&self, ctx: &EditContext, out: &mut Output) -> Result<()> {
        edit::plan(ctx, out)
    }

    fn namespace_rewrites(
        &self,
        files: Source,
        project: &ProjectFile,
        namespaced: bool,
    ) -> Result<Vec<Rewrite>> {
        edit::namespace_rewrites(files, project, namespaced)
    }
}

impl Layout for GoBase {
    fn name(&self) -> &'static str {
        "go/v4"
    }

    fn language(&self) -> &'static str {
        "go"
    }

    fn toolchain(&self) -> Option<Toolchain> {
        Some(Toolchain::Go)
    }

    fn versions(&self) -> Vec<(&'static str, String)> {
        let v = versions();
        vec![
            ("Go", v.go.clone()),
            ("controller-runtime", v.controller_runtime.clone()),
            (
                "Kubernetes API",
                format!("{} (k8s.io/api, apimachinery, client-go)", v.k8s_api),
            ),
            ("controller-tools", v.controller_tools.clone()),
            ("kustomize", v.kustomize.clone()),
            ("golangci-lint", v.golangci_lint.clone()),
            ("envtest Kubernetes", v.kubernetes.clone()),
        ]
    }

    fn api_template_context(&self, ctx: &ApiContext) -> Result<ApiTemplateContext> {
        Ok(create_api::template_context(ctx)?.api)
    }

    fn make_manifests(&self, dir: &Path) -> Result<()> {
        post_steps::require_go(dir)?;
        post_steps::run_make(dir, "manifests")
    }

    fn manager_takes_flag(&self, files: Source, name: &str) -> Result<bool> {
        // The flag package registers a flag by its name as a string literal.
        let literal = format!("\"{name}\"");
        super::source_defines_flag(files, MAIN_PATH, &[&literal])
    }

    fn webhook_dir(&self) -> &'static str {
        WEBHOOK_DIR
    }

    fn source_header(&self, files: Source) -> String {
        read_go_header(files)
    }

    fn after_generate(&self, dir: &Path, project: &ProjectFile, written: &[PathBuf]) -> Result<()> {
        post_steps::require_go(dir)?;
        let changes = post_steps::Changes {
            written,
            go_get: project
                .resources
                .iter()
                .filter(|entry| entry.external == Some(true))
                .filter_map(|entry| entry.module.as_deref())
                .filter(|module| !module.is_empty() && !module.contains('@'))
                .collect(),
            api_packages: post_steps::api_packages(written, None),
        };
        post_steps::run(dir, &changes)
    }

    fn current_license(&self, files: Source) -> Option<License> {
        files
            .read_to_string(BOILERPLATE_PATH)
            .ok()
            .map(License::Custom)
    }
}

impl UpdateHook for GoBase {
    fn steps(&self, _dir: &Path, conflicted: &[PathBuf]) -> Vec<crate::machinery::steps::Step> {
        update_steps(conflicted)
    }

    fn regenerated_files(&self) -> &'static [&'static str] {
        REGENERATED
    }

    fn file_mergers(&self) -> Vec<&'static dyn crate::machinery::merge::FileMerger> {
        vec![&go_mod_merge::GoModMerger]
    }

    fn order_free(&self) -> Vec<&'static dyn crate::machinery::merge::OrderFree> {
        vec![&order_free::GoImportsAndRegistrations]
    }

    fn slash_comments(&self) -> &'static [crate::machinery::merge::SlashComments] {
        &[crate::machinery::merge::SlashComments {
            extension: "go",
            directives: &["go:", "nolint"],
        }]
    }
}

/// What the toolchain writes (controller-gen's `manifests` and `generate`,
/// `go mod tidy`, `make build-installer`): `alpha update` keeps these as
/// the user has them and lets the post-steps write them again.
const REGENERATED: &[&str] = &[
    "**/zz_generated.*",
    "config/crd/bases/**",
    "config/rbac/role.yaml",
    "config/webhook/manifests.yaml",
    "go.sum",
    "dist/**",
];

/// `alpha update`'s post-steps: `go mod tidy`, `make manifests generate
/// fmt` and a check build (`go build ./...`: a merge can join code that no
/// longer compiles together, e.g. the user's and the scaffold's declaration
/// of one variable), leaving out what a conflicted file would break: no make
/// target with the Makefile conflicted, no `manifests`/`generate` with a
/// file under `api/` conflicted, no `fmt`, tidy or build with a Go file
/// conflicted.
fn update_steps(conflicted: &[PathBuf]) -> Vec<crate::machinery::steps::Step> {
    use crate::machinery::steps::Step;
    let any = |test: &dyn Fn(&Path) -> bool| conflicted.iter().any(|path| test(path));
    let go_file = any(&|path| path.extension().is_some_and(|ext| ext == "go"));
    let mut steps = Vec::new();
    if !go_file && !any(&|path| path == Path::new("go.mod")) {
        steps.push(Step::new("go", &["mod", "tidy"]));
    }
    let check = (!go_file).then(|| Step::new("go", &["build", "./..."]));
    if any(&|path| path == Path::new("Makefile")) {
        steps.extend(check);
        return steps;
    }
    let mut targets = Vec::new();
    if !any(&|path| path.starts_with("api") || path.starts_with("apis")) {
        targets.extend(["manifests", "generate"]);
    }
    if !go_file {
        targets.push("fmt");
    }
    if !targets.is_empty() {
        steps.push(Step::new("make", &targets));
    }
    steps.extend(check);
    steps
}

#[cfg(test)]
mod update_step_tests {
    use super::*;

    fn names(conflicted: &[&str]) -> Vec<String> {
        let conflicted: Vec<PathBuf> = conflicted.iter().map(PathBuf::from).collect();
        update_steps(&conflicted)
            .into_iter()
            .map(|s| s.name)
            .collect()
    }

    #[test]
    fn conflicted_files_leave_out_the_steps_they_break() {
        let build = "go build ./...";
        assert_eq!(
            names(&[]),
            ["go mod tidy", "make manifests generate fmt", build]
        );
        assert_eq!(names(&["Makefile"]), ["go mod tidy", build]);
        assert!(names(&["api/v1/captain_types.go"]).is_empty());
        assert_eq!(
            names(&["apis/crew/v1/x.yaml"]),
            ["go mod tidy", "make fmt", build]
        );
        assert_eq!(names(&["cmd/main.go"]), ["make manifests generate"]);
        assert_eq!(names(&["go.mod"]), ["make manifests generate fmt", build]);
    }
}

/// `--external-api-path`, `--external-api-domain`, `--external-api-module`.
#[derive(Debug, Clone, clap::Args)]
struct ExternalApiOptions {
    #[arg(
        long,
        value_name = "external-api-path",
        help = "Import path of a type from another module (e.g. github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1)"
    )]
    external_api_path: Option<String>,
    #[arg(
        long,
        value_name = "external-api-domain",
        help = "Domain of the external type's group (e.g. io for cert-manager.io)"
    )]
    external_api_domain: Option<String>,
    #[arg(
        long,
        value_name = "external-api-module",
        help = "Module of the external type, with an optional @version"
    )]
    external_api_module: Option<String>,
}

/// The external type described by `--external-api-path`, `-domain` and
/// `-module`, if any.
fn external_api(options: &ExternalApiOptions) -> Result<Option<ExternalApi>> {
    let path = options.external_api_path.as_deref();
    let domain = options.external_api_domain.as_deref();
    let module = options.external_api_module.as_deref();
    match (path, module) {
        (None, None) => {
            if domain.is_some() {
                bail!("--external-api-domain needs --external-api-path and --external-api-module");
            }
            Ok(None)
        }
        (Some(path), None) => bail!(
            "--external-api-path {path:?} needs --external-api-module (the Go module that provides it, e.g. github.com/cert-manager/cert-manager@v1.18.2)"
        ),
        (None, Some(module)) => bail!(
            "--external-api-module {module:?} needs --external-api-path (the Go package of the type)"
        ),
        (Some(path), Some(module)) => {
            let module_path = module.split('@').next().unwrap_or_default();
            naming::validate_go_module_path(path)
                .and_then(|()| naming::validate_go_module_path(module_path))
                .map_err(|e| {
                    anyhow::anyhow!("{}", e.to_string().replace("--repo", "--external-api-*"))
                })?;
            let domain = domain.unwrap_or_default().to_string();
            if !domain.is_empty() && !naming::is_dns1123_subdomain(&domain) {
                bail!(
                    "invalid --external-api-domain {domain:?}: must be a DNS-1123 subdomain (e.g. io or example.com)"
                );
            }
            Ok(Some(ExternalApi {
                path: path.to_string(),
                domain,
                module: module.to_string(),
            }))
        }
    }
}

/// `go mod tidy` after `init`, with `--fetch-deps`.
fn fetch_deps(dir: &Path) -> Result<()> {
    if toolchain::installed_go_version()?.is_none() {
        bail!(
            "the files are written, but Go is not installed, so dependencies were not downloaded: install Go {} or newer (https://go.dev/dl), then run `go mod tidy` in {}",
            versions().go,
            dir.display()
        );
    }
    eprintln!("Downloading dependencies: go mod tidy");
    toolchain::run_go(dir, &["mod", "tidy"])
}

/// An external module given without `@version`, which `go get` resolves.
fn unversioned_module(external: Option<&ExternalApi>) -> Option<&str> {
    external
        .map(|e| e.module.as_str())
        .filter(|module| !module.contains('@'))
}

/// Marks the version of a kind that the API server stores.
const STORAGE_VERSION_MARKER: &str = "// +kubebuilder:storageversion";

/// `api/[<group>/]<version>/<kind>_types.go`, where a kind's Go types live.
fn types_file(group_dir: &str, version: &str, kind: &str) -> PathBuf {
    let file = format!("{}_types.go", kind.to_ascii_lowercase());
    ["api", group_dir, version, &file]
        .iter()
        .filter(|s| !s.is_empty())
        .collect()
}

/// The template variables every go/v4 template gets, from the PROJECT file.
fn base_context(project: &ProjectFile, go_header: &str) -> Result<crate::machinery::Context> {
    let repo = project.repo.clone().unwrap_or_default();
    let mut context = crate::machinery::Context::new();
    context.insert("repo_hash", &format!("{:08x}", naming::fnv1a_32(&repo)));
    context.insert("repo", &repo);
    context.insert("domain", project.domain.as_deref().unwrap_or_default());
    context.insert(
        "project_name",
        project.project_name.as_deref().unwrap_or_default(),
    );
    context.insert("multigroup", &(project.multigroup == Some(true)));
    context.insert("namespaced", &(project.namespaced == Some(true)));
    context.insert("go_header", go_header);
    // Whether the e2e suite needs cert-manager for the webhooks; `init`
    // and `create webhook` ask the chain.
    context.insert("cert_manager", &true);
    context.insert("versions", versions());
    Ok(context)
}

/// The Go file header of an existing project, from hack/boilerplate.go.txt
/// (none when the file is missing or empty).
fn read_go_header(files: Source) -> String {
    let boilerplate = files.read_to_string(BOILERPLATE_PATH).unwrap_or_default();
    go_header(&boilerplate)
}

/// The module path declared by the project's go.mod, if there is one.
fn module_of_go_mod(files: Source) -> Result<Option<String>> {
    let Some(text) = read_if_present(files, Path::new("go.mod"))? else {
        return Ok(None);
    };
    Ok(text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("module")?;
        Some(rest.trim().trim_matches('"').to_string())
    }))
}

/// Placeholder for the year in `hack/boilerplate.go.txt`.
const YEAR_PLACEHOLDER: &str = "YEAR";

/// The header for generated Go files: the boilerplate with the current year
/// and a blank line, or nothing when the project has no license header.
fn go_header(boilerplate: &str) -> String {
    let trimmed = boilerplate.trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        let with_year = replace_word(trimmed, YEAR_PLACEHOLDER, &current_year().to_string());
        format!("{with_year}\n\n")
    }
}

/// `text` with every `word` that stands as a whole word (no ASCII letter,
/// digit or `_` right before or after it, as kubebuilder's `\bYEAR\b`)
/// replaced by `by`: `YEARLY` stays as it is.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let is_word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let (before, after) = (&rest[..at], &rest[at + word.len()..]);
        let previous = before.chars().next_back().or(out.chars().next_back());
        let whole =
            !previous.is_some_and(is_word_char) && !after.chars().next().is_some_and(is_word_char);
        out.push_str(before);
        out.push_str(if whole { by } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leader_election_hash_matches_kubebuilder() {
        assert_eq!(
            format!("{:08x}", naming::fnv1a_32("example.com/single")),
            "398fa3b3"
        );
    }

    #[test]
    fn go_header_is_empty_without_a_license() {
        assert_eq!(go_header(""), "");
        assert_eq!(go_header("/*\nx\n*/\n"), "/*\nx\n*/\n\n");
        let year = current_year().to_string();
        assert_eq!(
            go_header("// Copyright YEAR.\n"),
            format!("// Copyright {year}.\n\n")
        );
    }

    #[test]
    fn only_whole_words_are_replaced() {
        assert_eq!(
            replace_word("YEAR YEARLY MYYEAR YEAR_1 (YEAR) YEARYEAR", "YEAR", "2026"),
            "2026 YEARLY MYYEAR YEAR_1 (2026) YEARYEAR"
        );
    }
}
