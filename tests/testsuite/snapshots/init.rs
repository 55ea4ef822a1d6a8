//! Snapshots of the tree `init` renders. A template change shows up here as
//! a reviewable diff (`cargo insta review`, or INSTA_UPDATE=always).

use crate::common::{empty_project_dir, init_project, snapshot_tree};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Renders `init` with `extra` flags and returns every file as text.
fn render(extra: &[&str]) -> BTreeMap<PathBuf, String> {
    let (_tmp, dir) = empty_project_dir("guestbook");
    init_project(&dir, extra);
    snapshot_tree(&dir)
        .into_iter()
        .filter(|(path, _)| !path.to_string_lossy().ends_with('/'))
        .map(|(path, bytes)| (path, String::from_utf8(bytes).expect("text file")))
        .collect()
}

/// Replaces the year in copyright lines, so snapshots do not expire.
fn settings() -> insta::Settings {
    let mut settings = crate::common::snapshot_settings();
    settings.add_filter(r"Copyright \d{4}", "Copyright [year]");
    settings.add_filter(r"cliVersion: \S+", "cliVersion: [version]");
    settings
}

#[test]
fn default_tree() {
    let files = render(&["--owner", "The Guestbook Authors"]);
    settings().bind(|| {
        insta::assert_snapshot!(
            "init_default__file_list",
            files
                .keys()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        );
        for (path, text) in &files {
            let name = format!("init_default__{}", path.display()).replace('/', "__");
            insta::assert_snapshot!(name, text);
        }
    });
}

#[test]
fn namespaced_multigroup_without_license_differs_only_where_expected() {
    let default = render(&["--owner", "The Guestbook Authors"]);
    let variant = render(&["--namespaced", "--multigroup", "--license", "none"]);
    assert_eq!(
        default.keys().collect::<Vec<_>>(),
        variant.keys().collect::<Vec<_>>(),
        "the variant writes other files"
    );
    let mut diffs = String::new();
    for (path, text) in &variant {
        let base = &default[path];
        if base != text {
            let label = path.display().to_string();
            diffs.push_str(
                &similar::TextDiff::from_lines(base, text)
                    .unified_diff()
                    .header(&label, &label)
                    .to_string(),
            );
        }
    }
    settings()
        .bind(|| insta::assert_snapshot!("init_namespaced_multigroup_no_license__diff", diffs));
}
