//! Go insertions whose order does not matter, for `alpha update`'s merge:
//! import specs inside an `import ( … )` block (gofmt sorts them), and the
//! registrations `cmd/main.go` makes with the manager (`if err := …
//! WithManager(mgr); err != nil { … }` statements, each standing alone). An
//! import is named by its path, a registration by its text, so the same
//! import or registration added by both sides stays a conflict.

use crate::machinery::merge::{OrderFree, Point};
use std::path::Path;

/// go/v4's order-free rule of `.go` files.
pub struct GoImportsAndRegistrations;

impl OrderFree for GoImportsAndRegistrations {
    fn handles(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "go")
    }

    fn units(&self, point: &Point, inserted: &[&str]) -> Option<Vec<String>> {
        if in_import_block(point.before) {
            import_paths(inserted)
        } else {
            registrations(point, inserted)
        }
    }
}

/// Whether the point after `before` is inside an `import ( … )` block.
fn in_import_block(before: &[&str]) -> bool {
    before
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| *l == ")" || l.starts_with("import (") || l.starts_with("func "))
        .is_some_and(|l| l.starts_with("import ("))
}

/// The paths of import specs (`"path"`, `name "path"`), comments and blank
/// lines between them; `None` when another line is there.
fn import_paths(lines: &[&str]) -> Option<Vec<String>> {
    let mut paths = Vec::new();
    for line in lines.iter().map(|l| l.trim()) {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let spec = line.split(" //").next().unwrap_or(line).trim();
        let quoted = match spec.split_once(' ') {
            Some((name, path)) if is_import_name(name) => path.trim(),
            Some(_) => return None,
            None => spec,
        };
        let path = quoted.strip_prefix('"')?.strip_suffix('"')?;
        if path.is_empty() || path.contains('"') {
            return None;
        }
        paths.push(path.to_owned());
    }
    Some(paths)
}

/// Whether `name` can name an import (`_`, `.` or an identifier).
fn is_import_name(name: &str) -> bool {
    name == "_" || name == "." || name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The registrations `lines` hold, each a whole `if` statement at the
/// indentation of the code around the point that sets something up with the
/// manager (`…WithManager(mgr)`); comments and blank lines between them.
fn registrations(point: &Point, lines: &[&str]) -> Option<Vec<String>> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let at = point
        .line_after()
        .or_else(|| point.line_before())
        .map(indent)?;
    let mut statements: Vec<String> = Vec::new();
    let mut depth = 0i32;
    for line in lines {
        let text = line.trim();
        if depth == 0 {
            if text.is_empty() || text.starts_with("//") {
                continue;
            }
            if indent(line) != at || !text.starts_with("if ") {
                return None;
            }
            statements.push(String::new());
        }
        depth += brackets(text);
        if depth < 0 {
            return None;
        }
        statements.last_mut()?.push_str(text);
    }
    let whole = depth == 0 && statements.iter().all(|s| s.contains("WithManager(mgr)"));
    whole.then_some(statements)
}

/// The opening minus the closing brackets of a line of code, outside its
/// string and rune literals and its `//` comment.
fn brackets(code: &str) -> i32 {
    let mut balance = 0;
    let mut quote: Option<char> = None;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(_), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '`' | '\'') => quote = Some(c),
            (None, '/') if chars.peek() == Some(&'/') => break,
            (None, '(' | '{' | '[') => balance += 1,
            (None, ')' | '}' | ']') => balance -= 1,
            _ => {}
        }
    }
    balance
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: &str = "package main

import (
\t\"flag\"
\t\"os\"

\tctrl \"sigs.k8s.io/controller-runtime\"
\t// +kubebuilder:scaffold:imports
)

func main() {
\tflag.Parse()
\tif err := (&controller.CaptainReconciler{
\t\tClient: mgr.GetClient(),
\t}).SetupWithManager(mgr); err != nil {
\t\tsetupLog.Error(err, \"unable to create controller\", \"controller\", \"Captain\")
\t\tos.Exit(1)
\t}
\t// +kubebuilder:scaffold:builder
}
";

    fn units(after: &str, inserted: &str) -> Option<Vec<String>> {
        let lines: Vec<&str> = MAIN.split_inclusive('\n').collect();
        let at = lines.iter().position(|l| *l == after).unwrap();
        let point = Point {
            before: &lines[..at],
            after: &lines[at..],
        };
        let inserted: Vec<&str> = inserted.split_inclusive('\n').collect();
        GoImportsAndRegistrations.units(&point, &inserted)
    }

    #[test]
    fn import_specs_in_an_import_block_are_named_by_path() {
        let ctrl = "\tctrl \"sigs.k8s.io/controller-runtime\"\n";
        assert_eq!(
            units(ctrl, "\t\"time\"\n\t// profiling\n\t_ \"net/http/pprof\"\n"),
            Some(vec!["time".to_owned(), "net/http/pprof".to_owned()])
        );
        assert_eq!(
            units(
                "\t// +kubebuilder:scaffold:imports\n",
                "\tfleet \"example.com/fleet/internal/fleet\" // ours\n"
            ),
            Some(vec!["example.com/fleet/internal/fleet".to_owned()])
        );
        assert_eq!(units(ctrl, "\tvar x = 1\n"), None);
        assert_eq!(units(ctrl, "\ta b \"c\"\n"), None);
    }

    #[test]
    fn whole_registrations_with_the_manager_are_units() {
        let webhook = "\tif err := webhookv1.SetupCaptainWebhookWithManager(mgr); err != nil {
\t\tsetupLog.Error(err, \"unable to create webhook\", \"webhook\", \"Captain\")
\t\tos.Exit(1)
\t}
";
        let at = "\t// +kubebuilder:scaffold:builder\n";
        assert_eq!(units(at, webhook).map(|u| u.len()), Some(1));
        assert_eq!(
            units(at, &format!("{webhook}\n{webhook}")).map(|u| u.len()),
            Some(2)
        );
        assert_eq!(
            units(at, "\tsetupLog.Info(\"x\")\n"),
            None,
            "not a registration"
        );
        assert_eq!(units(at, &webhook[..webhook.len() - 4]), None, "not whole");
        assert_eq!(
            units(at, "\tif err := run(); err != nil {\n\t\tos.Exit(1)\n\t}\n"),
            None,
            "not with the manager"
        );
        let nested: String = webhook.lines().map(|l| format!("\t{l}\n")).collect();
        assert_eq!(units(at, &nested), None, "nested");
    }

    #[test]
    fn brackets_outside_literals_and_comments() {
        assert_eq!(brackets("if f(\"(\", '{') { // ]"), 1);
        assert_eq!(brackets("}).Setup(`)`); err != nil {"), -1);
    }

    #[test]
    fn imports_added_by_both_merge_the_scaffolds_first() {
        use crate::machinery::merge::{MergeOptions, Outcome, merge_trees};
        use crate::machinery::tree::{Entry, Tree};
        let tree =
            |text: &str| -> Tree { [("cmd/main.go".into(), Entry::file(text.as_bytes()))].into() };
        let with = |line: &str| MAIN.replace("\t\"os\"\n", &format!("\t\"os\"\n{line}"));
        let options = MergeOptions {
            order_free: vec![&GoImportsAndRegistrations],
            ..MergeOptions::default()
        };
        let ours = with("\t\"time\"\n");
        let result = merge_trees(
            &tree(MAIN),
            &tree(&ours),
            &tree(&with("\t\"slices\"\n")),
            &options,
        );
        let path = std::path::Path::new("cmd/main.go");
        assert_eq!(result.files[path].outcome, Outcome::Merged);
        assert_eq!(
            result.tree[path].bytes,
            with("\t\"slices\"\n\t\"time\"\n").into_bytes()
        );
        let result = merge_trees(
            &tree(MAIN),
            &tree(&ours),
            &tree(&ours.replace("\"time\"", "t \"time\"")),
            &options,
        );
        assert_eq!(
            result.files[path].outcome,
            Outcome::Conflict,
            "one path twice"
        );
    }
}
