//! The metric families the generated Rust manager exports
//! (`src/manager/metrics.rs` and `src/manager/client.rs` of the
//! templates): controller-runtime's names, and the `process_*` families a
//! Go manager also has. A Rust manager has no Go runtime, so no `go_*`.

/// Every family the manager registers, by its exported name.
const FAMILIES: &[&str] = &[
    "controller_runtime_reconcile_total",
    "controller_runtime_reconcile_errors_total",
    "controller_runtime_terminal_reconcile_errors_total",
    "controller_runtime_reconcile_panics_total",
    "controller_runtime_reconcile_time_seconds",
    "controller_runtime_active_workers",
    "controller_runtime_max_concurrent_reconciles",
    "workqueue_depth",
    "workqueue_adds_total",
    "workqueue_retries_total",
    "workqueue_queue_duration_seconds",
    "workqueue_work_duration_seconds",
    "workqueue_unfinished_work_seconds",
    "workqueue_longest_running_processor_seconds",
    "rest_client_requests_total",
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_open_fds",
    "process_start_time_seconds",
];

/// The series of a histogram family besides its name.
const HISTOGRAM_SERIES: &[&str] = &["_bucket", "_sum", "_count"];

/// Whether the manager exports the series `name`.
pub fn exported(name: &str) -> bool {
    FAMILIES.contains(&name)
        || HISTOGRAM_SERIES.iter().any(|suffix| {
            name.strip_suffix(suffix)
                .is_some_and(|family| family.ends_with("_seconds") && FAMILIES.contains(&family))
        })
}

#[cfg(test)]
mod tests {
    use super::exported;

    #[test]
    fn controller_runtime_families_and_histogram_series_are_exported_go_ones_not() {
        assert!(exported("controller_runtime_reconcile_total"));
        assert!(exported("workqueue_queue_duration_seconds_bucket"));
        assert!(exported("controller_runtime_reconcile_time_seconds_count"));
        assert!(!exported("go_goroutines"));
        assert!(!exported("go_memstats_heap_alloc_bytes"));
        assert!(!exported("process_open_fds_bucket"));
    }
}
