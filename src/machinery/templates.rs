//! Templates embedded in the binary from the `scaffolds/` folder.
//!
//! Every file under `scaffolds/<layout>/` whose name ends in `.tera` is a Tera
//! template. A folder of templates mirrors the tree it generates: the template
//! `scaffolds/go/v4/init/cmd/main.go.tera` renders to `cmd/main.go`.

use anyhow::{Result, anyhow};
use include_dir::{Dir, DirEntry, include_dir};
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

/// The templates of one layout, parsed and ready to render.
pub struct Templates {
    tera: tera::Tera,
}

impl Templates {
    /// Loads every template under `scaffolds/<layout>/` (for example `go/v4`).
    pub fn load(layout: &str) -> Result<Self> {
        let layout_dir = SCAFFOLDS
            .get_dir(layout)
            .ok_or_else(|| anyhow!("no templates embedded for layout {layout}"))?;
        let mut tera = tera::Tera::default();
        tera.autoescape_on(Vec::new());
        let mut sources = Vec::new();
        collect_templates(layout_dir, layout_dir, &mut sources);
        tera.add_raw_templates(sources)
            .map_err(|e| anyhow!("invalid template in layout {layout}: {}", tera_chain(&e)))?;
        Ok(Self { tera })
    }

    /// Renders the template `name` (relative to the layout folder).
    pub fn render(&self, name: &str, context: &tera::Context) -> Result<String> {
        self.tera
            .render(name, context)
            .map_err(|e| anyhow!("cannot render template {name}: {}", tera_chain(&e)))
    }

    /// Lists the templates below `folder` (relative to the layout folder), with
    /// the output path of each relative to that folder. Sorted by name.
    pub fn tree(&self, folder: &str) -> Vec<TemplateFile> {
        let mut files: Vec<TemplateFile> = self
            .tera
            .get_template_names()
            .filter_map(|name| {
                let rest = name.strip_prefix(folder)?.strip_prefix('/')?;
                let output = rest.strip_suffix(TEMPLATE_SUFFIX)?;
                Some(TemplateFile {
                    name: name.to_string(),
                    output: PathBuf::from(output),
                })
            })
            .collect();
        files.sort_by(|a, b| a.name.cmp(&b.name));
        files
    }
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
    use super::TemplateFile;

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
