//! deploy-image/v1-alpha in a rust/v1-alpha project: the API type, a
//! kube-rs controller and its integration test, rendered with the Rust
//! layout's `create api` variables.

use super::OperandView;
use super::options::Operand;
use crate::machinery::Context;

/// The variables of the Rust templates: the layout's `create api` variables
/// `context` with the operand of a `kind`.
pub fn with_operand(mut context: Context, kind: &str, operand: &Operand) -> Context {
    let view = OperandView::new(kind, operand, rust_string);
    context.insert("operand", &view);
    context
}

/// `text` as a Rust string literal.
fn rust_string(text: &str) -> String {
    format!("{text:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_items_become_rust_literals() {
        assert_eq!(rust_string("-o"), "\"-o\"");
        assert_eq!(rust_string(r#"say "hi" \n"#), r#""say \"hi\" \\n""#);
    }
}
