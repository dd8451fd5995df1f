//! `scroll`: the page, or the scroll container at or around a uid.
//!
//! Why a wheel event and not `scrollBy`: pages react to how they are scrolled (infinite lists
//! load more on wheel, sticky headers and parallax listen to `wheel`), and a wheel goes to the
//! innermost scroller under the pointer, as for a person. So the wheel is sent over the target:
//! the container's visible part (hit-checked like a click), or for the page a point of the
//! viewport that is not over an inner scroller. The result says how far it really moved —
//! offsets are read before and after, waiting until a smooth scroll comes to rest — and whether
//! the end was reached. Only when a wheel moves nothing although there is room (a page that
//! cancels wheel events) is the container scrolled by script, and the result says so.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::live::{document_object, navigated, navigated_since};
use super::pointer::{self, hit_at, hit_node, wheel_at, Point};
use super::remote::{call, call_node, viewport, Arg, LiveNode};
use super::scope::{Reach, Scope};
use super::ActionContext;
use crate::error::{Error, Result};

/// A scroll direction.
pub(crate) use crate::command::ScrollDirection as Direction;

impl Direction {
    fn vertical(self) -> bool {
        matches!(self, Direction::Down | Direction::Up)
    }

    fn sign(self) -> f64 {
        match self {
            Direction::Down | Direction::Right => 1.0,
            Direction::Up | Direction::Left => -1.0,
        }
    }
}

/// Scroll state: offset, scrollable size, visible size.
#[derive(Debug, Clone, Copy, PartialEq)]
struct State {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    client_width: f64,
    client_height: f64,
}

impl State {
    fn at_end(&self, d: Direction) -> bool {
        match d {
            Direction::Down => self.y + self.client_height >= self.height - 1.0,
            Direction::Up => self.y <= 0.5,
            Direction::Right => self.x + self.client_width >= self.width - 1.0,
            Direction::Left => self.x <= 0.5,
        }
    }
}

/// The nearest scroll container of an element along an axis (itself included), or `null` when
/// only the page scrolls.
const SCROLLER_FN: &str = r#"function(vertical){
  const doc=this.ownerDocument||document;
  const can=e=>{
    const cs=getComputedStyle(e),ov=vertical?cs.overflowY:cs.overflowX;
    if(!/(auto|scroll|overlay)/.test(ov))return false;
    return vertical?e.scrollHeight>e.clientHeight+1:e.scrollWidth>e.clientWidth+1;
  };
  for(let e=this.nodeType===1?this:this.parentElement;e;){
    if(e===doc.body||e===doc.documentElement)return null;
    if(can(e))return e;
    e=e.assignedSlot||e.parentElement||(e.getRootNode()&&e.getRootNode().host)||null;
  }
  return null;
}"#;

const READ_FN: &str = r#"function(){return {x:this.scrollLeft,y:this.scrollTop,w:this.scrollWidth,h:this.scrollHeight,cw:this.clientWidth,ch:this.clientHeight};}"#;

const SCRIPT_SCROLL_FN: &str =
    r#"function(dx,dy){this.scrollBy({left:dx,top:dy,behavior:'instant'});}"#;

const PAGE_SCRIPT_SCROLL_FN: &str = r#"function(dx,dy){(this.ownerDocument||document).defaultView.scrollBy({left:dx,top:dy,behavior:'instant'});}"#;

/// The nearest scroll container of `node` along an axis (itself included), if not the page.
async fn scroller_of(
    cx: &ActionContext<'_>,
    node: &LiveNode,
    vertical: bool,
) -> Result<Option<LiveNode>> {
    let args = [Arg::Value(Value::Bool(vertical))];
    call_node(cx.dom(), &node.object_id, SCROLLER_FN, &args).await
}

enum Scroller {
    Page,
    Element(LiveNode),
}

async fn read(cx: &ActionContext<'_>, s: &Scroller) -> Result<State> {
    match s {
        Scroller::Page => {
            let v = viewport(cx.dom()).await?;
            Ok(State {
                x: v.scroll_x,
                y: v.scroll_y,
                width: v.content_width,
                height: v.content_height,
                client_width: v.width,
                client_height: v.height,
            })
        }
        Scroller::Element(node) => {
            let v = call(cx.dom(), &node.object_id, READ_FN, &[]).await?;
            let n = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            Ok(State {
                x: n("x"),
                y: n("y"),
                width: n("w"),
                height: n("h"),
                client_width: n("cw"),
                client_height: n("ch"),
            })
        }
    }
}

/// How long a scroll is waited for to come to rest. A smooth scroll takes a few hundred ms; a
/// page that keeps moving its own content (a feed adding rows above the view, which scroll
/// anchoring follows) never rests, and a busy renderer answers each read slowly: the wait is
/// bounded by the clock, not by a count of reads.
const REST_LIMIT: Duration = Duration::from_secs(3);

/// How long the renderer may take to take a wheel event. Chromium answers the dispatch once the
/// renderer has handled the event, within a frame or two; a renderer swapped for a new
/// document as the event arrives may never answer, and the dispatch would wait out the
/// command's whole timeout.
const WHEEL_ACK_LIMIT: Duration = Duration::from_secs(5);

/// Waits until the offsets stop changing (smooth scrolling): at `goal` (where the whole scroll
/// ends), or 100 ms without change once it moved, or 1 s without any movement at all (a busy
/// renderer may take a while to start), and at most [`REST_LIMIT`] in all.
async fn rest(
    cx: &ActionContext<'_>,
    s: &Scroller,
    before: State,
    goal: (f64, f64),
) -> Result<State> {
    let deadline = tokio::time::Instant::now() + REST_LIMIT;
    let mut last = before;
    let mut still = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let Ok(now) = tokio::time::timeout_at(deadline, read(cx, s)).await else {
            return Ok(last);
        };
        let now = now?;
        let moved = (now.x - before.x).abs() >= 0.5 || (now.y - before.y).abs() >= 0.5;
        if moved && (now.x - goal.0).abs() < 0.5 && (now.y - goal.1).abs() < 0.5 {
            return Ok(now);
        }
        if (now.x - last.x).abs() < 0.5 && (now.y - last.y).abs() < 0.5 {
            still += 1;
            if still >= if moved { 2 } else { 20 } {
                return Ok(now);
            }
        } else {
            still = 0;
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(now);
        }
        last = now;
    }
}

/// Where a scroll by `dx`, `dy` from `s` ends: as far as it goes, up to the ends.
fn goal_of(s: &State, dx: f64, dy: f64) -> (f64, f64) {
    let end_x = (s.width - s.client_width).max(0.0);
    let end_y = (s.height - s.client_height).max(0.0);
    ((s.x + dx).clamp(0.0, end_x), (s.y + dy).clamp(0.0, end_y))
}

/// A viewport point over the page itself (not over an inner scroller) for a page scroll, in
/// top-level viewport coordinates (the scope's frame may sit inside the page).
async fn page_point(cx: &ActionContext<'_>, vertical: bool) -> Result<Point> {
    let (vp, levels) = tokio::join!(viewport(cx.dom()), cx.scope.levels());
    let (vp, levels) = (vp?, levels?);
    cx.scope.prepare_hit_tests().await?;
    let spots = [
        (0.5, 0.5),
        (0.5, 0.25),
        (0.5, 0.75),
        (0.1, 0.5),
        (0.9, 0.5),
        (0.25, 0.25),
        (0.75, 0.75),
    ];
    let mut fallback = None;
    for (fx, fy) in spots {
        let (x, y) = (
            (vp.width * fx).floor() as i64,
            (vp.height * fy).floor() as i64,
        );
        let Reach::Top(tx, ty) = Scope::reach(&levels, x as f64 + 0.5, y as f64 + 0.5).await?
        else {
            continue;
        };
        let top = Point { x: tx, y: ty };
        fallback.get_or_insert(top);
        let Some(hit) = hit_at(cx.dom(), &vp, x, y).await? else {
            continue;
        };
        let Some(h) = hit_node(cx, hit).await else {
            continue;
        };
        if scroller_of(cx, &h, vertical).await?.is_none() {
            return Ok(top);
        }
    }
    if let Some(p) = fallback {
        return Ok(p);
    }
    match Scope::reach(
        &levels,
        (vp.width / 2.0).floor() + 0.5,
        (vp.height / 2.0).floor() + 0.5,
    )
    .await?
    {
        Reach::Top(x, y) => Ok(Point { x, y }),
        _ => Err(Error::new(
            crate::error::ErrorCode::Occluded,
            "the frame to scroll is covered or outside the viewport; scroll the page so it \
             shows, then try again",
        )),
    }
}

fn pos(s: &State) -> Value {
    json!({ "x": s.x, "y": s.y })
}

/// `scroll`: see the module docs. `target` is the uid's node and label, if one was given.
pub(crate) async fn scroll(
    cx: &ActionContext<'_>,
    target: Option<(&LiveNode, &str)>,
    direction: Direction,
    pixels: Option<f64>,
    out: &mut Map<String, Value>,
) -> Result<()> {
    let vertical = direction.vertical();
    let scroller = match target {
        None => Scroller::Page,
        Some((node, _)) => match scroller_of(cx, node, vertical).await? {
            Some(container) => Scroller::Element(container),
            None => Scroller::Page,
        },
    };
    let name = match (&scroller, target) {
        (Scroller::Page, _) => Value::String("page".into()),
        (Scroller::Element(c), Some((node, label)))
            if c.backend_node_id == node.backend_node_id =>
        {
            Value::String(label.to_string())
        }
        (Scroller::Element(c), _) => match cx.uid_of(c.backend_node_id) {
            Some(uid) => Value::String(uid),
            None => Value::String(pointer::describe(cx, c.backend_node_id).await),
        },
    };
    out.insert("scrolled".into(), name);
    out.insert("direction".into(), Value::String(direction.name().into()));
    let before = read(cx, &scroller).await?;
    let extent = if vertical {
        before.client_height
    } else {
        before.client_width
    };
    let amount = match pixels {
        Some(p) => p,
        None => (extent * 0.8).round().max(40.0),
    };
    out.insert("pixels".into(), json!(amount));
    out.insert("before".into(), pos(&before));
    let (dx, dy) = if vertical {
        (0.0, amount * direction.sign())
    } else {
        (amount * direction.sign(), 0.0)
    };
    if before.at_end(direction) {
        out.insert("moved".into(), json!(0.0));
        out.insert("after".into(), pos(&before));
        out.insert("atEnd".into(), Value::Bool(true));
        return Ok(());
    }
    let point = match &scroller {
        Scroller::Page => page_point(cx, vertical).await?,
        Scroller::Element(c) => {
            let label = match out.get("scrolled").and_then(Value::as_str) {
                Some(s) => s.to_string(),
                None => "the scroll container".into(),
            };
            pointer::actionable_point(cx, c, &label, false).await?
        }
    };
    // The point may have moved the container (scrolled into view): read again.
    let before = read(cx, &scroller).await?;
    out.insert("before".into(), pos(&before));
    match tokio::time::timeout(WHEEL_ACK_LIMIT, wheel_at(cx.page, point, dx, dy)).await {
        Ok(sent) => sent?,
        // Not taken in time: if the page loaded another document meanwhile, that is why;
        // otherwise the offsets read next tell whether it moved (and the script scroll
        // below moves it if not).
        Err(_) => {
            if let Some(why) = navigated_since(cx.scope).await {
                return Err(navigated(why));
            }
        }
    }
    let mut after = rest(cx, &scroller, before, goal_of(&before, dx, dy)).await?;
    let moved = |a: &State| {
        if vertical {
            (a.y - before.y) * direction.sign()
        } else {
            (a.x - before.x) * direction.sign()
        }
    };
    if moved(&after).abs() < 0.5 {
        // The page swallowed the wheel; scroll by script so the agent is not stuck.
        let f = match &scroller {
            Scroller::Page => PAGE_SCRIPT_SCROLL_FN,
            Scroller::Element(_) => SCRIPT_SCROLL_FN,
        };
        let object = match &scroller {
            Scroller::Element(c) => Some(c.object_id.clone()),
            Scroller::Page => target.map(|(n, _)| n.object_id.clone()),
        };
        let args = [Arg::Value(json!(dx)), Arg::Value(json!(dy))];
        match object {
            Some(o) => {
                call(cx.dom(), &o, f, &args).await?;
            }
            None => {
                let doc = document_object(cx.scope).await?;
                call(cx.dom(), &doc, f, &args).await?;
            }
        }
        after = rest(cx, &scroller, after, goal_of(&after, dx, dy)).await?;
        out.insert("method".into(), Value::String("script".into()));
    } else {
        out.insert("method".into(), Value::String("wheel".into()));
    }
    out.insert("moved".into(), json!(moved(&after)));
    out.insert("after".into(), pos(&after));
    out.insert("atEnd".into(), Value::Bool(after.at_end(direction)));
    out.insert("at".into(), point.to_json());
    Ok(())
}
