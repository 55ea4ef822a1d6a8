//! PROJECT files in kubebuilder's form are read and written back byte for
//! byte, unknown keys and plugin sections included. The fixtures were written
//! by hand from kubebuilder's documented PROJECT schema, in the form its YAML
//! writer produces (sorted keys, sequences level with their key).

use kubebuilder_rs::project::Project;
use std::path::Path;

/// Every fixture PROJECT file.
fn fixtures() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/project");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 3, "fixtures are missing");
    files
}

#[test]
fn project_files_round_trip_byte_for_byte() {
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        let project = Project::parse(&text).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        assert_eq!(
            project.render().unwrap(),
            text,
            "{} changed",
            path.display()
        );
    }
}

#[test]
fn typed_fields_are_read_from_kubebuilder_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/project");
    let text = std::fs::read_to_string(dir.join("multigroup-plugins.yaml")).unwrap();
    let project = Project::parse(&text).unwrap();
    assert_eq!(project.file.multigroup, Some(true));
    assert_eq!(project.file.namespaced, Some(true));
    assert_eq!(
        project.file.repo.as_deref(),
        Some("github.com/example/cache-operator")
    );
    assert_eq!(project.file.resources.len(), 2);
    assert!(
        project
            .file
            .plugins
            .contains_key("helm.kubebuilder.io/v2-alpha")
    );
    assert!(project.file.extra.is_empty());
}
