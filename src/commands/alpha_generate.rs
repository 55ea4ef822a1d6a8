//! `kubebuilder-rs alpha generate`: re-scaffold a project from its PROJECT
//! file with the current templates.
//!
//! The command sequence the PROJECT file records (see `ops::replay`) runs in a
//! private staging directory first, so a PROJECT file that cannot be
//! re-scaffolded changes nothing. The finished tree is then written, as one
//! plan, to `--output-dir` or, in place, after the original files moved to a
//! backup directory next to the project. Last, the command lists the files
//! that differ from the original.

use crate::cli::GenerateArgs;
use crate::machinery::checkpoints::{self, Checkpoints};
use crate::machinery::clock::{DateTime, current_year};
use crate::machinery::durable;
use crate::machinery::tree::{self, Tree};
use crate::machinery::{Change, Plan, Source};
use crate::ops::replay::{self, Order, Request, Step};
use crate::plugins::chain::current_layout_key;
use crate::plugins::{Chain, ReplaySettings};
use crate::project::{self, Project, cli_version};
use anyhow::{Context as _, Result, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The directory git keeps its data in; never moved or compared.
const GIT_DIR: &str = ".git";

/// Runs `alpha generate` from the current directory `cwd`.
pub fn run(args: &GenerateArgs, cwd: &Path) -> Result<()> {
    let input = std::path::absolute(cwd.join(args.input_dir.as_deref().unwrap_or(cwd)))?;
    let _lock = if input.is_dir() {
        Some(crate::open_project(&input)?)
    } else {
        None
    };
    let mut original = Project::load(&input)?;
    modernise_layout(&mut original.file, true);
    let chain = project_chain(&original)?;
    let output = match &args.output_dir {
        Some(dir) => Some(std::path::absolute(cwd.join(dir))?),
        None => None,
    };
    if let Some(output) = &output {
        check_output_dir(output)?;
    }

    let staging = Staging::new()?;
    let license = chain
        .layout()
        .and_then(|l| l.current_license(Source::Dir(&input)));
    let settings = ReplaySettings {
        skip_toolchain_check: args.skip_go_version_check,
    };
    let steps = replay::steps(&original.file, license, Order::WebhooksWithTheirApi)?;
    let mut work = Workspace::Dir(&staging.path);
    scaffold(
        &chain,
        &settings,
        &steps,
        &original.file,
        Source::Dir(&input),
        &mut work,
    )?;
    keep_unknown_keys(&original, &mut work, true)?;
    let new_tree = read_tree(&staging.path, &[])?;

    if args.dry_run {
        return print_dry_run(&new_tree, &input, output.as_deref());
    }
    let (target, original_dir) = match output {
        Some(output) => (output, input),
        None => {
            let backup = move_to_backup(&input)?;
            println!(
                "Moved the original files to {} ({GIT_DIR} stays)",
                backup.display()
            );
            (input, backup)
        }
    };
    let written = match write_tree(&new_tree, &target) {
        Ok(written) => written,
        Err(error) if args.output_dir.is_none() => {
            restore_from_backup(&original_dir, &target)?;
            return Err(error);
        }
        Err(error) => return Err(error),
    };
    println!("Wrote {} files to {}", written.len(), target.display());

    if args.run_make {
        let project = Project::load(&target)?;
        if let Some(layout) = chain.layout() {
            layout.after_generate(&target, &project.file, &written)?;
        }
        complete_optional_plugins(&chain, &original.file, &target)?;
    }
    print_differences(&original_dir, &target)
}

/// The chain of plugins PROJECT's layout names, with those that stay in it.
fn project_chain(project: &Project) -> Result<Chain> {
    Chain::of_project(&project.file)
        .map_err(|e| anyhow::anyhow!("this tool cannot re-scaffold the project: {e}"))
}

/// The scaffold this build makes of the project whose input files (its
/// PROJECT, after the layout modernisation `alpha generate` does, and the
/// user files the scaffold keeps) are `input`, as `alpha generate
/// --make=false` would make it, without its notes. Made in memory, unless
/// the chain runs an external plugin (which runs in a directory).
pub(crate) fn scaffold_tree(input: &Tree) -> Result<Tree> {
    scaffold_tree_from(input, &mut Checkpoints::default())
}

/// [`scaffold_tree`], replayed from the last step it shares with the
/// replay `checkpoints` kept, which then hold this replay's steps. A chain
/// with an external plugin is replayed whole, and keeps none.
pub(crate) fn scaffold_tree_from(
    input_files: &Tree,
    checkpoints: &mut Checkpoints,
) -> Result<Tree> {
    let input = Source::Memory(input_files);
    let mut original = Project::read(input)?;
    modernise_layout(&mut original.file, false);
    let chain = project_chain(&original)?;
    let license = chain.layout().and_then(|l| l.current_license(input));
    let settings = ReplaySettings {
        skip_toolchain_check: true,
    };
    let salt = checkpoint_salt(&original.file, &chain, license.as_ref(), input_files);
    let steps = replay::steps(&original.file, license, Order::WebhooksWithTheirApi)?;
    let external =
        |plugin: &dyn crate::plugins::Plugin| crate::plugins::by_key(plugin.key()).is_none();
    if chain.iter().any(external) {
        *checkpoints = Checkpoints::default();
        let staging = Staging::new()?;
        let mut work = Workspace::Dir(&staging.path);
        scaffold(&chain, &settings, &steps, &original.file, input, &mut work)?;
        keep_unknown_keys(&original, &mut work, false)?;
        return tree::read_dir(&staging.path, &[]);
    }
    let fingerprints: Vec<String> = steps.iter().map(replay::fingerprint).collect();
    let keys = checkpoints::chain_keys(&salt, fingerprints.iter().map(String::as_str));
    let (shared, mut scaffold_files) = checkpoints.resume(&keys);
    for (step, key) in steps.iter().zip(keys).skip(shared) {
        let before = scaffold_files.clone();
        let mut work = Workspace::Memory(&mut scaffold_files);
        scaffold(
            &chain,
            &settings,
            std::slice::from_ref(step),
            &original.file,
            input,
            &mut work,
        )?;
        checkpoints.push(key, &before, &scaffold_files);
    }
    let mut work = Workspace::Memory(&mut scaffold_files);
    keep_unknown_keys(&original, &mut work, false)?;
    Ok(scaffold_files)
}

/// What every step of a replay of `original` depends on besides the step
/// itself, as the salt of its checkpoints' keys: this build, the year
/// (licence headers), the chain, the licence kept, PROJECT's keys but its
/// resources (the steps hold those), and the user files the scaffold keeps.
fn checkpoint_salt(
    original: &project::ProjectFile,
    chain: &Chain,
    license: Option<&crate::plugins::License>,
    input: &Tree,
) -> String {
    let mut settings = original.clone();
    settings.resources.clear();
    let mut salt = format!(
        "{}\n{}\n{:?}\n{license:?}\n{settings:?}\n",
        cli_version::current(),
        current_year(),
        chain.keys,
    );
    for (path, entry) in input {
        if path != Path::new(project::FILE_NAME) {
            let id = crate::machinery::git_objects::blob_id(&entry.bytes);
            salt.push_str(&format!("{} {:o} {id}\n", path.display(), entry.mode));
        }
    }
    salt
}

/// Where a re-scaffold is made: a staging directory, or memory.
enum Workspace<'a> {
    /// A private directory: written without journal or flushes.
    Dir(&'a Path),
    /// Files in memory.
    Memory(&'a mut Tree),
}

impl Workspace<'_> {
    /// The scaffold so far, as the next step reads it.
    fn files(&self) -> Source<'_> {
        match self {
            Workspace::Dir(dir) => Source::Dir(dir),
            Workspace::Memory(tree) => Source::Memory(tree),
        }
    }

    /// Carries out a step's `plan`.
    fn apply(&mut self, plan: &Plan) -> Result<()> {
        match self {
            Workspace::Dir(dir) => plan.resolve(dir, false)?.apply_scratch(),
            Workspace::Memory(tree) => {
                plan.resolve_in_memory(tree, false)?.apply_in_memory(tree);
                Ok(())
            }
        }
    }

    /// Puts `bytes` at `path`, made or replaced.
    fn put(&mut self, path: &Path, bytes: Vec<u8>) -> Result<()> {
        match self {
            Workspace::Dir(dir) => {
                let target = dir.join(path);
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent)?;
                }
                fs::write(&target, bytes)
                    .with_context(|| format!("cannot stage {}", path.display()))
            }
            Workspace::Memory(tree) => {
                tree.insert(path.to_path_buf(), tree::Entry::file(bytes));
                Ok(())
            }
        }
    }
}

/// With `--make`, once the project is built: each optional plugin PROJECT
/// records runs its toolchain step (helm/v2-alpha: `make build-installer`)
/// and then again, so files made from the toolchain's output (the Helm
/// chart) are written too.
fn complete_optional_plugins(
    chain: &Chain,
    original: &project::ProjectFile,
    target: &Path,
) -> Result<()> {
    for key in replay::optional_plugins(original) {
        let Some(hook) = crate::plugins::by_key(key).and_then(|plugin| plugin.edit()) else {
            continue;
        };
        let mut project = Project::load(target)?;
        hook.build_replay_inputs(target, &project.file)?;
        let section = original.plugins.get(key).cloned();
        let plan = crate::ops::edit::plan_added_plugin(
            chain,
            key,
            section,
            Source::Dir(target),
            &mut project,
        )?;
        plan.resolve(target, false)?.apply()?;
    }
    Ok(())
}

/// `--dry-run`: what would be written where, and how it differs from the
/// project in `input`.
fn print_dry_run(
    new_tree: &BTreeMap<PathBuf, String>,
    input: &Path,
    output: Option<&Path>,
) -> Result<()> {
    let target = output.unwrap_or(input);
    println!(
        "Would write {} files to {}",
        new_tree.len(),
        target.display()
    );
    let old_tree = read_tree(input, &nested(output, input))?;
    print!("{}", Differences::between(&old_tree, new_tree));
    println!("(dry run: nothing was written)");
    Ok(())
}

/// Lists how the new project in `target` differs from the original one.
fn print_differences(original_dir: &Path, target: &Path) -> Result<()> {
    let skip = nested(Some(target), original_dir);
    let differences =
        Differences::between(&read_tree(original_dir, &skip)?, &read_tree(target, &[])?);
    println!("Compared with {}:", original_dir.display());
    print!("{differences}");
    Ok(())
}

/// Refuses an output directory that holds anything.
fn check_output_dir(output: &Path) -> Result<()> {
    if !output.exists() {
        return Ok(());
    }
    let mut entries = fs::read_dir(output).with_context(|| {
        format!(
            "--output-dir {} is not a directory that can be read",
            output.display()
        )
    })?;
    if entries.next().is_some() {
        bail!(
            "--output-dir {} is not empty: give a new or empty directory",
            output.display()
        );
    }
    Ok(())
}

/// Runs `steps` in the empty scratch directory `dir` (written without
/// flushes), with the project's `chain` (its plugins' `init` flags as
/// `settings` ask);
/// optional plugins get the PROJECT sections `original` records for them,
/// and the user's own files of theirs kept from `input` (see [`keep_user_files`]).
fn scaffold(
    chain: &Chain,
    settings: &ReplaySettings,
    steps: &[Step],
    original: &project::ProjectFile,
    input: Source,
    work: &mut Workspace,
) -> Result<()> {
    for step in steps {
        if let Step::AddPlugin(key) = step {
            keep_user_files(key, input, work)?;
        }
        let files = work.files();
        let plan = match replay::request(step, chain, original, settings)? {
            Request::Init(request) => crate::ops::init::plan(files, &request)?,
            Request::CreateApi(request) => {
                let mut project = Project::read(files)?;
                let what = format!("cannot re-create the API {}", request.resource.gvk());
                crate::ops::create_api::plan(files, &mut project, &request)
                    .context(what)?
                    .0
                    .plan
            }
            Request::CreateWebhook(request) => {
                let mut project = Project::read(files)?;
                let what = format!(
                    "cannot re-create the webhooks of {}",
                    request.resource.gvk()
                );
                crate::ops::create_webhook::plan(files, &mut project, &request)
                    .context(what)?
                    .0
            }
            Request::AddPlugin(key) => {
                let mut project = Project::read(files)?;
                let section = original.plugins.get(key).cloned();
                crate::ops::edit::plan_added_plugin(chain, key, section, files, &mut project)?
            }
        };
        work.apply(&plan)?;
        if matches!(step, Step::Init(..)) {
            check_repo_kept(original, chain, work.files())?;
        }
    }
    Ok(())
}

/// Refuses a PROJECT whose `repo` the re-created `init` in `dir` did not
/// record: no plugin of its layout takes one.
fn check_repo_kept(original: &project::ProjectFile, chain: &Chain, files: Source) -> Result<()> {
    if original.repo.is_some() && Project::read(files)?.file.repo.is_none() {
        bail!(
            "PROJECT has a `repo`, but its layout {} takes none; remove it",
            chain.keys.join(",")
        );
    }
    Ok(())
}

/// Copies the files the plugin `key` writes once for the user to edit (see
/// [`crate::plugins::EditHook::user_files`]) from `input` to `work`, those
/// that exist.
fn keep_user_files(key: &str, input: Source, work: &mut Workspace) -> Result<()> {
    let hook = crate::plugins::by_key(key).and_then(|plugin| plugin.edit());
    for path in hook.map(|hook| hook.user_files()).unwrap_or_default() {
        let bytes = match input.read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => bail!("cannot read {}: {e}", input.shown(path).display()),
        };
        work.put(Path::new(path), bytes)?;
    }
    Ok(())
}

/// Replaces the old layout keys of `file` with the keys that re-create
/// them (kubebuilder's Go layouts before go/v4 become go/v4, as kubebuilder
/// does, so the new PROJECT says v4) and, with `notes`, says so on
/// standard error.
fn modernise_layout(file: &mut project::ProjectFile, notes: bool) {
    for key in &mut file.layout {
        let current = current_layout_key(key);
        if current != key.as_str() {
            if notes {
                eprintln!("Note: PROJECT's layout {key} is re-scaffolded as {current}");
            }
            *key = current.to_string();
        }
    }
}

/// Carries the original PROJECT's keys and plugin sections this tool does
/// not know into the new one, and (with `notes`) says that their files were
/// not re-created.
fn keep_unknown_keys(original: &Project, work: &mut Workspace, notes: bool) -> Result<()> {
    let unknown_plugins: Vec<(&serde_norway::Value, &serde_norway::Value)> = original
        .file
        .plugins
        .iter()
        .filter(|(key, _)| key.as_str().and_then(crate::plugins::by_key).is_none())
        .collect();
    if original.file.extra.is_empty() && unknown_plugins.is_empty() {
        return Ok(());
    }
    let mut project = Project::read(work.files())?;
    project.file.extra = original.file.extra.clone();
    for (key, value) in &unknown_plugins {
        project
            .file
            .plugins
            .insert((*key).clone(), (*value).clone());
    }
    work.put(
        Path::new(project::FILE_NAME),
        project.render()?.into_bytes(),
    )?;
    if !notes {
        return Ok(());
    }
    let names = |keys: &mut dyn Iterator<Item = &serde_norway::Value>| -> String {
        let names: Vec<&str> = keys.filter_map(|key| key.as_str()).collect();
        names.join(", ")
    };
    if !original.file.extra.is_empty() {
        eprintln!(
            "Note: PROJECT's {} kept as they were; this tool re-creates no files for them",
            names(&mut original.file.extra.keys())
        );
    }
    if !unknown_plugins.is_empty() {
        eprintln!(
            "Note: PROJECT's plugins section for {} kept as it was; this tool has no such plugin, so it re-creates none of its files",
            names(&mut unknown_plugins.iter().map(|(key, _)| *key))
        );
    }
    Ok(())
}

/// Writes `tree` into `target` as one plan (all or nothing); returns the
/// files written.
fn write_tree(tree: &BTreeMap<PathBuf, String>, target: &Path) -> Result<Vec<PathBuf>> {
    let mut plan = Plan::new();
    for (path, contents) in tree {
        plan.push(Change::Create {
            path: path.clone(),
            contents: contents.clone(),
        });
    }
    let report = plan.resolve(target, false)?.apply()?;
    Ok(report.written.into_iter().map(|(path, _)| path).collect())
}

/// Moves every entry of `dir` but `.git` into a new backup directory next
/// to it, and returns that directory. On failure, moves everything back.
fn move_to_backup(dir: &Path) -> Result<PathBuf> {
    let name = dir
        .file_name()
        .context("the project directory has no name")?
        .to_string_lossy();
    let parent = dir
        .parent()
        .context("the project directory has no parent")?;
    let backup = parent.join(format!("{name}-backup-{}", DateTime::now().compact()));
    fs::create_dir(&backup).with_context(|| {
        format!(
            "cannot create the backup directory {} (pass --output-dir to leave the project untouched)",
            backup.display()
        )
    })?;
    let mut moved = Vec::new();
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        if name == GIT_DIR {
            continue;
        }
        if let Err(error) = fs::rename(dir.join(&name), backup.join(&name)) {
            for name in moved {
                let _ = fs::rename(backup.join(&name), dir.join(&name));
            }
            let _ = fs::remove_dir(&backup);
            return Err(error).with_context(|| {
                format!(
                    "cannot move {} to {}",
                    dir.join(&name).display(),
                    backup.display()
                )
            });
        }
        moved.push(name);
    }
    if let Err(error) = durable::sync_dirs([parent, &backup, dir]) {
        restore_from_backup(&backup, dir)?;
        return Err(error).context("cannot flush the move to the backup directory");
    }
    Ok(backup)
}

/// Moves the backup's entries back into `dir` and removes the backup, the
/// moves flushed.
fn restore_from_backup(backup: &Path, dir: &Path) -> Result<()> {
    for entry in fs::read_dir(backup)? {
        let name = entry?.file_name();
        fs::rename(backup.join(&name), dir.join(&name))?;
    }
    fs::remove_dir(backup)?;
    durable::sync_dirs([dir, durable::parent(backup)])?;
    Ok(())
}

/// `inner`, relative to `outer`, when it lies inside it: a directory to leave
/// out when reading `outer`.
fn nested(inner: Option<&Path>, outer: &Path) -> Vec<PathBuf> {
    inner
        .and_then(|inner| inner.strip_prefix(outer).ok())
        .filter(|relative| !relative.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .into_iter()
        .collect()
}

/// Every file below `root` (but `.git` and `skip`), keyed by relative path,
/// with its text (binary files are read lossily: they only get compared).
fn read_tree(root: &Path, skip: &[PathBuf]) -> Result<BTreeMap<PathBuf, String>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(root.join(&folder))? {
            let entry = entry?;
            let relative = folder.join(entry.file_name());
            if relative == Path::new(GIT_DIR) || skip.contains(&relative) {
                continue;
            }
            if entry.file_type()?.is_dir() {
                folders.push(relative);
            } else {
                let bytes = fs::read(entry.path())?;
                files.insert(relative, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    Ok(files)
}

/// How a new tree differs from the original one.
#[derive(Debug, Default)]
struct Differences {
    changed: Vec<PathBuf>,
    added: Vec<PathBuf>,
    removed: Vec<PathBuf>,
}

impl Differences {
    fn between(old: &BTreeMap<PathBuf, String>, new: &BTreeMap<PathBuf, String>) -> Self {
        let mut differences = Self::default();
        for (path, text) in new {
            match old.get(path) {
                None => differences.added.push(path.clone()),
                Some(before) if before != text => differences.changed.push(path.clone()),
                Some(_) => {}
            }
        }
        differences.removed = old
            .keys()
            .filter(|path| !new.contains_key(*path))
            .cloned()
            .collect();
        differences.added = folded(&differences.added, new);
        differences.removed = folded(&differences.removed, old);
        differences
    }
}

impl std::fmt::Display for Differences {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty() {
            return writeln!(f, "  no file differs");
        }
        for (label, paths) in [
            ("changed", &self.changed),
            ("new", &self.added),
            ("only in the original", &self.removed),
        ] {
            for path in paths {
                writeln!(f, "  {label:<21} {}", path.display())?;
            }
        }
        writeln!(
            f,
            "Carry your code over with a diff tool, for example `diff -ru <original> <new>`."
        )
    }
}

/// `paths`, with every folder whose files are all in `paths` (and that is
/// not the root) shown once as `folder/` instead of file by file.
fn folded(paths: &[PathBuf], tree: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    let listed: BTreeSet<&PathBuf> = paths.iter().collect();
    let whole = |folder: &Path| {
        tree.keys()
            .filter(|path| path.starts_with(folder))
            .all(|path| listed.contains(path))
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        let top = path
            .ancestors()
            .skip(1)
            .filter(|a| !a.as_os_str().is_empty())
            .filter(|a| whole(a))
            .last();
        let shown = match top {
            Some(folder) => folder.join(""),
            None => path.clone(),
        };
        if out.last() != Some(&shown) {
            out.push(shown);
        }
    }
    out
}

/// A private directory for the staged scaffold, removed when dropped.
struct Staging {
    root: PathBuf,
    path: PathBuf,
}

impl Staging {
    fn new() -> Result<Self> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let root = std::env::temp_dir().join(format!(
            "kubebuilder-rs-generate-{}-{nanos}",
            std::process::id()
        ));
        let path = root.join("project");
        fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(Self { root, path })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[&str]) -> BTreeMap<PathBuf, String> {
        paths
            .iter()
            .map(|p| (PathBuf::from(p), String::new()))
            .collect()
    }

    #[test]
    fn folders_only_on_one_side_are_listed_once() {
        let old = tree(&["a.txt", "bin/x", "bin/y", "cmd/main.go"]);
        let mut new = tree(&["a.txt", "cmd/main.go", "cmd/other.go", "api/v1/t.go"]);
        new.insert("a.txt".into(), "changed".into());
        let differences = Differences::between(&old, &new);
        assert_eq!(differences.changed, [PathBuf::from("a.txt")]);
        assert_eq!(
            differences.added,
            [PathBuf::from("api/"), PathBuf::from("cmd/other.go")]
        );
        assert_eq!(differences.removed, [PathBuf::from("bin/")]);
    }
}
