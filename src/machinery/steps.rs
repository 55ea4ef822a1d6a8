//! Running toolchain commands after files are written (code generation,
//! formatting, `make` targets): a spinner per command on a terminal, one
//! line otherwise, and the command's output in the error when it fails.

use anyhow::{Context as _, Result, bail};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// One command to run.
pub struct Step {
    /// What the progress line shows.
    pub name: String,
    program: PathBuf,
    args: Vec<String>,
}

impl Step {
    pub fn new(program: impl Into<PathBuf>, args: &[&str]) -> Self {
        let program = program.into();
        let shown = program
            .file_name()
            .map_or_else(|| program.clone().into(), |n| n.to_os_string());
        Self {
            name: format!("{} {}", shown.to_string_lossy(), args.join(" ")),
            program,
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// Shows the steps running and captures their output.
pub struct Progress {
    bars: Option<MultiProgress>,
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress {
    pub fn new() -> Self {
        let bars = std::io::stderr().is_terminal().then(MultiProgress::new);
        Self { bars }
    }

    /// Runs `step` in `dir` with a spinner (or one line when stderr is not a
    /// terminal); on failure, the error holds the step's captured output.
    pub fn run(&self, dir: &Path, step: &Step) -> Result<()> {
        let bar = match &self.bars {
            Some(bars) => {
                let bar = bars.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_message(step.name.clone());
                bar.enable_steady_tick(Duration::from_millis(100));
                Some(bar)
            }
            None => {
                eprintln!("Running {}", step.name);
                None
            }
        };
        let output = Command::new(&step.program)
            .args(&step.args)
            .current_dir(dir)
            .output();
        let output = match output {
            Ok(output) => output,
            Err(e) => {
                if let Some(bar) = &bar {
                    bar.abandon_with_message(format!("{} (cannot start)", step.name));
                }
                return Err(e).with_context(|| format!("cannot run `{}`", step.name));
            }
        };
        if let Some(bar) = &bar {
            if output.status.success() {
                bar.finish_with_message(format!("{} done", step.name));
            } else {
                bar.abandon_with_message(format!("{} failed", step.name));
            }
        }
        if !output.status.success() {
            bail!(
                "`{}` failed in {} ({}):\n{}{}",
                step.name,
                dir.display(),
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(())
    }
}
