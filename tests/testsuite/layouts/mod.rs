//! What both layouts share, checked for each (slow: run by scripts/test-all).

mod alpha_update_corpus;
mod autoupdate_workflow;
mod run_with_webhooks;
