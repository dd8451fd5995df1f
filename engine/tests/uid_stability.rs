//! Uids on a live page: the same node keeps its uid while it lives, whatever changes around it;
//! a reload gives new uids and the old ones report `STALE_UID`; a page that keeps adding and
//! removing nodes never makes the table outgrow the page.

use std::path::Path;

use pagesight::cdp::runtime::EvaluateParams;
use pagesight::identity::{Uid, UidTable};
use pagesight::live::capture_everything;
use pagesight::model::Model;
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::{analyze_capture, Snapshot, SnapshotOptions};
use pagesight::ErrorCode;

fn page_url() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/pages/uid-churn.html")
        .to_string_lossy()
        .into_owned()
}

fn uid_of(snap: &Snapshot, id: &str) -> Option<Uid> {
    let model: &Model = &snap.model;
    let node = model
        .node_ids()
        .find(|&n| model.attr(n, "id") == Some(id))?;
    snap.uids.dom(node)
}

async fn snap(session: &Session, table: &mut UidTable) -> Snapshot {
    let page = session.current_page().expect("a page is open");
    let capture = capture_everything(page).await.expect("capture");
    analyze_capture(
        capture,
        table,
        page.target_id(),
        &SnapshotOptions::default(),
    )
    .expect("snapshot")
}

async fn eval(session: &Session, expression: &str) {
    let page = session.current_page().expect("a page is open");
    let params = EvaluateParams {
        return_by_value: Some(true),
        ..EvaluateParams::new(expression.to_string())
    };
    let result = page.send(&params).await.expect("evaluate");
    assert!(
        result.exception_details.is_none(),
        "{expression}: {result:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uids_survive_changes_and_not_reloads() {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    session.open(&page_url()).await.expect("open");
    let mut table = UidTable::new();
    let first = snap(&session, &mut table).await;
    let keep = uid_of(&first, "keep").expect("uid of #keep");
    let link = uid_of(&first, "link").expect("uid of #link");

    // A sibling inserted before, an attribute and a text changed: same uids.
    eval(
        &session,
        "document.getElementById('list').insertAdjacentHTML('afterbegin', '<li id=\"new\"><button>New</button></li>');\
         document.getElementById('keep').className = 'b';\
         document.getElementById('keep').textContent = 'Changed text';\
         document.getElementById('link').setAttribute('href', '#y');",
    )
    .await;
    let second = snap(&session, &mut table).await;
    assert_eq!(uid_of(&second, "keep"), Some(keep));
    assert_eq!(uid_of(&second, "link"), Some(link));
    let new = uid_of(&second, "new").expect("uid of #new");
    assert!(second.uids.is_new(new), "an inserted node is new");
    assert!(!second.uids.is_new(keep));

    // A removed node's uid goes stale and is never re-bound.
    eval(&session, "document.getElementById('second').remove();").await;
    let third = snap(&session, &mut table).await;
    assert_eq!(uid_of(&third, "link"), None);
    let stale = table
        .resolve(&link.to_string())
        .map(|_| ())
        .map_err(|e| e.code());
    assert_eq!(stale, Err(ErrorCode::StaleUid));

    // Reload: a new document, new uids; the old ones are stale.
    session
        .execute_json(&serde_json::json!({"cmd": "reload"}))
        .await
        .expect("reload");
    let reloaded = snap(&session, &mut table).await;
    let keep_after = uid_of(&reloaded, "keep").expect("uid of #keep after reload");
    assert_ne!(keep_after, keep);
    let stale = table
        .resolve(&keep.to_string())
        .map(|_| ())
        .map_err(|e| e.code());
    assert_eq!(stale, Err(ErrorCode::StaleUid));
    assert!(table.resolve(&keep_after.to_string()).is_ok());
    session.shutdown().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_table_never_outgrows_a_churning_page() {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    session.open(&page_url()).await.expect("open");
    let mut table = UidTable::new();
    let mut max_ratio: f64 = 0.0;
    for _ in 0..1000 {
        eval(&session, "churn()").await;
        let s = snap(&session, &mut table).await;
        let nodes = s.model.nodes.len() + s.model.ax_nodes.len();
        assert!(
            table.len() <= nodes,
            "the table holds {} entries for a page of {} nodes",
            table.len(),
            nodes
        );
        max_ratio = max_ratio.max(table.len() as f64 / nodes as f64);
    }
    assert!(table.snapshots() == 1000);
    eprintln!("largest table / page size over 1000 snapshots: {max_ratio:.2}");
    session.shutdown().await.expect("close");
}
