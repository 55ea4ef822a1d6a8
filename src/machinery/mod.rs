//! The scaffolding machinery shared by every command and layout.
//!
//! A command never writes directly. It builds a [`Plan`] of file changes
//! (create, insert at a marker, overwrite with `--force`), the plan is
//! [resolved](Plan::resolve) against the disk into final file contents (this is
//! where conflicts and missing markers are found), and only a fully resolved
//! plan is [applied](Resolved::apply) — or printed, for `--dry-run`.

mod apply;
pub mod checkpoints;
pub mod clock;
mod commented;
pub mod durable;
mod files;
mod fragments;
pub mod git;
pub mod git_objects;
pub mod git_packs;
pub mod journal;
pub mod lines;
pub mod lock;
pub mod merge;
mod places;
mod plan;
pub mod pristine;
pub mod repository;
pub mod rewrite;
pub mod source;
pub mod steps;
mod templates;
pub mod tree;

pub use apply::ApplyReport;
pub use files::{Rule, TreeFile};
pub use fragments::{Fragment, Fragments, Placement};
pub use places::Place;
pub use plan::{Change, Plan, Resolved};
pub use rewrite::Rewrite;
pub use source::Source;
pub use templates::{Context, Syntax, TemplateFile, Templates, embedded_text, path_vars};
