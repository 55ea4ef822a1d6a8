//! Generated go/v4 projects built, tested and run with the real Go
//! toolchain and the test control plane, and beside kubebuilder itself
//! (slow: run by scripts/test-all).

mod alpha_generate;
mod alpha_update;
mod create_api;
mod create_webhook;
mod deploy_image;
mod e2e_deploy;
mod edit;
mod external_plugins;
mod helm_grafana;
mod init;
mod kubebuilder_ancestor;
mod kubebuilder_compat;
mod plural_flect;
