//! How much of the accessibility tree a capture holds ([`AxScope`]): all of it, or only what a
//! snapshot of its view can print. Rendering a viewport-scoped capture with a wider view
//! (`--expand all`, a larger `--expand`, `verbose`) is refused rather than shown with less
//! (`live::scope` says which views a scope serves and which nodes it asks for).

use serde::{Deserialize, Serialize};

/// How much of the accessibility tree a capture holds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum AxScope {
    /// Every frame's full tree (`Accessibility.getFullAXTree`).
    #[default]
    Full,
    /// Only the nodes of what intersects the viewport grown by `expand` CSS px, and their
    /// ancestors.
    Viewport {
        /// CSS px added on every side of the viewport.
        expand: f64,
    },
}

impl AxScope {
    /// Whether the full tree is held.
    pub fn is_full(&self) -> bool {
        matches!(self, AxScope::Full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_reads_and_writes_as_json() {
        let s = AxScope::Viewport { expand: 500.0 };
        let j = serde_json::to_value(s).unwrap();
        assert_eq!(j, serde_json::json!({"kind": "viewport", "expand": 500.0}));
        assert_eq!(serde_json::from_value::<AxScope>(j).unwrap(), s);
    }
}
