//! Generated rust/v1-alpha projects built, tested and run with cargo and
//! the test control plane (slow: run by scripts/test-all).

mod alpha_update;
mod dependencies;
mod e2e;
mod helm;
mod layout;
mod lifecycle;
mod metrics;
mod metrics_auth;
mod setup_envtest;
mod types;
