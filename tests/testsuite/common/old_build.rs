//! kubebuilder-rs binaries other than the one under test, built with cargo
//! inside the tests: the tool as it was at an earlier commit of this
//! repository (from its own git history), and the current source with one
//! template edited (a "newer" scaffold for the update tests).
//!
//! Both build in one cargo target directory beside the other test caches
//! (`$KUBEBUILDER_RS_CACHE/old-builds/target`, so dependencies compile once),
//! one build at a time under a file lock, and are cached by what they were
//! built from: `old-builds/<commit>/kubebuilder-rs` and
//! `old-builds/edited-<hash>/kubebuilder-rs`.

use super::{FileLock, shared_tools_bin, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

/// The root of this repository's checkout.
fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding the builds and their shared target directory.
fn builds_dir() -> PathBuf {
    let dir = shared_tools_bin().with_file_name("old-builds");
    std::fs::create_dir_all(&dir).expect("create the old-builds dir");
    dir
}

/// kubebuilder-rs built from this repository at `commit` (any name git
/// resolves), the first time with cargo, from the cache afterwards. Panics
/// with the way out when the checkout has no git history to take it from.
pub fn old_binary(commit: &str) -> PathBuf {
    let root = repo_root();
    assert!(
        root.join(".git").exists(),
        "cannot build kubebuilder-rs at {commit}: {} is not a git checkout (no .git); \
         the update tests build earlier versions from the repository's history, so run them \
         from a git clone",
        root.display()
    );
    let full = git_out(
        &root,
        &["rev-parse", "--verify", &format!("{commit}^{{commit}}")],
    )
    .unwrap_or_else(|e| {
        panic!(
            "cannot build kubebuilder-rs at {commit}: the commit is not in {} ({e}); \
                 fetch the full history (git fetch --unshallow)",
            root.display()
        )
    });
    let bin = builds_dir().join(full.trim()).join("kubebuilder-rs");
    cached_or_built(&bin, &format!("commit {commit}"), |source| {
        let archive = source.join("source.tar");
        git_out(
            &root,
            &[
                "archive",
                "--format=tar",
                "-o",
                archive.to_str().unwrap(),
                full.trim(),
            ],
        )
        .unwrap_or_else(|e| panic!("git archive {commit} failed: {e}"));
        let tree = source.join("src");
        std::fs::create_dir(&tree).unwrap();
        run(Command::new("tar")
            .arg("-xf")
            .arg(&archive)
            .arg("-C")
            .arg(&tree));
        tree
    })
}

/// A change to one file of the source, by string replacement.
pub struct SourceEdit<'a> {
    /// Path below the repository root, e.g. `scaffolds/go/v4/…`.
    pub path: &'a str,
    /// Text that must occur in the file; its first occurrence is replaced.
    pub find: &'a str,
    /// What replaces it.
    pub replace: &'a str,
}

/// kubebuilder-rs built from the current source (every file `git ls-files`
/// lists, tracked or new, with its working-tree contents) with `edit`
/// applied, cached by a hash of all those contents after the edit (so by the
/// edit, the commit and any uncommitted change).
pub fn edited_binary(edit: &SourceEdit) -> PathBuf {
    let root = repo_root();
    let listed = git_out(
        &root,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    )
    .unwrap_or_else(|e| {
        panic!(
            "cannot copy the current source: `git ls-files` failed in {} ({e}); \
             run the update tests from a git clone",
            root.display()
        )
    });
    let mut files: Vec<(String, Vec<u8>)> = listed
        .split('\0')
        .filter(|path| !path.is_empty())
        .filter(|path| root.join(path).is_file())
        .map(|path| (path.to_string(), std::fs::read(root.join(path)).unwrap()))
        .collect();
    files.sort();
    let (_, bytes) = files
        .iter_mut()
        .find(|(path, _)| path == edit.path)
        .unwrap_or_else(|| panic!("{} is not a file of the source", edit.path));
    let text = String::from_utf8(bytes.clone()).expect("the edited file is text");
    assert!(
        text.contains(edit.find),
        "{} no longer holds {:?}: choose another edit",
        edit.path,
        edit.find
    );
    *bytes = text.replacen(edit.find, edit.replace, 1).into_bytes();
    let hash = fnv1a(&files);
    let bin = builds_dir()
        .join(format!("edited-{hash:016x}"))
        .join("kubebuilder-rs");
    drop_unused_edited_builds(bin.parent().unwrap());
    cached_or_built(
        &bin,
        &format!("the current source with {} edited", edit.path),
        |source| {
            let tree = source.join("src");
            for (path, bytes) in &files {
                let target = tree.join(path);
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::write(&target, bytes).unwrap();
            }
            tree
        },
    )
}

/// How long an edited build no test asked for is kept. Each change of the
/// source makes new ones (about 90 MB each), so without this the cache grows
/// with every commit tested.
const EDITED_BUILD_UNUSED_FOR: Duration = Duration::from_secs(24 * 3600);

/// Marks `wanted` (an `edited-<hash>` directory, if built) as used now and
/// removes the other edited builds unused for [`EDITED_BUILD_UNUSED_FOR`].
fn drop_unused_edited_builds(wanted: &Path) {
    if let Ok(dir) = std::fs::File::open(wanted) {
        let _ = dir.set_modified(SystemTime::now());
    }
    let Ok(entries) = std::fs::read_dir(builds_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let edited = entry.file_name().to_string_lossy().starts_with("edited-");
        let unused = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > EDITED_BUILD_UNUSED_FOR);
        if edited && unused && path != wanted {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// `bin` if it is cached; else, holding the build lock, a source tree from
/// `prepare` (given a temp dir) built with cargo and copied to `bin`.
fn cached_or_built(bin: &Path, what: &str, prepare: impl FnOnce(&Path) -> PathBuf) -> PathBuf {
    if bin.is_file() {
        eprintln!("ok  kubebuilder-rs ({what}) from the cache");
        return bin.to_path_buf();
    }
    let _lock = FileLock::take(&builds_dir().join("build.lock"));
    if bin.is_file() {
        return bin.to_path_buf();
    }
    let started = Instant::now();
    let temp = tempfile::tempdir().expect("temp dir");
    let source = prepare(temp.path());
    let target = builds_dir().join("target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--offline", "--locked", "--bin", "kubebuilder-rs"])
        .current_dir(&source)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("run cargo build");
    assert!(
        output.status.success(),
        "building kubebuilder-rs ({what}) failed:\n{}",
        stderr(&output)
    );
    // Copied, then renamed: a concurrent reader never sees a partial binary.
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    let partial = bin.with_extension("partial");
    std::fs::copy(target.join("debug/kubebuilder-rs"), &partial).expect("copy the build");
    std::fs::rename(&partial, bin).expect("cache the build");
    eprintln!(
        "ok  built kubebuilder-rs ({what})  ({:.1}s)",
        started.elapsed().as_secs_f64()
    );
    bin.to_path_buf()
}

/// Standard output of `git args` in `dir`, or its error output.
fn git_out(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if output.status.success() {
        Ok(stdout(&output))
    } else {
        Err(stderr(&output).trim().to_string())
    }
}

/// Runs `command`; panics with its output on failure.
fn run(command: &mut Command) {
    let output = command.output().expect("run command");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        stderr(&output)
    );
}

/// FNV-1a 64 over every (path, bytes), in order.
fn fnv1a(files: &[(String, Vec<u8>)]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, bytes) in files {
        for byte in path
            .bytes()
            .chain([0])
            .chain(bytes.iter().copied())
            .chain([0])
        {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}
