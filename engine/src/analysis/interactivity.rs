//! Interactivity: which elements an agent should be offered, and which of them are disabled.
//!
//! Signals, strongest first:
//! - native controls: `a[href]`, `area[href]`, `button`, `input` (not `type=hidden`), `select`,
//!   `textarea`, `summary`, media with `controls`, `[contenteditable]` (not
//!   `"false"`, where editing starts), `[tabindex >= 0]`, a `label` wrapping a control or with `for`;
//! - ARIA widget roles (from the `role` attribute or the AX tree) and AX states (checked, expanded,
//!   pressed, editable where editing starts, focusable);
//! - `onclick`-style attributes;
//! - Chromium's `isClickable` (which includes JavaScript listeners) and `cursor: pointer` where it
//!   starts (the parent is not `cursor: pointer` too).
//!
//! The weak signals (`isClickable`, `cursor`, AX focusable) are inherited in practice: the `<span>`
//! inside a link is `isClickable` and `cursor: pointer` only because of the link. So an element
//! whose only signals are weak ones and that sits inside an interactive element is not
//! interactive separately. AX focusable alone is not a reason either (`tabindex=-1` and scroll
//! containers are focusable). An `<iframe>` element is a container, not a control, and `<details>`
//! is acted on through its `<summary>`.
//!
//! Interactivity does not depend on visibility: a hidden control is still a control (the renderer
//! decides what to show); whether a click can reach it is the click point's business. Disabled
//! controls stay interactive and are flagged `disabled`. Inert content ([`super::inert`]: an
//! `inert` subtree, everything outside an open modal `<dialog>`) is not interactive at all:
//! Chromium neither focuses nor clicks it, and no click point can reach it.

use super::{inert, NodeFacts};
use crate::model::{AxProp, Cursor, Model, NodeId, StrId};

/// Why an element is interactive: a set of reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Interaction(pub u32);

impl Interaction {
    /// A native control (`a[href]`, `button`, `input`, `select`, `textarea`, `summary`, ...).
    pub const NATIVE: Interaction = Interaction(1);
    /// An ARIA widget role.
    pub const ROLE: Interaction = Interaction(1 << 1);
    /// `tabindex >= 0`.
    pub const TABINDEX: Interaction = Interaction(1 << 2);
    /// `contenteditable` (or AX editable) where editing starts.
    pub const EDITABLE: Interaction = Interaction(1 << 3);
    /// An `onclick`-style attribute.
    pub const HANDLER: Interaction = Interaction(1 << 4);
    /// AX state of a widget: checked, expanded, pressed.
    pub const STATE: Interaction = Interaction(1 << 5);
    /// A label for a control.
    pub const LABEL: Interaction = Interaction(1 << 6);
    /// AX focusable (recorded, but never a reason on its own).
    pub const FOCUSABLE: Interaction = Interaction(1 << 7);
    /// Chromium's `isClickable` (weak).
    pub const CLICKABLE: Interaction = Interaction(1 << 8);
    /// `cursor: pointer` starts here (weak).
    pub const POINTER: Interaction = Interaction(1 << 9);

    const STRONG: u32 = (1 << 7) - 1;

    /// No reason at all.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether every reason of `other` is present.
    pub fn contains(self, other: Interaction) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }
    /// Whether at least one strong reason is present.
    pub fn is_strong(self) -> bool {
        self.0 & Self::STRONG != 0
    }
    /// Short names of the reasons (`native`, `role`, ...).
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        const NAMES: [&str; 10] = [
            "native",
            "role",
            "tabindex",
            "editable",
            "handler",
            "state",
            "label",
            "focusable",
            "clickable",
            "pointer",
        ];
        NAMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, n)| *n)
    }
}

impl std::ops::BitOr for Interaction {
    type Output = Interaction;
    fn bitor(self, rhs: Interaction) -> Interaction {
        Interaction(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Interaction {
    fn bitor_assign(&mut self, rhs: Interaction) {
        self.0 |= rhs.0;
    }
}

/// ARIA roles of widgets an agent acts on.
pub fn is_widget_role(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "link"
            | "checkbox"
            | "radio"
            | "switch"
            | "tab"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "combobox"
            | "textbox"
            | "searchbox"
            | "slider"
            | "spinbutton"
            | "treeitem"
            | "listbox"
            | "scrollbar"
            | "textField"
            | "TextField"
            | "PopUpButton"
            | "ToggleButton"
            | "ComboBoxMenuButton"
            | "ComboBoxGrouping"
    )
}

const HANDLER_ATTRS: &[&str] = &[
    "onclick",
    "onmousedown",
    "onmouseup",
    "onpointerdown",
    "onpointerup",
    "ondblclick",
    "ontouchstart",
];

fn is_form_control(model: &Model, id: NodeId) -> bool {
    match model.tag(id) {
        Some("button" | "select" | "textarea" | "meter" | "output" | "progress") => true,
        Some("input") => !model
            .attr(id, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case("hidden")),
        _ => false,
    }
}

fn editable_value(v: Option<&str>) -> bool {
    match v {
        None => false,
        Some(v) => !v.trim().eq_ignore_ascii_case("false"),
    }
}

/// Which attribute (or AX role) a string of the model is, as far as [`reasons`] cares.
const K_UNKNOWN: u8 = 0;
const K_OTHER: u8 = 1;
const K_TYPE: u8 = 2;
const K_HREF: u8 = 3;
const K_CONTROLS: u8 = 4;
const K_FOR: u8 = 5;
const K_CONTENTEDITABLE: u8 = 6;
const K_TABINDEX: u8 = 7;
const K_ROLE: u8 = 8;
const K_HANDLER: u8 = 9;
/// AX roles: a widget role, a document role.
const K_WIDGET: u8 = 10;
const K_DOCUMENT: u8 = 11;

/// Attribute names and AX roles classified once per distinct string: the snapshot deduplicates
/// strings, so a page with many elements has few distinct attribute names, and a name is
/// compared with the dozen that [`reasons`] reads (ASCII-case-insensitively) once, not once per
/// element that carries it.
struct Kinds {
    /// By string id: as an attribute name, as an AX role (apart, so one string can be both).
    attr: Vec<u8>,
    role: Vec<u8>,
}

impl Kinds {
    fn new(model: &Model) -> Kinds {
        Kinds {
            attr: vec![K_UNKNOWN; model.strings.len()],
            role: vec![K_UNKNOWN; model.strings.len()],
        }
    }

    fn attr(&mut self, model: &Model, name: StrId) -> u8 {
        cached(&mut self.attr, name, || {
            let n = model.str(name);
            const NAMED: [(&str, u8); 7] = [
                ("type", K_TYPE),
                ("href", K_HREF),
                ("controls", K_CONTROLS),
                ("for", K_FOR),
                ("contenteditable", K_CONTENTEDITABLE),
                ("tabindex", K_TABINDEX),
                ("role", K_ROLE),
            ];
            if let Some(&(_, k)) = NAMED.iter().find(|(a, _)| n.eq_ignore_ascii_case(a)) {
                k
            } else if HANDLER_ATTRS.iter().any(|h| n.eq_ignore_ascii_case(h)) {
                K_HANDLER
            } else {
                K_OTHER
            }
        })
    }

    fn role(&mut self, model: &Model, role: StrId) -> u8 {
        cached(&mut self.role, role, || {
            let r = model.str(role);
            if matches!(
                r,
                "RootWebArea" | "WebArea" | "Iframe" | "IframePresentational"
            ) {
                K_DOCUMENT
            } else if is_widget_role(r) {
                K_WIDGET
            } else {
                K_OTHER
            }
        })
    }
}

fn cached(table: &mut [u8], s: StrId, classify: impl FnOnce() -> u8) -> u8 {
    match table.get_mut(s.index()) {
        Some(slot) if *slot == K_UNKNOWN => {
            *slot = classify();
            *slot
        }
        Some(slot) => *slot,
        // A string added after the table was made (never, in practice): classify each time.
        None => classify(),
    }
}

/// The attributes [`reasons`] reads, each the first of its name (as `Model::attr` finds it).
#[derive(Default)]
struct ReadAttrs<'m> {
    type_: Option<&'m str>,
    href: bool,
    controls: bool,
    for_: bool,
    contenteditable: Option<&'m str>,
    tabindex: Option<&'m str>,
    role: Option<&'m str>,
    handler: bool,
}

impl<'m> ReadAttrs<'m> {
    fn of(model: &'m Model, id: NodeId, kinds: &mut Kinds) -> ReadAttrs<'m> {
        let mut r = ReadAttrs::default();
        for a in model.attrs(id) {
            let value = || Some(model.str(a.value));
            match kinds.attr(model, a.name) {
                K_TYPE if r.type_.is_none() => r.type_ = value(),
                K_HREF => r.href = true,
                K_CONTROLS => r.controls = true,
                K_FOR => r.for_ = true,
                K_CONTENTEDITABLE if r.contenteditable.is_none() => r.contenteditable = value(),
                K_TABINDEX if r.tabindex.is_none() => r.tabindex = value(),
                K_ROLE if r.role.is_none() => r.role = value(),
                K_HANDLER => r.handler = true,
                _ => {}
            }
        }
        r
    }
}

/// The reasons an element is interactive, ignoring its ancestors.
pub fn reasons(model: &Model, id: NodeId) -> Interaction {
    reasons_with(model, id, &mut Kinds::new(model))
}

fn reasons_with(model: &Model, id: NodeId, kinds: &mut Kinds) -> Interaction {
    let n = model.node(id);
    let mut r = Interaction::default();
    if !n.is_element() || n.pseudo.is_some() {
        return r;
    }
    let tag = model.str(n.tag);
    let attrs = ReadAttrs::of(model, id, kinds);
    // A hidden input carries form data only; Chromium still reports it `isClickable`.
    if tag == "input"
        && attrs
            .type_
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("hidden"))
    {
        return r;
    }
    match tag {
        "a" | "area" if attrs.href => r |= Interaction::NATIVE,
        "button" | "select" | "textarea" | "summary" => r |= Interaction::NATIVE,
        "input"
            if !attrs
                .type_
                .is_some_and(|t| t.eq_ignore_ascii_case("hidden")) =>
        {
            r |= Interaction::NATIVE
        }
        "video" | "audio" if attrs.controls => r |= Interaction::NATIVE,
        "label"
            if attrs.for_
                || (id.get() + 1..n.subtree_end.get())
                    .any(|c| is_form_control(model, NodeId::new(c))) =>
        {
            r |= Interaction::LABEL;
        }
        _ => {}
    }
    if editable_value(attrs.contenteditable) {
        let parent_editable = model
            .parent_element(id)
            .is_some_and(|p| editable_value(model.attr(p, "contenteditable")));
        if !parent_editable {
            r |= Interaction::EDITABLE;
        }
    }
    if let Some(t) = attrs.tabindex {
        if t.trim().parse::<i64>().is_ok_and(|v| v >= 0) {
            r |= Interaction::TABINDEX;
        }
    }
    if let Some(role) = attrs.role {
        if role
            .split_ascii_whitespace()
            .next()
            .is_some_and(is_widget_role)
        {
            r |= Interaction::ROLE;
        }
    }
    if attrs.handler {
        r |= Interaction::HANDLER;
    }
    if let Some(ax) = n.ax {
        let a = model.ax(ax);
        if !a.ignored {
            let kind = match a.role {
                Some(role) => kinds.role(model, role),
                // No role reads as "": neither a widget nor a document.
                None => K_OTHER,
            };
            let document = kind == K_DOCUMENT;
            if kind == K_WIDGET {
                r |= Interaction::ROLE;
            }
            if !document {
                for p in model.ax_props(ax) {
                    match p.name {
                        AxProp::Checked | AxProp::Pressed | AxProp::Expanded => {
                            r |= Interaction::STATE
                        }
                        AxProp::Editable
                            if p.value.is_truthy()
                                || matches!(p.value, crate::model::AxValue::Str(_)) =>
                        {
                            let parent_editable = model
                                .parent_element(id)
                                .and_then(|pe| model.node(pe).ax)
                                .is_some_and(|pa| model.ax_prop(pa, AxProp::Editable).is_some());
                            if !parent_editable {
                                r |= Interaction::EDITABLE;
                            }
                        }
                        AxProp::Focusable if p.value.is_truthy() => r |= Interaction::FOCUSABLE,
                        _ => {}
                    }
                }
            }
        }
    }
    if n.is_clickable() {
        r |= Interaction::CLICKABLE;
    }
    if let Some(l) = n.layout.map(|l| model.layout(l)) {
        if model.style(l).cursor == Cursor::Pointer {
            let parent_pointer = model
                .ancestors(id)
                .find(|a| model.node(*a).layout.is_some())
                .and_then(|a| model.style_of(a))
                .is_some_and(|s| s.cursor == Cursor::Pointer);
            if !parent_pointer {
                r |= Interaction::POINTER;
            }
        }
    }
    r
}

fn disabled_attr_applies(tag: &str) -> bool {
    matches!(
        tag,
        "button" | "input" | "select" | "textarea" | "option" | "optgroup" | "fieldset"
    )
}

/// Fills `interactive`, `interaction` and `disabled`.
pub fn compute(model: &Model, facts: &mut [NodeFacts]) {
    let n = model.nodes.len();
    let mut kinds = Kinds::new(model);
    let inert = inert::compute(model);
    let all_reasons: Vec<Interaction> = (0..n)
        .map(|i| {
            if inert.get(i).is_some_and(|inert| *inert) {
                Interaction::default()
            } else {
                reasons_with(model, NodeId::new(i as u32), &mut kinds)
            }
        })
        .collect();
    // Whether some proper descendant has a strong reason of its own (children follow their
    // parent in pre-order, so one backward pass propagates it up).
    let mut strong_below = vec![false; n];
    for i in (0..n).rev() {
        if let Some(p) = model.nodes[i].parent {
            if strong_below[i] || all_reasons[i].is_strong() {
                strong_below[p.index()] = true;
            }
        }
    }
    // A page-sized wrapper that only has a delegated click listener or a pointer cursor, around
    // real controls, is where a framework listens, not something to click: offering it would
    // print the whole page under one "clickable" line and hide its weak-signal children.
    let viewport_area = (model.metrics.viewport_width * model.metrics.viewport_height).max(1.0);
    let is_delegation_wrapper = |i: usize, r: Interaction, facts: &[NodeFacts]| {
        !r.is_strong()
            && strong_below[i]
            && facts[i]
                .bounds()
                .is_some_and(|b| b.width * b.height >= 0.25 * viewport_area)
    };
    // Nearest interactive ancestor (inclusive), disabled fieldset ancestor.
    let mut interactive_anc = vec![false; n];
    let mut in_disabled_fieldset = vec![false; n];
    for i in 0..n {
        let id = NodeId::new(i as u32);
        let node = &model.nodes[i];
        let parent = node.parent.map(|p| p.index());
        let anc_interactive = parent.is_some_and(|p| interactive_anc[p]);
        let mut fieldset_disabled = parent.is_some_and(|p| in_disabled_fieldset[p]);
        if fieldset_disabled && model.is_tag(id, "legend") {
            // The first legend of a disabled fieldset is not disabled.
            if let Some(p) = node.parent {
                if model.is_tag(p, "fieldset")
                    && model.children(p).find(|c| model.is_tag(*c, "legend")) == Some(id)
                {
                    fieldset_disabled = parent.is_some_and(|pp| {
                        model.nodes[pp]
                            .parent
                            .is_some_and(|g| in_disabled_fieldset[g.index()])
                    });
                }
            }
        }
        let mut r = all_reasons[i];
        if is_delegation_wrapper(i, r, facts) {
            r = Interaction::default();
        }
        let tag = model.tag(id).unwrap_or("");
        if matches!(tag, "html" | "body") && !r.is_strong() {
            r = Interaction::default();
        }
        if anc_interactive && !r.is_strong() {
            r = Interaction::default();
        }
        if r == Interaction::FOCUSABLE {
            r = Interaction::default();
        }
        let f = &mut facts[i];
        let interactive = !r.is_empty();
        f.interactive = interactive;
        f.interaction = if interactive {
            r
        } else {
            Interaction::default()
        };
        interactive_anc[i] = anc_interactive || interactive;
        if node.is_element() {
            let own_disabled = disabled_attr_applies(tag) && model.has_attr(id, "disabled");
            let ax_disabled = node.ax.is_some_and(|a| model.ax_flag(a, AxProp::Disabled));
            if interactive {
                f.disabled = own_disabled
                    || ax_disabled
                    || (fieldset_disabled && is_form_control(model, id));
            }
            in_disabled_fieldset[i] = fieldset_disabled || (tag == "fieldset" && own_disabled);
        } else {
            in_disabled_fieldset[i] = fieldset_disabled;
        }
    }
}
