//! Templates embedded in the binary from the `scaffolds/` folder.
//!
//! Every file under `scaffolds/<plugin>/` whose name ends in `.jinja` is a
//! template in the Jinja syntax (`{{ value }}`, `{% if %}`, `{% for %}`,
//! `{% set %}`, `{%- -%}` whitespace control, `{% raw %}`), rendered with
//! minijinja. A folder of templates mirrors the tree it generates: the
//! template `scaffolds/<plugin>/init/cmd/main.txt.jinja` renders to `cmd/main.txt`.
//! Whether a rendered file is created, kept or written when one is already
//! at its path is declared in `files.toml` beside the templates (see
//! [`Templates::plan_tree`]).

use anyhow::{Result, anyhow};
use include_dir::{Dir, DirEntry, include_dir};
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The whole `scaffolds/` folder, embedded at build time.
pub(super) static SCAFFOLDS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/scaffolds");

/// Suffix that marks a file under `scaffolds/` as a template.
const TEMPLATE_SUFFIX: &str = ".jinja";

/// The text of an embedded file, by its path under `scaffolds/`.
pub fn embedded_text(path: &str) -> Option<&'static str> {
    embedded(path)?.as_file()?.contents_utf8()
}

/// The embedded folder at `path` under `scaffolds/`.
fn embedded_dir(path: &str) -> Option<&'static Dir<'static>> {
    embedded(path)?.as_dir()
}

/// The embedded file or folder at `path` under `scaffolds/`, found folder
/// by folder (include_dir's own lookup compares `path` with every entry of
/// the tree, which cost a `create api` a third of its instructions).
fn embedded(path: &str) -> Option<&'static DirEntry<'static>> {
    let mut names = path.split('/').filter(|name| !name.is_empty());
    let first = names.next()?;
    let named = |dir: &'static Dir<'static>, name: &str| {
        dir.entries()
            .iter()
            .find(|entry| entry.path().file_name().is_some_and(|n| n == name))
    };
    names.try_fold(named(&SCAFFOLDS, first)?, |entry, name| {
        named(entry.as_dir()?, name)
    })
}

/// One template of a folder, with the path it renders to.
#[derive(Debug, Clone)]
pub struct TemplateFile {
    /// Template name, relative to the plugin folder (`init/cmd/main.txt.jinja`).
    pub name: String,
    /// Output path, relative to the folder the template was listed from (`cmd/main.txt`).
    pub output: PathBuf,
}

impl TemplateFile {
    /// The output path with its `{name}` placeholders filled from `vars`. A
    /// path segment that ends up empty is dropped, so `api/{group_dir}/v1`
    /// becomes `api/v1` when `group_dir` is empty.
    pub fn output_with(&self, vars: &[(&str, &str)]) -> PathBuf {
        fill_placeholders(&self.output, vars)
    }
}

/// `path` with its `{name}` placeholders filled from `vars`; a segment that
/// ends up empty is dropped.
pub fn fill_placeholders(path: &Path, vars: &[(&str, &str)]) -> PathBuf {
    path.iter()
        .map(|segment| {
            vars.iter().fold(
                segment.to_string_lossy().into_owned(),
                |text, (name, value)| text.replace(&format!("{{{name}}}"), value),
            )
        })
        .filter(|segment| !segment.is_empty())
        .collect()
}

/// Owned path segment values (`("group_dir", "crew".to_string())`), as
/// [`TemplateFile::output_with`] takes them.
pub fn path_vars<'a>(vars: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    vars.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// The values a template is rendered with, by name.
#[derive(Debug, Clone, Default)]
pub struct Context(BTreeMap<String, Value>);

impl Context {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the variable `name` to `value`.
    pub fn insert<T: Serialize + ?Sized>(&mut self, name: impl Into<String>, value: &T) {
        self.0.insert(name.into(), Value::from_serialize(value));
    }

    /// Sets `name` to a test of one text, for `{% if name("text") %}`.
    pub fn insert_test(
        &mut self,
        name: impl Into<String>,
        test: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) {
        let function = Value::from_function(move |text: String| test(&text));
        self.0.insert(name.into(), function);
    }
}

/// The tag delimiters of a plugin's templates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Jinja's own: `{{ value }}`, `{% if %}`, `{# note #}`.
    Jinja,
    /// `[[ value ]]`, `[% if %]`, `[# note #]`: for templates whose output is
    /// itself a template with `{{ }}` tags (a Helm chart), so its `{{ }}`
    /// is plain text.
    Brackets,
}

impl Syntax {
    /// The opening delimiters of an expression, a statement and a comment.
    fn openers(self) -> [&'static str; 3] {
        match self {
            Syntax::Jinja => ["{{", "{%", "{#"],
            Syntax::Brackets => ["[[", "[%", "[#"],
        }
    }
}

/// Some templates of one plugin, ready to render.
///
/// Only the folders a command asks for are listed, and a template is parsed
/// the first time it is rendered, so templates that are never rendered are
/// never parsed. A template without any tag renders to its own text and is
/// not parsed at all.
pub struct Templates {
    /// Template sources by name (relative to the plugin folder).
    sources: BTreeMap<&'static str, &'static str>,
    /// The templates parsed so far.
    env: RefCell<Environment<'static>>,
    /// The plugin folder, for error messages.
    plugin: String,
    /// The templates' tag delimiters.
    syntax: Syntax,
}

impl Templates {
    /// Lists the templates under `scaffolds/<plugin>/<folder>/` for each of
    /// `folders` (for example `helm/v2-alpha` and `["init", "licenses"]`).
    pub fn load(plugin: &str, folders: &[&str]) -> Result<Self> {
        Self::load_with(plugin, folders, Syntax::Jinja)
    }

    /// Like [`Templates::load`], for templates written with `syntax`.
    pub fn load_with(plugin: &str, folders: &[&str], syntax: Syntax) -> Result<Self> {
        let plugin_dir = embedded_dir(plugin)
            .ok_or_else(|| anyhow!("no templates embedded for plugin {plugin}"))?;
        let mut sources = Vec::new();
        for folder in folders {
            let dir = embedded_dir(&format!("{plugin}/{folder}"))
                .ok_or_else(|| anyhow!("no templates embedded in {plugin}/{folder}"))?;
            collect_templates(plugin_dir, dir, &mut sources);
        }
        Ok(Self {
            sources: sources.into_iter().collect(),
            env: RefCell::new(environment(syntax)?),
            plugin: plugin.to_string(),
            syntax,
        })
    }

    /// Renders the template `name` (relative to the plugin folder).
    pub fn render(&self, name: &str, context: &Context) -> Result<String> {
        let (&name, &source) = self
            .sources
            .get_key_value(name)
            .ok_or_else(|| anyhow!("cannot render template {name}: it is not loaded"))?;
        if !has_tags(source, self.syntax) {
            return Ok(source.to_string());
        }
        if self.env.borrow().get_template(name).is_err() {
            self.env
                .borrow_mut()
                .add_template(name, source)
                .map_err(|e| {
                    anyhow!(
                        "invalid template in plugin {}: {}",
                        self.plugin,
                        error_chain(&e)
                    )
                })?;
        }
        let env = self.env.borrow();
        let template = env
            .get_template(name)
            .map_err(|e| anyhow!("cannot load template {name}: {}", error_chain(&e)))?;
        template
            .render(&context.0)
            .map_err(|e| anyhow!("cannot render template {name}: {}", error_chain(&e)))
    }

    /// The plugin folder the templates come from (`go/v4`).
    pub(super) fn plugin(&self) -> &str {
        &self.plugin
    }

    /// Lists the templates below `folder` (relative to the plugin folder), with
    /// the output path of each relative to that folder. Sorted by name.
    pub fn tree(&self, folder: &str) -> Vec<TemplateFile> {
        self.sources
            .keys()
            .filter_map(|name| {
                let rest = name.strip_prefix(folder)?.strip_prefix('/')?;
                let output = rest.strip_suffix(TEMPLATE_SUFFIX)?;
                Some(TemplateFile {
                    name: name.to_string(),
                    output: PathBuf::from(output),
                })
            })
            .collect()
    }
}

/// An environment that renders templates as this tool always has: text is never
/// escaped, a template's last newline is kept, and printing an undefined
/// value is an error (testing one in `{% if %}` is not).
fn environment(syntax: Syntax) -> Result<Environment<'static>> {
    let mut env = Environment::new();
    if syntax == Syntax::Brackets {
        let config = minijinja::syntax::SyntaxConfig::builder()
            .block_delimiters("[%", "%]")
            .variable_delimiters("[[", "]]")
            .comment_delimiters("[#", "#]")
            .build()
            .map_err(|e| anyhow!("bad template syntax: {e}"))?;
        env.set_syntax(config);
    }
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_keep_trailing_newline(true);
    env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
    Ok(env)
}

/// Whether `source` holds any template tag (expression, statement or comment).
fn has_tags(source: &str, syntax: Syntax) -> bool {
    syntax.openers().iter().any(|open| source.contains(open))
}

/// Collects `(name, source)` for every `.jinja` file below `dir`, with names
/// relative to `root`.
fn collect_templates(
    root: &'static Dir<'static>,
    dir: &'static Dir<'static>,
    out: &mut Vec<(&'static str, &'static str)>,
) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(sub) => collect_templates(root, sub, out),
            DirEntry::File(file) => {
                let path = file.path();
                let is_template = path.to_str().is_some_and(|p| p.ends_with(TEMPLATE_SUFFIX));
                let name = path.strip_prefix(root.path()).ok().and_then(|p| p.to_str());
                if let (true, Some(name), Some(text)) = (is_template, name, file.contents_utf8()) {
                    out.push((name, text));
                }
            }
        }
    }
}

/// Joins a template error with its sources on one line.
fn error_chain(error: &minijinja::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::{
        SCAFFOLDS, Syntax, TEMPLATE_SUFFIX, TemplateFile, collect_templates, embedded,
        embedded_dir, embedded_text, environment, has_tags,
    };

    #[test]
    fn every_embedded_file_and_folder_is_found_by_its_path() {
        fn walk(dir: &'static include_dir::Dir<'static>, found: &mut usize) {
            for entry in dir.entries() {
                let path = entry.path().to_str().unwrap();
                assert_eq!(
                    embedded(path).map(|e| e.path()),
                    Some(entry.path()),
                    "{path}"
                );
                if let Some(sub) = entry.as_dir() {
                    assert!(embedded_dir(&format!("{path}/")).is_some(), "{path}/");
                    walk(sub, found);
                } else {
                    assert_eq!(
                        embedded_text(path),
                        entry.as_file().unwrap().contents_utf8()
                    );
                    *found += 1;
                }
            }
        }
        let mut files = 0;
        walk(&SCAFFOLDS, &mut files);
        assert!(files > 100, "{files} files");
        assert!(embedded("go/v4/no such file").is_none());
        assert!(embedded("").is_none());
        assert!(embedded_dir("go/v4/init/Makefile.jinja").is_none());
    }

    /// Folder of the one plugin whose templates use [`Syntax::Brackets`].
    const BRACKETED: &str = "helm/";

    /// Templates are parsed only when rendered, so check here that every
    /// embedded template parses.
    #[test]
    fn every_embedded_template_parses() {
        let mut sources = Vec::new();
        collect_templates(&SCAFFOLDS, &SCAFFOLDS, &mut sources);
        assert!(sources.len() > 50, "{} templates", sources.len());
        let mut jinja = environment(Syntax::Jinja).unwrap();
        let mut brackets = environment(Syntax::Brackets).unwrap();
        for (name, source) in sources {
            assert!(name.ends_with(TEMPLATE_SUFFIX));
            let env = if name.starts_with(BRACKETED) {
                &mut brackets
            } else {
                &mut jinja
            };
            env.add_template(name, source)
                .unwrap_or_else(|e| panic!("{name}: {}", super::error_chain(&e)));
        }
    }

    #[test]
    fn rendering_keeps_text_as_written() {
        let mut env = environment(Syntax::Jinja).unwrap();
        env.add_template("t", "{{ v }} & <b>\n{% if missing %}no{% endif %}\n")
            .unwrap();
        let template = env.get_template("t").unwrap();
        let context = std::collections::BTreeMap::from([("v", "\"a<b>\"")]);
        assert_eq!(template.render(context).unwrap(), "\"a<b>\" & <b>\n\n");
        env.add_template("u", "{{ missing }}").unwrap();
        let printed = env.get_template("u").unwrap().render(());
        assert!(printed.is_err(), "printing an undefined value must fail");
    }

    #[test]
    fn text_without_tags_is_not_a_template() {
        assert!(!has_tags("a: {b}\n", Syntax::Jinja));
        assert!(has_tags("{{ repo }}", Syntax::Jinja));
        assert!(has_tags("{% raw %}x{% endraw %}", Syntax::Jinja));
        assert!(has_tags("{# note #}", Syntax::Jinja));
        assert!(!has_tags("a: {{ .Values.b }}\n", Syntax::Brackets));
        assert!(has_tags("[[ name ]]", Syntax::Brackets));
    }

    #[test]
    fn bracket_syntax_leaves_curly_templates_alone() {
        let mut env = environment(Syntax::Brackets).unwrap();
        env.add_template("t", "[[ p ]]: {{ .Values.x }}[% if no %]![% endif %]\n")
            .unwrap();
        let context = std::collections::BTreeMap::from([("p", "name")]);
        let text = env.get_template("t").unwrap().render(context).unwrap();
        assert_eq!(text, "name: {{ .Values.x }}\n");
    }

    #[test]
    fn placeholders_fill_segments_and_empty_segments_vanish() {
        let file = TemplateFile {
            name: String::new(),
            output: "api/{group_dir}/{version}/{kind}_types.txt".into(),
        };
        let vars = [("group_dir", ""), ("version", "v1"), ("kind", "captain")];
        assert_eq!(
            file.output_with(&vars),
            std::path::Path::new("api/v1/captain_types.txt")
        );
        let vars = [
            ("group_dir", "foo.policy"),
            ("version", "v1"),
            ("kind", "captain"),
        ];
        assert_eq!(
            file.output_with(&vars),
            std::path::Path::new("api/foo.policy/v1/captain_types.txt")
        );
    }
}
