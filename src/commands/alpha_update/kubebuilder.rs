//! Running a kubebuilder binary to make the ancestor of `alpha update`
//! (see the sibling module `ancestor` for what it replays).
//!
//! kubebuilder runs with a `PATH` whose `kubebuilder` is the chosen binary
//! (its `alpha generate` calls sub-commands by that name) and whose `make`
//! leaves out `lint-fix` (it downloads golangci-lint from GitHub), and with
//! the tool cache's binaries as the Makefile's `LOCALBIN`, so nothing lands
//! in the ancestor but the scaffold and, once the tools are cached, nothing
//! needs the network.

use super::replays;
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// PROJECT's key of kubebuilder's Grafana plugin.
pub(super) const GRAFANA: &str = "grafana.kubebuilder.io/v1-alpha";
/// The Grafana plugin's file the user edits, kept from the project.
const GRAFANA_CONFIG: &str = "grafana/custom-metrics/config.yaml";
/// The Go license header the project keeps, given to `init`.
const BOILERPLATE: &str = "hack/boilerplate.go.txt";
/// The name of the license header's copy in the run's temporary directory.
const LICENSE_COPY: &str = "boilerplate.go.txt";

/// Puts the binary `cached` in `dir` the way the Makefile installs tool
/// `name` at `version`: as the file `<name>-<version>` (a hard link, or a
/// copy: the Makefile resolves that name before linking to it, so it must
/// not be a link) and `<name>` linking to it.
fn stage_tool(cached: &Path, dir: &Path, name: &str, version: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let versioned = dir.join(format!("{name}-{version}"));
    std::fs::hard_link(cached, &versioned)
        .or_else(|_| std::fs::copy(cached, &versioned).map(drop))?;
    std::os::unix::fs::symlink(&versioned, dir.join(name))
}

/// The Makefile variable holding the controller-gen version it installs.
const CONTROLLER_TOOLS_VERSION: &str = "CONTROLLER_TOOLS_VERSION";

/// The value of `<variable> ?= <value>` in `makefile`.
fn pinned_version(makefile: &str, variable: &str) -> Option<String> {
    makefile.lines().find_map(|line| {
        let (name, value) = line.split_once("?=")?;
        (name.trim() == variable)
            .then(|| value.trim().to_string())
            .filter(|value| !value.is_empty() && !value.contains(['$', '/', ' ']))
    })
}

/// How many of a failed command's last output lines an error quotes.
const QUOTED_LINES: usize = 3;

/// One step of the command sequence kubebuilder replays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum KubebuilderStep {
    /// A kubebuilder command line.
    Run(Vec<String>),
    /// `edit --plugins` Grafana; again after the user's custom-metrics
    /// config is copied in, when it differs from the default one.
    Grafana,
}

/// A kubebuilder binary with the environment it runs in: a temporary
/// directory holding the `kubebuilder` link and the `make` wrapper
/// (first on `PATH`) and the copy of the license header.
pub(super) struct Kubebuilder {
    binary: PathBuf,
    label: String,
    work: tempfile::TempDir,
    path: OsString,
    tools_bin: PathBuf,
    /// The binary's digest, once a replay needed it.
    digest: std::cell::OnceCell<String>,
}

impl Kubebuilder {
    /// Prepares `binary` (kubebuilder `label`, e.g. `v4.16.0`) to run.
    pub(super) fn new(binary: &Path, label: &str) -> Result<Self> {
        let binary = std::path::absolute(binary)?;
        let work = tempfile::tempdir().context("cannot create a temporary directory")?;
        let shim = work.path().join("bin");
        std::fs::create_dir(&shim)?;
        std::os::unix::fs::symlink(&binary, shim.join("kubebuilder"))
            .context("cannot link kubebuilder into a temporary directory")?;
        let user_path = std::env::var_os("PATH").unwrap_or_default();
        if let Some(make) = find_program("make", &user_path) {
            write_make_wrapper(&shim.join("make"), &make)?;
        }
        let mut dirs = vec![shim];
        dirs.extend(std::env::split_paths(&user_path));
        Ok(Self {
            binary,
            label: label.to_string(),
            work,
            path: std::env::join_paths(dirs)?,
            tools_bin: crate::tools::tools_bin()?,
            digest: std::cell::OnceCell::new(),
        })
    }

    /// The temporary directory this run works in.
    pub(super) fn work_dir(&self) -> &Path {
        self.work.path()
    }

    /// `--license-file <copy of the project's header>`, or `--license none`.
    pub(super) fn license_args(&self, input: &Path) -> Result<Vec<String>> {
        let header = input.join(BOILERPLATE);
        if !header.is_file() {
            return Ok(vec!["--license".into(), "none".into()]);
        }
        let copy = self.work.path().join(LICENSE_COPY);
        std::fs::copy(&header, &copy)
            .with_context(|| format!("cannot copy {}", header.display()))?;
        Ok(vec!["--license-file".into(), copy.display().to_string()])
    }

    /// Runs `steps` in `out`, checking first that this kubebuilder has
    /// every flag they use; or writes the same replay kept by an earlier
    /// run (see the sibling module `replays`).
    pub(super) fn replay(&self, steps: &[KubebuilderStep], input: &Path, out: &Path) -> Result<()> {
        let key = self.replay_key(steps, input)?;
        if replays::load(&key, out)? {
            return Ok(());
        }
        self.run_steps(steps, input, out)?;
        replays::store(&key, out);
        Ok(())
    }

    /// What the replay of `steps` depends on besides the binary: each
    /// command line (the license header's copy by its contents), the
    /// Grafana config copied in, the Go toolchain that tidies the modules,
    /// and this build of kubebuilder-rs (which runs the steps).
    fn replay_key(&self, steps: &[KubebuilderStep], input: &Path) -> Result<replays::Key> {
        let binary = match self.digest.get() {
            Some(digest) => digest.clone(),
            None => {
                let digest = replays::file_digest(&self.binary)?;
                self.digest.get_or_init(|| digest).clone()
            }
        };
        let license = self.work.path().join(LICENSE_COPY).display().to_string();
        let mut parts: Vec<String> = steps
            .iter()
            .map(|step| match step {
                KubebuilderStep::Run(args) => args
                    .iter()
                    .map(|arg| {
                        if *arg == license {
                            replays::file_digest(Path::new(arg)).map(|d| format!("license {d}"))
                        } else {
                            Ok(arg.clone())
                        }
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(|args| args.join("\0")),
                KubebuilderStep::Grafana => Ok(format!(
                    "grafana {}",
                    replays::file_digest(&input.join(GRAFANA_CONFIG)).unwrap_or_default()
                )),
            })
            .collect::<Result<_>>()?;
        parts.push(crate::tools::installed_go_version()?.unwrap_or_default());
        parts.push(crate::project::cli_version::SCAFFOLD_DIGEST.to_string());
        Ok(replays::Key::new(&binary, &parts))
    }

    /// Runs `steps` in `out` with this kubebuilder.
    fn run_steps(&self, steps: &[KubebuilderStep], input: &Path, out: &Path) -> Result<()> {
        let mut helps: BTreeMap<String, String> = BTreeMap::new();
        for step in steps {
            match step {
                KubebuilderStep::Run(args) => {
                    let mut args = args.clone();
                    let command = command_name(&args);
                    if !helps.contains_key(&command) {
                        let help = self.help(&args, out)?;
                        helps.insert(command.clone(), help);
                    }
                    let help = &helps[&command];
                    let header = (command == "init")
                        .then(|| adapt_init(&mut args, help))
                        .flatten();
                    self.check_flags(&command, &args, help)?;
                    self.run(&args, out)?;
                    if let Some(header) = header {
                        std::fs::copy(&header, out.join(BOILERPLATE)).with_context(|| {
                            format!("cannot write {BOILERPLATE} in the ancestor")
                        })?;
                    }
                }
                KubebuilderStep::Grafana => self.grafana(input, out)?,
            }
        }
        Ok(())
    }

    /// kubebuilder's own `alpha generate`, for what the replay cannot express.
    pub(super) fn generate(&self, input: &Path, out: &Path) -> Result<()> {
        let args = [
            "alpha".to_string(),
            "generate".into(),
            "--input-dir".into(),
            input.display().to_string(),
            "--output-dir".into(),
            out.display().to_string(),
        ];
        self.run(&args, out)
    }

    /// Adds the Grafana plugin, then, if the project's custom-metrics config
    /// differs from the one it wrote, copies it in and adds the plugin again
    /// so the dashboards follow it.
    fn grafana(&self, input: &Path, out: &Path) -> Result<()> {
        let edit: Vec<String> = ["edit", "--plugins", GRAFANA].map(String::from).into();
        self.run(&edit, out)?;
        let Ok(config) = std::fs::read(input.join(GRAFANA_CONFIG)) else {
            return Ok(());
        };
        let target = out.join(GRAFANA_CONFIG);
        if std::fs::read(&target).ok().as_deref() == Some(config.as_slice()) {
            return Ok(());
        }
        std::fs::write(&target, config)
            .with_context(|| format!("cannot write {}", target.display()))?;
        self.run(&edit, out)
    }

    /// `<command> --help` (run in `out`, so it follows the project's plugins).
    fn help(&self, args: &[String], out: &Path) -> Result<String> {
        let words = if args.first().map(String::as_str) == Some("create") {
            2
        } else {
            1
        };
        let mut help: Vec<String> = args.iter().take(words).cloned().collect();
        help.push("--help".into());
        let output = self.command(&help, out).output().with_context(|| {
            format!(
                "cannot run kubebuilder {} at {}",
                self.label,
                self.binary.display()
            )
        })?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Refuses a command line with a flag this kubebuilder does not have.
    fn check_flags(&self, command: &str, args: &[String], help: &str) -> Result<()> {
        for arg in args.iter().filter(|arg| arg.starts_with("--")) {
            let flag = arg.split('=').next().unwrap_or(arg);
            if !has_flag(help, flag) {
                bail!(
                    "kubebuilder {} has no `{command} {flag}`, which PROJECT needs; pass --from-version with the kubebuilder release that made the project, or --from-binary",
                    self.label
                );
            }
        }
        Ok(())
    }

    /// Runs kubebuilder with `args` in `dir`; fails with the command and the
    /// last lines of its output.
    fn run(&self, args: &[String], dir: &Path) -> Result<()> {
        let output = self.command(args, dir).output().with_context(|| {
            format!(
                "cannot run kubebuilder {} at {}",
                self.label,
                self.binary.display()
            )
        })?;
        if !output.status.success() {
            bail!(
                "kubebuilder {} `{}` failed while making the ancestor: {}",
                self.label,
                args.join(" "),
                last_lines(&output)
            );
        }
        Ok(())
    }

    /// The Makefile's `LOCALBIN` for a command in `dir`: the tool cache, or,
    /// when the project's Makefile pins a controller-gen the cache holds, a
    /// directory of this run linking to it. The Makefile installs a tool
    /// again unless its link names the pinned version, and the cache's link
    /// follows whichever project used it last; a link of our own keeps the
    /// ancestor from needing the network.
    fn localbin(&self, dir: &Path) -> PathBuf {
        let pinned = std::fs::read_to_string(dir.join("Makefile"))
            .ok()
            .and_then(|makefile| pinned_version(&makefile, CONTROLLER_TOOLS_VERSION));
        let Some(version) = pinned else {
            return self.tools_bin.clone();
        };
        let cached = self.tools_bin.join(format!("controller-gen-{version}"));
        let own = self.work.path().join("localbin");
        let linked = cached.is_file()
            && (own.exists() || stage_tool(&cached, &own, "controller-gen", &version).is_ok());
        if linked { own } else { self.tools_bin.clone() }
    }

    /// The kubebuilder command for `args` in `dir`, in its environment.
    fn command(&self, args: &[String], dir: &Path) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .args(args)
            .current_dir(dir)
            .env("PATH", &self.path)
            .env("LOCALBIN", self.localbin(dir))
            .stdin(Stdio::null());
        command
    }
}

/// Fits `init`'s arguments to a kubebuilder whose `init --help` is `help`:
/// skips its Go version check when it can (the ancestor does not depend on
/// the toolchain), and, without `--license-file` (v4.7.0 has none), leaves the
/// header to `init`'s default and returns the user's header, to be written
/// over it before the commands that copy it into their files.
fn adapt_init(args: &mut Vec<String>, help: &str) -> Option<PathBuf> {
    if has_flag(help, "--skip-go-version-check") {
        args.push("--skip-go-version-check".into());
    }
    if has_flag(help, "--license-file") {
        return None;
    }
    let at = args.iter().position(|arg| arg == "--license-file")?;
    let header = args.drain(at..at + 2).nth(1)?;
    Some(PathBuf::from(header))
}

/// `init`, `create api`, `edit`…: the sub-command of a command line.
fn command_name(args: &[String]) -> String {
    let words = if args.first().map(String::as_str) == Some("create") {
        2
    } else {
        1
    };
    args.iter()
        .take(words)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a command's `--help` text lists `flag`.
fn has_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        let after = help[at + flag.len()..].chars().next();
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// The first `name` executable on the search path `path`.
fn find_program(name: &str, path: &OsString) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Writes a `make` that runs `real` without the `lint-fix` target (a run
/// of `lint-fix` alone does nothing).
fn write_make_wrapper(path: &Path, real: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let script = format!(
        "#!/bin/sh\n# make without lint-fix, which downloads golangci-lint.\ndropped=\nfor arg do\n  shift\n  if [ \"$arg\" = lint-fix ]; then dropped=1; continue; fi\n  set -- \"$@\" \"$arg\"\ndone\nif [ -n \"$dropped\" ] && [ $# -eq 0 ]; then exit 0; fi\nexec '{}' \"$@\"\n",
        real.display().to_string().replace('\'', r"'\''")
    );
    std::fs::write(path, script).context("cannot write the make wrapper")?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// What a failed command said, on one line and without terminal colours:
/// its last line that reports an error (kubebuilder prints its usage after
/// the error), else the last lines of its error output (or of its output).
pub(super) fn last_lines(output: &Output) -> String {
    let stderr = strip_colours(&String::from_utf8_lossy(&output.stderr));
    let stdout = strip_colours(&String::from_utf8_lossy(&output.stdout));
    let error = [&stderr, &stdout].into_iter().find_map(|text| {
        text.lines()
            .map(str::trim)
            .rfind(|line| line.starts_with("Error:") || line.starts_with("ERROR"))
    });
    if let Some(line) = error {
        return line.to_string();
    }
    let text = if stderr.trim().is_empty() {
        &stdout
    } else {
        &stderr
    };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let start = lines.len().saturating_sub(QUOTED_LINES);
    match lines[start..].join(" | ") {
        quoted if quoted.is_empty() => format!("exit status {}", output.status),
        quoted => quoted,
    }
}

/// `text` without ANSI escape sequences (`ESC [ … letter`).
fn strip_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_found_whole_in_help_text() {
        let help = "      --controller-name string   name\n      --resource   scaffold\n";
        assert!(has_flag(help, "--controller-name"));
        assert!(has_flag(help, "--resource"));
        assert!(!has_flag(help, "--controller"));
        assert!(!has_flag(help, "--ssa"));
    }

    #[test]
    fn the_make_wrapper_drops_lint_fix() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real-make");
        crate::commands::alpha_update::test_scripts::write_executable(
            &real,
            "#!/bin/sh\necho \"$@\"\n",
        );
        let wrapper = dir.path().join("make");
        write_make_wrapper(&wrapper, &real).unwrap();
        let run = |args: &[&str]| {
            let out = Command::new(&wrapper).args(args).output().unwrap();
            assert!(out.status.success());
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(run(&["fmt", "lint-fix", "vet"]), "fmt vet\n");
        assert_eq!(run(&["lint-fix"]), "");
        assert_eq!(run(&["-C", "x y", "build"]), "-C x y build\n");
    }

    #[test]
    fn pinned_versions_are_read_from_the_makefile() {
        let makefile = "LOCALBIN ?= $(shell pwd)/bin\nCONTROLLER_TOOLS_VERSION ?= v0.22.0\nENVTEST_VERSION ?= $(shell go list)\n";
        assert_eq!(
            pinned_version(makefile, CONTROLLER_TOOLS_VERSION),
            Some("v0.22.0".into())
        );
        assert_eq!(pinned_version(makefile, "ENVTEST_VERSION"), None);
        assert_eq!(pinned_version(makefile, "KUSTOMIZE_VERSION"), None);
    }

    #[test]
    fn the_error_line_is_quoted_rather_than_the_usage_after_it() {
        use std::os::unix::process::ExitStatusExt as _;
        let output = Output {
            status: std::process::ExitStatus::from_raw(256),
            stdout: b"\x1b[31mERROR\x1b[0m CLI run failed error=boom\n".to_vec(),
            stderr: b"Error: boom\nUsage:\n  kubebuilder create webhook [flags]\n\nFlags:\n  -h, --help\n".to_vec(),
        };
        assert_eq!(last_lines(&output), "Error: boom");
        let output = Output {
            stderr: b"a\nb\n".to_vec(),
            stdout: b"\x1b[31mERROR\x1b[0m CLI run failed error=boom\n".to_vec(),
            ..output
        };
        assert_eq!(last_lines(&output), "ERROR CLI run failed error=boom");
    }

    #[test]
    fn colours_are_stripped_from_quoted_output() {
        assert_eq!(
            strip_colours("\u{1b}[31mERROR\u{1b}[0m failed"),
            "ERROR failed"
        );
    }
}
