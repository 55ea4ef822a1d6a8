//! What `create api` and `create webhook` run after writing files (with
//! `--make`), limited to what the written files need:
//!
//! - `go get` for an external module given without a version;
//! - `go mod tidy` only when go.mod was edited, go.sum is missing, or a new
//!   or generated file imports a module go.mod does not require directly;
//! - `gofmt -w` on the Go files the command wrote, not the whole tree;
//! - controller-gen (`object`, as `make generate`) on the API packages whose
//!   types changed only; apply configurations (`--ssa`) come with
//!   `make manifests`, as in kubebuilder.
//!
//! Formatting the files outside the API packages runs alongside code
//! generation; the API files are formatted before controller-gen reads them.

use super::toolchain;
use crate::machinery::clock::current_year;
use crate::machinery::steps::{Progress, Step};
use anyhow::{Result, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a command changed, as the post-steps need it.
pub struct Changes<'a> {
    /// Files written, relative to the project root.
    pub written: &'a [PathBuf],
    /// External modules to `go get` (given without a version).
    pub go_get: Vec<&'a str>,
    /// The API packages whose types changed, to generate code for (see
    /// [`api_packages`]).
    pub api_packages: BTreeSet<PathBuf>,
}

/// Runs `make <target>` in the project at `dir`, shown like the other post-steps.
pub fn run_make(dir: &Path, target: &str) -> Result<()> {
    Progress::new().run(dir, &Step::new("make", &[target]))
}

/// Runs the post-steps for `changes` in the project at `dir`.
pub fn run(dir: &Path, changes: &Changes) -> Result<()> {
    let progress = Progress::new();
    for module in &changes.go_get {
        progress.run(dir, &Step::new("go", &["get", module]))?;
    }
    // Code generation loads the API packages, so a go.mod without the sums
    // it needs is tidied first; tidying again, if needed, comes last, when
    // the generated files can be checked too.
    let tidy_first = !changes.go_get.is_empty()
        || changes.written.iter().any(|p| p == Path::new("go.mod"))
        || !dir.join("go.sum").is_file();
    if tidy_first {
        progress.run(dir, &Step::new("go", &["mod", "tidy"]))?;
    }

    let go_files: Vec<&PathBuf> = changes
        .written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "go") && dir.join(p).is_file())
        .collect();
    let packages = &changes.api_packages;
    let (api_files, other_files): (Vec<&PathBuf>, Vec<&PathBuf>) = go_files
        .into_iter()
        .partition(|p| p.parent().is_some_and(|d| packages.contains(d)));

    std::thread::scope(|scope| {
        let generation = scope.spawn(|| -> Result<()> {
            if packages.is_empty() {
                return Ok(());
            }
            progress.run(dir, &Step::new("make", &["controller-gen"]))?;
            if let Some(step) = gofmt(&api_files) {
                progress.run(dir, &step)?;
            }
            progress.run(dir, &controller_gen(dir, packages))
        });
        let formatting = gofmt(&other_files).map_or(Ok(()), |step| progress.run(dir, &step));
        let generated = generation
            .join()
            .unwrap_or_else(|_| bail!("code generation panicked"));
        formatting.and(generated)
    })?;

    // Generated code may import modules the written files do not, even
    // after an early tidy.
    // A go.mod tidied above is tidy unless the generated code needs more.
    let mut checked: Vec<PathBuf> = changes
        .written
        .iter()
        .filter(|p| !(tidy_first && p.as_path() == Path::new("go.mod")))
        .cloned()
        .collect();
    for package in packages {
        go_files_below(&dir.join(package), dir, &mut checked);
    }
    if needs_tidy(dir, &checked) {
        progress.run(dir, &Step::new("go", &["mod", "tidy"]))?;
    }
    Ok(())
}

/// Adds the Go files below `folder` to `out`, relative to `root`.
fn go_files_below(folder: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            go_files_below(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "go")
            && let Ok(relative) = path.strip_prefix(root)
        {
            out.push(relative.to_path_buf());
        }
    }
}

/// `gofmt -w` on `files`, or nothing when there are none.
fn gofmt(files: &[&PathBuf]) -> Option<Step> {
    if files.is_empty() {
        return None;
    }
    let mut args = vec!["-w".to_string()];
    args.extend(files.iter().map(|p| p.to_string_lossy().into_owned()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut step = Step::new("gofmt", &refs);
    step.name = format!("gofmt -w ({} files)", files.len());
    Some(step)
}

/// controller-gen as `make generate` runs it, on `packages` only.
fn controller_gen(dir: &Path, packages: &BTreeSet<PathBuf>) -> Step {
    let binary = std::env::var_os("CONTROLLER_GEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("LOCALBIN")
                .map_or_else(|| dir.join("bin"), PathBuf::from)
                .join("controller-gen")
        });
    let year = std::env::var("YEAR").unwrap_or_else(|_| current_year().to_string());
    let object = format!("object:headerFile=\"hack/boilerplate.go.txt\",year={year}");
    let paths: Vec<String> = packages
        .iter()
        .map(|p| format!("paths=\"./{}/...\"", p.to_string_lossy()))
        .collect();
    let mut args = vec![object.as_str()];
    args.extend(paths.iter().map(String::as_str));
    Step::new(binary, &args)
}

/// The API packages of `version` (of every version when `None`) whose types
/// the command wrote (a `*_types.go` or `groupversion_info.go` under `api/`):
/// they need their deep-copy methods generated again. Other versions' types files only get a storage-version marker,
/// which changes no generated code; conversion and webhook files declare no
/// types.
pub fn api_packages(written: &[PathBuf], version: Option<&str>) -> BTreeSet<PathBuf> {
    written
        .iter()
        .filter(|p| p.starts_with("api"))
        .filter(|p| {
            version.is_none_or(|version| {
                p.parent()
                    .and_then(Path::file_name)
                    .is_some_and(|v| v == version)
            })
        })
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.ends_with("_types.go") || n == "groupversion_info.go"
            })
        })
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect()
}

/// Whether `go mod tidy` is needed: go.mod was edited, go.sum is missing,
/// or a written Go file imports a package that go.mod does not require
/// directly (a module it lacks, or one it lists only as indirect, which tidy
/// turns into a direct requirement). Otherwise every import of the new files
/// is already required and summed, and go.mod is left as it is.
pub fn needs_tidy(dir: &Path, written: &[PathBuf]) -> bool {
    if written.iter().any(|p| p == Path::new("go.mod")) || !dir.join("go.sum").is_file() {
        return true;
    }
    let go_mod = std::fs::read_to_string(dir.join("go.mod")).unwrap_or_default();
    let modules = modules_of(&go_mod);
    let provider = |import: &str| {
        modules
            .iter()
            .filter(|(module, _)| {
                import == module
                    || import
                        .strip_prefix(module.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .max_by_key(|(module, _)| module.len())
            .map(|(_, direct)| *direct)
    };
    written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "go"))
        .filter_map(|p| std::fs::read_to_string(dir.join(p)).ok())
        .any(|text| {
            imports(&text)
                .iter()
                // The standard library's paths have no dot in their first element.
                .filter(|import| import.split('/').next().is_some_and(|e| e.contains('.')))
                .any(|import| provider(import) != Some(true))
        })
}

/// The project's own module and every required module of a go.mod, each
/// with whether it is a direct requirement (the own module counts as one).
fn modules_of(go_mod: &str) -> Vec<(String, bool)> {
    let mut modules = Vec::new();
    let mut in_require = false;
    for line in go_mod.lines() {
        let trimmed = line.trim();
        let direct = !trimmed.contains("// indirect");
        let mut words = trimmed.split_whitespace();
        match words.next() {
            Some("module") => {
                if let Some(name) = words.next() {
                    modules.push((name.trim_matches('"').to_string(), true));
                }
            }
            Some("require") => match words.next() {
                Some("(") => in_require = true,
                Some(name) => modules.push((name.to_string(), direct)),
                None => {}
            },
            Some(")") => in_require = false,
            Some(name) if in_require && !name.starts_with("//") => {
                modules.push((name.to_string(), direct));
            }
            _ => {}
        }
    }
    modules
}

/// The import paths of a Go file (from its import declarations).
fn imports(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_block = false;
    for line in source.lines() {
        let line = line.trim();
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else if let Some(path) = quoted(line) {
                found.push(path);
            }
        } else if let Some(rest) = line.strip_prefix("import") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_block = true;
            } else if let Some(path) = quoted(rest) {
                found.push(path);
            }
        }
    }
    found
}

/// The first double-quoted string of `line`.
fn quoted(line: &str) -> Option<String> {
    let start = line.find('"')? + 1;
    let end = start + line[start..].find('"')?;
    Some(line[start..end].to_string())
}

/// Fails with instructions when Go is not installed.
pub fn require_go(dir: &Path) -> Result<()> {
    if toolchain::installed_go_version()?.is_none() {
        bail!(
            "the files are written, but Go is not installed: install Go {} or newer (https://go.dev/dl), then run `go mod tidy` and `make generate` in {}",
            super::versions().go,
            dir.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_packages_with_types_are_generated() {
        let written: Vec<PathBuf> = [
            "api/crew/v1/captain_types.go",
            "api/crew/v1/groupversion_info.go",
            "api/crew/v2/captain_conversion.go",
            "api/crew/v2/captain_types.go",
            "internal/controller/crew/captain_controller.go",
            "cmd/main.go",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let packages: Vec<PathBuf> = api_packages(&written, Some("v1")).into_iter().collect();
        assert_eq!(packages, vec![PathBuf::from("api/crew/v1")]);
    }

    #[test]
    fn imports_are_read_from_blocks_and_single_lines() {
        let source = "package x\n\nimport \"fmt\"\n\nimport (\n\tcorev1 \"k8s.io/api/core/v1\"\n\t\"sigs.k8s.io/controller-runtime\"\n)\n\nfunc f() {}\n";
        assert_eq!(
            imports(source),
            [
                "fmt",
                "k8s.io/api/core/v1",
                "sigs.k8s.io/controller-runtime"
            ]
        );
    }

    #[test]
    fn tidy_runs_for_go_mod_edits_missing_sums_and_indirect_imports() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("go.mod"),
            "module example.com/x\n\nrequire (\n\tk8s.io/api v0.36.0 // indirect\n\tsigs.k8s.io/controller-runtime v0.23.0\n)\n",
        )
        .unwrap();
        let plain = vec![PathBuf::from("a.go")];
        std::fs::write(
            root.join("a.go"),
            "package x\n\nimport \"sigs.k8s.io/controller-runtime/pkg/client\"\n",
        )
        .unwrap();
        assert!(needs_tidy(root, &plain), "go.sum is missing");
        std::fs::write(root.join("go.sum"), "").unwrap();
        assert!(!needs_tidy(root, &plain));
        assert!(needs_tidy(root, &[PathBuf::from("go.mod")]));
        std::fs::write(
            root.join("a.go"),
            "package x\n\nimport (\n\tcorev1 \"k8s.io/api/core/v1\"\n)\n",
        )
        .unwrap();
        assert!(needs_tidy(root, &plain), "k8s.io/api is only indirect");
        std::fs::write(
            root.join("a.go"),
            "package x\n\nimport (\n\t\"fmt\"\n\t\"example.com/x/api/v1\"\n\t\"github.com/other/mod/pkg\"\n)\n",
        )
        .unwrap();
        assert!(
            needs_tidy(root, &plain),
            "github.com/other/mod is not required"
        );
        std::fs::write(
            root.join("a.go"),
            "package x\n\nimport (\n\t\"fmt\"\n\t\"example.com/x/api/v1\"\n)\n",
        )
        .unwrap();
        assert!(
            !needs_tidy(root, &plain),
            "own packages and the standard library"
        );
    }
}
