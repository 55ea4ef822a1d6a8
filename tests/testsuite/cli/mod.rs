//! The tool alone: each command's behaviour, output and refusals, in
//! scratch directories (fast; no toolchain). The Rust layout's own in
//! `rust`.

mod alpha_generate;
mod alpha_update;
mod alpha_update_replays;
mod autoupdate;
mod builtin_groups;
mod create_api;
mod create_webhook;
mod deploy_image;
mod edit;
mod external_plugins;
mod git_record;
mod helm;
mod init;
mod kubebuilder_files;
mod plugins;
mod project_file;
mod project_round_trip;
mod rust;
mod webhook_certs;
