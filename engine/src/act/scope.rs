//! Where an action happens: the renderer session that holds the node, the JavaScript world the
//! action's helper functions run in, and how that frame's viewport sits inside the top-level
//! viewport.
//!
//! Why a scope and not just the page:
//! - **Out-of-process iframes** (cross-site frames) are separate renderers with CDP sessions of
//!   their own: their nodes are only known there (`DOM.resolveNode`, `DOM.getContentQuads`,
//!   `DOM.getNodeForLocation` all answer in the frame's own coordinates). Input, however, is
//!   one stream for the whole tab: `Input.dispatchMouseEvent` goes to the page's session in
//!   top-level viewport coordinates, and Chromium routes it to whichever renderer is under the
//!   pointer. So a point chosen inside the frame is translated through the content box of each
//!   owner `<iframe>` up to the page, and each level's own hit test must answer the owner
//!   `<iframe>` at that point — otherwise something of the parent page covers the frame there.
//!   The translation follows CSS transforms of the `<iframe>` (its content quad gives the
//!   frame's axes in the parent, its border quad against its layout size their scale). Chromium
//!   routes input to such a frame by what the page last drew, so after the point is chosen
//!   (possibly after scrolling) the page is given two animation frames before the input.
//! - **Isolated worlds**: the helper functions actions run (state checks, value read-back,
//!   scroll figures, hit-test containment) must not see a page's own JavaScript. A page can
//!   override `Element.prototype.getBoundingClientRect`, the `value` setter of inputs,
//!   `getComputedStyle` or `document.elementFromPoint` in its main world; an isolated world
//!   (`Page.createIsolatedWorld`) shares the DOM but has pristine built-ins. One world per frame
//!   is created and cached by the frame's `loaderId` (a new document gets a new world; the old
//!   context is gone with its document). If Chromium refuses to create one, that action uses
//!   the page's main world, and the next one asks again.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::browser::Page;
use crate::cdp::dom::{GetBoxModelParams, GetFrameOwnerParams};
use crate::cdp::page::CreateIsolatedWorldParams;
use crate::error::{Error, ErrorCode, Result};

/// The name of the isolated world actions run their helpers in.
const WORLD_NAME: &str = "pagesight";

/// A frame of a session: (session id, frame id).
type FrameKey = (String, String);
/// A frame's world: the loader id of its document and the execution context id.
type WorldEntry = (String, i64);
/// At most this many frames' worlds are remembered.
const MAX_WORLDS: usize = 256;

/// The isolated worlds created so far, per frame of a session.
#[derive(Debug, Default)]
pub(crate) struct Worlds {
    known: Mutex<FxHashMap<FrameKey, WorldEntry>>,
}

impl Worlds {
    fn lookup(&self, key: &FrameKey, loader: &str) -> Option<i64> {
        let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        known.get(key).filter(|(l, _)| l == loader).map(|(_, c)| *c)
    }

    /// The execution context of the isolated world in `frame_id` (document `loader_id`) on
    /// `session`, created on first use.
    pub(crate) async fn context(
        &self,
        session: &Page,
        frame_id: &str,
        loader_id: &str,
    ) -> Option<i64> {
        let key = (session.session_id().to_string(), frame_id.to_string());
        if let Some(known) = self.lookup(&key, loader_id) {
            return Some(known);
        }
        let created = session
            .send(&CreateIsolatedWorldParams {
                world_name: Some(WORLD_NAME.to_string()),
                grant_univeral_access: Some(false),
                ..CreateIsolatedWorldParams::new(frame_id.to_string())
            })
            .await
            .ok()
            .map(|r| r.execution_context_id);
        // Only a created world is remembered: a refusal may be passing (a frame between two
        // documents), and the next action asks again rather than staying in the main world.
        if let Some(context) = created {
            let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
            // Frames come and go (ads rotate theirs): the cache does not grow without end, and
            // a forgotten frame's world costs one more round trip to ask for.
            if known.len() >= MAX_WORLDS {
                known.clear();
            }
            known.insert(key, (loader_id.to_string(), context));
        }
        created
    }

    /// Forgets the world of a frame (its context was destroyed without a new document).
    pub(crate) fn forget(&self, session: &Page, frame_id: &str) {
        let key = (session.session_id().to_string(), frame_id.to_string());
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        known.remove(&key);
    }
}

/// One `<iframe>` between a scope's frame and the page: the session that holds the element,
/// the element, and the frame id of the document it sits in (for that level's world).
#[derive(Debug, Clone)]
pub(crate) struct Owner {
    pub parent: Page,
    pub parent_frame: String,
    pub parent_loader: String,
    pub iframe: i64,
}

/// Where an action's node lives (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// The renderer session that holds the node's document.
    pub session: Page,
    /// The frame of the node's document.
    pub frame_id: String,
    /// The loader id of that document when the action began: another one later means the frame
    /// loaded a new document meanwhile.
    pub loader: String,
    /// The isolated world's execution context there (`None`: the main world).
    pub world: Option<i64>,
    /// For a frame in another renderer: its owner `<iframe>`s, innermost first.
    pub owners: Vec<Owner>,
}

/// One owner level, measured now: how a point of the frame's viewport maps into its parent's
/// viewport — the owner's content-box origin plus the frame's x and y axes there (CSS
/// transforms on the `<iframe>` or its ancestors scale and rotate them) — and the parent's
/// scroll offset (its hit test takes document coordinates).
#[derive(Debug, Clone)]
pub(crate) struct Level {
    pub owner: Owner,
    pub origin: (f64, f64),
    pub x_axis: (f64, f64),
    pub y_axis: (f64, f64),
    pub scroll_x: f64,
    pub scroll_y: f64,
}

impl Level {
    /// A point of the frame's viewport in the parent's viewport.
    pub(crate) fn map(&self, x: f64, y: f64) -> (f64, f64) {
        (
            self.origin.0 + x * self.x_axis.0 + y * self.y_axis.0,
            self.origin.1 + x * self.x_axis.1 + y * self.y_axis.1,
        )
    }
}

/// The frame's axes in its parent from the owner's box model: the content quad gives their
/// directions, the border quad's size against the untransformed border-box size their scale.
fn axes(content: &[f64], border: &[f64], width: f64, height: f64) -> Option<Axes> {
    if content.len() < 8 || border.len() < 8 || width <= 0.0 || height <= 0.0 {
        return None;
    }
    let edge = |q: &[f64], to: usize| (q[2 * to] - q[0], q[2 * to + 1] - q[1]);
    let len = |(x, y): (f64, f64)| (x * x + y * y).sqrt();
    let (top, left) = (edge(content, 1), edge(content, 3));
    let (scale_x, scale_y) = (len(edge(border, 1)) / width, len(edge(border, 3)) / height);
    let (lt, ll) = (len(top), len(left));
    let axes = Axes {
        origin: (content[0], content[1]),
        x_axis: (top.0 / lt * scale_x, top.1 / lt * scale_x),
        y_axis: (left.0 / ll * scale_y, left.1 / ll * scale_y),
    };
    // A collapsed frame (`scale(0)`) has no point to click; huge coordinates overflow to
    // infinities and NaN, which no mouse event can take.
    let finite = [axes.origin, axes.x_axis, axes.y_axis]
        .iter()
        .all(|(x, y)| x.is_finite() && y.is_finite());
    let sized = [lt, ll, scale_x, scale_y]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0);
    (finite && sized).then_some(axes)
}

/// Where a frame sits in its parent: its content-box origin and its x and y axes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Axes {
    origin: (f64, f64),
    x_axis: (f64, f64),
    y_axis: (f64, f64),
}

/// A point of the scope's frame (its viewport CSS px) as the page sees it.
pub(crate) enum Reach {
    /// A click at this top-level viewport point reaches the frame.
    Top(f64, f64),
    /// Something of an ancestor document covers the frame there: the session, the frame id and
    /// loader id of the document, the `backendNodeId` of what covers it, and the point in that
    /// document's viewport.
    Covered(Page, String, String, i64, (f64, f64)),
    /// The point is outside an ancestor's viewport.
    Outside,
}

impl Scope {
    /// A scope of the page's own document in `frame_id`.
    pub(crate) fn page(page: &Page, frame_id: &str, loader: &str, world: Option<i64>) -> Scope {
        Scope {
            session: page.clone(),
            frame_id: frame_id.to_string(),
            loader: loader.to_string(),
            world,
            owners: Vec::new(),
        }
    }

    /// Measures where each owner `<iframe>` is now (innermost first).
    pub(crate) async fn levels(&self) -> Result<Vec<Level>> {
        let mut out = Vec::with_capacity(self.owners.len());
        for owner in &self.owners {
            let boxes = owner
                .parent
                .send(&GetBoxModelParams {
                    backend_node_id: Some(owner.iframe),
                    ..Default::default()
                })
                .await
                .map_err(|e| match e.code() {
                    ErrorCode::ProtocolError => Error::new(
                        ErrorCode::NotInteractable,
                        "the frame that holds this element is not rendered (its <iframe> has no \
                         box); take a new snapshot",
                    ),
                    _ => e,
                })?;
            let m = &boxes.model;
            let Some(geometry) = axes(&m.content, &m.border, m.width as f64, m.height as f64)
            else {
                return Err(Error::new(
                    ErrorCode::NotInteractable,
                    "the frame that holds this element has no usable box; take a new snapshot",
                ));
            };
            let vp = super::remote::viewport(&owner.parent).await?;
            out.push(Level {
                owner: owner.clone(),
                origin: geometry.origin,
                x_axis: geometry.x_axis,
                y_axis: geometry.y_axis,
                scroll_x: vp.scroll_x,
                scroll_y: vp.scroll_y,
            });
        }
        Ok(out)
    }

    /// Where the frame point `(x, y)` lands on the page, checking at every level that the
    /// parent's hit test answers the owner `<iframe>` there.
    pub(crate) async fn reach(levels: &[Level], x: f64, y: f64) -> Result<Reach> {
        let (mut x, mut y) = (x, y);
        for level in levels {
            (x, y) = level.map(x, y);
            let hit = crate::live::hit_test_at(
                &level.owner.parent,
                (x + level.scroll_x).floor() as i64,
                (y + level.scroll_y).floor() as i64,
            )
            .await?;
            match hit {
                None => return Ok(Reach::Outside),
                Some(h) if h == level.owner.iframe => {}
                Some(h) => {
                    return Ok(Reach::Covered(
                        level.owner.parent.clone(),
                        level.owner.parent_frame.clone(),
                        level.owner.parent_loader.clone(),
                        h,
                        (x, y),
                    ))
                }
            }
        }
        Ok(Reach::Top(x, y))
    }

    /// Makes every level's hit test answer (each session needs its document requested once).
    pub(crate) async fn prepare_hit_tests(&self) -> Result<()> {
        crate::live::prepare_hit_test(&self.session).await?;
        for owner in &self.owners {
            crate::live::prepare_hit_test(&owner.parent).await?;
        }
        Ok(())
    }
}

/// The owner chain of an out-of-process frame target: for `target`, the `<iframe>` that holds
/// it in its parent session, then that session's own owner, up to the page.
pub(crate) async fn owners_of(page: &Page, session_of_frame: &Page) -> Result<Vec<Owner>> {
    let targets = page.frame_targets();
    let mut out = Vec::new();
    let mut current = session_of_frame.session_id().clone();
    for _ in 0..32 {
        if current == *page.session_id() {
            return Ok(out);
        }
        let Some(t) = targets.iter().find(|t| t.session_id == current) else {
            break;
        };
        let parent = if t.parent_session == *page.session_id() {
            page.clone()
        } else {
            match targets.iter().find(|p| p.session_id == t.parent_session) {
                Some(p) => page.frame_session(p),
                None => break,
            }
        };
        let owner = parent
            .send(&GetFrameOwnerParams {
                frame_id: t.target_id.clone(),
            })
            .await;
        let Ok(owner) = owner else { break };
        // The frame (and loader) of the document that holds the `<iframe>`.
        let frames = super::remote::Frames::read(&parent).await?;
        let parent_frame = frames
            .parent(&t.target_id)
            .unwrap_or(&frames.main_frame)
            .to_string();
        let parent_loader = frames.loader(&parent_frame).unwrap_or("").to_string();
        out.push(Owner {
            parent,
            parent_frame,
            parent_loader,
            iframe: owner.backend_node_id,
        });
        current = t.parent_session.clone();
    }
    Err(Error::new(
        ErrorCode::StaleUid,
        "the frame that held this element is gone (its <iframe> was removed or navigated); \
         take a new snapshot",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untransformed_frames_translate() {
        // Border box 100x60 at (10, 20) with a 5 px border: content box from (15, 25).
        let border = [10.0, 20.0, 110.0, 20.0, 110.0, 80.0, 10.0, 80.0];
        let content = [15.0, 25.0, 105.0, 25.0, 105.0, 75.0, 15.0, 75.0];
        let a = axes(&content, &border, 100.0, 60.0);
        assert_eq!(
            a,
            Some(Axes {
                origin: (15.0, 25.0),
                x_axis: (1.0, 0.0),
                y_axis: (0.0, 1.0)
            })
        );
    }

    #[test]
    fn scaled_and_rotated_frames_map_through_their_axes() {
        // Scaled by one half from the origin: a 200x100 border box drawn as 100x50.
        let border = [0.0, 0.0, 100.0, 0.0, 100.0, 50.0, 0.0, 50.0];
        let a = axes(&border, &border, 200.0, 100.0).map(|a| (a.x_axis, a.y_axis));
        assert_eq!(a, Some(((0.5, 0.0), (0.0, 0.5))));
        // Rotated 90° clockwise around (0, 0): x runs down, y runs left.
        let rotated = [0.0, 0.0, 0.0, 100.0, -50.0, 100.0, -50.0, 0.0];
        let a = axes(&rotated, &rotated, 100.0, 50.0).map(|a| (a.x_axis, a.y_axis));
        assert_eq!(a, Some(((0.0, 1.0), (-1.0, 0.0))));
        assert_eq!(axes(&rotated, &rotated, 0.0, 50.0), None);
    }

    #[test]
    fn collapsed_huge_and_short_boxes_have_no_axes() {
        let border = [10.0, 20.0, 110.0, 20.0, 110.0, 80.0, 10.0, 80.0];
        // scale(0): every corner in one place.
        let point = [60.0, 50.0, 60.0, 50.0, 60.0, 50.0, 60.0, 50.0];
        assert_eq!(axes(&point, &point, 100.0, 60.0), None);
        // A content box collapsed in one direction only (scaleY(0)).
        let flat = [10.0, 20.0, 110.0, 20.0, 110.0, 20.0, 10.0, 20.0];
        assert_eq!(axes(&flat, &flat, 100.0, 60.0), None);
        // Edges too long for f64 arithmetic: their length is infinite.
        let huge = [0.0, 0.0, 1e308, 1e308, 1e308, 1.7e308, 0.0, 1e308];
        assert_eq!(axes(&huge, &border, 100.0, 60.0), None);
        assert_eq!(axes(&border, &huge, 100.0, 60.0), None);
        let nan = [f64::NAN, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        assert_eq!(axes(&nan, &border, 100.0, 60.0), None);
        // Short or negative-size boxes.
        assert_eq!(axes(&border[..6], &border, 100.0, 60.0), None);
        assert_eq!(axes(&border, &border, -100.0, 60.0), None);
        assert_eq!(axes(&border, &border, 100.0, f64::NAN), None);
    }
}
