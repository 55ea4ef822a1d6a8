//! A git repository found, read and written without running git, for the
//! few things a command needs after every write: whether its directory is
//! the top level of a work tree, one ref, and objects
//! ([`super::git_objects`]).
//!
//! Finding a work tree: git looks for `.git` (a folder, or a file naming
//! the git directory, as worktrees and submodules have) in the directory
//! and then in each parent. So does [`discover`], in-process; when the
//! environment chooses the repository (`GIT_DIR`, `GIT_WORK_TREE`, …) it
//! leaves the answer to git. A repository this module cannot write exactly
//! as git would (another object format or ref storage, hooks on ref
//! updates, a reflog to keep, filters, …) is left to git too.

use super::git_objects::Objects;
use anyhow::{Context as _, Result, bail};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Environment variables by which git is told which repository, work tree,
/// objects or settings to use: with any of them set, git itself decides.
const GIT_ENVIRONMENT: [&str; 10] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
];

/// Environment variables that set the dates of a commit, which only git
/// reads in all their formats.
const DATE_ENVIRONMENT: [&str; 2] = ["GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"];

/// Where a directory stands, as far as git is concerned.
#[derive(Debug)]
pub enum Found {
    /// Neither the directory nor any parent holds `.git`: no work tree.
    Outside,
    /// A parent holds `.git`: inside a work tree, below its top level.
    Below,
    /// The directory holds `.git`, and the repository can be read and
    /// written here.
    TopLevel(Repository),
    /// Only git can tell, or write: the environment names a repository, or
    /// the directory's `.git` leads to one this module does not handle.
    AskGit,
}

/// A repository whose top level is a directory, handled in-process.
#[derive(Debug, Clone)]
pub struct Repository {
    /// The work tree's top level.
    top: PathBuf,
    /// The git directory holding the shared data (objects, refs).
    common: PathBuf,
    /// Its object folder, whose packs are read once.
    objects: Objects,
}

/// Where `dir` stands (see [`Found`]), found without running git.
pub fn discover(dir: &Path) -> Found {
    if GIT_ENVIRONMENT
        .iter()
        .any(|name| std::env::var_os(name).is_some())
    {
        return Found::AskGit;
    }
    if fs::symlink_metadata(dir.join(".git")).is_ok() {
        return Repository::open(dir).map_or(Found::AskGit, Found::TopLevel);
    }
    let below = dir
        .ancestors()
        .skip(1)
        .any(|parent| fs::symlink_metadata(parent.join(".git")).is_ok());
    if below { Found::Below } else { Found::Outside }
}

impl Repository {
    /// The repository whose work tree's top level is `top`, when this
    /// module can write it as git would; `None` to leave it to git.
    fn open(top: &Path) -> Option<Self> {
        let git_dir = git_dir_of(top)?;
        if !git_dir.join("HEAD").is_file() || !owned_by_us(&git_dir) {
            return None;
        }
        let common = match fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) => git_dir.join(text.trim()),
            Err(_) => git_dir,
        };
        let repository = Self {
            top: top.to_path_buf(),
            objects: Objects::new(common.join("objects")),
            common,
        };
        repository.writable_here().then_some(repository)
    }

    /// The work tree's top level.
    pub fn top(&self) -> &Path {
        &self.top
    }

    /// The object folder.
    pub fn objects(&self) -> &Objects {
        &self.objects
    }

    /// Where this tool keeps its own file `name` in the repository (the
    /// folder `kubebuilder-rs` of the common git directory, which git
    /// neither reads nor removes).
    pub fn own_file(&self, name: &str) -> PathBuf {
        self.common.join("kubebuilder-rs").join(name)
    }

    /// Whether git would write the objects and refs of a record exactly
    /// as this module does: no setting or file that changes them (see
    /// [`settings_allow`]), no `reference-transaction` hook, no reflog to
    /// append to, dates from the clock.
    fn writable_here(&self) -> bool {
        let configs = [self.common.join("config")]
            .into_iter()
            .chain(user_configs())
            .filter_map(|path| fs::read_to_string(path).ok());
        let hooks = self.common.join("hooks/reference-transaction");
        let env_dates = DATE_ENVIRONMENT
            .iter()
            .any(|name| std::env::var_os(name).is_some());
        configs.into_iter().all(|text| settings_allow(&text))
            && !hooks.exists()
            && !self.common.join("info/attributes").exists()
            && !user_attributes().is_some_and(|path| path.exists())
            && !env_dates
            && self.common.join("objects").is_dir()
    }

    /// Whether git's clean filters could make the blob of the file `bytes`
    /// at `path` (relative to the top level) differ from its bytes: a
    /// `.gitattributes` applies there, or line endings could be changed.
    pub fn may_filter(&self, path: &Path, bytes: &[u8]) -> bool {
        let attributes = path
            .ancestors()
            .skip(1)
            .any(|folder| self.top.join(folder).join(".gitattributes").exists());
        attributes || bytes.contains(&b'\r')
    }

    /// The object the ref `name` (`refs/…`) points at, or `None` when the
    /// ref does not exist. A symbolic ref is an error.
    pub fn read_ref(&self, name: &str) -> Result<Option<String>> {
        match fs::read_to_string(self.common.join(name)) {
            Ok(text) => return object_id(text.trim(), name).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).context(format!("cannot read the ref {name}")),
        }
        let packed = match fs::read_to_string(self.common.join("packed-refs")) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).context("cannot read packed-refs"),
        };
        packed
            .lines()
            .filter(|line| !line.starts_with(['#', '^']))
            .filter_map(|line| line.split_once(' '))
            .find(|(_, ref_name)| *ref_name == name)
            .map(|(id, _)| object_id(id, name))
            .transpose()
    }

    /// Points the ref `name` at `new`, if it still points at `old` (`None`:
    /// if it does not exist), as `git update-ref` does: under its lock file
    /// `<ref>.lock`, which then replaces the ref.
    pub fn update_ref(&self, name: &str, new: &str, old: Option<&str>) -> Result<()> {
        let path = self.common.join(name);
        let folder = path.parent().context("a ref has a folder")?;
        fs::create_dir_all(folder)?;
        let lock = path.with_file_name(format!(
            "{}.lock",
            path.file_name().unwrap_or_default().to_string_lossy()
        ));
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
            .with_context(|| format!("cannot lock the ref {name} ({} exists?)", lock.display()))?;
        let updated = (|| {
            let current = self.read_ref(name)?;
            if current.as_deref() != old {
                bail!(
                    "the ref {name} moved meanwhile (to {})",
                    current.as_deref().unwrap_or("nothing")
                );
            }
            file.write_all(format!("{new}\n").as_bytes())?;
            drop(file);
            fs::rename(&lock, &path).with_context(|| format!("cannot update the ref {name}"))
        })();
        if updated.is_err() {
            let _ = fs::remove_file(&lock);
        }
        updated
    }

    /// Whether the ref `name` has a reflog, which git would append to.
    pub fn has_reflog(&self, name: &str) -> bool {
        self.common.join("logs").join(name).exists()
    }
}

/// The git directory `top/.git` leads to: the folder itself, or the one
/// its `gitdir: <path>` line names.
fn git_dir_of(top: &Path) -> Option<PathBuf> {
    let dot = top.join(".git");
    let meta = fs::metadata(&dot).ok()?;
    if meta.is_dir() {
        return Some(dot);
    }
    let text = fs::read_to_string(&dot).ok()?;
    let named = text.strip_prefix("gitdir:")?.trim();
    Some(top.join(named))
}

/// Whether the git directory belongs to the user running this (git refuses
/// another user's repository unless `safe.directory` says otherwise).
#[cfg(unix)]
fn owned_by_us(git_dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: geteuid has no preconditions.
    let user = unsafe { libc::geteuid() };
    fs::metadata(git_dir).is_ok_and(|meta| meta.uid() == user)
}

/// No owners to compare here.
#[cfg(not(unix))]
fn owned_by_us(_git_dir: &Path) -> bool {
    true
}

/// The user's and the system's git configuration files.
fn user_configs() -> Vec<PathBuf> {
    let mut paths = vec![PathBuf::from("/etc/gitconfig")];
    if let Some(home) = std::env::var_os("HOME") {
        paths.push(Path::new(&home).join(".gitconfig"));
    }
    paths.extend(xdg_git_file("config"));
    paths
}

/// The default global attributes file.
fn user_attributes() -> Option<PathBuf> {
    xdg_git_file("attributes")
}

/// `$XDG_CONFIG_HOME/git/<name>`, else `~/.config/git/<name>`.
fn xdg_git_file(name: &str) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(base.join("git").join(name))
}

/// Whether the git configuration `text` lets a record be written without
/// git: no include (whose settings would go unread), no extension but the
/// SHA-1 object format (no SHA-256 objects, no reftable refs), and none of
/// the settings that change how an object or ref is written: a hooks
/// folder, an attributes file, line-ending conversion, reflogs of every
/// ref, a work tree elsewhere.
fn settings_allow(text: &str) -> bool {
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line
                .trim_matches(|c| c == '[' || c == ']')
                .to_ascii_lowercase();
            if section.starts_with("include") {
                return false;
            }
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, "true"));
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim().trim_matches('"').to_ascii_lowercase();
        let allowed = match (section.as_str(), key.as_str()) {
            ("extensions", "objectformat") => value == "sha1",
            ("extensions", _) => key.is_empty() || key.starts_with(['#', ';']),
            ("core", "hookspath" | "attributesfile" | "worktree") => false,
            ("core", "autocrlf") => value == "false",
            ("core", "logallrefupdates") => value != "always",
            _ => true,
        };
        if !allowed {
            return false;
        }
    }
    true
}

/// `text` when it is a SHA-1 object id (40 hex digits), else an error
/// naming the ref.
fn object_id(text: &str, name: &str) -> Result<String> {
    if text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(text.to_ascii_lowercase())
    } else {
        bail!("the ref {name} is not a plain object id: {text:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_that_change_what_git_writes_leave_it_to_git() {
        let plain =
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tlogallrefupdates = true\n";
        assert!(settings_allow(plain));
        assert!(settings_allow("[extensions]\n\tobjectFormat = sha1\n"));
        for refused in [
            "[extensions]\n\tobjectformat = sha256\n",
            "[extensions]\n\trefStorage = reftable\n",
            "[core]\n\thooksPath = .githooks\n",
            "[core]\n\tautocrlf = input\n",
            "[core]\n\tlogAllRefUpdates = always\n",
            "[core]\n\tworktree = ../elsewhere\n",
            "[include]\n\tpath = other\n",
            "[includeIf \"gitdir:~/work/\"]\n\tpath = work\n",
        ] {
            assert!(!settings_allow(refused), "{refused}");
        }
    }

    #[test]
    fn refs_are_read_loose_or_packed_and_updated_only_from_what_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let repository = Repository {
            top: dir.path().to_path_buf(),
            common: dir.path().to_path_buf(),
            objects: Objects::new(dir.path().join("objects")),
        };
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        assert_eq!(repository.read_ref("refs/x/y").unwrap(), None);
        fs::write(
            dir.path().join("packed-refs"),
            format!("# pack-refs with: peeled\n{a} refs/x/y\n^{b}\n"),
        )
        .unwrap();
        assert_eq!(repository.read_ref("refs/x/y").unwrap(), Some(a.clone()));
        assert!(repository.update_ref("refs/x/y", &b, None).is_err());
        repository.update_ref("refs/x/y", &b, Some(&a)).unwrap();
        assert_eq!(repository.read_ref("refs/x/y").unwrap(), Some(b.clone()));
        assert!(!dir.path().join("refs/x/y.lock").exists());
        fs::write(dir.path().join("refs/x/y.lock"), "").unwrap();
        assert!(repository.update_ref("refs/x/y", &a, Some(&b)).is_err());
        assert!(
            dir.path().join("refs/x/y.lock").exists(),
            "not ours to remove"
        );
    }
}
