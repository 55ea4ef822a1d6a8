//! Places in a Rust file found from its code, for fragments bound for a
//! marker an older project's file lacks (see `crate::machinery::Place`).

use crate::machinery::{Place, lines};

/// A place in a Rust source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RustPlace {
    /// Above the `#[cfg(test)]` line that opens the file's `mod tests`.
    AboveTestsModule,
}

/// The places `fragments.toml` of this layout may name.
pub static PLACES: &[&dyn Place] = &[&RustPlace::AboveTestsModule];

impl Place for RustPlace {
    fn name(&self) -> &'static str {
        "above-tests-module"
    }

    fn describe(&self) -> &'static str {
        "a `#[cfg(test)]` line followed by `mod tests {`"
    }

    fn insert(&self, text: &mut String, fragment: &str) -> bool {
        let Some(at) = tests_module_start(text) else {
            return false;
        };
        text.insert_str(at, fragment);
        true
    }
}

/// Where the `#[cfg(test)]` line above a top-level `mod tests {` starts.
fn tests_module_start(text: &str) -> Option<usize> {
    let top_level = |line: &str, expected: &str| line.trim_end() == expected;
    let lines: Vec<(usize, &str)> = lines::with_starts(text).collect();
    lines.windows(2).find_map(|pair| {
        let [(start, attribute), (_, module)] = pair else {
            return None;
        };
        (top_level(attribute, "#[cfg(test)]") && top_level(module, "mod tests {")).then_some(*start)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fragment_goes_above_the_tests_module_only() {
        let mut text = "fn a() {}\n\n#[cfg(test)]\nmod tests {\n}\n".to_string();
        assert!(RustPlace::AboveTestsModule.insert(&mut text, "fn b() {}\n\n"));
        assert_eq!(
            text,
            "fn a() {}\n\nfn b() {}\n\n#[cfg(test)]\nmod tests {\n}\n"
        );
        let mut none = "fn a() {}\n    #[cfg(test)]\n    mod tests {\n".to_string();
        let before = none.clone();
        assert!(!RustPlace::AboveTestsModule.insert(&mut none, "fn b() {}\n"));
        assert_eq!(none, before);
    }
}
