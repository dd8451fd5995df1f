//! Pointer actions: finding a point where a click really lands on the element, and pressing
//! the mouse there with trusted `Input.dispatchMouseEvent` events.
//!
//! Why the point is checked with Chromium's own hit test before pressing: the snapshot may be a
//! few seconds old, animations move things, and overlays (cookie banners, modal backdrops,
//! sticky headers, transparent click-catchers) sit on top of what the model wants. A person sees
//! the overlay and does not click; a blind click would hit the overlay and do something else.
//! So: scroll the element into view, take its current geometry (`DOM.getContentQuads`, which
//! follows transforms), intersect it with the layout viewport (`Page.getLayoutMetrics`), and for
//! candidate points (the centre first, then a grid nearest the centre first) ask
//! `DOM.getNodeForLocation` what a click there would hit. The point is good when the hit node is
//! the element, one of its descendants in the flat tree (crossing shadow roots and slots), or a
//! `<label>` of it. If nothing is good, wait briefly (animations) and try again; then fail with
//! `OCCLUDED`, naming what is on top (tag, id, class, text, and its uid in the last snapshot).
//!
//! Points are whole CSS px for the hit test (it takes integers and tests the 1×1 square at
//! `[x, x+1) × [y, y+1)`); the mouse is pressed at the centre of that square so both agree.

use std::time::Duration;

use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use super::live::{node_from_backend, resolve_in};
use super::remote::{call, viewport, Arg, LiveNode, ViewportNow};
use super::scope::{Reach, Scope};
use super::ActionContext;
use crate::analysis::click::sample_points;
use crate::browser::Page;
use crate::cdp::dom::{GetContentQuadsParams, ScrollIntoViewIfNeededParams};
use crate::cdp::input::{DispatchMouseEventParams, DispatchMouseEventType, MouseButton};
use crate::cdp::runtime::EvaluateParams;
use crate::error::{Error, ErrorCode, Result};
use crate::live::hit_test_at;
use crate::model::Rect;

/// How often a covered element is looked at again, and how long to wait in between: about
/// 300 ms in all, enough for a fade-out or a slide-in to finish.
const ATTEMPTS: usize = 3;
const RETRY_DELAY: Duration = Duration::from_millis(100);

/// At most this many candidate points are hit-tested per attempt.
const MAX_POINTS: usize = 25;

/// A point in viewport CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub(crate) fn to_json(self) -> Value {
        json!({ "x": round2(self.x), "y": round2(self.y) })
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The mouse button of the `click` command.
pub(crate) use crate::command::MouseButton as Button;

impl Button {
    fn cdp(self) -> MouseButton {
        match self {
            Button::Left => MouseButton::Left,
            Button::Right => MouseButton::Right,
            Button::Middle => MouseButton::Middle,
        }
    }

    /// The `buttons` bit of this button (Left=1, Right=2, Middle=4).
    pub(crate) fn mask(self) -> i64 {
        match self {
            Button::Left => 1,
            Button::Right => 2,
            Button::Middle => 4,
        }
    }
}

/// What the element's live state says about acting on it.
const STATE_FN: &str = r#"function(){
  const e=this, r={tag:e.localName, hidden:null, disabled:null};
  const root=n=>{const r=n.getRootNode&&n.getRootNode();return r&&r.host?r.host:null;};
  const name=n=>'<'+n.localName+(n.id?' id="'+n.id+'"':'')+'>';
  const cs=getComputedStyle(e);
  if(cs.display!=='contents'&&typeof e.checkVisibility==='function'&&!e.checkVisibility({visibilityProperty:true})){
    for(let n=e;n&&n.nodeType===1;n=n.parentElement||root(n)){
      if(getComputedStyle(n).display==='none'){r.hidden='display:none'+(n===e?'':' on its ancestor '+name(n));break;}
    }
    if(!r.hidden){
      if(cs.visibility!=='visible')r.hidden='visibility:'+cs.visibility;
      else r.hidden='it is not rendered (e.g. inside a closed <details> or content-visibility:hidden)';
    }
  }
  try{if(e.matches(':disabled'))r.disabled=e.hasAttribute('disabled')?'it has the disabled attribute':'it is inside a disabled <fieldset>';}catch(_){}
  if(!r.disabled){const a=e.closest('[aria-disabled="true"]');if(a)r.disabled='aria-disabled="true"'+(a===e?'':' on its ancestor '+name(a));}
  if(!r.disabled&&e.closest('[inert]'))r.disabled='it is inside an inert subtree';
  return r;
}"#;

/// Whether a hit node counts as the element: itself, a flat-tree descendant, or one of its labels.
/// A hit on a pseudo-element (`::before`, `::marker`; a `CSSPseudoElement` object) counts as a
/// hit on the element it belongs to.
const CONTAINS_FN: &str = r#"function(h){
  if(h&&!(h instanceof Node)&&h.element)h=h.element;
  for(let n=h;n;n=n.assignedSlot||n.parentNode||n.host||null){if(n===this)return true;}
  if(this.labels){for(const l of this.labels){for(let n=h;n;n=n.parentNode){if(n===l)return true;}}}
  return false;
}"#;

/// A short description of what covers an element.
const DESCRIBE_FN: &str = r#"function(){
  const h=(!(this instanceof Node)&&this.element)?this.element:this;
  const e=h.nodeType===1?h:h.parentElement;if(!e)return null;
  const t=(e.innerText||e.textContent||'').replace(/\s+/g,' ').trim();
  const c=(typeof e.className==='string'?e.className:(e.getAttribute('class')||'')).trim();
  return {tag:e.localName,id:e.id||'',cls:c.length>60?c.slice(0,60):c,text:t.length>60?t.slice(0,57)+'...':t};
}"#;

/// The element's live state: its tag, why it is hidden (if it is), why it is disabled (if it is).
pub(crate) struct ElementState {
    pub tag: String,
    pub hidden: Option<String>,
    pub disabled: Option<String>,
}

pub(crate) async fn element_state(page: &Page, node: &LiveNode) -> Result<ElementState> {
    let state = call(page, &node.object_id, STATE_FN, &[]).await?;
    let s = |k: &str| state.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(ElementState {
        tag: s("tag").unwrap_or_else(|| "element".into()),
        hidden: s("hidden"),
        disabled: s("disabled"),
    })
}

/// The `NOT_INTERACTABLE` error of a disabled element.
pub(crate) fn disabled_error(label: &str, tag: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::NotInteractable,
        format!(
            "{label} (<{tag}>) is disabled: {why}; fill in what the form still needs (or wait \
             for the page to enable it), then try again"
        ),
    )
}

/// Fails with `NOT_INTERACTABLE` when the element is hidden, or disabled (if `need_enabled`).
pub(crate) async fn check_state(
    page: &Page,
    node: &LiveNode,
    label: &str,
    need_enabled: bool,
) -> Result<()> {
    let state = element_state(page, node).await?;
    if let Some(why) = &state.hidden {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{label} (<{}>) is hidden: {why}; a person cannot reach it. Take a new \
                 snapshot and use a visible element (open the menu or section that shows it first)",
                state.tag
            ),
        ));
    }
    if need_enabled {
        if let Some(why) = &state.disabled {
            return Err(disabled_error(label, &state.tag, why));
        }
    }
    Ok(())
}

/// Scrolls the node into view if needed; a node without a box cannot be.
pub(crate) async fn scroll_into_view(page: &Page, node: &LiveNode, label: &str) -> Result<()> {
    page.send(&ScrollIntoViewIfNeededParams {
        backend_node_id: Some(node.backend_node_id),
        ..Default::default()
    })
    .await
    .map(|_| ())
    .map_err(|e| match e.code() {
        ErrorCode::ProtocolError => Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{label} has no layout box (not rendered), so it cannot be scrolled into view or \
                 clicked; take a new snapshot"
            ),
        ),
        _ => e,
    })
}

/// The node's current content quads (viewport CSS px); empty when it has no box.
async fn content_quads(page: &Page, node: &LiveNode) -> Result<Vec<Vec<f64>>> {
    match page
        .send(&GetContentQuadsParams {
            backend_node_id: Some(node.backend_node_id),
            ..Default::default()
        })
        .await
    {
        Ok(q) => Ok(q.quads),
        Err(e) if e.code() == ErrorCode::ProtocolError => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

type Poly = Vec<(f64, f64)>;

fn quad_poly(q: &[f64]) -> Option<Poly> {
    if q.len() < 8 || q.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(q.chunks(2).take(4).map(|c| (c[0], c[1])).collect())
}

fn area(p: &Poly) -> f64 {
    let n = p.len();
    let mut a = 0.0;
    for i in 0..n {
        let (x1, y1) = p[i];
        let (x2, y2) = p[(i + 1) % n];
        a += x1 * y2 - x2 * y1;
    }
    (a / 2.0).abs()
}

/// Sutherland–Hodgman: the part of a convex polygon inside `[0,w] × [0,h]`.
fn clip(poly: &Poly, w: f64, h: f64) -> Poly {
    type Inside = fn(f64, f64, f64) -> bool;
    let edges: [(Inside, f64, bool); 4] = [
        (|v, _, l| v >= l, 0.0, true),
        (|v, _, l| v <= l, w, true),
        (|v, _, l| v >= l, 0.0, false),
        (|v, _, l| v <= l, h, false),
    ];
    let mut out = poly.clone();
    for (inside, limit, is_x) in edges {
        if out.is_empty() {
            break;
        }
        let input = std::mem::take(&mut out);
        let coord = |p: (f64, f64)| if is_x { p.0 } else { p.1 };
        for i in 0..input.len() {
            let cur = input[i];
            let prev = input[(i + input.len() - 1) % input.len()];
            let cin = inside(coord(cur), 0.0, limit);
            let pin = inside(coord(prev), 0.0, limit);
            if cin != pin {
                let t = (limit - coord(prev)) / (coord(cur) - coord(prev));
                out.push((prev.0 + t * (cur.0 - prev.0), prev.1 + t * (cur.1 - prev.1)));
            }
            if cin {
                out.push(cur);
            }
        }
    }
    out
}

fn inside(poly: &Poly, x: f64, y: f64) -> bool {
    let mut c = false;
    let n = poly.len();
    for i in 0..n {
        let (xi, yi) = poly[i];
        let (xj, yj) = poly[(i + n - 1) % n];
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            c = !c;
        }
    }
    c
}

/// Candidate integer points inside the visible parts of the quads, best first: the centre of
/// the largest part, then a grid over it nearest the centre first (the points the snapshot's
/// click-point analysis samples), then the other parts.
fn candidates(quads: &[Vec<f64>], vp: &ViewportNow) -> (Vec<(i64, i64)>, bool, bool) {
    let mut parts: Vec<Poly> = Vec::new();
    let mut any_area = false;
    for q in quads {
        let Some(p) = quad_poly(q) else { continue };
        if area(&p) >= 0.25 {
            any_area = true;
        }
        let c = clip(&p, vp.width, vp.height);
        if c.len() >= 3 && area(&c) >= 0.25 {
            parts.push(c);
        }
    }
    parts.sort_by(|a, b| area(b).total_cmp(&area(a)));
    let mut out: Vec<(i64, i64)> = Vec::new();
    for part in &parts {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for &(x, y) in part {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        // The snapshot's own sampling over the part's bounds, kept where it is inside the part
        // (a rotated element's bounds hold corners that are not the element).
        for p in sample_points(&Rect::from_edges(x0, y0, x1, y1)) {
            if !inside(part, p.x + 0.5, p.y + 0.5) || p.x < 0.0 || p.y < 0.0 {
                continue;
            }
            let p = (p.x as i64, p.y as i64);
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.len() >= MAX_POINTS {
            break;
        }
    }
    out.truncate(MAX_POINTS);
    (out, any_area, !parts.is_empty())
}

/// The `backendNodeId` Chromium's hit test answers at a viewport point, if any.
pub(crate) async fn hit_at(page: &Page, vp: &ViewportNow, x: i64, y: i64) -> Result<Option<i64>> {
    let (sx, sy) = (vp.scroll_x as i64, vp.scroll_y as i64);
    hit_test_at(page, x.saturating_add(sx), y.saturating_add(sy)).await
}

/// A handle to a hit node; a pseudo-element (`::before`, `::marker`), which has no JS object,
/// stands for its element (found in the last snapshot).
pub(crate) async fn hit_node(cx: &ActionContext<'_>, backend: i64) -> Option<LiveNode> {
    if let Ok(node) = node_from_backend(cx.scope, backend).await {
        return Some(node);
    }
    let snap = cx.last?;
    let id = cx.model_node(&cx.scope.frame_id, backend)?;
    let parent = snap.model.parent_element(id)?;
    node_from_backend(cx.scope, i64::from(snap.model.node(parent).backend_node_id))
        .await
        .ok()
}

/// Whether `hit` is `node`, inside it, or a label of it.
pub(crate) async fn counts_as(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    hit: i64,
    cache: &mut FxHashMap<i64, bool>,
) -> Result<bool> {
    if hit == node.backend_node_id {
        return Ok(true);
    }
    if let Some(&known) = cache.get(&hit) {
        return Ok(known);
    }
    let inside = match hit_node(cx, hit).await {
        Some(h) => match call(
            cx.dom(),
            &node.object_id,
            CONTAINS_FN,
            &[Arg::Object(&h.object_id)],
        )
        .await
        {
            Ok(v) => v == Value::Bool(true),
            // A node of another JavaScript world (a frame) is not inside this element.
            Err(e) if e.code() == ErrorCode::ProtocolError => false,
            Err(e) => return Err(e),
        },
        None => false,
    };
    cache.insert(hit, inside);
    Ok(inside)
}

/// Describes a node of the action's document for an error message:
/// `<div id="x" class="y"> "text" (uid 1_4)`.
pub(crate) async fn describe(cx: &ActionContext<'_>, backend: i64) -> String {
    let handle = hit_node(cx, backend).await;
    describe_handle(cx, cx.dom(), handle, &cx.scope.frame_id, backend).await
}

/// Describes a node of a document that holds the action's frame (what covers its `<iframe>`).
async fn describe_in(
    cx: &ActionContext<'_>,
    session: &Page,
    frame: &str,
    loader: &str,
    backend: i64,
) -> String {
    let world = cx.worlds.context(session, frame, loader).await;
    let handle = resolve_in(session, world, backend).await.ok();
    describe_handle(cx, session, handle, frame, backend).await
}

async fn describe_handle(
    cx: &ActionContext<'_>,
    session: &Page,
    handle: Option<LiveNode>,
    frame: &str,
    backend: i64,
) -> String {
    let mut out = String::new();
    if let Some(h) = handle {
        if let Ok(d) = call(session, &h.object_id, DESCRIBE_FN, &[]).await {
            let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let quote = |v: &str| serde_json::to_string(v).unwrap_or_default();
            out.push('<');
            out.push_str(&s("tag"));
            if !s("id").is_empty() {
                out.push_str(&format!(" id={}", quote(&s("id"))));
            }
            if !s("cls").is_empty() {
                out.push_str(&format!(" class={}", quote(&s("cls"))));
            }
            out.push('>');
            if !s("text").is_empty() {
                out.push_str(&format!(" {}", quote(&s("text"))));
            }
        }
    }
    if out.is_empty() {
        out.push_str("another element");
    }
    if let Some(uid) = cx.uid_in(frame, backend) {
        out.push_str(&format!(" (uid {uid})"));
    }
    out
}

/// What covers an element where a click would land: a node of its own document, or of a
/// document that holds its frame (session, frame, loader).
enum Cover {
    Here(i64),
    Above(Page, String, String, i64),
}

/// Finds a point where a click lands on `node` (see the module docs). `need_enabled`: fail on
/// disabled elements (clicks), or not (hovering).
pub(crate) async fn actionable_point(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    need_enabled: bool,
) -> Result<Point> {
    let dom = cx.dom();
    check_state(dom, node, label, need_enabled).await?;
    scroll_into_view(dom, node, label).await?;
    cx.scope.prepare_hit_tests().await?;
    let mut cache = FxHashMap::default();
    let mut cover: Option<(Cover, Point)> = None;
    // A point of the frame that falls outside an owner's viewport (its frame is partly off
    // the page), in the latest look.
    let mut outside = false;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(RETRY_DELAY).await;
        }
        let (vp, quads, levels) =
            tokio::join!(viewport(dom), content_quads(dom, node), cx.scope.levels());
        let (vp, quads, levels) = (vp?, quads?, levels?);
        let (points, any_area, in_view) = candidates(&quads, &vp);
        if !any_area {
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!(
                    "{label} has no size on the page (zero width or height, or not rendered); \
                     a person cannot click it — take a new snapshot and pick a visible element"
                ),
            ));
        }
        if !in_view {
            if attempt + 1 < ATTEMPTS {
                scroll_into_view(dom, node, label).await?;
                continue;
            }
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!(
                    "{label} lies outside the viewport and could not be scrolled into view \
                     (it may be clipped by its container); scroll its container first"
                ),
            ));
        }
        // What covers the element is named from the latest look, at the best point.
        let mut first_cover = None;
        outside = false;
        for (x, y) in points {
            let Some(hit) = hit_at(dom, &vp, x, y).await? else {
                continue;
            };
            let at = Point {
                x: x as f64 + 0.5,
                y: y as f64 + 0.5,
            };
            if !counts_as(cx, node, hit, &mut cache).await? {
                first_cover.get_or_insert((Cover::Here(hit), at));
                continue;
            }
            // In a frame of another renderer: the page must reach the frame there too.
            match Scope::reach(&levels, at.x, at.y).await? {
                Reach::Top(x, y) => {
                    if !levels.is_empty() {
                        next_frames(cx).await;
                    }
                    return Ok(Point { x, y });
                }
                Reach::Covered(session, frame, loader, h, (x, y)) => {
                    let there = Point { x, y };
                    first_cover.get_or_insert((Cover::Above(session, frame, loader, h), there));
                }
                Reach::Outside => outside = true,
            }
        }
        cover = first_cover.or(cover);
    }
    if cover.is_none() && outside {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{label} is in a part of its frame that lies outside the page's viewport, so a \
                 click cannot reach it; scroll the page (or the frame's container) so that part \
                 of the frame shows, then try again"
            ),
        ));
    }
    let (what, at) = match cover {
        Some((Cover::Here(hit), p)) => (describe(cx, hit).await, Some(p)),
        Some((Cover::Above(session, frame, loader, hit), p)) => (
            describe_in(cx, &session, &frame, &loader, hit).await,
            Some(p),
        ),
        None => ("another element".to_string(), None),
    };
    let at = at
        .map(|p| format!(" at ({}, {})", p.x.floor(), p.y.floor()))
        .unwrap_or_default();
    Err(Error::new(
        ErrorCode::Occluded,
        format!(
            "{label} is covered by {what}{at}: a click would land there instead. Close or \
             dismiss what covers it (a dialog, banner or overlay), or scroll, then try again"
        ),
    ))
}

/// Waits until the page has drawn two more frames. Chromium routes input to an out-of-process
/// frame by what the page last drew: right after scrolling, an event could still go to the
/// frame's old place. Runs in the page's isolated world (a page cannot stall it by replacing
/// `requestAnimationFrame`); at most 2 s (a loaded machine draws late, and a click sent before
/// the frame is drawn in its new place goes to what was there).
async fn next_frames(cx: &ActionContext<'_>) {
    let Some(world) = cx.page_world else {
        tokio::time::sleep(Duration::from_millis(50)).await;
        return;
    };
    let params = EvaluateParams {
        context_id: Some(world),
        await_promise: Some(true),
        silent: Some(true),
        ..EvaluateParams::new(
            "new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(()=>r(true))))".into(),
        )
    };
    let wait = cx.page.send(&params);
    let _ = tokio::time::timeout(Duration::from_secs(2), wait).await;
}

pub(crate) async fn mouse(
    page: &Page,
    type_: DispatchMouseEventType,
    p: Point,
    button: Option<Button>,
    buttons: i64,
    click_count: Option<i64>,
) -> Result<()> {
    page.send(&DispatchMouseEventParams {
        button: Some(button.map_or(MouseButton::None, Button::cdp)),
        buttons: Some(buttons),
        click_count,
        ..DispatchMouseEventParams::new(type_, p.x, p.y)
    })
    .await
    .map(|_| ())
}

/// Moves the pointer to `p`.
pub(crate) async fn move_to(page: &Page, p: Point) -> Result<()> {
    mouse(page, DispatchMouseEventType::MouseMoved, p, None, 0, None).await
}

/// A mouse button an unfinished click left down: a dialog opened on `mousedown`, so the
/// release was never sent (the page could not take it). Released once the dialog is answered,
/// or before the next action, so the page does not see a button stuck down.
#[derive(Debug, Default)]
pub(crate) struct HeldButton(std::sync::Mutex<Option<(Point, Button)>>);

impl HeldButton {
    pub(crate) fn set(&self, held: Option<(Point, Button)>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = held;
    }

    fn take(&self) -> Option<(Point, Button)> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Sends the release of a button left down, if any.
    pub(crate) async fn release(&self, page: &Page) -> Result<()> {
        match self.take() {
            Some((p, button)) => {
                mouse(
                    page,
                    DispatchMouseEventType::MouseReleased,
                    p,
                    Some(button),
                    0,
                    Some(1),
                )
                .await
            }
            None => Ok(()),
        }
    }
}

/// Moves to `p` and clicks `count` times on `node` (a double click is press/release with
/// clickCount 1, then press/release with clickCount 2, as a real mouse reports it).
///
/// The pointer's arrival runs the page's `pointerover`/`mouseenter` handlers, which may remove
/// or replace the element: the press is only sent while the element is still in its document,
/// so a uid never clicks another node (`STALE_UID` instead).
///
/// The button is remembered as held from the press until its reply: a dialog opened by
/// `mousedown` keeps that reply from coming, and the release is sent once the dialog is
/// answered. A dialog opened by `mouseup` or `click` (the common case) comes after the press
/// was answered, so no second release follows the one already sent.
pub(crate) async fn click_at(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    p: Point,
    button: Button,
    count: i64,
) -> Result<()> {
    let (page, held) = (cx.page, cx.held);
    move_to(page, p).await?;
    super::live::ensure_live(cx.dom(), node, label).await?;
    for n in 1..=count {
        held.set(Some((p, button)));
        let pressed = mouse(
            page,
            DispatchMouseEventType::MousePressed,
            p,
            Some(button),
            button.mask(),
            Some(n),
        )
        .await;
        held.set(None);
        pressed?;
        mouse(
            page,
            DispatchMouseEventType::MouseReleased,
            p,
            Some(button),
            0,
            Some(n),
        )
        .await?;
    }
    Ok(())
}

/// Sends a wheel event at `p`.
pub(crate) async fn wheel_at(page: &Page, p: Point, dx: f64, dy: f64) -> Result<()> {
    page.send(&DispatchMouseEventParams {
        delta_x: Some(dx),
        delta_y: Some(dy),
        ..DispatchMouseEventParams::new(DispatchMouseEventType::MouseWheel, p.x, p.y)
    })
    .await
    .map(|_| ())
}

/// Finds an actionable point and clicks there; returns the point.
pub(crate) async fn click(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    label: &str,
    button: Button,
    count: i64,
) -> Result<Point> {
    let p = actionable_point(cx, node, label, true).await?;
    click_at(cx, node, label, p, button, count).await?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vp() -> ViewportNow {
        ViewportNow {
            width: 100.0,
            height: 100.0,
            scroll_x: 0.0,
            scroll_y: 0.0,
            content_width: 100.0,
            content_height: 100.0,
        }
    }

    #[test]
    fn centre_first_and_inside_the_viewport() {
        let q = vec![vec![10.0, 10.0, 30.0, 10.0, 30.0, 20.0, 10.0, 20.0]];
        let (pts, any, in_view) = candidates(&q, &vp());
        assert!(any && in_view);
        assert_eq!(pts[0], (20, 15));
        assert!(pts
            .iter()
            .all(|&(x, y)| (10..30).contains(&x) && (10..20).contains(&y)));
    }

    #[test]
    fn clipped_to_the_viewport() {
        let q = vec![vec![80.0, 90.0, 140.0, 90.0, 140.0, 130.0, 80.0, 130.0]];
        let (pts, _, in_view) = candidates(&q, &vp());
        assert!(in_view);
        assert_eq!(pts[0], (90, 95));
        assert!(pts.iter().all(|&(x, y)| x < 100 && y < 100));
    }

    #[test]
    fn outside_and_zero_size() {
        let q = vec![vec![0.0, 200.0, 50.0, 200.0, 50.0, 230.0, 0.0, 230.0]];
        let (pts, any, in_view) = candidates(&q, &vp());
        assert!(pts.is_empty() && any && !in_view);
        let z = vec![vec![5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]];
        let (_, any, _) = candidates(&z, &vp());
        assert!(!any);
    }

    #[test]
    fn rotated_quad_points_stay_inside() {
        // A diamond centred at (50, 50).
        let q = vec![vec![50.0, 20.0, 80.0, 50.0, 50.0, 80.0, 20.0, 50.0]];
        let poly = quad_poly(&q[0]).unwrap_or_default();
        let (pts, _, _) = candidates(&q, &vp());
        assert_eq!(pts[0], (50, 50));
        assert!(pts
            .iter()
            .all(|&(x, y)| inside(&poly, x as f64 + 0.5, y as f64 + 0.5)));
    }
}
