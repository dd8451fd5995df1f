//! How much of the accessibility tree a capture holds ([`AxScope`]): all of it, only what a
//! snapshot of its view can print (the (expanded) viewport, or one element's subtree), or none
//! (a capture taken for the main content, which reads the DOM and its layout alone).
//! Rendering a scoped capture with a wider view is refused rather than shown with less: a
//! viewport scope with `--expand all`, a larger `--expand` or `verbose`, a subtree scope with
//! anything but the subtree of its own element (`live::scope` says which views a scope serves
//! and which nodes it asks for).

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
    /// Only the nodes of one element's DOM subtree (what `aria-owns` inside it names
    /// included) and of its ancestors: what a snapshot with `uid` prints.
    Subtree {
        /// The element's `backendNodeId` (in whichever renderer holds it).
        #[serde(rename = "backendNodeId")]
        backend_node_id: i64,
    },
    /// No accessibility nodes: the whole page's DOM, layout and styles only. What an
    /// extraction reads (see `crate::extract`): computing the accessibility tree is most of what
    /// a whole-page capture costs Chromium, and the content needs none of it. No snapshot is
    /// rendered from such a capture.
    None,
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
        let s = AxScope::Subtree {
            backend_node_id: 42,
        };
        let j = serde_json::to_value(s).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"kind": "subtree", "backendNodeId": 42})
        );
        assert_eq!(serde_json::from_value::<AxScope>(j).unwrap(), s);
        let j = serde_json::to_value(AxScope::None).unwrap();
        assert_eq!(j, serde_json::json!({"kind": "none"}));
        assert_eq!(serde_json::from_value::<AxScope>(j).unwrap(), AxScope::None);
    }
}
