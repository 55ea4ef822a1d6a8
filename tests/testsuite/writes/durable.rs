//! Writes survive a power cut: every step that relies on an earlier one
//! comes after that one is flushed to disk (see src/machinery/journal.rs).
//!
//! Commands run under strace, which records their file system calls with
//! the path behind every descriptor (`-y`); the trace is then read back and
//! checked, one write (up to the journal's removal) at a time:
//! - before its commit point (the journal renamed from the staging folder
//!   to the project root) a write changes nothing outside the staging
//!   folder;
//! - every file staged, the journal's data and the staging folder itself
//!   are flushed in their directories before that rename, and the root
//!   after it, before anything else changes;
//! - a file put in place (renamed, or linked, from its staged file) had its
//!   data flushed first; it, every directory made and every name removed
//!   after the commit point are flushed in their directories before the
//!   journal is removed;
//! - the journal's removal is the write's last change (but for the removal
//!   of a staging folder that never reached its commit point), and is
//!   flushed;
//! - a write flushes in a few calls, however many files it writes (a
//!   `syncfs` of the project's file system counts for every path on it);
//! - in a git repository, the scaffold record's pack and index are flushed
//!   before they are named, and their names before the record's ref moves;
//!   a command killed at any rename leaves what the next one needs to
//!   write a whole record.
//!
//! Needs strace, so it is ignored by a plain `cargo test` and run by
//! `scripts/test-all`, which installs it.

use crate::common::{empty_project_dir, init_project, read, words};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The journal's name at the project root.
const JOURNAL: &str = ".kubebuilder-rs-journal";

/// The staging folder's name at the project root.
const STAGING: &str = ".kubebuilder-rs-staging";

/// The system calls traced.
const TRACED: &str = "trace=openat,write,fsync,fdatasync,syncfs,rename,renameat,renameat2,link,linkat,unlink,unlinkat,rmdir,mkdir,mkdirat";

/// One file system call of a trace that succeeded.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    /// `fsync` or `fdatasync` of the file or directory at the path.
    Flush(PathBuf),
    /// `syncfs` through a descriptor of the path: everything on its file
    /// system (the whole project) is flushed.
    FlushAll(PathBuf),
    /// A file created (`openat` with `O_CREAT`).
    Create(PathBuf),
    /// A directory created.
    Mkdir(PathBuf),
    /// A name given to a file that had the name `from` (rename or link).
    Move { from: PathBuf, to: PathBuf },
    /// A name removed (a file's or a directory's).
    Unlink(PathBuf),
}

impl Call {
    /// The path the call flushes or changes.
    fn path(&self) -> &Path {
        match self {
            Call::Flush(path) | Call::FlushAll(path) => path,
            other => other.changed().unwrap(),
        }
    }

    /// The path the call changes in its directory; none for a flush.
    fn changed(&self) -> Option<&Path> {
        match self {
            Call::Flush(_) | Call::FlushAll(_) => None,
            Call::Create(path) | Call::Mkdir(path) | Call::Unlink(path) => Some(path),
            Call::Move { to, .. } => Some(to),
        }
    }
}

/// Runs kubebuilder-rs `args` in `dir` under strace; panics when the
/// command fails or strace cannot run. The calls on paths in `dir`
/// (outside `.git`), in order.
fn traced(dir: &Path, args: &[&str]) -> Vec<Call> {
    let git = dir.join(".git");
    traced_in(dir, args)
        .into_iter()
        .filter(|call| !call.path().starts_with(&git))
        .collect()
}

/// [`traced`], `.git` included.
fn traced_in(dir: &Path, args: &[&str]) -> Vec<Call> {
    let name: String = args[..2]
        .concat()
        .replace(|c: char| !c.is_alphanumeric(), "-");
    let log = dir.with_file_name(format!("{name}.strace"));
    let output = Command::new("strace")
        .args(["-f", "-y", "-qq", "-e", TRACED, "-o"])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("kubebuilder-rs"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("strace cannot run ({e}): this test needs it (apt-get install strace)")
        });
    assert!(
        output.status.success(),
        "kubebuilder-rs {args:?} under strace failed (is ptrace allowed here?): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&log).expect("strace wrote its log");
    parse(&text)
        .into_iter()
        .filter(|call| call.path().starts_with(dir))
        .collect()
}

/// The successful calls of an strace log (`-f -y`), the calls another
/// thread interrupted put back together.
fn parse(text: &str) -> Vec<Call> {
    let mut pending: HashMap<&str, String> = HashMap::new();
    let mut calls = Vec::new();
    for line in text.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        let whole = if let Some(resumed) = rest.strip_prefix("<... ") {
            let tail = resumed.split_once("resumed>").map_or("", |(_, tail)| tail);
            pending.remove(pid).unwrap_or_default() + tail
        } else if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, head.to_string());
            continue;
        } else {
            rest.to_string()
        };
        calls.extend(call(&whole));
    }
    calls
}

/// The call one whole strace line records, when it is one of [`Call`]'s
/// and succeeded.
fn call(line: &str) -> Option<Call> {
    let (name, rest) = line.split_once('(')?;
    let (args, result) = rest.rsplit_once(" = ")?;
    let args = args.trim_end().strip_suffix(')')?;
    if result.starts_with('-') || result.starts_with('?') {
        return None;
    }
    let (annotations, names) = paths(args);
    let name_at = |i: usize| names.get(i).cloned();
    match name {
        "fsync" | "fdatasync" => annotations.first().cloned().map(Call::Flush),
        "syncfs" => annotations.first().cloned().map(Call::FlushAll),
        "openat" if args.contains("O_CREAT") => name_at(0).map(Call::Create),
        "mkdir" | "mkdirat" => name_at(0).map(Call::Mkdir),
        "rename" | "renameat" | "renameat2" | "link" | "linkat" => Some(Call::Move {
            from: name_at(0)?,
            to: name_at(1)?,
        }),
        "unlink" | "unlinkat" | "rmdir" => name_at(0).map(Call::Unlink),
        _ => None,
    }
}

/// The paths in a call's arguments: those strace shows behind descriptors
/// (`3</dir>`), and the quoted names, each relative one resolved against
/// the descriptor before it.
fn paths(args: &str) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut annotations, mut names) = (Vec::<PathBuf>::new(), Vec::new());
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut name = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => name.extend(chars.next()),
                        '"' => break,
                        c => name.push(c),
                    }
                }
                let base = annotations.last().cloned().unwrap_or_default();
                names.push(base.join(name));
            }
            '<' => {
                let path: String = chars.by_ref().take_while(|&c| c != '>').collect();
                annotations.push(path.into());
            }
            _ => {}
        }
    }
    (annotations, names)
}

/// The directory holding `path`.
fn parent(path: &Path) -> &Path {
    path.parent().expect("a path in the project has a parent")
}

/// Whether `calls[from..to]` flushes `path` (on its own, or with the
/// whole project's file system).
fn flushed(calls: &[Call], path: &Path, from: usize, to: usize) -> bool {
    calls[from..to.max(from)].iter().any(|call| match call {
        Call::Flush(flushed) => flushed == path,
        Call::FlushAll(_) => true,
        _ => false,
    })
}

/// How many flushing calls `calls` makes.
fn flush_calls(calls: &[Call]) -> usize {
    calls
        .iter()
        .filter(|call| matches!(call, Call::Flush(_) | Call::FlushAll(_)))
        .count()
}

/// The most flushing calls one write may make: the staged files with the
/// journal's data and the staging folder, the root after the journal's
/// rename (the commit point), the files put in place and directories made
/// in their directories, the journal's removal.
const FLUSH_CALLS_PER_WRITE: usize = 4;

/// Everything wrong with the order of the calls of the project in `root`:
/// one line per fault, with each write checked on its own.
fn faults(root: &Path, calls: &[Call]) -> Vec<String> {
    let journal = root.join(JOURNAL);
    let ends: Vec<usize> = (0..calls.len())
        .filter(|&i| calls[i] == Call::Unlink(journal.clone()))
        .collect();
    let mut faults = Vec::new();
    let mut start = 0;
    for &end in &ends {
        faults.extend(write_faults(root, &calls[start..=end]));
        start = end + 1;
    }
    let staging = root.join(STAGING);
    let late = calls[start..]
        .iter()
        .filter_map(Call::changed)
        .find(|path| !path.starts_with(&staging));
    if let Some(late) = late {
        faults.push(format!(
            "{} changed after the journal's removal",
            late.display()
        ));
    }
    if !flushed(calls, root, start, calls.len()) {
        faults.push("the journal's removal is not flushed".into());
    }
    faults
}

/// The faults of one write: `calls` ends with the journal's removal.
fn write_faults(root: &Path, calls: &[Call]) -> Vec<String> {
    let journal = root.join(JOURNAL);
    let staging = root.join(STAGING);
    let staged_journal = staging.join("journal");
    let end = calls.len() - 1;
    let mut faults = Vec::new();
    let commit = Call::Move {
        from: staged_journal.clone(),
        to: journal.clone(),
    };
    // Recovery rolls forward a write committed by the run it finishes.
    let commit_at = calls.iter().position(|call| *call == commit);
    if let Some(at) = commit_at {
        faults.extend(staging_faults(root, &calls[..=at]));
        let next_change = (at + 1..end)
            .find(|&i| calls[i].changed().is_some())
            .unwrap_or(end);
        if !flushed(calls, root, at, next_change) {
            faults.push("the project changed before the journal's rename was flushed".into());
        }
    }
    let is_staged = |path: &Path| path.starts_with(&staging) && path != staged_journal;
    for (i, call) in calls
        .iter()
        .enumerate()
        .skip(commit_at.map_or(0, |at| at + 1))
    {
        let changed = match call {
            Call::Move { from, to } if is_staged(from) => {
                let created = calls[..i]
                    .iter()
                    .rposition(|c| *c == Call::Create(from.clone()));
                if let Some(created) = created
                    && !flushed(calls, from, created, i)
                {
                    faults.push(format!(
                        "{} put in place before its data was flushed",
                        to.display()
                    ));
                }
                to
            }
            Call::Mkdir(dir) => dir,
            _ => continue,
        };
        if !flushed(calls, parent(changed), i, end) {
            faults.push(format!(
                "{} made after the commit point, but its directory is not flushed before the journal's removal",
                changed.display()
            ));
        }
    }
    faults.extend(removal_faults(&calls[..end]));
    faults
}

/// The faults of a write up to its commit point (the last of `calls`):
/// nothing outside the staging folder changes, and everything made in it
/// (and the folder itself) is flushed in its directory by then.
fn staging_faults(root: &Path, calls: &[Call]) -> Vec<String> {
    let staging = root.join(STAGING);
    let commit = calls.len() - 1;
    let mut faults = Vec::new();
    for (i, call) in calls[..commit].iter().enumerate() {
        let Some(changed) = call.changed() else {
            continue;
        };
        if !changed.starts_with(&staging) {
            faults.push(format!(
                "{} changed before the commit point",
                changed.display()
            ));
        } else if matches!(call, Call::Create(_) | Call::Mkdir(_))
            && !flushed(calls, parent(changed), i, commit)
        {
            faults.push(format!(
                "{} is not flushed in its directory before the commit point",
                changed.display()
            ));
        }
    }
    faults
}

/// The faults of the removals of a write (`calls`, up to the journal's
/// removal): a file or directory removed must be flushed in its directory
/// before the journal goes, unless that directory is removed too.
fn removal_faults(calls: &[Call]) -> Vec<String> {
    let end = calls.len();
    let mut faults = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let Call::Unlink(path) = call else {
            continue;
        };
        let dir = parent(path);
        let dir_removed = calls[i..].contains(&Call::Unlink(dir.to_path_buf()));
        if !dir_removed && !flushed(calls, dir, i, end) {
            faults.push(format!(
                "the removal of {} is not flushed before the journal's removal",
                path.display()
            ));
        }
    }
    faults
}

/// Runs `args` in `dir` under strace and checks the order of its writes;
/// its calls.
fn check(dir: &Path, args: &str) -> Vec<Call> {
    let calls = traced(dir, &words(args));
    let faults = faults(dir, &calls);
    assert!(
        faults.is_empty(),
        "`{args}` does not flush its writes in order:\n{}",
        faults.join("\n")
    );
    calls
}

/// The project files (relative to `dir`) that `calls` put in place.
fn placed(dir: &Path, calls: &[Call]) -> Vec<PathBuf> {
    calls
        .iter()
        .filter_map(|call| match call {
            Call::Move { from, to }
                if from.starts_with(dir.join(STAGING)) && !to.ends_with(JOURNAL) =>
            {
                Some(to.strip_prefix(dir).unwrap().to_path_buf())
            }
            _ => None,
        })
        .collect()
}

/// A new go/v4 project, its path canonical (as strace shows paths).
fn project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("ship");
    let dir = dir.canonicalize().unwrap();
    init_project(&dir, &[]);
    (tmp, dir)
}

/// Runs [`CREATE_API`] in `dir`, killed at the `when`-th call of `syscall`,
/// so that it leaves a journal or a staging folder.
fn kill_create_api(dir: &Path, syscall: &str, when: usize) {
    let killed = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-e"])
        .arg(format!("trace={syscall}"))
        .arg("-e")
        .arg(format!("inject={syscall}:signal=KILL:when={when}"))
        .arg(assert_cmd::cargo::cargo_bin("kubebuilder-rs"))
        .args(words(CREATE_API))
        .current_dir(dir)
        .output()
        .expect("strace runs (apt-get install strace)");
    assert!(!killed.status.success(), "the command was not killed");
    assert!(
        dir.join(JOURNAL).exists() || dir.join(STAGING).exists(),
        "the killed command left no journal and no staging folder"
    );
}

/// A command that adds an API to a new project.
const CREATE_API: &str = "create api --group crew --version v1 --kind Captain --make=false";

/// A command that changes nothing in a go/v4 project (but recovers).
const HARMLESS: &str = "edit --plugins go/v4";

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn every_write_is_flushed_before_the_step_that_relies_on_it() {
    let (_tmp, dir) = empty_project_dir("ship");
    let dir = dir.canonicalize().unwrap();
    let calls = check(
        &dir,
        "init --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check",
    );
    let files = placed(&dir, &calls);
    for file in ["PROJECT", "cmd/main.go", "config/rbac/role.yaml"] {
        assert!(
            files.contains(&file.into()),
            "init placed no {file}: {files:?}"
        );
    }
    let files = placed(&dir, &check(&dir, CREATE_API));
    for file in ["PROJECT", "cmd/main.go", "api/v1/captain_types.go"] {
        assert!(
            files.contains(&file.into()),
            "create api placed no {file}: {files:?}"
        );
    }
}

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn a_write_flushes_in_a_few_calls_however_many_files_it_writes() {
    let (_tmp, dir) = empty_project_dir("ship");
    let dir = dir.canonicalize().unwrap();
    let init = check(
        &dir,
        "init --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check",
    );
    let api = check(&dir, CREATE_API);
    for (command, calls) in [("init", &init), ("create api", &api)] {
        let files = placed(&dir, calls).len();
        assert!(files > 10, "{command} wrote {files} files");
        assert!(
            flush_calls(calls) <= FLUSH_CALLS_PER_WRITE,
            "{command} wrote {files} files with {} flushing calls (at most {FLUSH_CALLS_PER_WRITE})",
            flush_calls(calls)
        );
    }
}

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn finishing_an_interrupted_write_flushes_it_before_removing_the_journal() {
    let (_tmp, dir) = project();
    // Killed among the renames of new files into place: after the commit
    // point.
    kill_create_api(&dir, "renameat2", 3);
    let files = placed(&dir, &check(&dir, HARMLESS));
    assert!(
        files.contains(&"PROJECT".into()),
        "recovery finished no file: {files:?}"
    );
    assert!(!dir.join(JOURNAL).exists());
    assert!(read(&dir, "PROJECT").contains("kind: Captain"));
}

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn undoing_an_interrupted_write_removes_what_it_staged() {
    let (_tmp, dir) = project();
    // Killed as it renames the journal to the root (its first rename):
    // every new content is staged, and the write is not committed.
    kill_create_api(&dir, "rename", 1);
    assert!(dir.join(STAGING).join("journal").exists());
    let calls = check(&dir, HARMLESS);
    let removed = calls
        .iter()
        .filter(|call| matches!(call, Call::Unlink(_)))
        .count();
    assert!(removed > 3, "recovery removed {removed} files: {calls:?}");
    assert!(!dir.join(JOURNAL).exists() && !dir.join("api").exists());
    assert!(!dir.join(STAGING).exists());
    assert!(!read(&dir, "PROJECT").contains("kind: Captain"));
}

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn the_records_pack_is_flushed_before_the_record_points_at_it() {
    let (_tmp, dir) = empty_project_dir("ship");
    let dir = dir.canonicalize().unwrap();
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    let packs = dir.join(".git/objects/pack");
    let record = dir.join(".git/refs/kubebuilder-rs/pristine");
    let init = "init --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check";
    for command in [init, CREATE_API] {
        let calls = traced_in(&dir, &words(command));
        let at = |wanted: &dyn Fn(&Call) -> bool| calls.iter().position(wanted);
        let moved = at(&|call| matches!(call, Call::Move { to, .. } if *to == record))
            .unwrap_or_else(|| panic!("{command} moved no record: {calls:?}"));
        let named: Vec<(usize, &PathBuf, &PathBuf)> = calls
            .iter()
            .enumerate()
            .filter_map(|(i, call)| match call {
                Call::Move { from, to } if to.parent() == Some(packs.as_path()) => {
                    Some((i, from, to))
                }
                _ => None,
            })
            .collect();
        let extensions: Vec<_> = named
            .iter()
            .map(|(_, _, to)| to.extension().unwrap())
            .collect();
        assert_eq!(
            extensions,
            ["pack", "idx"],
            "{command}: the pack, then its index: {calls:?}"
        );
        for (i, from, to) in &named {
            let made = at(&|call| *call == Call::Create((*from).clone())).unwrap_or_else(|| {
                panic!("{command}: {} was not written: {calls:?}", from.display())
            });
            let flushed = calls[made..*i].iter().any(|call| match call {
                Call::FlushAll(_) => true,
                Call::Flush(path) => path == *from,
                _ => false,
            });
            assert!(
                flushed,
                "{command}: {} is named before its data is flushed",
                to.display()
            );
        }
        let last_named = named.last().unwrap().0;
        assert!(
            last_named < moved,
            "{command}: the record moved before its pack was named"
        );
        let names_flushed = calls[last_named..moved].iter().any(|call| match call {
            Call::FlushAll(_) => true,
            Call::Flush(path) => *path == packs,
            _ => false,
        });
        assert!(
            names_flushed,
            "{command}: the record moved before its pack's name was flushed"
        );
    }
}

#[test]
#[ignore = "needs strace; run by scripts/test-all"]
fn a_record_killed_at_any_rename_leaves_the_next_record_whole() {
    let (_tmp, dir) = empty_project_dir("ship");
    let dir = dir.canonicalize().unwrap();
    let run = |dir: &Path, program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the program runs (strace: apt-get install strace)")
    };
    let git = Path::new("git");
    let tool = assert_cmd::cargo::cargo_bin("kubebuilder-rs");
    assert!(run(&dir, git, &["init", "-q"]).status.success());
    let init = "init --domain example.com --repo example.com/ship --fetch-deps=false --skip-go-version-check";
    assert!(run(&dir, &tool, &words(init)).status.success());
    // `create api` killed at each of its renames in turn (its files', the
    // journal's, then its record's pack, index and ref), until a run
    // outlives them all; each time, the next command records the project.
    let mut kills = 0;
    for when in 1.. {
        let killed = dir.with_file_name(format!("killed-{when}"));
        let copied = Command::new("cp").arg("-a").arg(&dir).arg(&killed).status();
        assert!(copied.unwrap().success());
        let mut traced = vec![
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            "trace=rename,renameat2",
            "-e",
        ];
        let inject = format!("inject=rename,renameat2:signal=KILL:when={when}");
        traced.push(&inject);
        let tool_path = tool.to_string_lossy();
        traced.push(&tool_path);
        traced.extend(words(CREATE_API));
        if run(&killed, Path::new("strace"), &traced).status.success() {
            break;
        }
        kills += 1;
        let next = "create api --group crew --version v1 --kind Admiral --make=false";
        let output = run(&killed, &tool, &words(next));
        assert!(
            output.status.success(),
            "after a kill at rename {when}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let fsck = run(&killed, git, &["fsck", "--strict", "--no-dangling"]);
        assert!(
            fsck.status.success(),
            "killed at rename {when}, the next record is not whole: {}",
            String::from_utf8_lossy(&fsck.stdout)
        );
        let listing = run(
            &killed,
            git,
            &[
                "ls-tree",
                "-r",
                "--name-only",
                "refs/kubebuilder-rs/pristine",
            ],
        );
        let files = String::from_utf8_lossy(&listing.stdout).into_owned();
        assert!(
            files.contains("api/v1/admiral_types.go"),
            "after rename {when}: {files}"
        );
    }
    assert!(kills > 5, "killed at only {kills} renames");
}
