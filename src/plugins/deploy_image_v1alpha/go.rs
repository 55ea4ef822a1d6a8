//! deploy-image/v1-alpha in a go/v4 project: the Go API type, the
//! controller on controller-runtime and its envtest specs, rendered with
//! go/v4's `create api` variables.

use super::OperandView;
use super::options::Operand;
use crate::machinery::Context;
use serde::Serialize;

/// The operand as the Go templates see it (`operand.*`): the shared view
/// and the Go variable of an object of the kind.
#[derive(Debug, Serialize)]
struct GoOperandView {
    /// The Go name of one object of the kind, also the prefix of the
    /// controller's package-level names (`memcached`, `firstMate`).
    var: String,
    #[serde(flatten)]
    operand: OperandView,
}

/// The variables of the Go templates: the layout's `create api` variables
/// `context` with the operand of a `kind`.
pub fn with_operand(mut context: Context, kind: &str, operand: &Operand) -> Context {
    context.insert("operand", &operand_view(kind, operand));
    context
}

/// The Go templates' view of the operand of a `kind`.
fn operand_view(kind: &str, operand: &Operand) -> GoOperandView {
    GoOperandView {
        var: go_variable(kind),
        operand: OperandView::new(kind, operand, go_string),
    }
}

/// Names the controller's code uses besides the Go keywords, which an
/// object's variable must not shadow.
const TAKEN_NAMES: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
    "appsv1",
    "apierrors",
    "client",
    "context",
    "corev1",
    "ctrl",
    "errors",
    "events",
    "fmt",
    "image",
    "labels",
    "logf",
    "meta",
    "metav1",
    "os",
    "new",
    "replicas",
    "r",
    "req",
    "runtime",
    "deployment",
    "container",
    "size",
    "status",
];

/// The kind with its first letter in lower case, as a Go variable, with
/// `Obj` added when that would clash with a keyword or a name in use.
fn go_variable(kind: &str) -> String {
    let mut chars = kind.chars();
    let first = chars.next().map(|c| c.to_ascii_lowercase());
    let name: String = first.into_iter().chain(chars).collect();
    if TAKEN_NAMES.contains(&name.as_str()) {
        format!("{name}Obj")
    } else {
        name
    }
}

/// `text` as a Go string literal (the options hold no control characters).
fn go_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_follow_the_kind_and_avoid_taken_names() {
        assert_eq!(go_variable("Memcached"), "memcached");
        assert_eq!(go_variable("FirstMate"), "firstMate");
        assert_eq!(go_variable("Type"), "typeObj");
        assert_eq!(go_variable("Client"), "clientObj");
    }

    #[test]
    fn command_items_become_go_literals() {
        assert_eq!(go_string("-o"), "\"-o\"");
        assert_eq!(go_string(r#"say "hi" \n"#), r#""say \"hi\" \\n""#);
    }
}
