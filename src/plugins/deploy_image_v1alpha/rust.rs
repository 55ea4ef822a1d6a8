//! deploy-image/v1-alpha in a rust/v1-alpha project: the API type, a
//! kube-rs controller and its integration test, rendered with the Rust
//! layout's `create api` variables; `--manifests` runs `make manifests`
//! with cargo.

use super::OperandView;
use super::options::Operand;
use crate::machinery::Context;
use crate::machinery::steps::{Progress, Step};
use crate::plugins::ApiContext;
use crate::plugins::rust_v1alpha::create_api::template_context as rust_api_context;
use anyhow::{Result, bail};
use std::path::Path;
use std::process::{Command, Stdio};

/// The variables of the Rust templates and the values of their paths'
/// braced segments.
pub fn template_context(
    ctx: &ApiContext,
    operand: &Operand,
) -> (Context, Vec<(&'static str, String)>) {
    let (mut context, vars) = rust_api_context(ctx);
    let view = OperandView::new(&ctx.resource.kind, operand, rust_string);
    context.insert("operand", &view);
    (context, vars)
}

/// `text` as a Rust string literal.
fn rust_string(text: &str) -> String {
    format!("{text:?}")
}

/// Runs `make manifests` in the Rust project at `dir`, which builds and runs
/// its `manifests` binary with cargo.
pub fn run_manifests(dir: &Path) -> Result<()> {
    let cargo = Command::new("cargo")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !cargo.is_ok_and(|status| status.success()) {
        bail!(
            "the files are written, but cargo is not installed: install Rust (https://rustup.rs), then run `make manifests` in {}",
            dir.display()
        );
    }
    Progress::new().run(dir, &Step::new("make", &["manifests"]))
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
