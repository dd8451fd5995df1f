//! The accessibility nodes of the model: roles, names, properties and values, as the
//! accessibility tree gives them, in small types.

use super::{AxId, NodeId, StrId};

/// An accessibility property name (the protocol's `AXPropertyName`), as a small enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxProp {
    Busy,
    Disabled,
    Editable,
    Focusable,
    Focused,
    Hidden,
    HiddenRoot,
    Invalid,
    Keyshortcuts,
    Settable,
    Roledescription,
    Live,
    Atomic,
    Relevant,
    Root,
    Autocomplete,
    HasPopup,
    Level,
    Multiselectable,
    Orientation,
    Multiline,
    Readonly,
    Required,
    Valuemin,
    Valuemax,
    Valuetext,
    Checked,
    Expanded,
    Modal,
    Pressed,
    Selected,
    Activedescendant,
    Controls,
    Describedby,
    Details,
    Errormessage,
    Flowto,
    Labelledby,
    Owns,
    Url,
    /// Any other property; its protocol name is in the string table.
    Other(StrId),
}

/// A parsed accessibility value (the protocol's `AXValue`, reduced to what callers use).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AxValue {
    /// Boolean, tristate `"true"`/`"false"`, booleanOrUndefined.
    Bool(bool),
    /// Tristate `"mixed"` (a half-checked checkbox, a half-pressed toggle).
    Mixed,
    /// Integer or number.
    Number(f64),
    /// String, computed string, token, role, ...
    Str(StrId),
    /// A reference to other nodes (idref, idrefList, nodeList), or a value with no content.
    Other,
}

impl AxValue {
    /// `true` for `Bool(true)` and `Mixed`.
    pub fn is_truthy(&self) -> bool {
        matches!(self, AxValue::Bool(true) | AxValue::Mixed)
    }
}

/// An accessibility property of an [`AxNode`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxProperty {
    pub name: AxProp,
    pub value: AxValue,
}

/// One node of the accessibility tree. The protocol's own `nodeId` is not kept: it only says
/// how the tree hangs together, which `parent` and the children already say, and every pass
/// over a long page's accessibility nodes streams them through memory.
#[derive(Debug, Clone)]
pub struct AxNode {
    /// `ignored`: not exposed to assistive technology (layout-only wrappers, hidden nodes).
    pub ignored: bool,
    /// `role.value` (`button`, `link`, `generic`, `StaticText`, `RootWebArea`, ...).
    pub role: Option<StrId>,
    /// `name.value`: the accessible name.
    pub name: Option<StrId>,
    /// `description.value`.
    pub description: Option<StrId>,
    /// `value.value` (text fields, sliders, ...).
    pub value: Option<AxValue>,
    /// `Model::ax_props[props_start..props_end]`.
    pub props_start: u32,
    pub props_end: u32,
    /// The parent AX node.
    pub parent: Option<AxId>,
    /// `Model::ax_children[children_start..children_end]`.
    pub children_start: u32,
    pub children_end: u32,
    /// The DOM node (`backendDOMNodeId`), when it is in the snapshot.
    pub node: Option<NodeId>,
    /// `backendDOMNodeId` as sent, even when the DOM node is not in the snapshot.
    pub backend_dom_node_id: Option<i64>,
    /// The frame whose AX tree this node came from.
    pub frame_id: Option<StrId>,
}
