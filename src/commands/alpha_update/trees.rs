//! The three trees of the merge, made outside the repository: the ancestor,
//! the upgrade and the original.

use super::Update;
use super::ancestor::{self, Source};
use crate::cli::UpdateArgs;
use crate::machinery::git::Git;
use crate::machinery::pristine;
use crate::machinery::tree::{self, Tree};
use crate::plugins::Plugin;
use crate::project::{FILE_NAME, Project};
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// The files of a project its scaffold is made from: PROJECT and the user
/// files the scaffold keeps (the license header, Grafana's custom metrics).
pub(crate) const INPUT_FILES: [&str; 4] = [
    FILE_NAME,
    "hack/boilerplate.go.txt",
    "hack/boilerplate.rs.txt",
    "grafana/custom-metrics/config.yaml",
];

/// Where the ancestor came from, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AncestorFrom {
    /// `--from-binary` or a kubebuilder release.
    Produced(Source),
    /// The scaffold record, this commit.
    Record(String),
    /// The project's cliVersion names this build's scaffold.
    ThisBuild,
}

/// The three trees.
pub(crate) struct Trees {
    /// The scaffold the project was made from.
    pub ancestor: Tree,
    /// Where the ancestor came from.
    pub ancestor_from: AncestorFrom,
    /// The user's tree (the from-branch's).
    pub original: Tree,
    /// The scaffold of today.
    pub upgrade: Tree,
}

impl Trees {
    /// Reads the original from git and makes the upgrade and the ancestor.
    pub fn build(args: &UpdateArgs, git: &Git, update: &Update, cwd: &Path) -> Result<Self> {
        let original = git.read_tree(&update.from_commit)?;
        let work = tempfile::tempdir().context("cannot create a temporary directory")?;
        let input = work.path().join("input");
        write_input(&original, &input)?;
        let upgrade = crate::commands::alpha_generate::scaffold_tree(&input_of(&original))
            .with_context(|| {
                format!(
                    "cannot scaffold PROJECT of {} with this build",
                    update.from_branch
                )
            })?;
        let binary = args
            .from_binary
            .as_deref()
            .map(|binary| from_cwd(binary, cwd));
        let (ancestor, ancestor_from) =
            ancestor_tree(binary, git, update, &input, work.path(), &original)?;
        let ancestor = match ancestor {
            Some(tree) => tree,
            None => upgrade.clone(),
        };
        Ok(Self {
            ancestor,
            ancestor_from,
            original,
            upgrade,
        })
    }

    /// The plugins of the upgrade's PROJECT: its layout, then its optional
    /// plugins.
    pub fn plugins(&self) -> Result<Vec<&'static dyn Plugin>> {
        let text = self
            .upgrade
            .get(Path::new(FILE_NAME))
            .map(|entry| String::from_utf8_lossy(&entry.bytes).into_owned())
            .unwrap_or_default();
        let project = Project::parse(&text)?;
        let chain = crate::plugins::Chain::of_project(&project.file)?;
        let mut plugins: Vec<&'static dyn Plugin> = chain.iter().collect();
        plugins.extend(
            crate::ops::replay::optional_plugins(&project.file)
                .into_iter()
                .filter(|key| !chain.contains(key))
                .filter_map(crate::plugins::by_key),
        );
        Ok(plugins)
    }
}

/// `--from-binary` as given from `cwd`: a path holding a `/` is made
/// absolute (the binary runs in other directories), a bare name is looked
/// up on `PATH`.
fn from_cwd(binary: &Path, cwd: &Path) -> PathBuf {
    if binary.components().count() > 1 {
        cwd.join(binary)
    } else {
        binary.to_path_buf()
    }
}

/// The files of `tree` its scaffold is made from (see [`INPUT_FILES`]).
pub(crate) fn input_of(tree: &Tree) -> Tree {
    INPUT_FILES
        .iter()
        .filter_map(|path| {
            tree.get(Path::new(path))
                .map(|entry| (Path::new(path).to_path_buf(), entry.clone()))
        })
        .collect()
}

/// Writes the files of `tree` its scaffold is made from (see
/// [`INPUT_FILES`]) into the new directory `dir`.
pub(crate) fn write_input(tree: &Tree, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    tree::write_dir(&input_of(tree), dir)
}

/// The ancestor, in this order: `--from-binary`; `--from-version`; the
/// scaffold record of the branch's PROJECT; this build's own scaffold when
/// cliVersion names it (`None`: the upgrade); the release cliVersion names.
fn ancestor_tree(
    binary: Option<PathBuf>,
    git: &Git,
    update: &Update,
    input: &Path,
    work: &Path,
    original: &Tree,
) -> Result<(Option<Tree>, AncestorFrom)> {
    let source = if let Some(binary) = binary {
        Some(Source::Binary(binary))
    } else if update.from_version_given {
        Some(ancestor::source_for(&update.origin)?)
    } else {
        None
    };
    let source = match source {
        Some(source) => source,
        None => {
            let blob = git
                .rev_parse(&format!("{}:{FILE_NAME}", update.from_commit))
                .context("PROJECT has no blob id")?;
            if let Some(commit) = pristine::lookup(git, &blob)? {
                return Ok((Some(git.read_tree(&commit)?), AncestorFrom::Record(commit)));
            }
            if update.origin.has_current_scaffold() {
                return Ok((None, AncestorFrom::ThisBuild));
            }
            ancestor::source_for(&update.origin)?
        }
    };
    let out = work.join("ancestor");
    std::fs::create_dir(&out)?;
    ancestor::produce(&source, input, &out, original)?;
    Ok((
        Some(tree::read_dir(&out, &[])?),
        AncestorFrom::Produced(source),
    ))
}
