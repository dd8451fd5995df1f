//! Live nodes: finding the node a uid names in the running page, and checking that a node an
//! action holds is still the one it named (the small CDP calls every action shares are in
//! `remote.rs`).
//!
//! Why a uid is checked against the page every time: the uid table only knows what the last
//! snapshot saw. Between that snapshot and the action the page may have removed the node,
//! replaced it with an equal-looking one (frameworks re-render), or loaded a new document. An
//! action on the wrong node is worse than no action, so a uid is only used when (1) its frame
//! (in the page's own renderer, or in the out-of-process iframe target that holds it)
//! still shows the document (same `loaderId`) the snapshot saw, (2) Chromium still knows the
//! `backendNodeId` (`DOM.describeNode`, `DOM.resolveNode`), and (3) the node is still connected
//! to its document. Anything else is `STALE_UID`, and the uid is forgotten so the next try fails
//! fast. A uid is never re-bound to another node.
//!
//! JavaScript is used here only to *act* and to check the live node (`isConnected`, `contains`),
//! and nodes are resolved into the actions' isolated world of their frame (`scope.rs`), so the
//! page's own scripts cannot tamper with those checks; perception never runs page JavaScript.
//! Objects live in one object group that each action releases when it ends, in every renderer
//! it used.

use std::time::Duration;

use serde_json::Value;

use super::remote::{call, call_node, Frames, LiveNode, OBJECT_GROUP};
use super::scope::{owners_of, Scope, Worlds};
use crate::browser::Page;
use crate::cdp::dom::ResolveNodeParams;
use crate::cdp::runtime::ReleaseObjectGroupParams;
use crate::error::{Error, ErrorCode, Result};
use crate::identity::{Uid, UidTable};

/// A handle to the node with this `backendNodeId` in the scope's isolated world, if Chromium
/// still knows it.
pub(crate) async fn node_from_backend(scope: &Scope, backend_node_id: i64) -> Result<LiveNode> {
    resolve_in(&scope.session, scope.world, backend_node_id).await
}

/// [`node_from_backend`] on any session and world.
pub(crate) async fn resolve_in(
    session: &Page,
    world: Option<i64>,
    backend_node_id: i64,
) -> Result<LiveNode> {
    let resolved = session
        .send(&ResolveNodeParams {
            backend_node_id: Some(backend_node_id),
            object_group: Some(OBJECT_GROUP.to_string()),
            execution_context_id: world,
            ..Default::default()
        })
        .await?;
    match resolved.object.object_id {
        Some(object_id) => Ok(LiveNode {
            backend_node_id,
            object_id,
        }),
        None => Err(Error::protocol(format!(
            "DOM.resolveNode gave no object for node {backend_node_id}; take a new snapshot and \
             try again"
        ))),
    }
}

/// Releases the objects the action created in the other renderers it used (an out-of-process
/// frame and the documents that hold its `<iframe>`s).
pub(crate) async fn release_other_sessions(page: &Page, scope: &Scope) {
    let mut sessions: Vec<&Page> = vec![&scope.session];
    sessions.extend(scope.owners.iter().map(|o| &o.parent));
    for s in sessions {
        if s.session_id() != page.session_id() {
            release(s).await;
        }
    }
}

/// Releases the objects the action created. Not waited on for long: a page whose main thread
/// is busy answers late, and the release is carried out when it gets to it.
pub(crate) async fn release(page: &Page) {
    let params = ReleaseObjectGroupParams {
        object_group: OBJECT_GROUP.to_string(),
    };
    let _ = tokio::time::timeout(RELEASE_LIMIT, page.send(&params)).await;
}

/// How long releasing an action's objects is waited for.
const RELEASE_LIMIT: Duration = Duration::from_millis(500);
/// How long the check behind a failed action may take.
const RECHECK_LIMIT: Duration = Duration::from_secs(2);

pub(crate) fn stale(uid: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::StaleUid,
        format!(
            "the element {uid} no longer exists ({why}); take a new snapshot and use a uid from it"
        ),
    )
}

/// The session that holds the document of `frame_id` in another renderer: the out-of-process
/// iframe target that is that frame, or whose frame tree contains it.
async fn frame_session(page: &Page, frame_id: &str) -> Option<(Page, Frames)> {
    let targets = page.frame_targets();
    let direct = targets.iter().filter(|t| t.target_id == frame_id);
    let others = targets.iter().filter(|t| t.target_id != frame_id);
    for t in direct.chain(others) {
        let session = page.frame_session(t);
        if let Ok(frames) = Frames::read(&session).await {
            if frames.loader(frame_id).is_some() {
                return Some((session, frames));
            }
        }
    }
    None
}

/// Resolves a uid the agent sent to the live element it names (a text node's uid names its
/// parent element), and the scope it lives in. `frames`: the page's own frame tree. See the
/// module docs for the checks.
pub(crate) async fn resolve_uid(
    page: &Page,
    uids: &mut UidTable,
    frames: &Frames,
    worlds: &Worlds,
    uid: &str,
) -> Result<(Scope, LiveNode)> {
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
    let forget = |uids: &mut UidTable, parsed: Uid, why: &str| {
        uids.forget(parsed);
        stale(uid, why)
    };
    // The renderer that holds the document: the page's own, or an out-of-process frame's.
    let (session, own_frames) = if document.target == page.target_id() {
        (page.clone(), None)
    } else {
        match frame_session(page, &document.frame_id).await {
            Some((session, f)) => (session, Some(f)),
            None => return Err(forget(uids, parsed, "its frame is gone")),
        }
    };
    let tree = own_frames.as_ref().unwrap_or(frames);
    let loader = match tree.same_document(&document.frame_id, &document.loader_id) {
        Ok(loader) => loader.to_string(),
        Err(why) => return Err(forget(uids, parsed, why)),
    };
    let owners = if own_frames.is_some() {
        owners_of(page, &session).await?
    } else {
        Vec::new()
    };
    let world = worlds.context(&session, &document.frame_id, &loader).await;
    let mut scope = Scope {
        session,
        frame_id: document.frame_id.clone(),
        loader: loader.clone(),
        world,
        owners,
    };
    let node = match node_from_backend(&scope, backend).await {
        Ok(node) => node,
        Err(e) if e.code() == ErrorCode::ProtocolError && world_lost(&e) => {
            // The world's context went away without a new document: make a new one.
            worlds.forget(&scope.session, &scope.frame_id);
            scope.world = worlds
                .context(&scope.session, &scope.frame_id, &loader)
                .await;
            match node_from_backend(&scope, backend).await {
                Ok(node) => node,
                Err(e) if e.code() == ErrorCode::ProtocolError => {
                    return Err(forget(uids, parsed, "the browser no longer knows it"))
                }
                Err(e) => return Err(e),
            }
        }
        Err(e) if e.code() == ErrorCode::ProtocolError => {
            return Err(forget(uids, parsed, "the browser no longer knows it"))
        }
        Err(e) => return Err(e),
    };
    let page_session = &scope.session;
    // Connected? And for a text node, its parent element.
    let element = match call_node(
        page_session,
        &node.object_id,
        "function(){if(!this.isConnected)return null;\
         return this.nodeType===1?this:(this.parentElement||null);}",
        &[],
    )
    .await
    {
        Ok(element) => element,
        // The world went away between the two calls: its document with it, though the frame
        // tree read a moment ago may not say so yet.
        Err(e) if e.code() == ErrorCode::ProtocolError && world_lost(&e) => {
            return Err(forget(
                uids,
                parsed,
                "its document went away: the page is loading another",
            ))
        }
        Err(e) => return Err(e),
    };
    match element {
        Some(element) => Ok((scope, element)),
        None => {
            let connected = call(
                page_session,
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

/// Whether a failure means the execution context is gone (not the node): Chromium's "Cannot
/// find context with specified id", "Execution context was destroyed", or "Inspected target
/// navigated or closed" (a call the document's navigation cut short). An isolated world goes
/// only with its document, so its document is gone too, or going: a navigation has begun to
/// commit, though the frame tree may not say so yet.
pub(crate) fn world_lost(e: &Error) -> bool {
    let message = e.message().to_ascii_lowercase();
    message.contains("context") || message.contains("inspected target navigated or closed")
}

/// The scope of the page's main frame (actions without a uid), in its isolated world.
pub(crate) async fn page_scope(page: &Page, frames: &Frames, worlds: &Worlds) -> Scope {
    let world = worlds
        .context(page, &frames.main_frame, frames.main_loader())
        .await;
    Scope::page(page, &frames.main_frame, frames.main_loader(), world)
}

/// Fails with `STALE_UID` when the node is no longer in its document (or the document is gone:
/// its handle then no longer resolves). For the moment right before input is sent.
pub(crate) async fn ensure_live(session: &Page, node: &LiveNode, label: &str) -> Result<()> {
    let gone = |why: &str| {
        Error::new(
            ErrorCode::StaleUid,
            format!(
                "{label} is no longer on the page ({why}; the page replaced it as the pointer \
                 arrived), so nothing was clicked; take a new snapshot and use a uid from it"
            ),
        )
    };
    let connected = "function(){return this.isConnected}";
    match call(session, &node.object_id, connected, &[]).await {
        Ok(Value::Bool(true)) => Ok(()),
        Ok(_) => Err(gone("it was removed")),
        Err(e) if e.code() == ErrorCode::ProtocolError => Err(gone("its document is gone")),
        Err(e) => Err(e),
    }
}

/// Why an action that failed on a node failed because the node went away meanwhile — its
/// frame is gone, loaded another document, or no longer holds the node — if it did. The
/// failures this explains look like something else (a helper call on a vanished context is a
/// protocol error, a removed node has no box); the agent must hear `STALE_UID` instead. `None`
/// when the node is still there, or the check did not answer in time.
pub(crate) async fn gone_since(scope: &Scope, node: &LiveNode) -> Option<&'static str> {
    let check = async {
        let Ok(frames) = Frames::read(&scope.session).await else {
            return Some("its frame is gone");
        };
        if let Err(why) = frames.same_document(&scope.frame_id, &scope.loader) {
            return Some(why);
        }
        match ensure_live(&scope.session, node, "").await {
            Ok(()) => None,
            Err(e) if e.code() == ErrorCode::StaleUid => Some("it was removed from the page"),
            Err(_) => None,
        }
    };
    tokio::time::timeout(RECHECK_LIMIT, check)
        .await
        .ok()
        .flatten()
}

/// Why an action on the page as a whole (a scroll or a key press with no uid) failed because
/// the page went away meanwhile — its main frame loaded another document — if it did. A helper
/// call on the document that is gone is a protocol error (`DOM.resolveNode`: "does not belong
/// to the document"); the agent must hear `PAGE_NAVIGATING`, which it can retry. `None` when the
/// document is still the one the action started on, or the check did not answer in time.
pub(crate) async fn navigated_since(scope: &Scope) -> Option<&'static str> {
    let check = async {
        let Ok(frames) = Frames::read(&scope.session).await else {
            return Some("the page is gone");
        };
        frames.same_document(&scope.frame_id, &scope.loader).err()
    };
    tokio::time::timeout(RECHECK_LIMIT, check)
        .await
        .ok()
        .flatten()
}

/// The error of a page-level action whose page loaded a new document as it ran.
pub(crate) fn navigated(why: &str) -> Error {
    Error::new(
        ErrorCode::PageNavigating,
        format!(
            "the page navigated while the action ran ({why}), so it may not have been done; \
             take a new snapshot once the page has loaded and try again"
        ),
    )
}

/// A handle to the scope's frame's `document`, in its isolated world (for document-level
/// helper calls).
pub(crate) async fn document_object(scope: &Scope) -> Result<String> {
    let doc = scope
        .session
        .send(&crate::cdp::dom::GetDocumentParams {
            depth: Some(0),
            ..Default::default()
        })
        .await?;
    Ok(node_from_backend(scope, doc.root.backend_node_id)
        .await?
        .object_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_its_documents_navigation_cut_short_lost_its_world() {
        for message in [
            "Cannot find context with specified id",
            "Execution context was destroyed.",
            "Inspected target navigated or closed",
        ] {
            let e = Error::new(ErrorCode::ProtocolError, message);
            assert!(world_lost(&e), "{message}");
        }
        let e = Error::new(ErrorCode::ProtocolError, "No node with given id found");
        assert!(!world_lost(&e));
    }
}
