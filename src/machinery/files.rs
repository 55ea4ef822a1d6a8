//! Rendering a folder of templates into a plan, each file by the rule
//! declared for it beside the templates.
//!
//! A top folder of a plugin's templates (a command folder such as
//! `scaffolds/<plugin>/create-api/`, or a shared one such as
//! `scaffolds/rust/v1-alpha/test-support/`) may hold `files.toml`, which
//! names the files that are not simply created:
//!
//! ```toml
//! keep = ["webhook/**", "resource/**/kustomization.yaml"]
//! keep-unless-forced = ["chart/templates/_helpers.tpl"]
//! write = ["grafana/*.json"]
//! fill-in = ["**"]
//! ```
//!
//! - `keep`: created when missing; a file already there is kept (files that
//!   later resources share, files the user is meant to edit).
//! - `keep-unless-forced`: kept like `keep`, but rewritten when the command
//!   is forced (`edit --force`, see [`TreeFile::forced`]).
//! - `write`: always written; the plugin owns the file.
//! - `fill-in`: gives the file an earlier plugin of the chain planned at
//!   that path this content instead (see [`Plan::fill_in`]).
//!
//! A file that no glob names is created: a file already at its path is a
//! conflict unless `--force`. Globs name templates relative to the folder
//! that holds `files.toml`, without `.jinja` and before their `{placeholder}`
//! segments are filled; `*` matches within one path segment, `**` any number
//! of segments. A file that globs of two rules name is an error.
//!
//! [`Templates::plan_tree`] renders a whole folder by these rules;
//! [`Templates::plan_tree_with`] lets the plugin see each file first, for
//! what is real logic rather than a rule (skipping a file, another path, a
//! change computed from the file on disk).

use super::templates::{Templates, embedded_text};
use super::{Change, Context, Plan};
use anyhow::{Context as _, Result, anyhow, bail};
use std::path::{Path, PathBuf};

/// Name of the rules file in a top template folder.
const RULES_FILE: &str = "files.toml";

/// What becomes of a rendered file in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Created; a file already there is a conflict unless `--force`.
    Create,
    /// Created when missing; a file already there is kept.
    Keep,
    /// Kept when present, unless the command is forced.
    KeepUnlessForced,
    /// Always written.
    Write,
    /// Fills in the file an earlier plugin planned at the same path.
    FillIn,
}

/// The keys of `files.toml` and the rule each declares.
const RULE_KEYS: &[(&str, Rule)] = &[
    ("keep", Rule::Keep),
    ("keep-unless-forced", Rule::KeepUnlessForced),
    ("write", Rule::Write),
    ("fill-in", Rule::FillIn),
];

/// The globs of one `files.toml`, each with its rule.
#[derive(Debug, Default)]
struct FileRules {
    /// `<plugin>/<folder>/files.toml`, for error messages.
    source: String,
    /// Globs in declaration order.
    globs: Vec<(Rule, String)>,
}

impl FileRules {
    /// Reads `scaffolds/<plugin>/<folder>/files.toml`; no globs when the
    /// folder has none.
    fn load(plugin: &str, folder: &str) -> Result<Self> {
        let source = format!("{plugin}/{folder}/{RULES_FILE}");
        let globs = match embedded_text(&source) {
            Some(text) => parse(text).with_context(|| format!("invalid {source}"))?,
            None => Vec::new(),
        };
        Ok(Self { source, globs })
    }

    /// The rule for the template at `path`, relative to the rules' folder.
    fn rule(&self, path: &str) -> Result<Rule> {
        let mut rules = self
            .globs
            .iter()
            .filter(|(_, glob)| glob_matches(glob, path))
            .map(|(rule, _)| *rule);
        let rule = rules.next().unwrap_or(Rule::Create);
        if let Some(other) = rules.find(|other| *other != rule) {
            bail!(
                "{} gives {path} two rules, {} and {}: name it under one",
                self.source,
                key_of(rule),
                key_of(other)
            );
        }
        Ok(rule)
    }
}

/// The `files.toml` key of `rule`.
fn key_of(rule: Rule) -> &'static str {
    RULE_KEYS
        .iter()
        .find(|(_, r)| *r == rule)
        .map_or("create", |(key, _)| key)
}

/// Parses a rules file into its globs.
fn parse(text: &str) -> Result<Vec<(Rule, String)>> {
    let doc: toml_edit::DocumentMut = text.parse()?;
    let mut globs = Vec::new();
    for (key, item) in doc.iter() {
        let Some(&(_, rule)) = RULE_KEYS.iter().find(|(k, _)| *k == key) else {
            let known: Vec<&str> = RULE_KEYS.iter().map(|(k, _)| *k).collect();
            bail!("unknown key {key:?}; known keys: {}", known.join(", "));
        };
        let list = item
            .as_array()
            .ok_or_else(|| anyhow!("{key} is not a list of globs"))?;
        for glob in list.iter() {
            let glob = glob
                .as_str()
                .ok_or_else(|| anyhow!("{key} holds a value that is not a glob string"))?;
            globs.push((rule, glob.to_string()));
        }
    }
    Ok(globs)
}

/// Whether `path` (segments joined by `/`) matches `glob`.
fn glob_matches(glob: &str, path: &str) -> bool {
    let glob: Vec<&str> = glob.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    segments_match(&glob, &path)
}

/// Whether the path segments match the glob segments; `**` takes any
/// number of segments.
fn segments_match(glob: &[&str], path: &[&str]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments_match(rest, &path[skip..])),
        Some((first, rest)) => path.split_first().is_some_and(|(segment, path_rest)| {
            segment_matches(first, segment) && segments_match(rest, path_rest)
        }),
    }
}

/// Whether one segment matches a glob segment, where `*` takes any text.
fn segment_matches(glob: &str, text: &str) -> bool {
    match glob.split_once('*') {
        None => glob == text,
        Some((prefix, rest)) => text.strip_prefix(prefix).is_some_and(|after| {
            (0..=after.len())
                .filter(|&at| after.is_char_boundary(at))
                .any(|at| segment_matches(rest, &after[at..]))
        }),
    }
}

/// One template of a folder on its way into the plan.
pub struct TreeFile<'a> {
    /// Its output path relative to the folder rendered, placeholders
    /// unfilled (`api/{group_dir}/{version}/{kind}_types.txt`).
    pub template: &'a Path,
    /// Where it goes in the project: `template` with its placeholders filled.
    pub path: PathBuf,
    /// What becomes of it, as `files.toml` declares.
    pub rule: Rule,
    /// Template name, relative to the plugin folder.
    name: &'a str,
    /// The templates it comes from.
    templates: &'a Templates,
    /// The values it is rendered with.
    context: &'a Context,
}

impl TreeFile<'_> {
    /// Renders the template.
    pub fn render(&self) -> Result<String> {
        self.templates.render(self.name, self.context)
    }

    /// With `force`, a `keep-unless-forced` file is written; otherwise it
    /// stays kept.
    pub fn forced(mut self, force: bool) -> Self {
        if force && self.rule == Rule::KeepUnlessForced {
            self.rule = Rule::Write;
        }
        self
    }

    /// Renders the file and plans it by its rule.
    pub fn plan(self, plan: &mut Plan) -> Result<()> {
        let contents = self.render()?;
        let path = self.path;
        match self.rule {
            Rule::Create => plan.push(Change::Create { path, contents }),
            Rule::Keep | Rule::KeepUnlessForced => {
                plan.push(Change::CreateIfMissing { path, contents });
            }
            Rule::Write => plan.push(Change::Write { path, contents }),
            Rule::FillIn => plan.fill_in(path, contents),
        }
        Ok(())
    }
}

impl Templates {
    /// Plans every template below `folder` (relative to the plugin folder,
    /// e.g. `create-api/resource`), rendered with `context`, at its output
    /// path with the placeholders filled from `vars`, by the rule
    /// `files.toml` declares for it.
    pub fn plan_tree(
        &self,
        folder: &str,
        context: &Context,
        vars: &[(&str, &str)],
        plan: &mut Plan,
    ) -> Result<()> {
        self.plan_tree_with(folder, context, vars, plan, |file, plan| file.plan(plan))
    }

    /// Like [`Templates::plan_tree`], with `each` planning every file: it
    /// may skip it, change its path or rule, or plan a change of its own.
    /// A file is rendered only when `each` asks for it.
    pub fn plan_tree_with(
        &self,
        folder: &str,
        context: &Context,
        vars: &[(&str, &str)],
        plan: &mut Plan,
        mut each: impl FnMut(TreeFile, &mut Plan) -> Result<()>,
    ) -> Result<()> {
        let (top, below) = folder.split_once('/').unwrap_or((folder, ""));
        let rules = FileRules::load(self.plugin(), top)?;
        for template in self.tree(folder) {
            let relative = Path::new(below).join(&template.output);
            let rule = rules.rule(&relative.to_string_lossy())?;
            let file = TreeFile {
                template: &template.output,
                path: template.output_with(vars),
                rule,
                name: &template.name,
                templates: self,
                context,
            };
            each(file, plan)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machinery::templates::SCAFFOLDS;
    use include_dir::{Dir, DirEntry};

    #[test]
    fn globs_match_within_and_across_segments() {
        assert!(glob_matches("webhook/**", "webhook/config/a.yaml"));
        assert!(glob_matches("**/mod.txt", "mod.txt"));
        assert!(glob_matches(
            "**/mod.txt",
            "api/src/api/{group_dir}/mod.txt"
        ));
        assert!(!glob_matches("**/mod.txt", "api/src/api/{kind}.txt"));
        assert!(glob_matches(
            "resource/config/rbac/*_admin_role.yaml",
            "resource/config/rbac/{group_prefix}{kind}_admin_role.yaml"
        ));
        assert!(!glob_matches(
            "resource/config/*_admin_role.yaml",
            "resource/config/rbac/x_admin_role.yaml"
        ));
        assert!(glob_matches("grafana/*.json", "grafana/a.json"));
        assert!(!glob_matches("grafana/*.json", "grafana/a.yaml"));
        assert!(glob_matches("chart/Chart.yaml", "chart/Chart.yaml"));
        assert!(!glob_matches("chart/Chart.yaml", "chart/Chart.yaml.bak"));
    }

    #[test]
    fn unnamed_files_are_created_and_two_rules_are_refused() {
        let rules = FileRules {
            source: "p/c/files.toml".into(),
            globs: parse("keep = [\"a/**\"]\nwrite = [\"a/x/*.json\", \"b\"]\n").unwrap(),
        };
        assert_eq!(rules.rule("a/y.yaml").unwrap(), Rule::Keep);
        assert_eq!(rules.rule("b").unwrap(), Rule::Write);
        assert_eq!(rules.rule("c/b").unwrap(), Rule::Create);
        let err = rules.rule("a/x/d.json").unwrap_err().to_string();
        assert!(err.contains("two rules, keep and write"), "{err}");
    }

    #[test]
    fn a_rules_file_takes_known_keys_and_glob_lists_only() {
        let err = parse("kept = [\"a\"]\n").unwrap_err().to_string();
        assert!(err.contains("\"kept\"") && err.contains("fill-in"), "{err}");
        let err = parse("keep = \"a\"\n").unwrap_err().to_string();
        assert!(err.contains("not a list"), "{err}");
        let err = parse("keep = [1]\n").unwrap_err().to_string();
        assert!(err.contains("not a glob"), "{err}");
    }

    /// Every embedded `files.toml` parses, each of its globs names a
    /// template of its folder, and no template gets two rules.
    #[test]
    fn every_rules_file_names_templates_of_its_folder() {
        let mut found = Vec::new();
        collect_rules_files(&SCAFFOLDS, &mut found);
        assert!(found.len() >= 5, "{found:?}");
        for path in found {
            let mut parts = path.splitn(4, '/');
            let plugin = format!("{}/{}", parts.next().unwrap(), parts.next().unwrap());
            let folder = parts.next().unwrap();
            let rules = FileRules::load(&plugin, folder).unwrap();
            let templates = Templates::load(&plugin, &[folder]).unwrap();
            let outputs: Vec<String> = templates
                .tree(folder)
                .iter()
                .map(|t| t.output.to_string_lossy().into_owned())
                .collect();
            for (_, glob) in &rules.globs {
                assert!(
                    outputs.iter().any(|output| glob_matches(glob, output)),
                    "{path}: {glob} names no template"
                );
            }
            for output in &outputs {
                rules.rule(output).unwrap();
            }
        }
    }

    /// The paths of every `files.toml` under `dir`.
    fn collect_rules_files(dir: &Dir<'static>, out: &mut Vec<String>) {
        for entry in dir.entries() {
            match entry {
                DirEntry::Dir(sub) => collect_rules_files(sub, out),
                DirEntry::File(file) if file.path().ends_with(RULES_FILE) => {
                    out.push(file.path().to_string_lossy().into_owned());
                }
                DirEntry::File(_) => {}
            }
        }
    }
}
