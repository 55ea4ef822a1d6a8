//! The tool alone, for the Rust layout (rust/v1-alpha).

mod create_api;
mod create_webhook;
mod deploy_image;
mod format;
mod init;
