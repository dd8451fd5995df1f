//! Live nodes: finding the node a uid names in the running page, and the small CDP helpers every
//! action shares (calling a function on a node, turning objects back into nodes).
//!
//! Why a uid is checked against the page every time: the uid table only knows what the last
//! snapshot saw. Between that snapshot and the action the page may have removed the node,
//! replaced it with an equal-looking one (frameworks re-render), or loaded a new document. An
//! action on the wrong node is worse than no action, so a uid is only used when (1) its frame
//! still shows the document (same `loaderId`) the snapshot saw, (2) Chromium still knows the
//! `backendNodeId` (`DOM.describeNode`, `DOM.resolveNode`), and (3) the node is still connected
//! to its document. Anything else is `STALE_UID`, and the uid is forgotten so the next try fails
//! fast. A uid is never re-bound to another node.
//!
//! JavaScript is used here only to *act* and to check the live node (`isConnected`, `contains`);
//! perception never runs page JavaScript. Objects live in one object group that each action
//! releases when it ends.

use serde_json::Value;

use crate::browser::Page;
use crate::cdp::dom::{DescribeNodeParams, ResolveNodeParams};
use crate::cdp::page::{FrameTree, GetFrameTreeParams};
use crate::cdp::runtime::{
    CallArgument, CallFunctionOnParams, ReleaseObjectGroupParams, RemoteObject,
};
use crate::error::{Error, ErrorCode, Result};
use crate::identity::{Uid, UidTable};

/// The object group of everything an action resolves; released when the action ends.
pub(crate) const OBJECT_GROUP: &str = "pagesight-act";

/// A node of the live page: its `backendNodeId` and a handle to it in the page's main world.
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

/// A handle to the node with this `backendNodeId`, if Chromium still knows it.
pub(crate) async fn node_from_backend(page: &Page, backend_node_id: i64) -> Result<LiveNode> {
    let resolved = page
        .send(&ResolveNodeParams {
            backend_node_id: Some(backend_node_id),
            object_group: Some(OBJECT_GROUP.to_string()),
            ..Default::default()
        })
        .await?;
    match resolved.object.object_id {
        Some(object_id) => Ok(LiveNode {
            backend_node_id,
            object_id,
        }),
        None => Err(Error::protocol(format!(
            "DOM.resolveNode gave no object for node {backend_node_id}"
        ))),
    }
}

/// Releases the objects the action created.
pub(crate) async fn release(page: &Page) {
    let _ = page
        .send(&ReleaseObjectGroupParams {
            object_group: OBJECT_GROUP.to_string(),
        })
        .await;
}

/// The main frame's id and each frame's loader id, from `Page.getFrameTree`.
pub(crate) struct Frames {
    pub main_frame: String,
    loaders: Vec<(String, String)>,
}

impl Frames {
    pub(crate) async fn read(page: &Page) -> Result<Frames> {
        let tree = page.send(&GetFrameTreeParams {}).await?.frame_tree;
        let mut loaders = Vec::new();
        collect(&tree, &mut loaders, 0);
        Ok(Frames {
            main_frame: tree.frame.id.clone(),
            loaders,
        })
    }

    pub(crate) fn loader(&self, frame_id: &str) -> Option<&str> {
        self.loaders
            .iter()
            .find(|(f, _)| f == frame_id)
            .map(|(_, l)| l.as_str())
    }
}

fn collect(tree: &FrameTree, out: &mut Vec<(String, String)>, depth: usize) {
    out.push((tree.frame.id.clone(), tree.frame.loader_id.clone()));
    if depth < 64 {
        for child in tree.child_frames.iter().flatten() {
            collect(child, out, depth + 1);
        }
    }
}

fn stale(uid: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::StaleUid,
        format!(
            "the element {uid} no longer exists ({why}); take a new snapshot and use a uid from it"
        ),
    )
}

/// Resolves a uid the agent sent to the live element it names (a text node's uid names its
/// parent element). See the module docs for the checks.
pub(crate) async fn resolve_uid(
    page: &Page,
    uids: &mut UidTable,
    frames: &Frames,
    uid: &str,
) -> Result<LiveNode> {
    let (parsed, document, backend) = {
        let r = uids.resolve(uid)?;
        (r.uid, r.document.clone(), r.backend_node_id)
    };
    let Some(backend) = backend else {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{uid} is an accessibility-only node without a DOM element; act on the element \
                 that contains it"
            ),
        ));
    };
    if document.target != page.target_id() {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{uid} is inside a frame that runs in another process (a cross-site iframe); \
                 acting inside such frames is not supported yet"
            ),
        ));
    }
    let forget = |uids: &mut UidTable, parsed: Uid, why: &str| {
        uids.forget(parsed);
        stale(uid, why)
    };
    match frames.loader(&document.frame_id) {
        None => return Err(forget(uids, parsed, "its frame is gone")),
        Some(loader) if !document.loader_id.is_empty() && loader != document.loader_id => {
            return Err(forget(uids, parsed, "the page loaded a new document"))
        }
        Some(_) => {}
    }
    let node = match node_from_backend(page, backend).await {
        Ok(node) => node,
        Err(e) if e.code() == ErrorCode::ProtocolError => {
            return Err(forget(uids, parsed, "the browser no longer knows it"))
        }
        Err(e) => return Err(e),
    };
    // Connected? And for a text node, its parent element.
    let element = call_node(
        page,
        &node.object_id,
        "function(){if(!this.isConnected)return null;\
         return this.nodeType===1?this:(this.parentElement||null);}",
        &[],
    )
    .await?;
    match element {
        Some(element) => Ok(element),
        None => {
            let connected = call(
                page,
                &node.object_id,
                "function(){return this.isConnected}",
                &[],
            )
            .await?;
            if connected == Value::Bool(true) {
                Err(Error::new(
                    ErrorCode::NotInteractable,
                    format!("{uid} is not an element (a document or a detached text); act on an element"),
                ))
            } else {
                Err(forget(uids, parsed, "it was removed from the page"))
            }
        }
    }
}

/// A handle to the main frame's `document` (for page-level helper calls).
pub(crate) async fn document_object(page: &Page) -> Result<String> {
    let doc = page
        .send(&crate::cdp::dom::GetDocumentParams {
            depth: Some(0),
            ..Default::default()
        })
        .await?;
    Ok(node_from_backend(page, doc.root.backend_node_id)
        .await?
        .object_id)
}
