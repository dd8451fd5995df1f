//! `drag`: pressing the mouse on one element, moving it in steps onto another and releasing it
//! there, the way a person drags.
//!
//! Why both ends are hit-tested like a click: the press must land on the element dragged and
//! the release on the element dropped on, not on a banner over either. Both points are chosen
//! before the button goes down, and the source is looked at again after the target was brought
//! into view: when the two cannot show at once the drag fails instead of pressing on whatever
//! scrolled under the first point.
//!
//! Why two kinds of drag: pages drag in two ways. Script-driven lists (sortable lists, sliders,
//! kanban boards) follow `mousedown`/`mousemove`/`mouseup` (or the pointer events Chromium
//! derives from them), so moving in several steps is what they need. HTML5 drag and drop
//! (`draggable`, `dragstart`/`dragover`/`drop`) is run by the browser itself once a drag
//! starts, and a headless browser started from synthetic mouse events never delivers the drag
//! events to the page. So the drag is intercepted (`Input.setInterceptDrags`): when the page
//! starts one, Chromium reports its data (`Input.dragIntercepted`) instead of starting an
//! operating-system drag, and the drag is played into the page with `Input.dispatchDragEvent`
//! (enter, over at each remaining step, drop) at the same points, before the button is let go.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::live::ensure_live;
use super::pointer::{self, actionable_point, check_state, mouse, Button, Point};
use super::remote::{call, LiveNode};
use super::ActionContext;
use crate::browser::Page;
use crate::cdp::input::{
    DispatchDragEventParams, DispatchDragEventType, DispatchMouseEventType, DragData,
    DragInterceptedEvent, SetInterceptDragsParams,
};
use crate::error::{Error, ErrorCode, Result};

/// How many moves the pointer makes from the source to the target.
const STEPS: usize = 10;
/// How long to wait, after the last move, for a drag an element that can be dragged may still
/// start (the page's `dragstart` runs after the move that starts it was answered).
const DRAG_START_WAIT: Duration = Duration::from_millis(500);

/// Whether the element, or an ancestor, can start an HTML5 drag (`draggable`, which links and
/// images are by default).
const DRAGGABLE_FN: &str =
    "function(){for(let n=this;n;n=n.parentElement){if(n.draggable)return true;}return false}";

/// Turns drag interception off again when the drag ends, also when it is abandoned half-way
/// (a dialog opened): later input should reach the page as it would from a person.
struct Intercepting {
    page: Page,
    on: bool,
}

impl Intercepting {
    async fn start(page: &Page) -> Result<Intercepting> {
        page.send(&SetInterceptDragsParams { enabled: true })
            .await?;
        Ok(Intercepting {
            page: page.clone(),
            on: true,
        })
    }

    async fn stop(mut self) {
        self.on = false;
        let _ = self
            .page
            .send(&SetInterceptDragsParams { enabled: false })
            .await;
    }
}

impl Drop for Intercepting {
    fn drop(&mut self) {
        if !self.on {
            return;
        }
        let page = self.page.clone();
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = page.send(&SetInterceptDragsParams { enabled: false }).await;
            });
        }
    }
}

/// Both ends of a drag: a point on the source and a point on the target, both visible and
/// uncovered at the same time.
async fn ends(
    from: (&ActionContext<'_>, &LiveNode, &str),
    to: (&ActionContext<'_>, &LiveNode, &str),
) -> Result<(Point, Point)> {
    let (cx_from, node_from, uid_from) = from;
    let (cx_to, node_to, uid_to) = to;
    // What is wrong with the target is said before anything moves.
    check_state(cx_to.dom(), node_to, uid_to, false).await?;
    let mut start = actionable_point(cx_from, node_from, uid_from, true).await?;
    let mut end = actionable_point(cx_to, node_to, uid_to, false).await?;
    // Bringing the target into view may have scrolled the source: look again until neither
    // moves.
    for _ in 0..2 {
        let again = actionable_point(cx_from, node_from, uid_from, true).await?;
        if again == start {
            return Ok((start, end));
        }
        start = again;
        end = actionable_point(cx_to, node_to, uid_to, false).await?;
    }
    Err(Error::new(
        ErrorCode::NotInteractable,
        format!(
            "{uid_from} and {uid_to} cannot be in view at the same time, so one cannot be \
             dragged onto the other; make the viewport larger (resize) or move them closer, \
             then try again"
        ),
    ))
}

/// `drag`: see the module docs. Writes `onto`, `from`, `to` and `native` into `out`.
pub(crate) async fn drag(
    from: (&ActionContext<'_>, &LiveNode, &str),
    to: (&ActionContext<'_>, &LiveNode, &str),
    out: &mut Map<String, Value>,
) -> Result<()> {
    let (cx, node, uid) = from;
    let (start, end) = ends(from, to).await?;
    out.insert("onto".into(), Value::String(to.2.to_string()));
    out.insert("from".into(), start.to_json());
    out.insert("to".into(), end.to_json());
    let may_drag_natively =
        call(cx.dom(), &node.object_id, DRAGGABLE_FN, &[]).await? == Value::Bool(true);
    let page = cx.page;
    let mut intercepted = page.subscribe::<DragInterceptedEvent>();
    let intercepting = Intercepting::start(page).await?;
    pointer::move_to(page, start).await?;
    ensure_live(cx.dom(), node, uid).await?;
    // From the press to the release the button is held: a dialog opening meanwhile leaves it
    // to be released once the dialog is answered.
    let held = cx.held;
    held.set(Some((start, Button::Left)));
    let pressed = mouse(
        page,
        DispatchMouseEventType::MousePressed,
        start,
        Some(Button::Left),
        Button::Left.mask(),
        Some(1),
    )
    .await;
    if let Err(e) = pressed {
        held.set(None);
        return Err(e);
    }
    let mut data: Option<DragData> = None;
    for step in 1..=STEPS {
        let t = step as f64 / STEPS as f64;
        let p = Point {
            x: start.x + (end.x - start.x) * t,
            y: start.y + (end.y - start.y) * t,
        };
        match &data {
            // The browser runs the drag now: the page sees drag events, not mouse moves.
            Some(d) => drag_event(page, DispatchDragEventType::DragOver, p, d).await?,
            None => {
                mouse(
                    page,
                    DispatchMouseEventType::MouseMoved,
                    p,
                    Some(Button::Left),
                    Button::Left.mask(),
                    None,
                )
                .await?;
                held.set(Some((p, Button::Left)));
                if let Some(Ok(event)) = intercepted.try_next() {
                    drag_event(page, DispatchDragEventType::DragEnter, p, &event.data).await?;
                    data = Some(event.data);
                }
            }
        }
    }
    if data.is_none() && may_drag_natively {
        if let Ok(Some(Ok(event))) = tokio::time::timeout(DRAG_START_WAIT, intercepted.next()).await
        {
            drag_event(page, DispatchDragEventType::DragEnter, end, &event.data).await?;
            drag_event(page, DispatchDragEventType::DragOver, end, &event.data).await?;
            data = Some(event.data);
        }
    }
    if let Some(d) = &data {
        drag_event(page, DispatchDragEventType::Drop, end, d).await?;
    }
    out.insert("native".into(), json!(data.is_some()));
    // The release is sent either way: a dialog its `mouseup` opens does not leave the button
    // down.
    held.set(None);
    let released = mouse(
        page,
        DispatchMouseEventType::MouseReleased,
        end,
        Some(Button::Left),
        0,
        Some(1),
    )
    .await;
    intercepting.stop().await;
    released
}

async fn drag_event(
    page: &Page,
    type_: DispatchDragEventType,
    p: Point,
    data: &DragData,
) -> Result<()> {
    page.send(&DispatchDragEventParams::new(type_, p.x, p.y, data.clone()))
        .await
        .map(|_| ())
}
