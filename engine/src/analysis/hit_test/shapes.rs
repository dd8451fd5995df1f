//! What cuts each node's hit area (see [`crate::analysis::shape`]): the transforms that turn
//! it, and the rounded shapes of its own box and of its content.

use super::paint::F_ATOMIC;
use super::NONE;
use crate::analysis::shape::Shape;
use crate::model::{ClipPath, Model, NodeId};

/// Per node, what cuts its hit area (see [`super::shape`]): the linear map of the transforms
/// above it when they turn it, and the rounded shapes of its own box and of its content. Empty
/// tables on a page that neither turns nor rounds anything.
pub(super) struct Shapes {
    /// Composed `[a, b, c, d]` per node; empty when nothing on the page is turned.
    turn: Vec<[f64; 4]>,
    /// Rounded shapes, document coordinates of their node.
    pub(super) defs: Vec<Shape>,
    /// Per node: the shape of its own box, and the one its content is cut by (into `defs`).
    own: Vec<u32>,
    content: Vec<u32>,
}

impl Shapes {
    /// The shapes of the nodes `reach` marks (the others keep the defaults: no turn, no shape).
    pub(super) fn new(model: &Model, flags: &[u8], reach: &[bool]) -> Shapes {
        let n = model.nodes.len();
        let any_turned = model
            .styles
            .iter()
            .any(|s| s.transform_rotated && !s.transform_3d);
        let any_rounded = model.styles.iter().any(|s| {
            !s.border_radius.is_none()
                || matches!(s.clip_path, ClipPath::Ellipse(_) | ClipPath::Polygon(_))
        });
        let mut out = Shapes {
            turn: Vec::new(),
            defs: Vec::new(),
            own: Vec::new(),
            content: Vec::new(),
        };
        if any_turned {
            const ID: [f64; 4] = [1.0, 0.0, 0.0, 1.0];
            out.turn = vec![ID; n];
            for i in (0..n).filter(|&i| reach[i]) {
                let node = &model.nodes[i];
                let p = node
                    .parent
                    .filter(|p| model.node(*p).doc == node.doc)
                    .map_or(ID, |p| out.turn[p.index()]);
                let own = model
                    .layout_of(NodeId::new(i as u32))
                    .map(|l| model.style(l))
                    .filter(|s| node.is_element() && s.transformed && !s.transform_3d)
                    .map(|s| s.transform_linear.map(f64::from));
                out.turn[i] = match own {
                    // The parent's map after the node's own.
                    Some(o) => [
                        p[0] * o[0] + p[2] * o[1],
                        p[1] * o[0] + p[3] * o[1],
                        p[0] * o[2] + p[2] * o[3],
                        p[1] * o[2] + p[3] * o[3],
                    ],
                    None => p,
                };
            }
        }
        if any_rounded {
            out.own = vec![NONE; n];
            out.content = vec![NONE; n];
            // Whether a node's content shape comes from its parent's overflow clip (which an
            // absolutely positioned or fixed child escapes) rather than a `clip-path`.
            let mut from_overflow = vec![false; n];
            for i in (0..n).filter(|&i| reach[i]) {
                let node = &model.nodes[i];
                let id = NodeId::new(i as u32);
                let parent = node.parent.filter(|p| model.node(*p).doc == node.doc);
                let layout = model.layout_of(id);
                let style = layout.map(|l| model.style(l));
                let escapes =
                    node.is_element() && style.is_some_and(|s| s.position.is_out_of_flow());
                let (mut inherited, mut overflow) = match parent {
                    Some(p) if !(escapes && from_overflow[p.index()]) => {
                        (out.content[p.index()], from_overflow[p.index()])
                    }
                    _ => (NONE, false),
                };
                let (Some(l), Some(s), true) = (layout, style, node.is_element()) else {
                    out.own[i] = inherited;
                    out.content[i] = inherited;
                    from_overflow[i] = overflow;
                    continue;
                };
                let clip = match s.clip_path {
                    ClipPath::Ellipse(e) => Some(Shape::ellipse(e.rect_in(l.bounds))),
                    ClipPath::Polygon(p) => Some(Shape::polygon(&p, l.bounds)),
                    _ => None,
                };
                if let Some(clip) = clip {
                    out.defs.push(clip);
                    inherited = out.defs.len() as u32 - 1;
                    overflow = false;
                }
                let mut own = inherited;
                // An inline box is cut per line, which is not followed; an atomic inline (an
                // image, an inline-block) is one box.
                let one_box = !s.display.is_inline() || flags[i] & F_ATOMIC != 0;
                if !s.border_radius.is_none() && one_box && !l.bounds.is_empty() {
                    out.defs.push(Shape::Rounded {
                        rect: l.bounds,
                        radii: s.border_radius.resolve(l.bounds),
                    });
                    own = out.defs.len() as u32 - 1;
                    if s.clips_overflow() && inherited == NONE {
                        inherited = own;
                        overflow = true;
                    }
                }
                out.own[i] = own;
                out.content[i] = inherited;
                from_overflow[i] = overflow;
            }
        }
        out
    }

    /// The linear map turning the node, when it is turned.
    pub(super) fn turn(&self, i: usize) -> Option<[f64; 4]> {
        let m = *self.turn.get(i)?;
        (m[1].abs() > 1e-6 || m[2].abs() > 1e-6).then_some(m)
    }

    /// The shape of the node's own box ([`NONE`] for its rectangle).
    pub(super) fn own(&self, i: usize) -> u32 {
        self.own.get(i).copied().unwrap_or(NONE)
    }

    /// The shape that cuts the node's content ([`NONE`] when nothing does).
    pub(super) fn inherited(&self, i: usize) -> u32 {
        self.content.get(i).copied().unwrap_or(NONE)
    }
}
