//! `create webhook` for go/v4: defaulting, validating and conversion webhooks.
//!
//! The webhook file and its test start as skeletons holding only markers;
//! each webhook type is a group of fragments inserted at those markers
//! (declared in `scaffolds/go/v4/create-webhook/fragments.toml`), always in
//! the order defaulting, validation, conversion.

use super::resource_view::{ResourceView, go_identifier};
use super::{STORAGE_VERSION_MARKER, TEMPLATE_DIR, base_context, read_go_header};
use crate::machinery::{Change, Context, Fragments, Plan, Templates};
use crate::plugins::WebhookContext;
use crate::project::bookkeeping::WebhookOptions;
use crate::resource::Resource;
use anyhow::Result;
use serde::Serialize;

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
}

/// Plans the Go side of `create webhook`.
pub fn plan(ctx: &WebhookContext, plan: &mut Plan) -> Result<()> {
    let (project, resource, options) = (ctx.project, ctx.resource, ctx.options);
    let multigroup = project.multigroup == Some(true);
    let repo = project.repo.clone().unwrap_or_default();
    let view = ResourceView::new(resource, &repo, multigroup, false);
    let webhook = webhook_view(options, &view, &repo, multigroup);

    let templates = Templates::load(TEMPLATE_DIR, &["create-webhook"])?;
    let fragments = Fragments::load(TEMPLATE_DIR, "create-webhook")?;
    let mut context = base_context(project, &read_go_header(ctx.dir))?;
    context.insert("resource", &view);
    context.insert("webhook", &webhook);
    context.insert("hub", &resource.version);
    context.insert("spokes", &options.spokes);
    let group_dir = if multigroup {
        resource.group.as_str()
    } else {
        ""
    };
    let vars = [
        ("group_dir", group_dir),
        ("version", resource.version.as_str()),
        ("kind", resource.kind_lower.as_str()),
        ("hub", resource.version.as_str()),
    ];

    for template in templates.tree("create-webhook/webhook") {
        let contents = templates.render(&template.name, &context)?;
        plan.push(Change::CreateIfMissing {
            path: template.output_with(&vars),
            contents,
        });
    }
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
    for group in webhook_groups(options) {
        fragments.plan(group, &templates, &context, &vars, plan)?;
    }
    Ok(())
}

/// The fragment groups a request needs, in the order they are planned.
pub fn webhook_groups(options: &WebhookOptions) -> Vec<&'static str> {
    let mut groups = vec!["common"];
    for (wanted, group) in [
        (options.defaulting, "defaulting"),
        (options.validation, "validation"),
        (options.conversion, "conversion"),
    ] {
        if wanted {
            groups.push(group);
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
    for template in templates.tree("create-webhook/conversion") {
        let per_spoke = template.output.to_string_lossy().contains("{spoke}");
        let spoke_list: Vec<Option<&String>> = if per_spoke {
            spokes.iter().map(Some).collect()
        } else {
            vec![None]
        };
        for spoke in spoke_list {
            let mut all_vars = vars.to_vec();
            if let Some(spoke) = spoke {
                context.insert("spoke", spoke);
                all_vars.push(("spoke", spoke.as_str()));
            }
            let contents = templates.render(&template.name, context)?;
            plan.push(Change::Create {
                path: template.output_with(&all_vars),
                contents,
            });
        }
    }
    Ok(())
}

/// Builds `webhook.*` for templates.
fn webhook_view(
    options: &WebhookOptions,
    view: &ResourceView,
    repo: &str,
    multigroup: bool,
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
        import_path: format!("{repo}/internal/webhook/{group_dir}{}", resource.version),
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
    }
}
