//! Managers as projects made before `--webhook-port` have them (kubebuilder
//! v4.15, kubebuilder-rs before it followed v4.16): today's scaffold with
//! the flag taken out, for the tests that continue such projects.

use std::path::Path;

/// Takes `--webhook-port` out of the go/v4 manager in `dir`: its variable,
/// its `flag.IntVar` call and the webhook server option that reads it.
pub fn go_without_webhook_port(dir: &Path) {
    let path = dir.join("cmd/main.go");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut kept = Vec::new();
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let code = line.trim();
        if code.starts_with("flag.IntVar(&webhookPort,") {
            // The call may go on over several lines, up to its closing `)`.
            let mut end = line;
            while !end.trim_end().ends_with(')') {
                end = lines.next().expect("the flag.IntVar call ends");
            }
        } else if !code.starts_with("webhookPort ") && !code.starts_with("Port:") {
            kept.push(line.replace("Port: webhookPort, ", ""));
        }
    }
    let old = kept.concat();
    assert_removed(&path, &old, &["webhookPort", "\"webhook-port\""]);
    std::fs::write(&path, old).unwrap();
}

/// Takes `--webhook-port` out of the rust/v1-alpha manager in `dir`: the
/// field of `Flags` (with its doc comment and attribute), the unit test of
/// the flag, and the argument in the test of config/'s arguments. The file's
/// items are its blocks between blank lines; a dropped block keeps its
/// closing lines that are less indented than its first (a module's `}`).
pub fn rust_without_webhook_port(dir: &Path) {
    let path = dir.join("src/manager/flags.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut kept: Vec<String> = Vec::new();
    for block in text.split("\n\n") {
        let block: String = block
            .split_inclusive('\n')
            .filter(|line| !line.contains("\"--webhook-port="))
            .collect();
        if !block.contains("webhook_port") {
            kept.push(block);
            continue;
        }
        let lines: Vec<&str> = block.split('\n').collect();
        let indent = |line: &str| line.len() - line.trim_start().len();
        let outer = lines
            .iter()
            .rposition(|line| indent(line) >= indent(lines[0]))
            .map_or(lines.len(), |last| last + 1);
        let closing = lines[outer..].join("\n");
        if !closing.trim().is_empty() {
            let previous = kept.last_mut().expect("a block before the dropped one");
            previous.push('\n');
            previous.push_str(&closing);
        }
    }
    let old = kept.join("\n\n");
    assert_removed(&path, &old, &["webhook_port", "webhook-port"]);
    std::fs::write(&path, old).unwrap();
}

/// Panics unless `text` (the new content of `path`) is free of `names`.
fn assert_removed(path: &Path, text: &str, names: &[&str]) {
    for name in names {
        assert!(
            !text.contains(name),
            "{name} is left in {}:\n{text}",
            path.display()
        );
    }
}

/// Takes the module `name` (`tls` or `http_server`) out of the
/// rust/v1-alpha manager in `dir`, as a manager made before the module
/// existed lacks it: its file and its `pub mod` line.
pub fn rust_without_manager_module(dir: &Path, name: &str) {
    std::fs::remove_file(dir.join(format!("src/manager/{name}.rs"))).unwrap();
    let path = dir.join("src/manager/mod.rs");
    let old = without_line(&path, &format!("pub mod {name};"));
    assert_removed(&path, &old, &[&format!("mod {name};")]);
    std::fs::write(&path, old).unwrap();
}

/// The text of the file at `path` without its lines that read `line`
/// (leading and trailing blanks aside).
fn without_line(path: &Path, line: &str) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .split_inclusive('\n')
        .filter(|kept| kept.trim() != line)
        .collect()
}

/// Turns the integration suite `suite` (`controllers`, `webhooks`) of the
/// rust/v1-alpha project in `dir` into a test binary of its own, as in a
/// project made before tests/integration.rs: tests/<suite>/main.rs, which
/// loads the shared support by path, and no `mod <suite>;` in
/// tests/integration.rs (gone once it holds no suite).
pub fn rust_with_suite_binary(dir: &Path, suite: &str) {
    let module = dir.join(format!("tests/{suite}/mod.rs"));
    let text = std::fs::read_to_string(&module).unwrap();
    let own = text.replace(
        "use crate::support;\n",
        "#[path = \"../support/mod.rs\"]\nmod support;\n",
    );
    assert_ne!(own, text, "no shared support in {}", module.display());
    std::fs::remove_file(&module).unwrap();
    std::fs::write(dir.join(format!("tests/{suite}/main.rs")), own).unwrap();

    let binary = dir.join("tests/integration.rs");
    let declaration = format!("mod {suite};");
    let rest = without_line(&binary, &declaration);
    assert_removed(&binary, &rest, &[&declaration]);
    if rest
        .lines()
        .any(|line| line.starts_with("mod ") && line != "mod support;")
    {
        std::fs::write(&binary, rest).unwrap();
    } else {
        std::fs::remove_file(&binary).unwrap();
    }
}
