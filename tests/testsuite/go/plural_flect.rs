//! `kubebuilder_rs::resource::plural::pluralize` against the Go library it imitates,
//! github.com/gobuffalo/flect, at the version that controller-tools v0.23.0
//! and kubebuilder v4.15.0 require.
//!
//! A small Go program (built in a temp dir with its own go.mod) pluralizes
//! every kind of `tests/fixtures/kinds.txt`; the Rust function must give the
//! same string for every one. The kinds are checked lowercased (what
//! kubebuilder and controller-gen pass to flect) and, as a stricter check of
//! the word splitting, as written.
//!
//! Needs Go and the Go module proxy, so it is ignored by a plain `cargo test`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use kubebuilder_rs::resource::plural::pluralize;

/// The flect version required by controller-tools v0.23.0 and kubebuilder
/// v4.15.0 (see their go.mod files).
const FLECT_VERSION: &str = "v1.0.3";

const GO_MAIN: &str = r#"package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/gobuffalo/flect"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		fmt.Fprintln(out, flect.Pluralize(in.Text()))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
"#;

/// The kinds of the corpus, in file order.
fn corpus() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kinds.txt");
    let text = std::fs::read_to_string(&path).expect("read tests/fixtures/kinds.txt");
    let kinds: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    for kind in &kinds {
        let mut chars = kind.chars();
        assert!(
            chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && chars.all(|c| c.is_ascii_alphanumeric()),
            "{kind:?} in kinds.txt is not a PascalCase kind"
        );
    }
    kinds
}

/// Runs `program` with `args` in `dir`, panicking with its output on failure.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// Builds the Go program that prints `flect.Pluralize` of each stdin line.
fn build_flect_probe(dir: &Path) -> std::path::PathBuf {
    std::fs::write(
        dir.join("go.mod"),
        format!(
            "module flectprobe\n\ngo 1.21\n\nrequire github.com/gobuffalo/flect {FLECT_VERSION}\n"
        ),
    )
    .unwrap();
    std::fs::write(dir.join("main.go"), GO_MAIN).unwrap();
    run(dir, "go", &["mod", "tidy"]);
    let version = run(
        dir,
        "go",
        &[
            "list",
            "-m",
            "-f",
            "{{.Version}}",
            "github.com/gobuffalo/flect",
        ],
    );
    assert_eq!(version.trim(), FLECT_VERSION, "go mod tidy changed flect");
    run(dir, "go", &["build", "-o", "flectprobe", "."]);
    dir.join("flectprobe")
}

/// `flect.Pluralize` of each word, through the probe.
fn flect_plurals(probe: &Path, dir: &Path, words: &[String]) -> Vec<String> {
    // flect loads extra inflections and acronyms from files named by these
    // variables or found in the working directory; keep its tables pristine.
    let mut child = Command::new(probe)
        .current_dir(dir)
        .env_remove("INFLECT_PATH")
        .env_remove("ACRONYMS_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the flect probe");
    let mut input = words.join("\n");
    input.push('\n');
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("flect probe output");
    writer.join().unwrap().expect("write to the flect probe");
    assert!(output.status.success(), "the flect probe failed");
    let plurals: Vec<String> = String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(plurals.len(), words.len(), "the probe skipped lines");
    plurals
}

#[test]
#[ignore = "needs Go and the module proxy; run by scripts/test-all"]
fn pluralize_matches_flect_for_every_kind() {
    let kinds = corpus();
    assert!(
        kinds.len() >= 500,
        "the corpus has only {} kinds",
        kinds.len()
    );
    let lowered: Vec<String> = kinds.iter().map(|k| k.to_lowercase()).collect();

    let tmp = tempfile::tempdir().expect("temp dir");
    let probe = build_flect_probe(tmp.path());

    let mut mismatches = Vec::new();
    for (label, words) in [("lowercased", &lowered), ("as written", &kinds)] {
        let expected = flect_plurals(&probe, tmp.path(), words);
        for (word, want) in words.iter().zip(&expected) {
            let got = pluralize(word);
            if &got != want {
                mismatches.push(format!(
                    "{label} {word:?}: flect {want:?}, pluralize {got:?}"
                ));
            }
        }
    }

    println!(
        "compared {} kinds (lowercased and as written) with flect {FLECT_VERSION}",
        kinds.len()
    );
    for line in &mismatches {
        println!("MISMATCH {line}");
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} words pluralize differently from flect {FLECT_VERSION}:\n{}",
        mismatches.len(),
        2 * kinds.len(),
        mismatches.join("\n")
    );
}
