//! Templates embedded in the binary from the `scaffolds/` folder.
//!
//! Every file under `scaffolds/<layout>/` whose name ends in `.tera` is a Tera
//! template. A folder of templates mirrors the tree it generates: the template
//! `scaffolds/go/v4/init/cmd/main.go.tera` renders to `cmd/main.go`.

use anyhow::{Result, anyhow};
use include_dir::{Dir, DirEntry, include_dir};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The whole `scaffolds/` folder, embedded at build time.
static SCAFFOLDS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/scaffolds");

/// Suffix that marks a file under `scaffolds/` as a template.
const TEMPLATE_SUFFIX: &str = ".tera";

/// The text of an embedded file, by its path under `scaffolds/`.
pub fn embedded_text(path: &str) -> Option<&'static str> {
    SCAFFOLDS.get_file(path).and_then(|f| f.contents_utf8())
}

/// One template of a folder, with the path it renders to.
#[derive(Debug, Clone)]
pub struct TemplateFile {
    /// Template name, relative to the layout folder (`init/cmd/main.go.tera`).
    pub name: String,
    /// Output path, relative to the folder the template was listed from (`cmd/main.go`).
    pub output: PathBuf,
}

impl TemplateFile {
    /// The output path with its `{name}` placeholders filled from `vars`. A
    /// path segment that ends up empty is dropped, so `api/{group_dir}/v1`
    /// becomes `api/v1` when `group_dir` is empty.
    pub fn output_with(&self, vars: &[(&str, &str)]) -> PathBuf {
        self.output
            .iter()
            .map(|segment| {
                vars.iter().fold(
                    segment.to_string_lossy().into_owned(),
                    |text, (name, value)| text.replace(&format!("{{{name}}}"), value),
                )
            })
            .filter(|segment| !segment.is_empty())
            .collect()
    }
}

/// Some templates of one layout, ready to render.
///
/// Only the folders a command asks for are listed, and a template is parsed
/// the first time it is rendered: parsing is most of the work of a command,
/// so templates that are never rendered are never parsed. A template without
/// any Tera tag renders to its own text and is not parsed at all.
pub struct Templates {
    /// Template sources by name (relative to the layout folder).
    sources: BTreeMap<String, &'static str>,
    /// The templates parsed so far.
    tera: RefCell<tera::Tera>,
    /// The layout folder, for error messages.
    layout: String,
}

impl Templates {
    /// Lists the templates under `scaffolds/<layout>/<folder>/` for each of
    /// `folders` (for example `go/v4` and `["init", "licenses"]`).
    pub fn load(layout: &str, folders: &[&str]) -> Result<Self> {
        let layout_dir = SCAFFOLDS
            .get_dir(layout)
            .ok_or_else(|| anyhow!("no templates embedded for layout {layout}"))?;
        let mut sources = Vec::new();
        for folder in folders {
            let dir = SCAFFOLDS
                .get_dir(format!("{layout}/{folder}"))
                .ok_or_else(|| anyhow!("no templates embedded in {layout}/{folder}"))?;
            collect_templates(layout_dir, dir, &mut sources);
        }
        let mut tera = tera::Tera::default();
        tera.autoescape_on(Vec::new());
        Ok(Self {
            sources: sources.into_iter().collect(),
            tera: RefCell::new(tera),
            layout: layout.to_string(),
        })
    }

    /// Renders the template `name` (relative to the layout folder).
    pub fn render(&self, name: &str, context: &tera::Context) -> Result<String> {
        let source = self
            .sources
            .get(name)
            .ok_or_else(|| anyhow!("cannot render template {name}: it is not loaded"))?;
        if !has_tags(source) {
            return Ok((*source).to_string());
        }
        let mut tera = self.tera.borrow_mut();
        if !tera.get_template_names().any(|n| n == name) {
            tera.add_raw_template(name, source).map_err(|e| {
                anyhow!(
                    "invalid template in layout {}: {}",
                    self.layout,
                    tera_chain(&e)
                )
            })?;
        }
        tera.render(name, context)
            .map_err(|e| anyhow!("cannot render template {name}: {}", tera_chain(&e)))
    }

    /// Parses every loaded template now, spread over the machine's cores.
    /// Worth it when a command renders most of what it loaded (`init`);
    /// otherwise templates are parsed one by one as they are rendered.
    pub fn parse_all(&self) -> Result<()> {
        let mut tera = self.tera.borrow_mut();
        let mut pending: Vec<(&str, &str)> = self
            .sources
            .iter()
            .filter(|(name, source)| {
                has_tags(source) && !tera.get_template_names().any(|n| n == name.as_str())
            })
            .map(|(name, source)| (name.as_str(), *source))
            .collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, 4);
        // Largest first, dealt round-robin, so the shares are about even.
        pending.sort_by_key(|(_, source)| std::cmp::Reverse(source.len()));
        let mut shares: Vec<Vec<(&str, &str)>> = vec![Vec::new(); threads];
        for (i, template) in pending.into_iter().enumerate() {
            shares[i % threads].push(template);
        }
        let parsed: Vec<tera::Result<tera::Tera>> = std::thread::scope(|scope| {
            let mut shares = shares.into_iter();
            let own = shares.next().unwrap_or_default();
            let handles: Vec<_> = shares
                .map(|share| scope.spawn(move || parse_share(share)))
                .collect();
            let mut results = vec![parse_share(own)];
            results.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| parse_share(Vec::new()))),
            );
            results
        });
        for share in parsed {
            let share = share.map_err(|e| {
                anyhow!(
                    "invalid template in layout {}: {}",
                    self.layout,
                    tera_chain(&e)
                )
            })?;
            tera.extend(&share)
                .map_err(|e| anyhow!("cannot load templates: {}", tera_chain(&e)))?;
        }
        Ok(())
    }

    /// Lists the templates below `folder` (relative to the layout folder), with
    /// the output path of each relative to that folder. Sorted by name.
    pub fn tree(&self, folder: &str) -> Vec<TemplateFile> {
        self.sources
            .keys()
            .filter_map(|name| {
                let rest = name.strip_prefix(folder)?.strip_prefix('/')?;
                let output = rest.strip_suffix(TEMPLATE_SUFFIX)?;
                Some(TemplateFile {
                    name: name.clone(),
                    output: PathBuf::from(output),
                })
            })
            .collect()
    }
}

/// Parses a share of the templates into a Tera instance of its own.
fn parse_share(share: Vec<(&str, &str)>) -> tera::Result<tera::Tera> {
    let mut tera = tera::Tera::default();
    tera.autoescape_on(Vec::new());
    tera.add_raw_templates(share)?;
    Ok(tera)
}

/// Whether `source` holds any Tera tag (expression, statement or comment).
fn has_tags(source: &str) -> bool {
    ["{{", "{%", "{#"].iter().any(|open| source.contains(open))
}

/// Collects `(name, source)` for every `.tera` file below `dir`, with names
/// relative to `root`.
fn collect_templates(
    root: &'static Dir<'static>,
    dir: &'static Dir<'static>,
    out: &mut Vec<(String, &'static str)>,
) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(sub) => collect_templates(root, sub, out),
            DirEntry::File(file) => {
                let path = file.path();
                let is_template = path.to_str().is_some_and(|p| p.ends_with(TEMPLATE_SUFFIX));
                if let (true, Ok(rel), Some(text)) = (
                    is_template,
                    path.strip_prefix(root.path()),
                    file.contents_utf8(),
                ) {
                    out.push((rel.to_string_lossy().into_owned(), text));
                }
            }
        }
    }
}

/// Joins a Tera error with its sources on one line.
fn tera_chain(error: &tera::Error) -> String {
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
    use super::{SCAFFOLDS, TEMPLATE_SUFFIX, TemplateFile, collect_templates, has_tags};

    /// Templates are parsed only when rendered, so check here that every
    /// embedded template parses.
    #[test]
    fn every_embedded_template_parses() {
        let mut sources = Vec::new();
        collect_templates(&SCAFFOLDS, &SCAFFOLDS, &mut sources);
        assert!(sources.len() > 50, "{} templates", sources.len());
        let mut tera = tera::Tera::default();
        for (name, source) in sources {
            assert!(name.ends_with(TEMPLATE_SUFFIX));
            tera.add_raw_template(&name, source)
                .unwrap_or_else(|e| panic!("{name}: {}", super::tera_chain(&e)));
        }
    }

    #[test]
    fn text_without_tags_is_not_a_template() {
        assert!(!has_tags("a: {b}\n"));
        assert!(has_tags("{{ repo }}"));
        assert!(has_tags("{% raw %}x{% endraw %}"));
        assert!(has_tags("{# note #}"));
    }

    #[test]
    fn placeholders_fill_segments_and_empty_segments_vanish() {
        let file = TemplateFile {
            name: String::new(),
            output: "api/{group_dir}/{version}/{kind}_types.go".into(),
        };
        let vars = [("group_dir", ""), ("version", "v1"), ("kind", "captain")];
        assert_eq!(
            file.output_with(&vars),
            std::path::Path::new("api/v1/captain_types.go")
        );
        let vars = [
            ("group_dir", "foo.policy"),
            ("version", "v1"),
            ("kind", "captain"),
        ];
        assert_eq!(
            file.output_with(&vars),
            std::path::Path::new("api/foo.policy/v1/captain_types.go")
        );
    }
}
