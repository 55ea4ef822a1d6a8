//! Executable scripts for the unit tests, written so that they can be run
//! at once while other tests start processes.
//!
//! A file this process writes is open for writing while it writes it; a
//! process another test thread starts in that moment inherits that
//! descriptor until it executes its own program, and running the script
//! meanwhile fails with "Text file busy". Written by a `sh` of its own, the
//! script is never open in this process.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `text` to `path` as an executable (mode 755) script.
pub fn write_executable(path: &Path, text: &str) {
    let mut sh = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("run sh");
    sh.stdin
        .take()
        .expect("sh's stdin")
        .write_all(text.as_bytes())
        .expect("write the script");
    let status = sh.wait().expect("wait for sh");
    assert!(status.success(), "writing {} failed", path.display());
}
