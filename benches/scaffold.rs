//! Scaffolding benchmark: `cargo bench --bench scaffold`.
//!
//! Runs a 20-command sequence (one `init`, ten `create api`, nine
//! `create webhook`, all without post-steps) with the release binary, in a
//! fresh temporary directory per iteration, and reports per command kind the
//! median and 95th percentile of the whole-process wall time, the median
//! total of the sequence, the peak resident memory of any command and the
//! size of the binary. `KB_BENCH_ITERATIONS` sets the number of iterations
//! (default 10). See docs/performance.md.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test: cargo builds it with the bench profile, which
/// inherits the release profile.
const BINARY: &str = env!("CARGO_BIN_EXE_kubebuilder-rs");

/// Targets from issue #8, checked and printed at the end.
const TARGET_COMMAND: Duration = Duration::from_millis(10);
const TARGET_SEQUENCE: Duration = Duration::from_millis(150);
const TARGET_RSS_KIB: u64 = 20 * 1024;

/// The sequence: `(kind, arguments)`.
fn sequence() -> Vec<(&'static str, Vec<&'static str>)> {
    let init = vec![
        "init",
        "--domain",
        "example.com",
        "--repo",
        "example.com/bench",
        "--multigroup",
        "--fetch-deps=false",
        "--skip-go-version-check",
    ];
    let apis: [&[&str]; 10] = [
        &["crew", "v1", "Captain"],
        &[
            "crew",
            "v1",
            "Captain",
            "--controller-name",
            "captain-backup",
            "--resource=false",
        ],
        &["crew", "v1", "Admiral", "--namespaced=false"],
        &["crew", "v2", "Captain", "--controller=false"],
        &["ship", "v1", "Frigate"],
        &["ship", "v1beta1", "Destroyer", "--namespaced=false"],
        &["sea", "v1", "Harbor"],
        &["sea", "v1", "Lighthouse", "--controller=false"],
        &["fleet", "v1alpha1", "Convoy"],
        &["apps", "v1", "Deployment", "--resource=false"],
    ];
    let webhooks: [&[&str]; 9] = [
        &["crew", "v1", "Captain", "--defaulting"],
        &["crew", "v1", "Admiral", "--programmatic-validation"],
        &[
            "ship",
            "v1",
            "Frigate",
            "--defaulting",
            "--programmatic-validation",
        ],
        &["crew", "v1", "Captain", "--conversion", "--spoke", "v2"],
        &["core", "v1", "Pod", "--defaulting"],
        &[
            "ship",
            "v1beta1",
            "Destroyer",
            "--defaulting",
            "--programmatic-validation",
        ],
        &["sea", "v1", "Harbor", "--programmatic-validation"],
        &["fleet", "v1alpha1", "Convoy", "--defaulting"],
        &["apps", "v1", "Deployment", "--programmatic-validation"],
    ];
    let mut steps = vec![("init", init)];
    for api in apis {
        let mut args = vec!["create", "api", "--make=false"];
        args.extend(["--group", api[0], "--version", api[1], "--kind", api[2]]);
        // Every flag given, so no prompt is ever asked.
        if !api.contains(&"--resource=false") && !api.contains(&"--controller=false") {
            args.extend(["--resource", "--controller"]);
        } else if api.contains(&"--resource=false") {
            args.push("--controller");
        } else {
            args.push("--resource");
        }
        args.extend(&api[3..]);
        steps.push(("create api", args));
    }
    for webhook in webhooks {
        let mut args = vec!["create", "webhook", "--make=false"];
        args.extend([
            "--group",
            webhook[0],
            "--version",
            webhook[1],
            "--kind",
            webhook[2],
        ]);
        args.extend(&webhook[3..]);
        steps.push(("create webhook", args));
    }
    steps
}

/// One finished command: its wall time, its CPU time (user and system, less
/// sensitive to other load on the machine) and peak resident memory (KiB).
struct Sample {
    wall: Duration,
    cpu: Duration,
    max_rss_kib: u64,
}

/// Runs the binary with `args` in `dir`, timing the whole process and
/// reading its peak memory from `wait4`.
#[allow(clippy::zombie_processes)] // reaped by wait4, not Child::wait
fn run(dir: &Path, args: &[&str]) -> Sample {
    let started = Instant::now();
    let child = Command::new(BINARY)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kubebuilder-rs");
    let pid = libc::pid_t::try_from(child.id()).expect("pid fits");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unreaped child; status and usage are valid pointers.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    assert_eq!(reaped, pid, "wait4 failed");
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let mut message = String::new();
        if let Some(mut err) = child.stderr {
            use std::io::Read as _;
            let _ = err.read_to_string(&mut message);
        }
        panic!("kubebuilder-rs {} failed: {message}", args.join(" "));
    }
    // The child is reaped: dropping `child` does not wait for it again.
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Sample {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    }
}

/// The `p`-th percentile (nearest rank) of sorted durations.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let iterations: usize = std::env::var("KB_BENCH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let steps = sequence();
    let kinds = ["init", "create api", "create webhook"];
    let mut by_kind: Vec<Vec<Duration>> = vec![Vec::new(); kinds.len()];
    let mut cpu_by_kind: Vec<Vec<Duration>> = vec![Vec::new(); kinds.len()];
    let mut by_step: Vec<Vec<Duration>> = vec![Vec::new(); steps.len()];
    let mut totals = Vec::new();
    let mut peak_rss = 0;

    // One untimed run warms the page cache and the binary.
    let warm = tempfile::tempdir().expect("temp dir");
    let dir = warm.path().join("bench");
    std::fs::create_dir(&dir).expect("project dir");
    for (_, args) in &steps {
        run(&dir, args);
    }
    drop(warm);

    for _ in 0..iterations {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("bench");
        std::fs::create_dir(&dir).expect("project dir");
        let mut total = Duration::ZERO;
        for (index, (kind, args)) in steps.iter().enumerate() {
            let sample = run(&dir, args);
            total += sample.wall;
            peak_rss = peak_rss.max(sample.max_rss_kib);
            let slot = kinds.iter().position(|k| k == kind).expect("known kind");
            by_kind[slot].push(sample.wall);
            cpu_by_kind[slot].push(sample.cpu);
            by_step[index].push(sample.wall);
        }
        totals.push(total);
    }

    println!(
        "kubebuilder-rs scaffolding benchmark: {iterations} iterations of {} commands",
        steps.len()
    );
    println!("binary: {BINARY}");
    println!();
    println!("per command (median over iterations):");
    for ((_, args), samples) in steps.iter().zip(&mut by_step) {
        samples.sort();
        let shown: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| !a.starts_with("--make") && !a.starts_with("--domain"))
            .collect();
        println!(
            "  {:>9}  {}",
            ms(percentile(samples, 50.0)),
            shown.join(" ")
        );
    }
    println!();
    println!(
        "{:<16} {:>8} {:>11} {:>11} {:>11} {:>11}",
        "kind", "samples", "wall median", "wall p95", "cpu median", "cpu p95"
    );
    let mut all_met = true;
    for ((kind, samples), cpu) in kinds.iter().zip(&mut by_kind).zip(&mut cpu_by_kind) {
        samples.sort();
        cpu.sort();
        let median = percentile(samples, 50.0);
        all_met &= median < TARGET_COMMAND;
        println!(
            "{:<16} {:>8} {:>11} {:>11} {:>11} {:>11}",
            kind,
            samples.len(),
            ms(median),
            ms(percentile(samples, 95.0)),
            ms(percentile(cpu, 50.0)),
            ms(percentile(cpu, 95.0))
        );
    }
    all_met &= by_step.iter().all(|s| percentile(s, 50.0) < TARGET_COMMAND);
    totals.sort();
    let total = percentile(&totals, 50.0);
    let size = std::fs::metadata(BINARY).map(|m| m.len()).unwrap_or(0);
    println!();
    println!("sequence total (median): {}", ms(total));
    println!(
        "peak resident memory:    {:.1} MiB",
        peak_rss as f64 / 1024.0
    );
    println!(
        "binary size:             {:.2} MiB ({size} bytes)",
        size as f64 / 1048576.0
    );
    println!();
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    println!(
        "targets: every command median < 10 ms: {}; sequence < 150 ms: {}; peak memory < 20 MiB: {}",
        verdict(all_met),
        verdict(total < TARGET_SEQUENCE),
        verdict(peak_rss < TARGET_RSS_KIB)
    );
}
