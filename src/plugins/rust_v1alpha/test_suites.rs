//! Where `create api` and `create webhook` put their integration tests.
//! The controllers' and the webhooks' suites are modules (tests/<suite>/mod.rs)
//! of one test binary, tests/integration.rs, which cargo links once. A
//! project made before that binary keeps each suite it has as a binary of
//! its own (tests/<suite>/main.rs), and the suite's later tests go there.

use crate::machinery::Source;
use std::path::Path;

/// The file that holds the suite `name` (`controllers`, `webhooks`) in the
/// project `files`: `main.rs` for a suite of an older project, else `mod.rs`.
pub fn suite_file(files: Source, name: &str) -> &'static str {
    if files.is_file(Path::new("tests").join(name).join("main.rs")) {
        "main.rs"
    } else {
        "mod.rs"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_projects_suite_stays_a_binary_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let files = Source::Dir(dir.path());
        assert_eq!(suite_file(files, "controllers"), "mod.rs");
        std::fs::create_dir_all(dir.path().join("tests/controllers")).unwrap();
        std::fs::write(dir.path().join("tests/controllers/main.rs"), "").unwrap();
        assert_eq!(suite_file(files, "controllers"), "main.rs");
        assert_eq!(suite_file(files, "webhooks"), "mod.rs");
    }
}
