//! The remote calls every action shares: calling a function on a node of the page, turning the
//! object it returns back into a node, reading a session's frame tree and the layout viewport.
//! Nothing here knows about scopes or uids, so the modules that do (`live.rs`, `scope.rs`,
//! `pointer.rs`) can all use it.

use serde_json::Value;

use crate::browser::Page;
use crate::cdp::dom::DescribeNodeParams;
use crate::cdp::page::{FrameTree, GetFrameTreeParams, GetLayoutMetricsParams};
use crate::cdp::runtime::{CallArgument, CallFunctionOnParams, RemoteObject};
use crate::error::{Error, Result};

/// The object group of everything an action resolves; released when the action ends.
pub(crate) const OBJECT_GROUP: &str = "pagesight-act";

/// A node of the live page: its `backendNodeId` and a handle to it in the isolated world of its
/// frame (see `scope.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LiveNode {
    pub backend_node_id: i64,
    pub object_id: String,
}

/// An argument of [`call`]: a JSON value or a remote object.
pub(crate) enum Arg<'a> {
    Value(Value),
    Object(&'a str),
}

fn arguments(args: &[Arg<'_>]) -> Option<Vec<CallArgument>> {
    if args.is_empty() {
        return None;
    }
    Some(
        args.iter()
            .map(|a| match a {
                Arg::Value(v) => CallArgument {
                    value: Some(v.clone()),
                    ..CallArgument::default()
                },
                Arg::Object(id) => CallArgument {
                    object_id: Some((*id).to_string()),
                    ..CallArgument::default()
                },
            })
            .collect(),
    )
}

async fn call_raw(
    page: &Page,
    object_id: &str,
    function: &str,
    args: &[Arg<'_>],
    by_value: bool,
) -> Result<RemoteObject> {
    let reply = page
        .send(&CallFunctionOnParams {
            object_id: Some(object_id.to_string()),
            arguments: arguments(args),
            silent: Some(true),
            return_by_value: Some(by_value),
            user_gesture: Some(true),
            object_group: Some(OBJECT_GROUP.to_string()),
            ..CallFunctionOnParams::new(function.to_string())
        })
        .await?;
    if let Some(ex) = reply.exception_details {
        let detail = ex.exception.and_then(|e| e.description).unwrap_or(ex.text);
        return Err(Error::protocol(format!(
            "a helper function failed in the page: {detail}; the page may have changed, take a \
             new snapshot and try again"
        )));
    }
    Ok(reply.result)
}

/// Calls `function` with `this` = the object, returning its result as JSON (`null` for
/// `undefined`).
pub(crate) async fn call(
    page: &Page,
    object_id: &str,
    function: &str,
    args: &[Arg<'_>],
) -> Result<Value> {
    let result = call_raw(page, object_id, function, args, true).await?;
    Ok(result.value.unwrap_or(Value::Null))
}

/// Calls `function` with `this` = the object; its result must be a node or `null`.
pub(crate) async fn call_node(
    page: &Page,
    object_id: &str,
    function: &str,
    args: &[Arg<'_>],
) -> Result<Option<LiveNode>> {
    let result = call_raw(page, object_id, function, args, false).await?;
    match result.object_id {
        Some(id) => node_from_object(page, id).await.map(Some),
        None => Ok(None),
    }
}

/// The node behind a remote object.
pub(crate) async fn node_from_object(page: &Page, object_id: String) -> Result<LiveNode> {
    let described = page
        .send(&DescribeNodeParams {
            object_id: Some(object_id.clone()),
            depth: Some(0),
            ..Default::default()
        })
        .await?;
    Ok(LiveNode {
        backend_node_id: described.node.backend_node_id,
        object_id,
    })
}

/// A session's frame tree (`Page.getFrameTree`): its main frame, and each frame's loader id and
/// parent.
pub(crate) struct Frames {
    pub main_frame: String,
    frames: Vec<FrameEntry>,
}

struct FrameEntry {
    id: String,
    loader: String,
    parent: Option<String>,
}

impl Frames {
    pub(crate) async fn read(session: &Page) -> Result<Frames> {
        let tree = session.send(&GetFrameTreeParams {}).await?.frame_tree;
        let mut frames = Vec::new();
        collect(&tree, &mut frames, 0);
        Ok(Frames {
            main_frame: tree.frame.id.clone(),
            frames,
        })
    }

    pub(crate) fn loader(&self, frame_id: &str) -> Option<&str> {
        self.frames
            .iter()
            .find(|f| f.id == frame_id)
            .map(|f| f.loader.as_str())
    }

    pub(crate) fn parent(&self, frame_id: &str) -> Option<&str> {
        self.frames
            .iter()
            .find(|f| f.id == frame_id)
            .and_then(|f| f.parent.as_deref())
    }

    /// Every frame of the tree with its document's loader id, the main frame first.
    pub(crate) fn documents(&self) -> impl Iterator<Item = (&str, &str)> {
        self.frames
            .iter()
            .map(|f| (f.id.as_str(), f.loader.as_str()))
    }

    /// The main frame's loader id.
    pub(crate) fn main_loader(&self) -> &str {
        self.loader(&self.main_frame).unwrap_or("")
    }

    /// The loader id of `frame_id`'s document if it is still the one `expected` names (any,
    /// when `expected` is empty), or why not.
    pub(crate) fn same_document(
        &self,
        frame_id: &str,
        expected: &str,
    ) -> Result<&str, &'static str> {
        match self.loader(frame_id) {
            None => Err("its frame is gone"),
            Some(l) if !expected.is_empty() && l != expected => {
                Err("the page loaded a new document")
            }
            Some(l) => Ok(l),
        }
    }
}

fn collect(tree: &FrameTree, out: &mut Vec<FrameEntry>, depth: usize) {
    out.push(FrameEntry {
        id: tree.frame.id.clone(),
        loader: tree.frame.loader_id.clone(),
        parent: tree.frame.parent_id.clone(),
    });
    if depth < 64 {
        for child in tree.child_frames.iter().flatten() {
            collect(child, out, depth + 1);
        }
    }
}

/// The layout viewport: size (without scrollbars) and scroll offset, CSS px.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewportNow {
    pub width: f64,
    pub height: f64,
    pub scroll_x: f64,
    pub scroll_y: f64,
    pub content_width: f64,
    pub content_height: f64,
}

pub(crate) async fn viewport(page: &Page) -> Result<ViewportNow> {
    let m = page.send(&GetLayoutMetricsParams {}).await?;
    let v = &m.css_layout_viewport;
    Ok(ViewportNow {
        width: v.client_width as f64,
        height: v.client_height as f64,
        scroll_x: v.page_x as f64,
        scroll_y: v.page_y as f64,
        content_width: m.css_content_size.width,
        content_height: m.css_content_size.height,
    })
}
