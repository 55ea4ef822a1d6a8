//! `create webhook` for go/v4: defaulting, validating and conversion webhooks.
//!
//! The webhook file and its test start as skeletons holding only markers;
//! each webhook type is a group of fragments inserted at those markers
//! (declared in `scaffolds/go/v4/create-webhook/fragments.toml`), always in
//! the order defaulting, validation, conversion.

use super::resource_view::{ResourceView, go_identifier};
use super::{STORAGE_VERSION_MARKER, TEMPLATE_DIR, WEBHOOK_DIR, base_context, read_go_header};
use crate::machinery::{Change, Context, Fragments, Plan, Templates, TreeFile, lines};
use crate::plugins::WebhookContext;
use crate::project::bookkeeping::WebhookOptions;
use crate::resource::Resource;
use anyhow::Result;
use serde::Serialize;
use std::path::Path;

/// The webhook package, as templates see it (`webhook.*`).
#[derive(Debug, Serialize)]
struct WebhookView {
    package: String,
    import_path: String,
    import_alias: String,
    defaulting_path: String,
    validation_path: String,
    custom_defaulting_path: bool,
    custom_validation_path: bool,
    /// `<Kind>Defaulter`, or `<Kind>CustomDefaulter` in a file that uses the
    /// names of kubebuilder before v4.16.
    defaulter_type: String,
    /// `<Kind>Validator`, or `<Kind>CustomValidator` likewise.
    validator_type: String,
}

/// What the existing webhook files of the kind look like, so that additions
/// fit them: the type names, and whether the unit test shares its variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    /// The webhook file declares `<Kind>CustomDefaulter` or
    /// `<Kind>CustomValidator` (kubebuilder v4.15 and earlier, and
    /// kubebuilder-rs before it followed v4.16): new types are named so too.
    pub custom_names: bool,
    /// The unit test has no `var (` block of its Describe: each webhook's
    /// Context declares its own variables (kubebuilder-rs before v4.16).
    pub standalone_tests: bool,
}

impl Generation {
    /// Reads the webhook file and its unit test, when they exist.
    pub fn of(webhook_file: Option<&str>, test_file: Option<&str>, kind: &str) -> Self {
        let custom_names = webhook_file.is_some_and(|text| {
            declares_type(text, &format!("{kind}CustomDefaulter"))
                || declares_type(text, &format!("{kind}CustomValidator"))
        });
        let standalone_tests =
            test_file.is_some_and(|text| !text.lines().any(|line| line.trim_end() == "\tvar ("));
        Self {
            custom_names,
            standalone_tests,
        }
    }

    /// The name of the kind's defaulter or validator type (`role` is
    /// `Defaulter` or `Validator`).
    fn type_name(self, kind: &str, role: &str) -> String {
        let custom = if self.custom_names { "Custom" } else { "" };
        format!("{kind}{custom}{role}")
    }
}

/// Whether `text` has a line `type <name> struct`.
fn declares_type(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        let mut words = line.split_whitespace();
        words.next() == Some("type")
            && words.next() == Some(name)
            && words.next().is_some_and(|w| w.starts_with("struct"))
    })
}

/// Plans the Go side of `create webhook`.
pub fn plan(ctx: &WebhookContext, plan: &mut Plan) -> Result<()> {
    let (project, resource, options) = (ctx.project, ctx.resource, ctx.options);
    let multigroup = project.multigroup == Some(true);
    let repo = project.repo.clone().unwrap_or_default();
    let view = ResourceView::new(resource, &repo, multigroup, false);
    let group_dir = if multigroup {
        resource.group.as_str()
    } else {
        ""
    };
    let read = |name: &str| {
        let path = Path::new(WEBHOOK_DIR)
            .join(group_dir)
            .join(&resource.version)
            .join(format!("{}{name}", resource.kind_lower));
        ctx.files.read_to_string(path).ok()
    };
    let generation = Generation::of(
        read("_webhook.go").as_deref(),
        read("_webhook_test.go").as_deref(),
        &resource.kind,
    );
    let webhook = webhook_view(options, &view, &repo, multigroup, generation);

    let templates = Templates::load(TEMPLATE_DIR, &["create-webhook"])?;
    let fragments =
        Fragments::load(TEMPLATE_DIR, "create-webhook")?.with_places(super::places::PLACES)?;
    let mut context = base_context(project, &read_go_header(ctx.files))?;
    context.insert("resource", &view);
    context.insert("webhook", &webhook);
    context.insert("hub", &resource.version);
    context.insert("spokes", &options.spokes);
    context.insert("cert_manager", &ctx.chain.cert_manager_for_webhooks());
    let vars = [
        ("group_dir", group_dir),
        ("version", resource.version.as_str()),
        ("kind", resource.kind_lower.as_str()),
        ("hub", resource.version.as_str()),
    ];

    templates.plan_tree("create-webhook/webhook", &context, &vars, plan)?;
    if options.conversion {
        plan_conversion_files(&templates, &mut context, &vars, &options.spokes, plan)?;
        // The hub is the storage version: no spoke may claim it too.
        for spoke in &options.spokes {
            plan.push(Change::RemoveLines {
                path: super::types_file(group_dir, spoke, &resource.kind),
                text: format!("{STORAGE_VERSION_MARKER}\n"),
            });
        }
    }
    let e2e_suite = ctx.files.read_to_string(E2E_TEST).ok();
    let groups = webhook_groups(options, generation)
        .into_iter()
        .chain(e2e_groups(options, e2e_suite.as_deref()));
    for group in groups {
        fragments.plan(group, &templates, &context, &vars, plan)?;
    }
    Ok(())
}

/// The project's e2e suite.
const E2E_TEST: &str = "test/e2e/e2e_test.go";
/// Where the suite's webhook checks go.
const E2E_CHECKS_MARKER: &str = "+kubebuilder:scaffold:e2e-webhooks-checks";
/// Where the suite waits for the webhooks before it reads the metrics.
const E2E_READINESS_MARKER: &str = "+kubebuilder:scaffold:e2e-metrics-webhooks-readiness";

/// The e2e suite's fragment groups a request needs, given the suite's text
/// (none without a suite): the checks for each webhook asked for where the
/// suite has their marker, and, for a defaulting or validating webhook, the
/// wait for the webhooks before the metrics are read, as kubebuilder extends
/// the suite.
fn e2e_groups(options: &WebhookOptions, suite: Option<&str>) -> Vec<&'static str> {
    let Some(suite) = suite else {
        return Vec::new();
    };
    let mut groups = Vec::new();
    if lines::marker_line(suite, E2E_CHECKS_MARKER).is_some() {
        groups.push("e2e-checks");
        for (wanted, group) in [
            (options.defaulting, "e2e-checks-defaulting"),
            (options.validation, "e2e-checks-validation"),
            (options.conversion, "e2e-checks-conversion"),
        ] {
            if wanted {
                groups.push(group);
            }
        }
    }
    let serves = options.defaulting || options.validation;
    if serves && lines::marker_line(suite, E2E_READINESS_MARKER).is_some() {
        groups.push("e2e-readiness");
        if options.defaulting {
            groups.push("e2e-readiness-defaulting");
        }
        if options.validation {
            groups.push("e2e-readiness-validation");
        }
    }
    groups
}

/// The fragment groups a request needs, in the order they are planned; the
/// unit test's groups follow the shape of an existing test file.
pub fn webhook_groups(options: &WebhookOptions, generation: Generation) -> Vec<&'static str> {
    let (defaulting_test, validation_test) = if generation.standalone_tests {
        ("defaulting-test-standalone", "validation-test-standalone")
    } else {
        ("defaulting-test", "validation-test")
    };
    let mut groups = vec!["common"];
    for (wanted, group) in [
        (options.defaulting, ["defaulting", defaulting_test]),
        (options.validation, ["validation", validation_test]),
        (options.conversion, ["conversion", ""]),
    ] {
        if wanted {
            groups.extend(group.into_iter().filter(|g| !g.is_empty()));
        }
    }
    groups
}

/// Plans the hub's `Hub()` file and each spoke's conversion functions.
fn plan_conversion_files(
    templates: &Templates,
    context: &mut Context,
    vars: &[(&str, &str)],
    spokes: &[String],
    plan: &mut Plan,
) -> Result<()> {
    let folder = "create-webhook/conversion";
    let per_spoke = |file: &TreeFile| file.template.to_string_lossy().contains("{spoke}");
    templates.plan_tree_with(folder, context, vars, plan, |file, plan| {
        if per_spoke(&file) {
            return Ok(());
        }
        file.plan(plan)
    })?;
    for spoke in spokes {
        context.insert("spoke", spoke);
        let mut spoke_vars = vars.to_vec();
        spoke_vars.push(("spoke", spoke.as_str()));
        templates.plan_tree_with(folder, context, &spoke_vars, plan, |file, plan| {
            if !per_spoke(&file) {
                return Ok(());
            }
            file.plan(plan)
        })?;
    }
    Ok(())
}

/// Builds `webhook.*` for templates.
fn webhook_view(
    options: &WebhookOptions,
    view: &ResourceView,
    repo: &str,
    multigroup: bool,
    generation: Generation,
) -> WebhookView {
    let resource: &Resource = &view.resource;
    let group_dir = if multigroup {
        format!("{}/", resource.group)
    } else {
        String::new()
    };
    let path_stem = format!(
        "{}-{}-{}",
        view.webhook_group.replace('.', "-"),
        resource.version,
        resource.kind_lower
    );
    let alias_group = if multigroup {
        go_identifier(&resource.group)
    } else {
        String::new()
    };
    WebhookView {
        package: resource.version.clone(),
        import_path: format!("{repo}/{WEBHOOK_DIR}/{group_dir}{}", resource.version),
        import_alias: format!("webhook{alias_group}{}", resource.version),
        defaulting_path: options
            .defaulting_path
            .clone()
            .unwrap_or_else(|| format!("/mutate-{path_stem}")),
        validation_path: options
            .validation_path
            .clone()
            .unwrap_or_else(|| format!("/validate-{path_stem}")),
        custom_defaulting_path: options.defaulting_path.is_some(),
        custom_validation_path: options.validation_path.is_some(),
        defaulter_type: generation.type_name(&resource.kind, "Defaulter"),
        validator_type: generation.type_name(&resource.kind, "Validator"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_test_shape_follow_the_existing_files() {
        let fresh = Generation::of(None, None, "Captain");
        assert_eq!(fresh.type_name("Captain", "Defaulter"), "CaptainDefaulter");
        assert!(!fresh.standalone_tests);

        let old_webhook = "type CaptainCustomDefaulter struct {\n}\n";
        let old_test = "var _ = Describe(\"x\", func() {\n\tContext(\"defaulting\", func() {\n\t\tvar (\n\t\t)\n\t})\n})\n";
        let old = Generation::of(Some(old_webhook), Some(old_test), "Captain");
        assert_eq!(
            old.type_name("Captain", "Validator"),
            "CaptainCustomValidator"
        );
        assert!(old.standalone_tests);

        let kubebuilder_test = "var _ = Describe(\"x\", func() {\n\tvar (\n\t\tobj *T\n\t)\n})\n";
        let new = Generation::of(
            Some("type CaptainValidator struct{\n}\n"),
            Some(kubebuilder_test),
            "Captain",
        );
        assert_eq!(new.type_name("Captain", "Defaulter"), "CaptainDefaulter");
        assert!(!new.standalone_tests);
        assert!(!Generation::of(Some(old_webhook), None, "Admiral").custom_names);
    }
}
