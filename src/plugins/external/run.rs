//! One call of an external plugin: the request on its standard input, the
//! response read from its standard output, its standard error passed
//! through to ours, all within a bounded time.

use super::protocol::{Request, Response};
use anyhow::{Context as _, Result, bail};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// The environment variable bounding how long a plugin may take per call.
pub const TIMEOUT_VAR: &str = "KUBEBUILDER_RS_PLUGIN_TIMEOUT";

/// How long a plugin may take by default: generous, since a plugin may
/// download modules or run `go mod tidy`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// How long a plugin may take per call: [`TIMEOUT_VAR`] (`90s`, `10m`,
/// `1h`, `500ms`), else [`DEFAULT_TIMEOUT`].
pub fn timeout() -> Result<Duration> {
    match std::env::var(TIMEOUT_VAR) {
        Ok(text) if !text.trim().is_empty() => parse_duration(text.trim()).ok_or_else(|| {
            anyhow::anyhow!(
                "{TIMEOUT_VAR}={text:?} is not a duration: give a number with a unit, e.g. 90s, 10m or 1h"
            )
        }),
        _ => Ok(DEFAULT_TIMEOUT),
    }
}

/// A duration such as `90s`, `10m`, `1h` or `500ms`.
fn parse_duration(text: &str) -> Option<Duration> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let millis = match unit {
        "ms" => number,
        "s" => number.checked_mul(1_000)?,
        "m" => number.checked_mul(60_000)?,
        "h" => number.checked_mul(3_600_000)?,
        _ => return None,
    };
    Some(Duration::from_millis(millis))
}

/// Sends `request` to the plugin `key` at `path`, run in `dir`, and reads
/// its response (see [`Response::parse`]). Refuses a plugin that cannot be
/// started, exits with a failure (naming its last line of standard error)
/// or takes longer than `limit` (it is killed then).
pub fn call(
    key: &str,
    path: &Path,
    dir: &Path,
    request: &Request,
    limit: Duration,
) -> Result<Response> {
    let body = serde_json::to_vec(request).context("cannot encode the plugin request")?;
    let mut child = Command::new(path)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot run the external plugin {key} ({}): {e}",
                path.display()
            )
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    // A plugin that does not read its input must not block the call.
    thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let stderr = pass_through(child.stderr.take().expect("piped"));
    let mut stdout = child.stdout.take().expect("piped");
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        let read = stdout.read_to_end(&mut out).map(|_| out);
        let _ = sender.send(read);
    });
    let Ok(out) = receiver.recv_timeout(limit) else {
        let _ = child.kill();
        let _ = child.wait();
        bail!(
            "the external plugin {key} did not answer within {}s and was stopped; allow it longer with {TIMEOUT_VAR} (e.g. {TIMEOUT_VAR}=30m)",
            limit.as_secs_f64()
        );
    };
    let out =
        out.with_context(|| format!("cannot read the answer of the external plugin {key}"))?;
    let status = child.wait()?;
    let last_error_line = stderr.join().unwrap_or_default();
    if !status.success() {
        let said = last_error_line
            .map(|line| format!(": {line}"))
            .unwrap_or_default();
        bail!("the external plugin {key} failed ({status}){said}");
    }
    Response::parse(key, &out)
}

/// Copies the plugin's standard error to ours as it comes, line by line;
/// the thread returns the last non-blank line.
fn pass_through(from: impl std::io::Read + Send + 'static) -> thread::JoinHandle<Option<String>> {
    thread::spawn(move || {
        let mut last = None;
        let mut ours = std::io::stderr();
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let _ = writeln!(ours, "{line}");
            if !line.trim().is_empty() {
                last = Some(line.trim().to_string());
            }
        }
        last
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_a_unit() {
        assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m"), Some(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        for bad in ["90", "s", "1.5m", "-1s", "10 m", "1d"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}
