//! The architecture of the source tree, checked by reading `src/`:
//!
//! 1. Plugins are independent: a file of one plugin folder
//!    (`src/plugins/<x>/`) names no other plugin's module, and the shared
//!    layers (`cli`, `commands`, `ops`, `machinery`, `project`, `resource`, `tools`)
//!    name no plugin module at all; only the registry of `src/plugins/`
//!    (`mod.rs`, `chain.rs`, `flags.rs`) knows every plugin.
//! 2. The machinery names no language: no Go or Rust file name, package,
//!    tool or API, in code, comments or test fixtures (see [`LANGUAGE`]).
//! 3. Layering: the top-level modules, and the machinery's own modules,
//!    depend on each other without a cycle; the machinery uses none of the
//!    modules above it, `resource` does not use `project` (the PROJECT file
//!    builds on the resource model), plugins use neither `commands` nor
//!    `ops`, and `ops` does not use `commands` (the commands are adapters
//!    over the operations).
//!
//! Module paths are read from the code with comments taken off: `crate::…`
//! and `super::…` paths (with `{…}` groups), and paths that start with
//! `plugins::` after a `use crate::plugins`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// What the machinery must not name, each matched as a whole word where it
/// starts or ends with a letter or digit (`Go` matches in "Go code", not in
/// "Good"; `.rs` not in ".rsync"). File names: `.go`, `.rs`, `go.mod`,
/// `go.sum`, `Cargo.toml`, `Cargo.lock`; packages and crates:
/// `controller-runtime`, `sigs.k8s.io`, `k8s.io/`, `ginkgo`, `gomega`,
/// `kube-rs`, `kube::`, `kube_runtime`, `k8s_openapi`, `k8s-openapi`;
/// APIs of the scaffolded code: `Describe(`, `BeforeEach`, `NewWebhookManagedBy`,
/// `ctrl.`, `package main`, `func main`, `fn main`; toolchains: `golang`,
/// `gofmt`, `goimports`, `go build`, `go mod`, `go test`, `go vet`,
/// `go run`, `cargo`, `rustc`, `rustfmt`, `rustup`; the languages: `Go`,
/// `Rust`.
const LANGUAGE: &[&str] = &[
    ".go",
    ".rs",
    "go.mod",
    "go.sum",
    "Cargo.toml",
    "Cargo.lock",
    "controller-runtime",
    "sigs.k8s.io",
    "k8s.io/",
    "ginkgo",
    "gomega",
    "kube-rs",
    "kube::",
    "kube_runtime",
    "k8s_openapi",
    "k8s-openapi",
    "Describe(",
    "BeforeEach",
    "NewWebhookManagedBy",
    "ctrl.",
    "package main",
    "func main",
    "fn main",
    "golang",
    "gofmt",
    "goimports",
    "go build",
    "go mod",
    "go test",
    "go vet",
    "go run",
    "cargo",
    "rustc",
    "rustfmt",
    "rustup",
    "Go",
    "Rust",
];

/// The files of `src/plugins/` that register every plugin.
const REGISTRY: &[&str] = &["plugins/mod.rs", "plugins/chain.rs", "plugins/flags.rs"];

/// The folders of `src/plugins/` that are no plugin but the plugin system
/// itself: `external/` runs any external plugin over kubebuilder's protocol,
/// so the CLI and the commands may use it (it names no plugin either).
const PLUGIN_SYSTEM: &[&str] = &["external"];

/// The top-level modules the machinery must not use.
const ABOVE_MACHINERY: &[&str] = &["cli", "commands", "ops", "plugins", "project", "resource"];

/// `src/`, and every `.rs` file below it as `(path relative to src, text)`.
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let relative = path.strip_prefix(&root).unwrap();
            (relative.to_string_lossy().replace('\\', "/"), text)
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file relative to `src/` (`machinery/merge/mod.rs`
/// is `machinery::merge`; `lib.rs` is the crate root).
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// `text` without its comments (`//` to the end of the line, `/* … */`),
/// string literals kept as they are.
fn code_of(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let skip = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |end| end + 2)
        } else {
            let literal = literal_len(rest);
            code.push_str(&rest[..literal.unwrap_or(c.len_utf8())]);
            literal.unwrap_or(c.len_utf8())
        };
        rest = &rest[skip..];
    }
    code
}

/// The length of the string or quote-character literal `text` starts with.
fn literal_len(text: &str) -> Option<usize> {
    if text.starts_with("'\"'") || text.starts_with("'\\\"'") {
        return Some(if text.starts_with("'\"'") { 3 } else { 4 });
    }
    if let Some(raw) = text.strip_prefix("r#\"") {
        return Some(raw.find("\"#").map_or(text.len(), |end| end + 5));
    }
    let body = text.strip_prefix('"')?;
    let mut escaped = false;
    for (at, c) in body.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(at + 2),
            _ => escaped = false,
        }
    }
    Some(text.len())
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    &text[..end]
}

/// The first names of the items of the `{…}` group `text` starts with.
fn group_heads(text: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for (at, c) in text.char_indices() {
        match c {
            '{' => {
                depth += 1;
                item_start = depth == 1;
                continue;
            }
            '}' if depth == 1 => break,
            '}' => depth -= 1,
            ',' if depth == 1 => {
                item_start = true;
                continue;
            }
            _ => {}
        }
        if item_start && depth == 1 && !c.is_whitespace() {
            heads.push(ident(&text[at..]).to_string());
            item_start = false;
        }
    }
    heads
}

/// Every absolute module path (up to its first segment after what was
/// written, groups expanded) that the code of the file with module path
/// `module` names through `crate::`, `super::` or a leading `plugins::`.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "plugins::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == ':') {
                continue;
            }
            let (mut base, mut rest) = match start {
                "crate::" => (Vec::new(), &code[at + 7..]),
                "plugins::" => (vec!["plugins".to_string()], &code[at + 9..]),
                _ => {
                    let mut base = module.to_vec();
                    let mut rest = &code[at..];
                    while let Some(after) = rest.strip_prefix("super::") {
                        base.pop();
                        rest = after;
                    }
                    (base, rest)
                }
            };
            loop {
                if rest.starts_with('{') {
                    for head in group_heads(rest) {
                        let mut path = base.clone();
                        path.push(head);
                        paths.push(path);
                    }
                    break;
                }
                let name = ident(rest);
                if name.is_empty() {
                    break;
                }
                base.push(name.to_string());
                // Two segments name a module inside a top-level module.
                match rest[name.len()..].strip_prefix("::") {
                    Some(after) if base.len() < 2 => rest = after,
                    _ => {
                        paths.push(base);
                        break;
                    }
                }
            }
        }
    }
    paths
}

/// The plugin folders under `src/plugins/`.
fn plugin_folders(files: &[(String, String)]) -> BTreeSet<String> {
    files
        .iter()
        .filter_map(|(file, _)| {
            let rest = file.strip_prefix("plugins/")?;
            let (folder, _) = rest.split_once('/')?;
            (!PLUGIN_SYSTEM.contains(&folder)).then(|| folder.to_string())
        })
        .collect()
}

/// The plugin modules that the file `file` names but may not: another
/// plugin's, from a plugin folder; any, from outside `src/plugins/`.
fn foreign_plugins(file: &str, code: &str, plugins: &BTreeSet<String>) -> BTreeSet<String> {
    if REGISTRY.contains(&file) {
        return BTreeSet::new();
    }
    let module = module_of(file);
    let own = match module.as_slice() {
        [top, folder, ..] if top == "plugins" => Some(folder.clone()),
        _ => None,
    };
    named_paths(code, &module)
        .into_iter()
        .filter_map(|path| match path.as_slice() {
            [top, named, ..] if top == "plugins" && plugins.contains(named) => Some(named.clone()),
            _ => None,
        })
        .filter(|named| Some(named) != own.as_ref())
        .collect()
}

/// The words of [`LANGUAGE`] that `text` holds.
fn language_names(text: &str) -> Vec<&'static str> {
    LANGUAGE
        .iter()
        .copied()
        .filter(|word| {
            text.match_indices(word).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + word.len()..].chars().next();
                let starts_word = word.starts_with(is_ident);
                let ends_word = word.ends_with(is_ident);
                let joined_before = starts_word && before.is_some_and(is_ident);
                let joined_after = ends_word && after.is_some_and(is_ident);
                !joined_before && !joined_after
            })
        })
        .collect()
}

/// The dependencies between the modules directly under `root` (a module
/// path, empty for the crate): for each, the others its files name. A
/// name that `root`'s own file re-exports counts for the module it comes from.
fn module_graph(files: &[(String, String)], root: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let children: BTreeSet<String> = files
        .iter()
        .filter_map(|(file, _)| {
            let module = module_of(file);
            (module.len() > root.len() && module.starts_with(root))
                .then(|| module[root.len()].clone())
        })
        .collect();
    let reexports = files
        .iter()
        .find(|(file, _)| module_of(file) == root && !file.ends_with("main.rs"))
        .map(|(_, text)| reexported(&code_of(text), &children))
        .unwrap_or_default();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in files {
        let module = module_of(file);
        if module.len() <= root.len() || !module.starts_with(root) {
            continue;
        }
        let own = &module[root.len()];
        for path in named_paths(&code_of(product_code(text)), &module) {
            if path.len() <= root.len() || !path.starts_with(root) {
                continue;
            }
            let name = &path[root.len()];
            let target = if children.contains(name) {
                Some(name.clone())
            } else {
                reexports.get(name).cloned()
            };
            if let Some(target) = target.filter(|t| t != own) {
                graph.entry(own.clone()).or_default().insert(target);
            }
        }
        graph.entry(own.clone()).or_default();
    }
    graph
}

/// `text` up to its unit tests (a `#[cfg(test)]` line followed by `mod
/// tests`), which may drive the commands from a plugin's test: the layering
/// is that of the product.
fn product_code(text: &str) -> &str {
    let end = text
        .match_indices("#[cfg(test)]\nmod tests")
        .map(|(at, _)| at)
        .next()
        .unwrap_or(text.len());
    &text[..end]
}

/// The names a module file re-exports (`pub use child::{A, B}`), by the
/// child module they come from.
fn reexported(code: &str, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let child = ident(path);
        if !children.contains(child) {
            continue;
        }
        let rest = &path[child.len()..].trim_start_matches("::");
        let items = if rest.starts_with('{') {
            rest.trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .map(|item| item.trim().rsplit("::").next().unwrap_or("").to_string())
                .collect()
        } else {
            vec![rest.rsplit("::").next().unwrap_or("").to_string()]
        };
        for item in items.into_iter().filter(|i| !i.is_empty()) {
            names.insert(item, child.to_string());
        }
    }
    names
}

/// A cycle of `graph`, as the modules along it, if it has one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// What is wrong with the layering of the top-level modules.
fn layering_errors(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut errors = Vec::new();
    let uses = |from: &str, to: &str| graph.get(from).is_some_and(|deps| deps.contains(to));
    for above in ABOVE_MACHINERY {
        if uses("machinery", above) {
            errors.push(format!("machinery uses {above}"));
        }
    }
    if uses("resource", "project") {
        errors.push("resource uses project (project builds on resource)".into());
    }
    for (from, to) in [
        ("plugins", "commands"),
        ("plugins", "ops"),
        ("ops", "commands"),
    ] {
        if uses(from, to) {
            errors.push(format!("{from} use {to}"));
        }
    }
    if let Some(cycle) = cycle(graph) {
        errors.push(format!("a cycle: {}", cycle.join(" -> ")));
    }
    errors
}

#[test]
fn plugin_folders_use_no_other_plugins_internals() {
    let files = sources();
    let plugins = plugin_folders(&files);
    assert!(plugins.len() >= 7, "plugin folders: {plugins:?}");
    let mut found = BTreeSet::new();
    for (file, text) in &files {
        for named in foreign_plugins(file, &code_of(text), &plugins) {
            found.insert((file.clone(), named));
        }
    }
    assert!(
        found.is_empty(),
        "files naming another plugin's module (go through a shared interface instead): {found:?}"
    );
}

#[test]
fn the_machinery_names_no_language() {
    let found: Vec<(String, Vec<&str>)> = sources()
        .into_iter()
        .filter(|(file, _)| file.starts_with("machinery/"))
        .map(|(file, text)| (file, language_names(&text)))
        .filter(|(_, names)| !names.is_empty())
        .collect();
    assert!(
        found.is_empty(),
        "the machinery names a language; move it into the plugin or describe it generically: {found:?}"
    );
}

#[test]
fn top_level_modules_are_layered_without_cycles() {
    let files = sources();
    let graph = module_graph(&files, &[]);
    assert!(graph.contains_key("machinery") && graph.contains_key("plugins"));
    let errors = layering_errors(&graph);
    assert!(errors.is_empty(), "{errors:?} in {graph:?}");
}

#[test]
fn the_machinery_modules_form_no_cycle() {
    let files = sources();
    let graph = module_graph(&files, &["machinery".to_string()]);
    assert!(graph.contains_key("plan") && graph.contains_key("merge"));
    assert_eq!(cycle(&graph), None, "{graph:?}");
}

// The matchers, on synthetic text.

#[test]
fn the_plugin_matcher_flags_another_plugins_module() {
    let plugins: BTreeSet<String> = ["go_v4", "helm_v2alpha", "kustomize_v2"]
        .map(String::from)
        .into();
    let flagged = |file: &str, text: &str| foreign_plugins(file, &code_of(text), &plugins);
    let one = |name: &str| BTreeSet::from([name.to_string()]);
    assert_eq!(
        flagged("plugins/helm_v2alpha/mod.rs", "use super::go_v4::KEY;"),
        one("go_v4")
    );
    assert_eq!(
        flagged(
            "plugins/helm_v2alpha/x.rs",
            "super::super::kustomize_v2::f()"
        ),
        one("kustomize_v2")
    );
    assert_eq!(
        flagged(
            "plugins/helm_v2alpha/x.rs",
            "use crate::plugins::{Plugin, go_v4};"
        ),
        one("go_v4")
    );
    assert_eq!(
        flagged("plugins/helm_v2alpha/x.rs", "let k = plugins::go_v4::KEY;"),
        one("go_v4")
    );
    assert_eq!(
        flagged("commands/version.rs", "crate::plugins::go_v4::versions()"),
        one("go_v4")
    );
    // Its own modules, the shared items and the registry are fine.
    assert!(
        flagged(
            "plugins/go_v4/x.rs",
            "use super::super::go_v4::f; use super::ssa;"
        )
        .is_empty()
    );
    assert!(flagged("plugins/go_v4/x.rs", "use crate::plugins::{Plugin, chain};").is_empty());
    assert!(flagged("plugins/mod.rs", "&go_v4::GoBase, &helm_v2alpha::Helm").is_empty());
    assert!(flagged("plugins/go_v4/x.rs", "// see super::super::helm_v2alpha").is_empty());
}

#[test]
fn the_language_matcher_flags_whole_words_only() {
    assert_eq!(language_names("read the go.mod file"), ["go.mod"]);
    assert_eq!(language_names("/// edits `main.go` files"), [".go"]);
    assert_eq!(language_names("found from its Go code"), ["Go"]);
    assert_eq!(language_names("run `cargo build`"), ["cargo"]);
    assert_eq!(language_names("a Describe(\"x\") block"), ["Describe("]);
    assert!(language_names("Good rusty google .gopher x.rsync $CARGO_HOME").is_empty());
}

#[test]
fn the_layering_check_flags_cycles_and_upward_uses() {
    let files: Vec<(String, String)> = [
        ("machinery/mod.rs", "pub mod plan;\npub use plan::Plan;"),
        ("machinery/plan.rs", "use crate::project::File;"),
        ("project/mod.rs", "use crate::{resource, machinery::Plan};"),
        ("resource/mod.rs", "use super::project::File;"),
        ("plugins/go/mod.rs", "use crate::commands::run;"),
        ("plugins/go/x.rs", "use crate::ops::init;"),
        ("commands/mod.rs", "use crate::plugins;"),
        ("ops/mod.rs", "use crate::commands::project_chain;"),
    ]
    .map(|(file, text)| (file.to_string(), text.to_string()))
    .into();
    let graph = module_graph(&files, &[]);
    let errors = layering_errors(&graph).join("; ");
    for expected in [
        "machinery uses project",
        "resource uses project",
        "plugins use commands",
        "plugins use ops",
        "ops use commands",
        "a cycle",
    ] {
        assert!(errors.contains(expected), "{expected}: {errors}");
    }
    let inner = module_graph(
        &[
            ("machinery/mod.rs", "mod a;\nmod b;\npub use b::Thing;"),
            ("machinery/a.rs", "use super::Thing;"),
            (
                "machinery/b.rs",
                "// super::a\nuse crate::machinery::{lines, a::X};",
            ),
        ]
        .map(|(file, text)| (file.to_string(), text.to_string())),
        &["machinery".to_string()],
    );
    assert_eq!(
        cycle(&inner),
        Some(["a", "b", "a"].map(String::from).to_vec()),
        "{inner:?}"
    );
}
