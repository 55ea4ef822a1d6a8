//! `alpha update` keeps kubebuilder's replay of a project's commands: the
//! second update of the same project (the usual `--dry-run`, then the
//! update) runs no kubebuilder command but `version`, and anything the
//! replay depends on (the license header, the binary) makes it run again.
//! kubebuilder is a stub here that logs each call and writes the commands
//! it was given as its scaffold, so no toolchain is needed.

use crate::common::{empty_project_dir, init_project, kb, stderr, stdout};
use std::path::{Path, PathBuf};

/// Every flag the replay of the project below passes, for the stub's
/// `--help` (the replay refuses flags a kubebuilder does not list).
const FLAGS: &str = "--domain --repo --project-name --license-file --license --plugins \
    --group --version --kind --resource --controller --make --namespaced \
    --defaulting --programmatic-validation";

/// A project to update: go/v4 with one API and its webhooks, in a new git
/// repository, committed.
fn project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project_dir("guestbook");
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["config", "user.name", "Update Tester"]);
    git(&dir, &["config", "user.email", "tester@example.com"]);
    init_project(&dir, &[]);
    for args in [
        &["create", "api", "--group", "webapp", "--version", "v1"][..],
        &["create", "webhook", "--group", "webapp", "--version", "v1"][..],
    ] {
        let mut command = kb(&dir);
        command
            .args(args)
            .args(["--kind", "Guestbook", "--make=false"]);
        if args[1] == "api" {
            command.args(["--resource", "--controller"]);
        } else {
            command.args(["--defaulting", "--programmatic-validation"]);
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    }
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "project"]);
    (tmp, dir)
}

fn git(dir: &Path, args: &[&str]) {
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
}

/// A kubebuilder stub at `dir/kubebuilder` appending each call's arguments
/// to `log`; `tag` makes its bytes (so its identity) differ.
fn stub(dir: &Path, log: &Path, tag: &str) -> PathBuf {
    let script = format!(
        "#!/bin/sh\n# {tag}\necho \"$*\" >> '{log}'\n\
         if [ \"$1\" = version ]; then echo 'Version: cmd.version{{KubeBuilderVersion:\"4.16.0\"}}'; exit 0; fi\n\
         for arg; do if [ \"$arg\" = --help ]; then echo '{FLAGS}'; exit 0; fi; done\n\
         echo \"$1 $2\" >> commands.txt\n",
        log = log.display()
    );
    let path = dir.join(format!("kubebuilder-{tag}"));
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `alpha update --dry-run --post-steps=false --from-binary <stub>` with
/// the replay cache in `cache`; its standard output.
fn dry_run(dir: &Path, stub: &Path, cache: &Path) -> String {
    let output = kb(dir)
        .args(["alpha", "update", "--dry-run", "--post-steps=false"])
        .arg("--from-binary")
        .arg(stub)
        .env("KUBEBUILDER_RS_CACHE", cache)
        .env_remove("KUBEBUILDER_RS_TOOLS_BIN")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "alpha update: {}{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

/// The calls logged since the last look, as their first words.
fn calls(log: &Path, seen: &mut usize) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let new = lines[*seen..].to_vec();
    *seen = lines.len();
    new
}

#[test]
fn a_second_update_reuses_the_replay_until_what_it_depends_on_changes() {
    let (tmp, dir) = project();
    let cache = tmp.path().join("cache");
    let log = tmp.path().join("calls.log");
    let kubebuilder = stub(tmp.path(), &log, "one");
    let mut seen = 0;

    let first = dry_run(&dir, &kubebuilder, &cache);
    let replayed = calls(&log, &mut seen);
    assert!(
        replayed.iter().any(|call| call.starts_with("init ")),
        "the first update replays: {replayed:?}"
    );
    assert!(
        replayed
            .iter()
            .any(|call| call.starts_with("create webhook "))
    );

    let second = dry_run(&dir, &kubebuilder, &cache);
    assert_eq!(calls(&log, &mut seen), ["version"], "only `version` runs");
    assert_eq!(second, first, "the same report from the kept replay");

    // A damaged cache entry is a miss, not an error nor a wrong ancestor.
    let replays = cache.join("replays");
    let entries: Vec<PathBuf> = std::fs::read_dir(&replays)
        .unwrap()
        .map(|item| item.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "one replay kept: {entries:?}");
    let bytes = std::fs::read(&entries[0]).unwrap();
    std::fs::write(&entries[0], &bytes[..bytes.len() - 3]).unwrap();
    assert_eq!(dry_run(&dir, &kubebuilder, &cache), first);
    assert!(
        calls(&log, &mut seen)
            .iter()
            .any(|c| c.starts_with("init "))
    );
    assert_eq!(dry_run(&dir, &kubebuilder, &cache), first);
    assert_eq!(calls(&log, &mut seen), ["version"], "stored again");

    // A new license header is part of what the replay writes.
    std::fs::write(dir.join("hack/boilerplate.go.txt"), "/* Mine. */\n").unwrap();
    git(&dir, &["commit", "-q", "-am", "my header"]);
    dry_run(&dir, &kubebuilder, &cache);
    assert!(
        calls(&log, &mut seen)
            .iter()
            .any(|c| c.starts_with("init "))
    );

    // Another kubebuilder binary replays for itself.
    let other = stub(tmp.path(), &log, "two");
    dry_run(&dir, &other, &cache);
    assert!(
        calls(&log, &mut seen)
            .iter()
            .any(|c| c.starts_with("init "))
    );
    dry_run(&dir, &other, &cache);
    assert_eq!(calls(&log, &mut seen), ["version"]);
}
