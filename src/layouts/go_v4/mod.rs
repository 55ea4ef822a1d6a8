//! The `go/v4` layout: Go operators on controller-runtime, laid out file for
//! file as kubebuilder's go/v4 plugin (with the kustomize/v2 `config/` tree).

mod core_types;
mod create_api;
mod create_webhook;
mod edit;
mod post_steps;
mod resource_view;
mod toolchain;
mod versions;

pub use versions::{Versions, versions};

use super::{ApiRequest, EditPlan, EditRequest, InitOptions, Layout, License, WebhookRequest};
use crate::machinery::{Change, Plan, Templates};
use crate::project::ProjectFile;
use anyhow::{Context as _, Result, bail};
use std::path::{Path, PathBuf};

/// Folder of this layout's templates under `scaffolds/`.
pub(super) const TEMPLATE_DIR: &str = "go/v4";

/// Where the license header for Go files is kept in a generated project.
const BOILERPLATE_PATH: &str = "hack/boilerplate.go.txt";

/// The go/v4 layout.
pub struct GoV4;

impl Layout for GoV4 {
    fn key(&self) -> &'static str {
        "go.kubebuilder.io/v4"
    }

    fn short_name(&self) -> &'static str {
        "go/v4"
    }

    fn prepare_init(&self, options: &InitOptions) -> Result<String> {
        if !options.skip_toolchain_check {
            toolchain::check_go_version(&versions().go)?;
        }
        let repo = match &options.repo {
            Some(repo) => repo.clone(),
            None => module_of_go_mod(&options.dir)?.with_context(|| {
                "cannot tell the Go module path: pass --repo (for example --repo github.com/example/guestbook)".to_string()
            })?,
        };
        crate::naming::validate_go_module_path(&repo)?;
        Ok(repo)
    }

    fn plan_init(&self, options: &InitOptions, project: &ProjectFile) -> Result<Plan> {
        let templates = Templates::load(TEMPLATE_DIR, &["init", "licenses"])?;
        let repo = project.repo.clone().unwrap_or_default();
        let boilerplate = boilerplate(&templates, &options.license, options.owner.as_deref())?;
        let context = base_context(project, &go_header(&boilerplate))?;

        let mut plan = Plan::new();
        for template in templates.tree("init") {
            let contents = templates.render(&template.name, &context)?;
            plan.push(init_change(options, &repo, template.output, contents));
        }
        plan.push(Change::Create {
            path: BOILERPLATE_PATH.into(),
            contents: boilerplate,
        });
        Ok(plan)
    }

    fn finish_init(&self, dir: &Path, options: &InitOptions) -> Result<()> {
        if !options.fetch_deps {
            return Ok(());
        }
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

    fn next_steps_after_init(&self) -> &'static str {
        "Next: define an API with\n  kubebuilder-rs create api --group <group> --version <version> --kind <Kind>"
    }

    fn plan_create_api(
        &self,
        dir: &Path,
        project: &mut ProjectFile,
        request: &ApiRequest,
    ) -> Result<Plan> {
        create_api::plan(dir, project, request)
    }

    fn plan_create_webhook(
        &self,
        dir: &Path,
        project: &mut ProjectFile,
        request: &WebhookRequest,
    ) -> Result<Plan> {
        create_webhook::plan(dir, project, request)
    }

    fn plan_edit(
        &self,
        dir: &Path,
        project: &mut ProjectFile,
        request: &EditRequest,
    ) -> Result<EditPlan> {
        edit::plan(dir, project, request)
    }

    fn finish_create_webhook(
        &self,
        dir: &Path,
        _request: &WebhookRequest,
        written: &[PathBuf],
    ) -> Result<()> {
        post_steps::require_go(dir)?;
        // The module of an external type was added by `create api`; a
        // missing one is found by the import check, which runs `go mod tidy`.
        // Webhooks change no API types, so no code is generated.
        let changes = post_steps::Changes {
            written,
            go_get: Vec::new(),
            api_packages: Default::default(),
        };
        post_steps::run(dir, &changes)
    }

    fn finish_create_api(
        &self,
        dir: &Path,
        request: &ApiRequest,
        written: &[PathBuf],
    ) -> Result<()> {
        post_steps::require_go(dir)?;
        let changes = post_steps::Changes {
            written,
            go_get: unversioned_module(request.external.as_ref())
                .into_iter()
                .collect(),
            api_packages: if request.resource {
                post_steps::api_packages(written, Some(&request.version))
            } else {
                Default::default()
            },
        };
        post_steps::run(dir, &changes)
    }

    fn current_license(&self, dir: &Path) -> Option<License> {
        std::fs::read_to_string(dir.join(BOILERPLATE_PATH))
            .ok()
            .map(License::Custom)
    }

    fn finish_generate(
        &self,
        dir: &Path,
        project: &ProjectFile,
        written: &[PathBuf],
    ) -> Result<()> {
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
}

/// An external module given without `@version`, which `go get` resolves.
fn unversioned_module(external: Option<&super::ExternalApi>) -> Option<&str> {
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
    context.insert("repo_hash", &format!("{:08x}", fnv1a_32(&repo)));
    context.insert("repo", &repo);
    context.insert("domain", project.domain.as_deref().unwrap_or_default());
    context.insert(
        "project_name",
        project.project_name.as_deref().unwrap_or_default(),
    );
    context.insert("multigroup", &(project.multigroup == Some(true)));
    context.insert("namespaced", &(project.namespaced == Some(true)));
    context.insert("cli_version", env!("CARGO_PKG_VERSION"));
    context.insert("go_header", go_header);
    context.insert("versions", versions());
    Ok(context)
}

/// The Go file header of an existing project, from hack/boilerplate.go.txt
/// (none when the file is missing or empty).
fn read_go_header(dir: &Path) -> String {
    let boilerplate = std::fs::read_to_string(dir.join(BOILERPLATE_PATH)).unwrap_or_default();
    go_header(&boilerplate)
}

/// The change for one rendered init file. An existing go.mod that already
/// names the module is rewritten rather than reported as a conflict, since
/// `init` reads the module path from it.
fn init_change(options: &InitOptions, repo: &str, path: PathBuf, contents: String) -> Change {
    let is_own_go_mod = path == Path::new("go.mod")
        && module_of_go_mod(&options.dir).ok().flatten().as_deref() == Some(repo);
    if is_own_go_mod {
        Change::Write { path, contents }
    } else {
        Change::Create { path, contents }
    }
}

/// The module path declared by `<dir>/go.mod`, if there is one.
fn module_of_go_mod(dir: &Path) -> Result<Option<String>> {
    let path = dir.join("go.mod");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok(text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("module")?;
        Some(rest.trim().trim_matches('"').to_string())
    }))
}

/// The text of `hack/boilerplate.go.txt` for `license`, naming `owner`.
/// `templates` must hold the `licenses` folder.
fn boilerplate(templates: &Templates, license: &License, owner: Option<&str>) -> Result<String> {
    match license {
        License::None => Ok(String::new()),
        License::Custom(text) => Ok(text.clone()),
        License::Apache2 => {
            // Like kubebuilder, the file keeps the placeholder YEAR, which
            // controller-gen and this tool replace with the current year.
            let mut context = crate::machinery::Context::new();
            context.insert("year", YEAR_PLACEHOLDER);
            context.insert("owner", owner.unwrap_or_default());
            templates.render("licenses/apache2.txt.tera", &context)
        }
    }
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
        let with_year = trimmed.replace(YEAR_PLACEHOLDER, &current_year().to_string());
        format!("{with_year}\n\n")
    }
}

/// The 32-bit FNV-1a hash of `text`. Its hex form, like kubebuilder's, makes
/// the leader-election ID unique per module (`398fa3b3.my.domain`).
fn fnv1a_32(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// The current year (UTC), for copyright lines.
fn current_year() -> i64 {
    crate::machinery::clock::DateTime::now().year
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leader_election_hash_matches_kubebuilder() {
        assert_eq!(
            format!("{:08x}", fnv1a_32("example.com/single")),
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
}
