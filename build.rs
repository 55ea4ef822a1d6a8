//! Stamps the binary with what made it, for `kubebuilder-rs version` and
//! PROJECT's `cliVersion`:
//! - `KUBEBUILDER_RS_COMMIT`: the git commit it is built from (`unknown`
//!   outside a git checkout);
//! - `KUBEBUILDER_RS_SCAFFOLD`: a digest of everything that shapes the
//!   scaffold (the templates under `scaffolds/` and the code under `src/`),
//!   the same on every machine for the same files.
//!
//! Reruns when a file under `scaffolds/` or `src/` changes, or the checkout
//! moves to another commit.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The trees the scaffold digest covers, relative to the package root.
const DIGESTED: [&str; 2] = ["scaffolds", "src"];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=KUBEBUILDER_RS_COMMIT={commit}");
    println!(
        "cargo:rustc-env=KUBEBUILDER_RS_SCAFFOLD={}",
        scaffold_digest(&root)
    );
    for dir in DIGESTED {
        println!("cargo:rerun-if-changed={dir}");
    }
    // In a linked worktree `.git` is a file: ask git where HEAD and the
    // branches live.
    for name in ["HEAD", "refs/heads", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}

/// The trimmed output of a successful, non-empty `git args`.
fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|text| !text.is_empty())
}

/// The first 12 hex digits of the FNV-1a 64 hash of every file under the
/// digested trees, taken in order of their `/`-separated relative paths, each
/// as its path, a NUL, its length (8 bytes, little endian) and its bytes.
fn scaffold_digest(root: &Path) -> String {
    let mut files = Vec::new();
    for dir in DIGESTED {
        collect(root, &root.join(dir), &mut files);
    }
    files.sort();
    let mut hash = Fnv1a64::new();
    for (relative, path) in files {
        let bytes = std::fs::read(&path)
            .unwrap_or_else(|err| panic!("read {} for the digest: {err}", path.display()));
        hash.write(relative.as_bytes());
        hash.write(&[0]);
        hash.write(&(bytes.len() as u64).to_le_bytes());
        hash.write(&bytes);
    }
    format!("{:016x}", hash.0)[..12].to_string()
}

/// Adds every file under `dir` to `files` as (relative path, full path).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("read {} for the digest: {err}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let relative = path.strip_prefix(root).expect("under the root");
            let parts: Vec<_> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push((parts.join("/"), path));
        }
    }
}

/// 64-bit FNV-1a, written out so its value never depends on a library's
/// choice of hasher.
struct Fnv1a64(u64);

impl Fnv1a64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Self {
        Self(Self::OFFSET)
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
}
