//! Places in a file found from its code, for files without a scaffold marker.
//!
//! A file the other tool wrote may lack the marker a fragment is bound for.
//! So that either tool can continue the other's files, a fragment may name a
//! place to use instead (`fallback` in `fragments.toml`). Where such a place
//! is depends on the file's language, so the machinery defines none: the
//! plugin that knows the language implements [`Place`] and hands its places
//! to [`Fragments::with_places`](super::Fragments::with_places).

use std::fmt;

/// A place in a file, found from its code.
pub trait Place: Sync {
    /// Its name in `fragments.toml` (`end-of-imports`).
    fn name(&self) -> &'static str;

    /// What the file's code must hold for this place to exist, for messages.
    fn describe(&self) -> &'static str;

    /// Inserts `fragment` (ending with a newline) at this place of `text`,
    /// leaving every other byte as it was; false, with `text` unchanged,
    /// when the file's code has no such place.
    fn insert(&self, text: &mut String, fragment: &str) -> bool;
}

impl fmt::Debug for dyn Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Place({})", self.name())
    }
}

impl PartialEq for dyn Place {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Place {}

/// The place called `name` among `places`.
pub fn named(places: &[&'static dyn Place], name: &str) -> Option<&'static dyn Place> {
    places.iter().copied().find(|place| place.name() == name)
}

/// The names of `places`, for error messages.
pub fn names(places: &[&'static dyn Place]) -> String {
    let names: Vec<&str> = places.iter().map(|place| place.name()).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
