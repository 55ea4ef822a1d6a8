//! Fragment manifests: which fragment goes into which file, and how.
//!
//! A command folder of a plugin (`scaffolds/<plugin>/<command>/`) may hold a
//! `fragments/` folder of templates and, beside it, `fragments.toml`, which
//! declares for each fragment the file it edits and how. Fragments are listed
//! in groups (tables of arrays); the plugin picks the groups a request needs:
//!
//! ```toml
//! [[defaulting]]
//! fragment = "defaulter.jinja"                         # under fragments/
//! file = "webhooks/{group_dir}/{version}/{kind}_webhook.txt"
//! insert = "+kubebuilder:scaffold:webhook-types"           # above this marker line
//! ```
//!
//! Instead of `insert`, `uncomment = true` switches the fragment on where it
//! stands commented out, and `append = true` adds it at the end of the file.
//! Files the other tool wrote may lack our markers or word their comments
//! differently, so an `insert` may name a `fallback` place found from the
//! file's code (see [`Place`]; the plugin hands its places over with
//! [`Fragments::with_places`]), and an `uncomment` block, recognised by its
//! YAML alone, may be pinned with `above = "<marker>"` to the block that ends
//! at that marker line.

use super::places::{self, Place};
use super::templates::{Context, Templates, fill_placeholders};
use super::{Change, Plan, embedded_text};
use anyhow::{Context as _, Result, anyhow, bail};
use std::collections::BTreeMap;
use std::path::Path;

/// How a fragment is applied to its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Inserted above the marker line of `marker`, or at the place named
    /// `fallback` in a file without that marker.
    Insert {
        marker: String,
        fallback: Option<String>,
    },
    /// Switched on where it stands commented out with `#`; with `above`,
    /// the block that ends at that marker line.
    Uncomment { above: Option<String> },
    /// Added at the end of the file.
    Append,
}

/// One fragment and where it goes.
#[derive(Debug, Clone)]
pub struct Fragment {
    /// Template name under the command's `fragments/` folder.
    pub template: String,
    /// The file it edits, with `{placeholder}` segments.
    pub file: String,
    /// How it is applied.
    pub placement: Placement,
}

/// The fragments of one command folder, by group.
#[derive(Debug)]
pub struct Fragments {
    /// `<plugin>/<command>`, for template names and error messages.
    folder: String,
    /// Fragments by group, in manifest order.
    groups: BTreeMap<String, Vec<Fragment>>,
    /// The places a `fallback` may name, from the plugin.
    places: &'static [&'static dyn Place],
}

impl Fragments {
    /// Reads `scaffolds/<plugin>/<command>/fragments.toml`.
    pub fn load(plugin: &str, command: &str) -> Result<Self> {
        let folder = format!("{plugin}/{command}");
        let path = format!("{folder}/fragments.toml");
        let text = embedded_text(&path).ok_or_else(|| anyhow!("no {path} embedded"))?;
        let groups = parse(text).with_context(|| format!("invalid {path}"))?;
        Ok(Self {
            folder,
            groups,
            places: &[],
        })
    }

    /// These fragments with `places` as the places a `fallback` may name;
    /// fails when the manifest names another.
    pub fn with_places(mut self, places: &'static [&'static dyn Place]) -> Result<Self> {
        self.places = places;
        for fragment in self.groups.values().flatten() {
            self.fallback(fragment)?;
        }
        Ok(self)
    }

    /// The place `fragment` falls back to, if it names one.
    fn fallback(&self, fragment: &Fragment) -> Result<Option<&'static dyn Place>> {
        let Placement::Insert {
            fallback: Some(name),
            ..
        } = &fragment.placement
        else {
            return Ok(None);
        };
        let place = places::named(self.places, name).ok_or_else(|| {
            anyhow!(
                "{}/fragments.toml: {}: unknown fallback {name:?}; known places: {}",
                self.folder,
                fragment.template,
                places::names(self.places)
            )
        })?;
        Ok(Some(place))
    }

    /// Plans every fragment of `group`: renders it (the template must be
    /// loaded in `templates`, which holds `<command>/fragments`) and adds the
    /// change to `plan`, with the file's placeholders filled from `vars`.
    pub fn plan(
        &self,
        group: &str,
        templates: &Templates,
        context: &Context,
        vars: &[(&str, &str)],
        plan: &mut Plan,
    ) -> Result<()> {
        let fragments = self
            .groups
            .get(group)
            .ok_or_else(|| anyhow!("{}/fragments.toml has no group {group}", self.folder))?;
        let command = self.folder.rsplit('/').next().unwrap_or_default();
        for fragment in fragments {
            let name = format!("{command}/fragments/{}", fragment.template);
            let text = templates.render(&name, context)?;
            let path = fill_placeholders(Path::new(&fragment.file), vars);
            plan.push(match &fragment.placement {
                Placement::Insert { marker, .. } => Change::Insert {
                    path,
                    marker: marker.clone(),
                    fragment: text,
                    fallback: self.fallback(fragment)?,
                },
                Placement::Uncomment { above } => Change::Uncomment {
                    path,
                    text,
                    above: above.clone(),
                },
                Placement::Append => Change::Append { path, text },
            });
        }
        Ok(())
    }

    /// Every fragment of every group, with the template name it renders
    /// (relative to the plugin folder).
    pub fn all(&self) -> impl Iterator<Item = (String, &Fragment)> {
        let command = self.folder.rsplit('/').next().unwrap_or_default();
        self.groups.values().flatten().map(move |fragment| {
            (
                format!("{command}/fragments/{}", fragment.template),
                fragment,
            )
        })
    }
}

/// Parses a manifest into its groups.
fn parse(text: &str) -> Result<BTreeMap<String, Vec<Fragment>>> {
    let doc: toml_edit::DocumentMut = text.parse()?;
    let mut groups = BTreeMap::new();
    for (group, item) in doc.iter() {
        let tables = item
            .as_array_of_tables()
            .ok_or_else(|| anyhow!("{group} is not a list of [[{group}]] tables"))?;
        let fragments = tables
            .iter()
            .map(|table| fragment(table).with_context(|| format!("in [[{group}]]")))
            .collect::<Result<Vec<_>>>()?;
        groups.insert(group.to_string(), fragments);
    }
    Ok(groups)
}

/// One `[[group]]` table.
fn fragment(table: &toml_edit::Table) -> Result<Fragment> {
    let text = |key: &str| table.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let flag = |key: &str| table.get(key).and_then(|v| v.as_bool()) == Some(true);
    let template = text("fragment").ok_or_else(|| anyhow!("a fragment has no `fragment`"))?;
    let file = text("file").ok_or_else(|| anyhow!("{template} has no `file`"))?;
    let placement = match (text("insert"), flag("uncomment"), flag("append")) {
        (Some(marker), false, false) => Placement::Insert {
            marker,
            fallback: text("fallback"),
        },
        (None, true, false) => Placement::Uncomment {
            above: text("above"),
        },
        (None, false, true) => Placement::Append,
        _ => bail!("{template} needs exactly one of `insert`, `uncomment = true`, `append = true`"),
    };
    if text("fallback").is_some() && !matches!(placement, Placement::Insert { .. }) {
        bail!("{template}: `fallback` goes with `insert`");
    }
    if text("above").is_some() && !matches!(placement, Placement::Uncomment { .. }) {
        bail!("{template}: `above` goes with `uncomment = true`");
    }
    Ok(Fragment {
        template,
        file,
        placement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_lists_fragments_by_group() {
        let groups = parse(
            "[[a]]\nfragment = \"x.txt.jinja\"\nfile = \"cmd/main.txt\"\ninsert = \"+m\"\n\n\
             [[a]]\nfragment = \"y.yaml.jinja\"\nfile = \"k.yaml\"\nuncomment = true\n",
        )
        .unwrap();
        let a = &groups["a"];
        assert_eq!(
            a[0].placement,
            Placement::Insert {
                marker: "+m".into(),
                fallback: None
            }
        );
        assert_eq!(a[1].placement, Placement::Uncomment { above: None });
        assert_eq!(a[1].file, "k.yaml");
    }

    #[test]
    fn fallbacks_and_anchors_are_read_and_checked() {
        let groups = parse(
            "[[a]]\nfragment = \"x\"\nfile = \"f\"\ninsert = \"+m\"\nfallback = \"end-of-file\"\n\n\
             [[a]]\nfragment = \"y\"\nfile = \"k\"\nuncomment = true\nabove = \"+n\"\n",
        )
        .unwrap();
        assert_eq!(
            groups["a"][0].placement,
            Placement::Insert {
                marker: "+m".into(),
                fallback: Some("end-of-file".into())
            }
        );
        assert_eq!(
            groups["a"][1].placement,
            Placement::Uncomment {
                above: Some("+n".into())
            }
        );
        let err = parse("[[a]]\nfragment = \"x\"\nfile = \"f\"\nappend = true\nabove = \"+m\"\n")
            .unwrap_err();
        assert!(format!("{err:#}").contains("`above` goes with"), "{err:#}");
    }

    /// A place for the tests: the end of the file.
    struct AtEnd;

    impl Place for AtEnd {
        fn name(&self) -> &'static str {
            "at-end"
        }
        fn describe(&self) -> &'static str {
            "an end"
        }
        fn insert(&self, text: &mut String, fragment: &str) -> bool {
            text.push_str(fragment);
            true
        }
    }

    static PLACES: &[&dyn Place] = &[&AtEnd];

    fn with_fallback(name: &str) -> Fragments {
        let manifest = format!(
            "[[a]]\nfragment = \"x\"\nfile = \"f\"\ninsert = \"+m\"\nfallback = \"{name}\"\n"
        );
        Fragments {
            folder: "p/c".into(),
            groups: parse(&manifest).unwrap(),
            places: &[],
        }
    }

    #[test]
    fn a_fallback_names_a_place_the_plugin_hands_over() {
        let fragments = with_fallback("at-end").with_places(PLACES).unwrap();
        let fragment = &fragments.groups["a"][0];
        assert_eq!(
            fragments.fallback(fragment).unwrap().unwrap().name(),
            "at-end"
        );
        let err = with_fallback("nowhere").with_places(PLACES).unwrap_err();
        assert!(
            format!("{err:#}").contains("known places: at-end"),
            "{err:#}"
        );
        let unplaced = with_fallback("at-end");
        let err = unplaced.fallback(&unplaced.groups["a"][0]).unwrap_err();
        assert!(format!("{err:#}").contains("known places: none"), "{err:#}");
    }

    #[test]
    fn a_fragment_needs_one_placement() {
        let err = parse("[[a]]\nfragment = \"x\"\nfile = \"f\"\n").unwrap_err();
        assert!(format!("{err:#}").contains("exactly one"), "{err:#}");
    }
}
