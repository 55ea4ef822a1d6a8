//! The repository's own checks: the source tree's architecture, and the
//! scripts the suite runs on (test-all, the control plane, the shared tools,
//! check-versions).

mod architecture;
mod check_versions;
mod control_plane;
mod shared_tools;
mod test_all;
