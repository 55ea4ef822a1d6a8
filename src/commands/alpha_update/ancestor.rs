//! Where the ancestor of `alpha update` comes from: the scaffold a project
//! was made from, produced into a directory outside the repository.
//!
//! - A kubebuilder-rs binary (`--from-binary`) re-generates the project with
//!   its own `alpha generate`, which replays PROJECT's commands exactly.
//! - A kubebuilder (a release from the tool cache, or `--from-binary`)
//!   replays PROJECT's commands itself: `init`, every `create api` (the API
//!   type with its first controller, as a user runs it), every `create
//!   webhook`, then `edit --plugins` for Grafana and auto-update; in both
//!   usual orders of the webhooks when they differ (see `Order`), keeping
//!   the replay closer to the user's tree. kubebuilder's
//!   own `alpha generate` scaffolds each API and its controller in two
//!   commands, which writes the controller's tests differently from the
//!   project the user made, so it only serves for PROJECT content the replay
//!   cannot express (deploy-image, Helm, plugins it does not know).
//!
//! How kubebuilder itself is run is in the sibling module `kubebuilder`.

use super::kubebuilder::{GRAFANA, Kubebuilder, KubebuilderStep, last_lines};
use crate::machinery::tree::{self, Tree};
use crate::ops::replay::{self, Order};
use crate::plugins::chain::current_layout_key;
use crate::project::bookkeeping::{ApiOptions, WebhookOptions};
use crate::project::cli_version::{self, Origin};
use crate::project::{Project, ProjectFile, ResourceEntry};
use anyhow::{Context as _, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A way to produce the ancestor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--from-binary`: a kubebuilder or kubebuilder-rs executable.
    Binary(PathBuf),
    /// A kubebuilder release (`v4.16.0`), installed from the Go module proxy
    /// into the tool cache when missing.
    KubebuilderRelease(String),
}

/// The oldest kubebuilder release whose projects `alpha update` starts
/// from: before it, kubebuilder's re-generation mishandled removed files.
pub const MINIMUM_KUBEBUILDER: &str = "v4.7.0";

/// PROJECT's key of kubebuilder's auto-update plugin.
const AUTOUPDATE: &str = "autoupdate.kubebuilder.io/v1-alpha";

/// The source for a project whose `cliVersion` (or `--from-version`) says
/// `origin`, when neither `--from-binary` nor the repository's record of
/// the scaffold gives one. Refuses, in one line naming the way out, the
/// origins no release can reproduce: kubebuilder before
/// [`MINIMUM_KUBEBUILDER`], kubebuilder-rs, and unknown tools.
pub fn source_for(origin: &Origin) -> Result<Source> {
    let repository = env!("CARGO_PKG_REPOSITORY");
    match origin {
        Origin::Kubebuilder(version) => {
            check_minimum(version)?;
            Ok(Source::KubebuilderRelease(version.clone()))
        }
        Origin::KubebuilderRs {
            version,
            commit: Some(commit),
            ..
        } => bail!(
            "the project was made by kubebuilder-rs {version} (commit {commit}) and the repository has no record of that scaffold (refs/kubebuilder-rs/pristine); build that commit with `cargo install --locked --git {repository} --rev {commit} --root <dir> kubebuilder-rs` and pass --from-binary <dir>/bin/kubebuilder-rs"
        ),
        Origin::KubebuilderRs {
            version, digest, ..
        } => bail!(
            "the project was made by kubebuilder-rs {version} built outside git (scaffold {digest}) and the repository has no record of that scaffold (refs/kubebuilder-rs/pristine); pass --from-binary with a kubebuilder-rs built from the same sources"
        ),
        Origin::KubebuilderRsLegacy(version) => bail!(
            "cliVersion {version} was written by a kubebuilder-rs from before cliVersion named the build; pass --from-binary with a kubebuilder-rs built from the commit that made the project (`cargo install --locked --git {repository} --rev <commit> --root <dir> kubebuilder-rs`)"
        ),
        Origin::Unknown(raw) if raw.is_empty() => bail!(
            "PROJECT has no cliVersion, so the tool that made the project is unknown; pass --from-version <kubebuilder release> or --from-binary <the binary that made it>"
        ),
        Origin::Unknown(raw) => bail!(
            "cliVersion {raw:?} names no kubebuilder or kubebuilder-rs release; pass --from-version <kubebuilder release> or --from-binary <the binary that made the project>"
        ),
    }
}

/// Writes into the empty directory `out` the scaffold `source` makes of the
/// project whose PROJECT file (and the user files the scaffold keeps, such
/// as `hack/boilerplate.go.txt`) are in `input`. `like` is the user's tree:
/// where PROJECT leaves the order of the commands open (see `Order`), the
/// replay whose files match it best is kept.
pub fn produce(source: &Source, input: &Path, out: &Path, like: &Tree) -> Result<()> {
    match source {
        Source::Binary(path) => produce_with_binary(path, input, out, like),
        Source::KubebuilderRelease(version) => {
            check_minimum(version)?;
            let binary = crate::tools::kubebuilder_release(version)?;
            replay_project(&Kubebuilder::new(&binary, version)?, input, out, like)
        }
    }
}

/// Refuses a kubebuilder release older than [`MINIMUM_KUBEBUILDER`].
fn check_minimum(version: &str) -> Result<()> {
    if cli_version::compare_releases(version, MINIMUM_KUBEBUILDER)
        .is_some_and(|order| order.is_lt())
    {
        bail!(
            "kubebuilder {version} made the project, and alpha update starts only from kubebuilder {MINIMUM_KUBEBUILDER} or later; update the project with kubebuilder {MINIMUM_KUBEBUILDER} or later first, or pass --from-version {MINIMUM_KUBEBUILDER} to start from that release's scaffold"
        );
    }
    Ok(())
}

/// `--from-binary`: asks the binary what it is, then re-generates with it.
fn produce_with_binary(path: &Path, input: &Path, out: &Path, like: &Tree) -> Result<()> {
    let shown = path.display();
    let output = Command::new(path)
        .arg("version")
        .stdin(Stdio::null())
        .output()
        .map_err(|err| anyhow::anyhow!("--from-binary {shown} cannot be run: {err}"))?;
    if !output.status.success() {
        bail!(
            "--from-binary {shown}: `version` failed: {}",
            last_lines(&output)
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    if text.trim_start().starts_with("kubebuilder-rs") {
        return kubebuilder_rs_generate(path, input, out);
    }
    let version = kubebuilder_version(&text);
    if let Some(version) = &version {
        check_minimum(version)?;
    }
    let label = version.unwrap_or_else(|| format!("at {shown}"));
    replay_project(&Kubebuilder::new(path, &label)?, input, out, like)
}

/// An earlier kubebuilder-rs: its `alpha generate` replays PROJECT's
/// commands, without the toolchain steps.
fn kubebuilder_rs_generate(path: &Path, input: &Path, out: &Path) -> Result<()> {
    let output = Command::new(path)
        .args(["alpha", "generate", "--make=false", "--input-dir"])
        .arg(input)
        .arg("--output-dir")
        .arg(out)
        .current_dir(input)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("--from-binary {} cannot be run", path.display()))?;
    if !output.status.success() {
        bail!(
            "--from-binary {}: `alpha generate` failed: {}",
            path.display(),
            last_lines(&output)
        );
    }
    Ok(())
}

/// The release a kubebuilder's `version` output names (`v4.16.0`): the
/// first word that reads as one.
fn kubebuilder_version(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '"' | ',' | '{' | '}'))
        .find_map(|word| match cli_version::parse(word) {
            Origin::Kubebuilder(version) => Some(version),
            _ => None,
        })
}

/// Writes with `kubebuilder` the ancestor of the project in `input` into
/// `out`: the replay in each [`Order`] that gives different commands, the
/// one sharing the most files with `like` kept.
fn replay_project(kubebuilder: &Kubebuilder, input: &Path, out: &Path, like: &Tree) -> Result<()> {
    let project = Project::load(input)?;
    let license = kubebuilder.license_args(input)?;
    let Some(first) = steps(&project.file, &license, Order::WebhooksLast)? else {
        return kubebuilder.generate(input, out);
    };
    let second = steps(&project.file, &license, Order::WebhooksWithTheirApi)?
        .filter(|second| *second != first);
    kubebuilder.replay(&first, input, out)?;
    let Some(second) = second else {
        return Ok(());
    };
    let other = kubebuilder.work_dir().join("other-order");
    std::fs::create_dir(&other)?;
    kubebuilder.replay(&second, input, &other)?;
    let (kept, other_tree) = (tree::read_dir(out, &[])?, tree::read_dir(&other, &[])?);
    if closeness(&other_tree, &kept, like) > closeness(&kept, &other_tree, like) {
        std::fs::remove_dir_all(out)?;
        std::fs::rename(&other, out)
            .with_context(|| format!("cannot move the ancestor to {}", out.display()))?;
    }
    Ok(())
}

/// How close the replay `tree` is to `like`, against the other replay
/// `other`: the files it has with the same bytes in `like`, then the lines
/// it shares with `like` in the files where the two replays differ (the
/// user's edits of `cmd/main.go` leave neither replay's file the same).
fn closeness(tree: &Tree, other: &Tree, like: &Tree) -> (usize, usize) {
    let files = tree
        .iter()
        .filter(|(path, entry)| like.get(*path) == Some(entry))
        .count();
    let text =
        |entry: &crate::machinery::tree::Entry| String::from_utf8_lossy(&entry.bytes).into_owned();
    let lines = tree
        .iter()
        .filter(|(path, entry)| other.get(*path) != Some(entry))
        .filter_map(|(path, entry)| Some((text(entry), text(like.get(path)?))))
        .map(|(ours, theirs)| crate::machinery::merge::shared_lines(&ours, &theirs))
        .sum();
    (files, lines)
}

/// The command sequence that re-creates `project` with kubebuilder, its
/// webhooks in `order` (see [`replay::steps`]), as kubebuilder's command
/// lines; `None` when the sequence cannot express it: a plugin other than
/// Grafana and auto-update, or, with each webhook after its API, a
/// conversion webhook (kubebuilder needs its spoke versions first).
fn steps(
    project: &ProjectFile,
    license: &[String],
    order: Order,
) -> Result<Option<Vec<KubebuilderStep>>> {
    let expressible = project
        .plugins
        .keys()
        .all(|key| matches!(key.as_str(), Some(GRAFANA | AUTOUPDATE)));
    let converts =
        |entry: &ResourceEntry| entry.webhooks.as_ref().and_then(|w| w.conversion) == Some(true);
    if !expressible
        || (order == Order::WebhooksWithTheirApi && project.resources.iter().any(converts))
    {
        return Ok(None);
    }
    let mut commands = Vec::new();
    let mut plugins = Vec::new();
    for step in replay::steps(project, None, order)? {
        match step {
            replay::Step::Init(_) => {
                commands.push(KubebuilderStep::Run(init_args(project, license)))
            }
            replay::Step::CreateApi(entry, options, _) => {
                commands.push(KubebuilderStep::Run(api_args(&entry, &options)));
            }
            replay::Step::CreateWebhook(entry, options) => {
                commands.extend(webhook_step(&entry, &options))
            }
            replay::Step::AddPlugin(GRAFANA) => plugins.insert(0, KubebuilderStep::Grafana),
            replay::Step::AddPlugin(key) => plugins.push(KubebuilderStep::Run(
                ["edit", "--plugins", key].map(String::from).into(),
            )),
        }
    }
    commands.extend(plugins);
    Ok(Some(commands))
}

/// `init` with PROJECT's layout (older Go layouts as go/v4), domain, repo,
/// name and settings, and the license arguments.
fn init_args(project: &ProjectFile, license: &[String]) -> Vec<String> {
    let mut args = vec!["init".to_string()];
    if !project.layout.is_empty() {
        let layout: Vec<&str> = project
            .layout
            .iter()
            .map(|key| current_layout_key(key))
            .collect();
        args.extend(["--plugins".into(), layout.join(",")]);
    }
    let values = [
        ("--domain", &project.domain),
        ("--repo", &project.repo),
        ("--project-name", &project.project_name),
    ];
    for (flag, value) in values {
        if let Some(value) = value {
            args.extend([flag.to_string(), value.clone()]);
        }
    }
    if project.multigroup == Some(true) {
        args.push("--multigroup".into());
    }
    if project.namespaced == Some(true) {
        args.push("--namespaced".into());
    }
    args.extend(license.iter().cloned());
    args
}

/// One `create api` as a user runs it: the API type (with its scope and
/// `--ssa`) and/or a controller, named when not after the kind.
fn api_args(entry: &ResourceEntry, options: &ApiOptions) -> Vec<String> {
    let mut args = create_args("api", entry);
    if options.resource {
        args.push("--resource".into());
        if entry.api.as_ref().and_then(|api| api.namespaced) != Some(true) {
            args.push("--namespaced=false".into());
        }
        if options.ssa {
            args.push("--ssa".into());
        }
    } else {
        args.push("--resource=false".into());
    }
    if !options.controller {
        args.push("--controller=false".into());
        return args;
    }
    args.push("--controller=true".into());
    if let Some(name) = &options.controller_name {
        args.extend(["--controller-name".into(), name.clone()]);
    }
    args
}

/// The `create webhook` of one resource, with the webhooks of `options`.
fn webhook_step(entry: &ResourceEntry, options: &WebhookOptions) -> Option<KubebuilderStep> {
    let mut args = create_args("webhook", entry);
    if options.validation {
        args.push("--programmatic-validation".into());
        if let Some(path) = &options.validation_path {
            args.extend(["--validation-path".into(), path.clone()]);
        }
    }
    if options.defaulting {
        args.push("--defaulting".into());
        if let Some(path) = &options.defaulting_path {
            args.extend(["--defaulting-path".into(), path.clone()]);
        }
    }
    if options.conversion {
        args.push("--conversion".into());
        for spoke in &options.spokes {
            args.extend(["--spoke".into(), spoke.clone()]);
        }
    }
    let asked = args.len() > create_args("webhook", entry).len();
    asked.then_some(KubebuilderStep::Run(args))
}

/// `create <what>` with the resource's plural, group, version and kind, and
/// where an external type comes from.
fn create_args(what: &str, entry: &ResourceEntry) -> Vec<String> {
    let mut args = vec!["create".to_string(), what.to_string()];
    let gvk = [
        ("--plural", entry.plural.as_ref()),
        ("--group", entry.group.as_ref()),
        ("--version", Some(&entry.version)),
        ("--kind", Some(&entry.kind)),
    ];
    for (flag, value) in gvk {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            args.extend([flag.to_string(), value.clone()]);
        }
    }
    if entry.external == Some(true) {
        let external = [
            ("--external-api-path", &entry.path),
            ("--external-api-domain", &entry.domain),
            ("--external-api-module", &entry.module),
        ];
        for (flag, value) in external {
            if let Some(value) = value {
                args.extend([flag.to_string(), value.clone()]);
            }
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::alpha_update::test_scripts::write_executable;

    #[test]
    fn the_replay_closer_to_the_users_edited_file_is_kept() {
        let tree = |files: &[(&str, &str)]| -> Tree {
            files
                .iter()
                .map(|(p, t)| {
                    (
                        PathBuf::from(p),
                        crate::machinery::tree::Entry::file(t.as_bytes()),
                    )
                })
                .collect()
        };
        let webhooks_last = tree(&[
            ("PROJECT", "p"),
            ("main.go", "import\napi a\napi b\nhook a\n"),
        ]);
        let with_their_api = tree(&[
            ("PROJECT", "p"),
            ("main.go", "import\napi a\nhook a\napi b\n"),
        ]);
        let user = tree(&[
            ("PROJECT", "p"),
            ("main.go", "import\nmine\napi a\nhook a\napi b\n"),
        ]);
        let (first, second) = (
            closeness(&webhooks_last, &with_their_api, &user),
            closeness(&with_their_api, &webhooks_last, &user),
        );
        assert_eq!(first.0, second.0, "no replay has the user's main.go");
        assert!(second > first, "{second:?} > {first:?}");
    }

    fn project(text: &str) -> ProjectFile {
        Project::parse(text).unwrap().file
    }

    fn lines(steps: &[KubebuilderStep]) -> Vec<String> {
        steps
            .iter()
            .map(|step| match step {
                KubebuilderStep::Run(args) => args.join(" "),
                KubebuilderStep::Grafana => "grafana".into(),
            })
            .collect()
    }

    const PROJECT: &str = "\
cliVersion: 4.16.0
domain: example.com
layout:
- go.kubebuilder.io/v3
multigroup: true
plugins:
  autoupdate.kubebuilder.io/v1-alpha: {}
  grafana.kubebuilder.io/v1-alpha: {}
projectName: ship
repo: example.com/ship
resources:
- api:
    crdVersion: v1
    namespaced: true
  controllers:
  - name: captain
  - name: captain-backup
  domain: example.com
  group: crew
  kind: Captain
  path: example.com/ship/api/crew/v1
  version: v1
  webhooks:
    defaulting: true
    validation: true
    validationPath: /check-captain
    webhookVersion: v1
- controller: true
  core: true
  group: apps
  kind: Deployment
  path: k8s.io/api/apps/v1
  version: v1
- api:
    crdVersion: v1
    ssa: true
  domain: example.com
  group: crew
  kind: Fleet
  plural: fleetz
  version: v2
  webhooks:
    conversion: true
    spoke:
    - v1
    webhookVersion: v1
- domain: cert-manager.io
  external: true
  group: certmanager
  kind: Certificate
  module: github.com/cert-manager/cert-manager@v1.18.2
  path: github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1
  version: v1
  webhooks:
    defaulting: true
    webhookVersion: v1
version: \"3\"
";

    #[test]
    fn the_sequence_creates_apis_with_their_controllers_then_webhooks_then_plugins() {
        let license = ["--license".to_string(), "none".into()];
        let steps = steps(&project(PROJECT), &license, Order::WebhooksLast)
            .unwrap()
            .unwrap();
        assert_eq!(
            lines(&steps),
            [
                "init --plugins go.kubebuilder.io/v4 --domain example.com --repo example.com/ship --project-name ship --multigroup --license none",
                "create api --group crew --version v1 --kind Captain --resource --controller=true",
                "create api --group crew --version v1 --kind Captain --resource=false --controller=true --controller-name captain-backup",
                "create api --group apps --version v1 --kind Deployment --resource=false --controller=true",
                "create api --plural fleetz --group crew --version v2 --kind Fleet --resource --namespaced=false --ssa --controller=false",
                "create webhook --group crew --version v1 --kind Captain --programmatic-validation --validation-path /check-captain --defaulting",
                "create webhook --plural fleetz --group crew --version v2 --kind Fleet --conversion --spoke v1",
                "create webhook --group certmanager --version v1 --kind Certificate --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain cert-manager.io --external-api-module github.com/cert-manager/cert-manager@v1.18.2 --defaulting",
                "grafana",
                "edit --plugins autoupdate.kubebuilder.io/v1-alpha",
            ]
        );
    }

    #[test]
    fn webhooks_with_their_api_follow_each_resource_unless_one_converts() {
        let license = ["--license".to_string(), "none".into()];
        let with_their_api =
            |text: &str| steps(&project(text), &license, Order::WebhooksWithTheirApi).unwrap();
        assert_eq!(
            with_their_api(PROJECT),
            None,
            "a conversion webhook needs its spokes first"
        );
        let start = PROJECT
            .find("- api:\n    crdVersion: v1\n    ssa: true")
            .unwrap();
        let end = PROJECT.find("- domain: cert-manager.io").unwrap();
        let without_conversion = format!("{}{}", &PROJECT[..start], &PROJECT[end..]);
        let steps = with_their_api(&without_conversion).unwrap();
        let lines = lines(&steps);
        let at = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap();
        assert!(
            at("create webhook --group crew") < at("create api --group apps"),
            "{lines:#?}"
        );
        assert!(
            at("create api --group apps") < at("create webhook --group certmanager"),
            "{lines:#?}"
        );
    }

    #[test]
    fn plugins_the_sequence_cannot_add_leave_it_to_kubebuilders_generate() {
        for key in [
            "deploy-image.go.kubebuilder.io/v1-alpha: {}",
            "helm.kubebuilder.io/v2-alpha: {}",
            "example.com/unknown/v1: {}",
        ] {
            let text = PROJECT.replace("plugins:\n", &format!("plugins:\n  {key}\n"));
            let steps = steps(&project(&text), &[], Order::WebhooksLast).unwrap();
            assert_eq!(steps, None, "{key}");
        }
    }

    #[test]
    fn kubebuilder_releases_are_sources_from_v4_7_0() {
        for version in ["v4.7.0", "v4.16.0"] {
            let origin = Origin::Kubebuilder(version.into());
            assert_eq!(
                source_for(&origin).unwrap(),
                Source::KubebuilderRelease(version.into())
            );
        }
        let err = source_for(&Origin::Kubebuilder("v4.6.0".into()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("v4.6.0") && err.contains("v4.7.0"), "{err}");
        let err = produce(
            &Source::KubebuilderRelease("v4.5.2".into()),
            Path::new("/nonexistent"),
            Path::new("/nonexistent"),
            &Tree::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("v4.5.2") && err.contains("v4.7.0"), "{err}");
    }

    #[test]
    fn kubebuilder_rs_origins_are_refused_naming_from_binary() {
        let with_commit = Origin::KubebuilderRs {
            version: "0.2.0".into(),
            commit: Some("1a2b3c4d5e6f".into()),
            digest: "0123456789ab".into(),
        };
        let without = Origin::KubebuilderRs {
            version: "0.2.0".into(),
            commit: None,
            digest: "0123456789ab".into(),
        };
        let cases = [
            (
                with_commit,
                vec!["--from-binary", "--rev 1a2b3c4d5e6f", "cargo install"],
            ),
            (without, vec!["--from-binary", "0123456789ab"]),
            (
                Origin::KubebuilderRsLegacy("0.1.0".into()),
                vec!["--from-binary", "0.1.0"],
            ),
            (
                Origin::Unknown("(devel)".into()),
                vec!["(devel)", "--from-version", "--from-binary"],
            ),
            (
                Origin::Unknown(String::new()),
                vec!["no cliVersion", "--from-binary"],
            ),
        ];
        for (origin, needles) in cases {
            let err = source_for(&origin).unwrap_err().to_string();
            assert_eq!(err.lines().count(), 1, "{err}");
            for needle in needles {
                assert!(err.contains(needle), "{needle:?} not in {err}");
            }
        }
    }

    #[test]
    fn a_missing_binary_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nothing-here");
        let err = produce(
            &Source::Binary(missing.clone()),
            dir.path(),
            dir.path(),
            &Tree::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(&missing.display().to_string()), "{err}");
        assert!(err.contains("--from-binary"), "{err}");
    }

    #[test]
    fn a_failing_binary_is_refused_with_its_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("broken");
        write_executable(
            &script,
            "#!/bin/sh\necho one >&2\necho two >&2\necho three >&2\necho four >&2\nexit 3\n",
        );
        let err = produce(
            &Source::Binary(script.clone()),
            dir.path(),
            dir.path(),
            &Tree::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(&script.display().to_string()), "{err}");
        assert!(err.ends_with("two | three | four"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }

    #[test]
    fn an_old_kubebuilder_binary_is_refused_naming_the_minimum() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("kubebuilder");
        write_executable(&script, "#!/bin/sh\necho 'KubeBuilder:          v4.6.0'\n");
        let err = produce(
            &Source::Binary(script),
            dir.path(),
            dir.path(),
            &Tree::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("v4.6.0") && err.contains("v4.7.0"), "{err}");
    }

    #[test]
    fn kubebuilder_versions_are_read_from_both_version_formats() {
        assert_eq!(
            kubebuilder_version("KubeBuilder:          v4.16.0\nKubernetes:           1.37.0\n"),
            Some("v4.16.0".into())
        );
        assert_eq!(
            kubebuilder_version(
                "Version: main.version{KubeBuilderVersion:\"4.7.0\", KubernetesVendor:\"1.33.0\"}"
            ),
            Some("v4.7.0".into())
        );
        assert_eq!(kubebuilder_version("KubeBuilder: (devel)"), None);
    }
}
