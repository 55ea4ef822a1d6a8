//! A small runner of git commands for `alpha update` and the scaffold
//! record: every call gets the same `-c key=value` settings, and every
//! write goes through git's plumbing (objects, a private index, one ref at a
//! time), so the user's branch, index and work tree are never touched.

use super::tree::{Entry, Tree};
use anyhow::{Context as _, Result, bail};
use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The settings every git call of `alpha update` gets unless `disable` is
/// given, as kubebuilder's `--git-config` defaults.
pub const DEFAULT_CONFIG: [&str; 3] = [
    "merge.renameLimit=999999",
    "diff.renameLimit=999999",
    "merge.conflictStyle=merge",
];

/// The effective `-c` list for the `--git-config` values `given`: the
/// defaults, then the user's values; a literal `disable` drops the defaults.
pub fn effective_config(given: &[String]) -> Vec<String> {
    let disabled = given.iter().any(|value| value == "disable");
    let defaults = DEFAULT_CONFIG
        .iter()
        .filter(|_| !disabled)
        .map(|value| value.to_string());
    defaults
        .chain(given.iter().filter(|value| *value != "disable").cloned())
        .collect()
}

/// git run for one repository.
#[derive(Debug, Clone)]
pub struct Git {
    /// The directory commands run in (the work tree's top level).
    dir: PathBuf,
    /// The repository's git directory, absolute.
    git_dir: PathBuf,
    /// `key=value` settings passed with `-c`.
    config: Vec<String>,
}

impl Git {
    /// git for the repository whose work tree holds `dir`, with `config`
    /// (`key=value`).
    pub fn open(dir: &Path, config: Vec<String>) -> Result<Self> {
        let mut git = Self {
            dir: dir.to_path_buf(),
            git_dir: PathBuf::new(),
            config,
        };
        git.git_dir = PathBuf::from(git.run(&["rev-parse", "--absolute-git-dir"])?);
        Ok(git)
    }

    /// The directory commands run in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A command `git -c … args` in the repository.
    pub fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut command = Command::new("git");
        for value in &self.config {
            command.arg("-c").arg(value);
        }
        command
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null());
        command
    }

    /// Runs `command`; its output, or an error quoting git's message.
    fn output_of(mut command: Command, shown: &str) -> Result<Output> {
        let output = command
            .output()
            .with_context(|| format!("cannot run git {shown} (is git installed?)"))?;
        if !output.status.success() {
            let message = String::from_utf8_lossy(&output.stderr);
            let message = message.trim().lines().last().unwrap_or("").to_string();
            bail!("git {shown} failed: {message}");
        }
        Ok(output)
    }

    /// Runs `git args`; its standard output, trimmed.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<String> {
        let shown = shown(args);
        let output = Self::output_of(self.command(args), &shown)?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    /// Whether `git args` succeeds (its output dropped).
    pub fn succeeds<S: AsRef<OsStr>>(&self, args: &[S]) -> bool {
        self.command(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }

    /// The top level of the work tree holding `dir`, or `None` outside one.
    pub fn toplevel(dir: &Path) -> Option<PathBuf> {
        let output = Command::new("git")
            .args(["rev-parse", "--show-toplevel"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|output| output.status.success())?;
        let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
        (!text.is_empty()).then(|| PathBuf::from(text))
    }

    /// The entries `git status` reports (untracked files included), without
    /// refreshing the index on disk; empty when the tree is clean.
    pub fn status(&self) -> Result<String> {
        self.run(&[
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=normal",
        ])
    }

    /// The checked-out branch, or `None` on a detached HEAD.
    pub fn current_branch(&self) -> Option<String> {
        self.run(&["symbolic-ref", "--quiet", "--short", "HEAD"])
            .ok()
            .filter(|name| !name.is_empty())
    }

    /// The object `rev` names, or `None` when it names none.
    pub fn rev_parse(&self, rev: &str) -> Option<String> {
        self.run(&["rev-parse", "--verify", "--quiet", "--end-of-options", rev])
            .ok()
            .filter(|id| !id.is_empty())
    }

    /// The blob id git gives the file at `path` (its filters applied), without
    /// writing the object.
    pub fn hash_file(&self, path: &Path) -> Result<String> {
        self.run(&[
            OsStr::new("hash-object"),
            OsStr::new("--"),
            path.as_os_str(),
        ])
    }

    /// Every file of the commit (or tree) `rev`, with its bytes and mode;
    /// submodules are left out.
    pub fn read_tree(&self, rev: &str) -> Result<Tree> {
        let listing = Self::output_of(
            self.command(&["ls-tree", "-r", "-z", "--full-tree", rev]),
            &format!("ls-tree {rev}"),
        )?;
        let mut entries = Vec::new();
        for record in listing.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let record = String::from_utf8_lossy(record);
            let (meta, path) = record
                .split_once('\t')
                .with_context(|| format!("unexpected ls-tree line {record:?}"))?;
            let fields: Vec<&str> = meta.split(' ').collect();
            if fields.len() != 3 || fields[1] != "blob" {
                continue;
            }
            let mode = u32::from_str_radix(fields[0], 8)?;
            entries.push((PathBuf::from(path), mode, fields[2].to_string()));
        }
        let blobs = self.cat_blobs(entries.iter().map(|(_, _, id)| id.as_str()))?;
        Ok(entries
            .into_iter()
            .zip(blobs)
            .map(|((path, mode, _), bytes)| (path, Entry { bytes, mode }))
            .collect())
    }

    /// The bytes of the blobs `ids`, in order, through one `cat-file --batch`.
    fn cat_blobs<'a>(&self, ids: impl Iterator<Item = &'a str>) -> Result<Vec<Vec<u8>>> {
        let ids: Vec<&str> = ids.collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut child = self
            .command(&["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot run git cat-file")?;
        let mut stdin = child.stdin.take().context("git cat-file has no input")?;
        let request: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
        let mut reader = BufReader::new(child.stdout.take().context("no output")?);
        let mut blobs = Vec::with_capacity(ids.len());
        for id in &ids {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            let size: usize = header
                .split_whitespace()
                .nth(2)
                .and_then(|size| size.parse().ok())
                .with_context(|| format!("git cat-file cannot read {id}: {}", header.trim()))?;
            let mut bytes = vec![0; size + 1];
            reader.read_exact(&mut bytes)?;
            bytes.pop();
            blobs.push(bytes);
        }
        writer
            .join()
            .map_err(|_| anyhow::anyhow!("git cat-file input failed"))??;
        child.wait()?;
        Ok(blobs)
    }

    /// Writes every one of `blobs` as a blob object, as they are (no
    /// filters), through one `hash-object`; their ids, in order.
    pub fn write_blobs<'a>(&self, blobs: impl Iterator<Item = &'a [u8]>) -> Result<Vec<String>> {
        let staging = tempfile::tempdir().context("cannot create a temporary directory")?;
        let mut paths = String::new();
        for (number, bytes) in blobs.enumerate() {
            let path = staging.path().join(number.to_string());
            std::fs::write(&path, bytes)?;
            paths.push_str(&format!("{}\n", path.display()));
        }
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut child = self
            .command(&["hash-object", "-w", "--no-filters", "--stdin-paths"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run git hash-object")?;
        let mut stdin = child.stdin.take().context("no input")?;
        let writer = std::thread::spawn(move || stdin.write_all(paths.as_bytes()));
        let output = child.wait_with_output()?;
        writer
            .join()
            .map_err(|_| anyhow::anyhow!("git hash-object input failed"))??;
        if !output.status.success() {
            bail!(
                "git hash-object failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_string)
            .collect())
    }

    /// A commit of `tree` with `parents` and `message`; its id.
    pub fn commit_tree(&self, tree: &str, parents: &[&str], message: &str) -> Result<String> {
        let mut args = vec!["commit-tree".to_string(), tree.to_string()];
        for parent in parents {
            args.extend(["-p".to_string(), parent.to_string()]);
        }
        args.extend(["-m".to_string(), message.to_string()]);
        self.run(&args)
    }

    /// Creates branch `name` at `commit`; fails if it exists.
    pub fn create_branch(&self, name: &str, commit: &str) -> Result<()> {
        let reference = format!("refs/heads/{name}");
        self.run(&["update-ref", &reference, commit, ""])
            .map(drop)
            .with_context(|| format!("cannot create the branch {name}"))
    }

    /// Whether `name` is a valid branch name.
    pub fn valid_branch_name(&self, name: &str) -> bool {
        self.succeeds(&["check-ref-format", "--branch", name])
    }

    /// `git push -u origin <refspecs>`.
    pub fn push(&self, remote: &str, refspecs: &[&str]) -> Result<()> {
        let mut args = vec!["push", "--quiet", "-u", remote];
        args.extend(refspecs);
        self.run(&args).map(drop)
    }

    /// A private index, empty, in a temporary directory.
    pub fn temp_index(&self) -> Result<TempIndex<'_>> {
        let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
        Ok(TempIndex {
            git: self,
            file: dir.path().join("index"),
            _dir: dir,
        })
    }
}

/// `args` as one string, for messages.
fn shown<S: AsRef<OsStr>>(args: &[S]) -> String {
    args.iter()
        .map(|arg| arg.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An index of its own (`GIT_INDEX_FILE` in a temporary directory): trees
/// are built in it and written as objects, the user's index untouched.
pub struct TempIndex<'a> {
    git: &'a Git,
    file: PathBuf,
    _dir: tempfile::TempDir,
}

impl TempIndex<'_> {
    /// `git args` on this index.
    fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut command = self.git.command(args);
        command.env("GIT_INDEX_FILE", &self.file);
        command
    }

    /// Runs `git args` on this index; its standard output, trimmed.
    fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<String> {
        let output = Git::output_of(self.command(args), &shown(args))?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    /// Loads the tree of `rev` into the index.
    pub fn read_tree(&self, rev: &str) -> Result<()> {
        self.run(&["read-tree", rev]).map(drop)
    }

    /// Feeds `git update-index --index-info` with `lines`
    /// (`<mode> <id>\t<path>`, or mode 0 to remove).
    fn index_info(&self, lines: &[String]) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut child = self
            .command(&["update-index", "-z", "--index-info"])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run git update-index")?;
        let mut stdin = child.stdin.take().context("no input")?;
        let input: Vec<u8> = lines
            .iter()
            .flat_map(|line| line.bytes().chain(std::iter::once(0)))
            .collect();
        stdin.write_all(&input)?;
        drop(stdin);
        let output = child.wait_with_output()?;
        if !output.status.success() {
            bail!(
                "git update-index failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(())
    }

    /// Sets the files of `tree` (blobs written) and removes `removed`.
    pub fn apply(&self, tree: &Tree, removed: &[PathBuf]) -> Result<()> {
        let mut lines: Vec<String> = removed
            .iter()
            .map(|path| format!("0 {}\t{}", "0".repeat(40), path.display()))
            .collect();
        let ids = self
            .git
            .write_blobs(tree.values().map(|entry| &entry.bytes[..]))?;
        for ((path, entry), id) in tree.iter().zip(ids) {
            lines.push(format!("{:o} {id}\t{}", entry.mode, path.display()));
        }
        self.index_info(&lines)
    }

    /// Removes every entry below `path` (a file or a folder).
    pub fn remove_under(&self, path: &Path) -> Result<()> {
        self.run(&[
            OsStr::new("rm"),
            OsStr::new("--cached"),
            OsStr::new("-f"),
            OsStr::new("-r"),
            OsStr::new("--quiet"),
            OsStr::new("--ignore-unmatch"),
            OsStr::new("--"),
            path.as_os_str(),
        ])
        .map(drop)
    }

    /// Puts the entries of `rev` below `path` into the index.
    pub fn restore_from(&self, rev: &str, path: &Path) -> Result<()> {
        let listing = self.git.command(&[
            OsStr::new("ls-tree"),
            OsStr::new("-r"),
            OsStr::new("-z"),
            OsStr::new("--full-tree"),
            OsStr::new(rev),
            OsStr::new("--"),
            path.as_os_str(),
        ]);
        let output = Git::output_of(listing, &format!("ls-tree {rev} {}", path.display()))?;
        let lines: Vec<String> = output
            .stdout
            .split(|b| *b == 0)
            .filter(|record| !record.is_empty())
            .map(|record| {
                let record = String::from_utf8_lossy(record);
                let (meta, path) = record.split_once('\t').unwrap_or((&record, ""));
                let mut fields = meta.split(' ');
                let (mode, _, id) = (fields.next(), fields.next(), fields.next());
                format!(
                    "{} {}\t{path}",
                    mode.unwrap_or_default(),
                    id.unwrap_or_default()
                )
            })
            .collect();
        self.index_info(&lines)
    }

    /// Writes the files of the index into the empty directory `dir`.
    pub fn check_out(&self, dir: &Path) -> Result<()> {
        let mut work_tree = std::ffi::OsString::from("--work-tree=");
        work_tree.push(dir);
        self.run(&[
            work_tree.as_os_str(),
            OsStr::new("checkout-index"),
            OsStr::new("-a"),
        ])
        .map(drop)
    }

    /// Makes the index hold exactly the files of the directory `dir` (its
    /// `.gitignore` files honoured, unless `force`).
    pub fn add_all(&self, dir: &Path, force: bool) -> Result<()> {
        let mut work_tree = std::ffi::OsString::from("--work-tree=");
        work_tree.push(dir);
        let mut args = vec![work_tree, "add".into(), "-A".into()];
        if force {
            args.push("-f".into());
        }
        args.push(".".into());
        let mut command = self.command(&args);
        command.current_dir(dir).env("GIT_DIR", &self.git.git_dir);
        Git::output_of(command, "add -A").map(drop)
    }

    /// Writes the index as a tree; its id.
    pub fn write_tree(&self) -> Result<String> {
        self.run(&["write-tree"])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_first_and_disable_drops_them() {
        let user = vec!["merge.conflictStyle=diff3".to_string()];
        let config = effective_config(&user);
        assert_eq!(config.len(), 4);
        assert_eq!(config[0], "merge.renameLimit=999999");
        assert_eq!(config[3], "merge.conflictStyle=diff3");
        let disabled = effective_config(&["disable".to_string(), "a.b=c".to_string()]);
        assert_eq!(disabled, ["a.b=c"]);
    }
}
