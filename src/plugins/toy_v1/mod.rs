//! `base.toy.kubebuilder-rs.io/v1` (short `toy/v1`): a third language
//! layout that exists in the unit tests only, to show (and check) that a
//! layout is its own folder and one line in [`super::PLUGINS`]: it takes part
//! in `init` (a README, with a flag of its own) and `create api` (one file
//! per kind), and answers [`Layout`]. Its templates are read from this
//! folder when the tests are built, so nothing of it is in the product.

use super::flags::args_of;
use super::{
    ApiContext, ApiTemplateContext, CreateApiHook, Given, InitContext, InitHook, Layout, License,
    Output, Plugin, ReplaySettings, Role,
};
use crate::machinery::{Change, Context, Source};
use crate::project::ProjectFile;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The plugin's key.
pub const KEY: &str = "base.toy.kubebuilder-rs.io/v1";

/// The README template.
const README: &str = include_str!("templates/README.md.jinja");

/// The template of one kind's file.
const KIND: &str = include_str!("templates/kind.toy.jinja");

/// The toy layout.
pub struct Toy;

impl Plugin for Toy {
    fn key(&self) -> &'static str {
        KEY
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("toy/v1")
    }

    fn role(&self) -> Role {
        Role::Language
    }

    joins!(init: InitHook, create_api: CreateApiHook, layout: Layout);
}

/// The layout's flags on `init`.
#[derive(Debug, Clone, clap::Args)]
struct ToyInitOptions {
    #[arg(
        long,
        value_name = "toy-greeting",
        default_value = "Hello.",
        help = "toy/v1: the README's first words"
    )]
    toy_greeting: String,
}

impl InitHook for Toy {
    fn args(&self) -> Vec<clap::Arg> {
        args_of::<ToyInitOptions>()
    }

    fn plan(&self, ctx: &InitContext, project: &ProjectFile, out: &mut Output) -> Result<()> {
        let options: ToyInitOptions = ctx.flags.get()?;
        let context = minijinja::context! {
            project_name => project.project_name,
            domain => project.domain,
            greeting => options.toy_greeting,
        };
        out.plan.push(Change::Create {
            path: "README.md".into(),
            contents: render(README, context)?,
        });
        Ok(())
    }

    fn next_steps(&self) -> Option<&'static str> {
        Some("Next: kubebuilder-rs create api (toy/v1)")
    }

    fn replay_options(
        &self,
        _project: &ProjectFile,
        _settings: &ReplaySettings,
    ) -> Result<Option<Given>> {
        let greeting = "Again.".to_string();
        Ok(Some(Given::new(ToyInitOptions {
            toy_greeting: greeting,
        })))
    }
}

impl CreateApiHook for Toy {
    fn plan(&self, ctx: &ApiContext, out: &mut Output) -> Result<()> {
        let resource = ctx.resource;
        let context = minijinja::context! {
            resource => resource,
            domain => ctx.project.domain,
        };
        out.plan.push(Change::Create {
            path: kind_file(&resource.group, &resource.version, &resource.kind_lower),
            contents: render(KIND, context)?,
        });
        Ok(())
    }
}

impl Layout for Toy {
    fn name(&self) -> &'static str {
        "toy/v1"
    }

    fn language(&self) -> &'static str {
        "toy"
    }

    fn toolchain(&self) -> Option<super::Toolchain> {
        None
    }

    fn versions(&self) -> Vec<(&'static str, String)> {
        vec![("toy", "1.0".to_string())]
    }

    fn api_template_context(&self, ctx: &ApiContext) -> Result<ApiTemplateContext> {
        let mut context = Context::new();
        context.insert("resource", ctx.resource);
        let vars = vec![("kind", ctx.resource.kind_lower.clone())];
        Ok(ApiTemplateContext { context, vars })
    }

    fn make_manifests(&self, _dir: &Path) -> Result<()> {
        Ok(())
    }

    fn current_license(&self, _files: Source) -> Option<License> {
        None
    }

    fn manager_takes_flag(&self, _files: Source, _name: &str) -> Result<bool> {
        Ok(false)
    }

    fn webhook_dir(&self) -> &'static str {
        "webhooks"
    }

    fn source_header(&self, _files: Source) -> String {
        String::new()
    }
}

/// `apis/<group>/<version>/<kind>.toy`.
fn kind_file(group: &str, version: &str, kind: &str) -> PathBuf {
    ["apis", group, version, &format!("{kind}.toy")]
        .iter()
        .collect()
}

/// Renders one template source with `context`.
fn render(source: &str, context: minijinja::Value) -> Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_keep_trailing_newline(true);
    Ok(env.render_str(source, context)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::alpha_generate::scaffold_tree;
    use crate::ops::create_api::{self, ApiRequest};
    use crate::ops::init::{self, InitOptions, InitRequest};
    use crate::ops::{ResourceName, ResourceSpec};
    use crate::plugins::{Chain, Flags, Hook, manager_takes_flag};
    use crate::project::Project;
    use crate::project::bookkeeping::ApiOptions;

    fn init_options() -> InitOptions {
        InitOptions {
            domain: "example.com".into(),
            project_name: "toybox".into(),
            owner: None,
            license: License::None,
            multigroup: false,
            namespaced: false,
        }
    }

    /// `init --plugins toy/v1 <args>` in `dir`, through `init`'s own planning.
    fn init(dir: &Path, args: &[&str]) {
        let chain = Chain::parse("toy/v1").unwrap();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let flags = Flags::parse(Hook::Init, &args).unwrap();
        flags.check_chain(&chain).unwrap();
        let request = InitRequest {
            chain,
            options: init_options(),
            flags,
        };
        let plan = init::plan(Source::Dir(dir), &request).unwrap();
        plan.resolve(dir, false).unwrap().apply().unwrap();
    }

    /// `create api` for crew/v1 `kind` in `dir`, through its own planning.
    fn create_api(dir: &Path, kind: &str) {
        let mut project = Project::load(dir).unwrap();
        let request = ApiRequest {
            chain: Chain::from_layout(&project.file.layout).unwrap(),
            resource: ResourceSpec::Named(ResourceName {
                group: "crew".into(),
                version: "v1".into(),
                kind: kind.into(),
                plural: None,
                namespaced: true,
            }),
            options: ApiOptions {
                resource: true,
                controller: true,
                ..ApiOptions::default()
            },
            flags: Flags::defaults(Hook::CreateApi),
        };
        let (out, _) = create_api::plan(Source::Dir(dir), &mut project, &request).unwrap();
        out.plan.resolve(dir, false).unwrap().apply().unwrap();
    }

    fn read(dir: &Path, path: &str) -> String {
        std::fs::read_to_string(dir.join(path)).unwrap()
    }

    #[test]
    fn a_third_layout_takes_part_in_init_and_create_api() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        init(dir, &["--toy-greeting=Ahoy."]);
        let readme = read(dir, "README.md");
        assert!(
            readme.starts_with("# toybox\n\nAhoy. This project"),
            "{readme}"
        );
        let project = read(dir, "PROJECT");
        assert!(
            project.contains("- base.toy.kubebuilder-rs.io/v1\n"),
            "{project}"
        );

        create_api(dir, "FirstMate");
        assert_eq!(
            read(dir, "apis/crew/v1/firstmate.toy"),
            "kind = \"FirstMate\"\ngroup = \"crew.example.com\"\nversion = \"v1\"\nplural = \"firstmates\"\n"
        );
        let project = Project::load(dir).unwrap().file;
        assert!(project.resources.iter().any(|r| r.kind == "FirstMate"));
    }

    #[test]
    fn the_layout_is_reached_through_the_chain_only() {
        let chain = Chain::parse("toy/v1").unwrap();
        let layout = chain.layout().unwrap();
        assert_eq!((layout.name(), layout.language()), ("toy/v1", "toy"));
        let tmp = tempfile::tempdir().unwrap();
        assert!(!manager_takes_flag(&chain, Source::Dir(tmp.path()), "webhook-port").unwrap());
        // Its flag is refused where it does not run, and shown where it does.
        let flags = Flags::parse(Hook::Init, &["--toy-greeting=Hi.".to_string()]).unwrap();
        assert!(flags.check_chain(&Chain::parse("go/v4").unwrap()).is_err());
        let help = crate::cli::command()
            .find_subcommand_mut("init")
            .unwrap()
            .render_help()
            .to_string();
        assert!(help.contains("--toy-greeting <toy-greeting>"), "{help}");
    }

    #[test]
    fn alpha_generate_replays_the_layout_with_its_own_options() {
        let original = tempfile::tempdir().unwrap();
        init(original.path(), &[]);
        create_api(original.path(), "Captain");
        let input = crate::machinery::tree::read_dir(original.path(), &[]).unwrap();
        let new = scaffold_tree(&input).unwrap();
        let text = |path: &str| String::from_utf8(new[Path::new(path)].bytes.clone()).unwrap();
        let readme = text("README.md");
        assert!(readme.contains("\n\nAgain. This project"), "{readme}");
        assert_eq!(
            text("apis/crew/v1/captain.toy"),
            read(original.path(), "apis/crew/v1/captain.toy")
        );
    }
}
