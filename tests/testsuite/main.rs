//! The integration tests, one binary (as cargo's own tests/testsuite): a
//! module per area, a module per subject within it. Fast tests run with
//! `cargo test`; slow ones (`#[ignore]`: a toolchain, the control plane or
//! the cluster) run in scripts/test-all's lanes, which pick them by module
//! path (`cargo test --test testsuite -- --ignored go::init::`).

mod cli;
mod cluster;
mod common;
mod go;
mod layouts;
mod rust;
mod snapshots;
mod suite;
mod writes;
