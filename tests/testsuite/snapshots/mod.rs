//! Rendered trees, file for file, against the snapshots in tests/snapshots.

mod create;
mod init;
