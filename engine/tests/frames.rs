//! Frames on a live page: out-of-process (cross-site) iframes, an iframe inside one, a scrolled
//! and a clipped iframe, `srcdoc`, and the awkward ones (sandboxed, lazy, zero-size, 1x1).
//!
//! The pages under `fixtures/pages/frames/` are served over HTTP from two loopback origins,
//! `127.0.0.1:P1` and `localhost:P2`, so Chromium puts the second site in other renderers. Every
//! button inside such a frame must come out with a uid and a click point that Chromium's own
//! hit test, asked inside that frame's renderer, confirms.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pagesight::capture::UncapturedFrame;
use pagesight::cdp::dom::{GetDocumentParams, GetNodeForLocationParams};
use pagesight::identity::{Uid, UidTable};
use pagesight::live::{capture_everything, Kept};
use pagesight::model::{Model, NodeId};
use pagesight::render::{render, Format, Mode, RenderOptions};
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::{process, take_snapshot, take_snapshot_after, Snapshot, SnapshotOptions};

mod common;
use common::{serve_two_origins, Origins};

fn frames_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pages/frames")
}

fn start_servers() -> Origins {
    serve_two_origins(frames_dir()).expect("serve the frame pages on two loopback origins")
}

fn node_by_id(model: &Model, id: &str) -> Option<NodeId> {
    model.node_ids().find(|&n| model.attr(n, "id") == Some(id))
}

fn a11y(snap: &Snapshot) -> String {
    render(
        &snap.model,
        &snap.analysis,
        &snap.uids,
        &RenderOptions {
            mode: Mode::A11y,
            format: Format::Text,
            verbose: false,
            consistent: true,
        },
    )
}

/// Asks the renderer that holds `node` what is under its click point, in that frame's own
/// document coordinates; true when the answer is the node or inside it.
async fn child_hit_test(
    page: &pagesight::browser::Page,
    snap: &Snapshot,
    oopif_targets: &[Option<String>],
    node: NodeId,
) -> Result<bool, String> {
    let model = &snap.model;
    let f = snap.analysis.facts(node);
    let point = snap
        .analysis
        .click(node)
        .click_point
        .ok_or("no click point")?;
    let bounds = f.bounds().ok_or("no bounds")?;
    let layout = model.node(node).layout.ok_or("no layout box")?;
    let doc_bounds = model.layout(layout).bounds;
    let target = model.docs[model.node(node).doc.index()].target;
    // The page session takes the page's document coordinates and descends into same-process
    // frames itself; another renderer takes its own document's coordinates, so undo the
    // offset the analysis applied.
    let (x, y) = if target == 0 {
        let vp = snap.analysis.viewport;
        (point.x + vp.scroll_x, point.y + vp.scroll_y)
    } else {
        (
            point.x - bounds.x + doc_bounds.x,
            point.y - bounds.y + doc_bounds.y,
        )
    };
    let session = if target == 0 {
        page.session_id().clone()
    } else {
        let id = oopif_targets
            .get(target as usize - 1)
            .cloned()
            .flatten()
            .ok_or("no target id")?;
        page.frame_targets()
            .into_iter()
            .find(|t| t.target_id == id)
            .map(|t| t.session_id)
            .ok_or("the frame target is gone")?
    };
    let conn = page.connection();
    conn.send(
        Some(&session),
        &GetDocumentParams {
            depth: Some(0),
            ..Default::default()
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    let hit = conn
        .send(
            Some(&session),
            &GetNodeForLocationParams {
                include_user_agent_shadow_dom: Some(false),
                ..GetNodeForLocationParams::new(x.floor() as i64, y.floor() as i64)
            },
        )
        .await
        .map_err(|e| e.to_string())?;
    let hit_node = model.node_by_target_backend_id(target, hit.backend_node_id);
    Ok(hit_node.is_some_and(|h| model.contains(node, h)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_process_frames_are_captured_and_hit_tested() {
    let origins = start_servers();
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    session
        .open(&format!("{}/top.html", origins.a))
        .await
        .expect("open the frames page");
    let page = session.current_page().expect("a page").clone();

    // Cross-site frames: xo, nest, its leaf, scrolled, clipped, two trackers, sandboxed (when
    // Chromium isolates it). Attaching is asynchronous: wait until the main ones are there.
    let mut waited = 0;
    loop {
        let capture = capture_everything(&page).await.expect("capture");
        let frames: Vec<String> = capture.oopifs.iter().map(|o| o.frame_id.clone()).collect();
        let snap = process(
            capture,
            &mut UidTable::new(),
            page.target_id(),
            &SnapshotOptions::default(),
        )
        .expect("snapshot");
        let ready = [
            "xo-btn",
            "mid-btn",
            "leaf-btn",
            "scrolled-btn",
            "clipped-top",
        ]
        .iter()
        .all(|id| node_by_id(&snap.model, id).is_some_and(|n| snap.analysis.facts(n).in_viewport));
        if ready {
            break;
        }
        waited += 1;
        if waited >= 50 {
            let missing: Vec<String> = [
                "xo-btn",
                "mid-btn",
                "leaf-btn",
                "scrolled-btn",
                "clipped-top",
            ]
            .iter()
            .map(|id| {
                let f = node_by_id(&snap.model, id).map(|n| *snap.analysis.facts(n));
                format!("{id}: {f:?}")
            })
            .collect();
            panic!("frames never all attached: {frames:?} {missing:#?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let options = SnapshotOptions::default();
    let mut table = UidTable::new();
    let capture = capture_everything(&page).await.expect("capture");
    assert!(capture.consistent);
    let oopif_targets: Vec<Option<String>> =
        capture.oopifs.iter().map(|o| o.target_id.clone()).collect();
    assert!(
        capture.oopifs.len() >= 5,
        "expected the cross-site frames as targets, got {}",
        capture.oopifs.len()
    );
    // The leaf is owned by the middle frame, not by the page.
    assert!(
        capture.oopifs.iter().any(|o| o.owner_target > 0),
        "the nested frame is not owned by its parent frame"
    );
    let snap = process(capture, &mut table, page.target_id(), &options).expect("snapshot");
    let model = &snap.model;
    let text = a11y(&snap);
    let dom = render(
        model,
        &snap.analysis,
        &snap.uids,
        &RenderOptions {
            mode: Mode::Dom,
            format: Format::Text,
            verbose: false,
            consistent: true,
        },
    );
    eprintln!("{text}\n{dom}");

    for (id, name) in [
        ("xo-btn", "Cross-origin button"),
        ("mid-btn", "Middle button"),
        ("leaf-btn", "Leaf button"),
        ("scrolled-btn", "Scrolled button"),
        ("clipped-top", "Clipped visible"),
        ("srcdoc-btn", "Srcdoc button"),
    ] {
        let node = node_by_id(model, id).unwrap_or_else(|| panic!("#{id} is in the model"));
        let f = snap.analysis.facts(node);
        assert!(
            f.interactive && f.visible() && f.in_viewport,
            "#{id}: {f:?}"
        );
        let c = snap.analysis.click(node);
        assert!(!c.occluded, "#{id} reported occluded: {c:?}");
        let uid = snap.uids.dom(node).expect("a uid");
        assert!(
            text.contains(&format!("uid={uid} button \"{name}\"")),
            "#{id} ({uid}) not printed:\n{text}"
        );
        match child_hit_test(&page, &snap, &oopif_targets, node).await {
            Ok(true) => {}
            Ok(false) => panic!("#{id}: Chromium does not hit it at {:?}", c.click_point),
            Err(e) => panic!("#{id}: hit test failed: {e}"),
        }
    }
    // Clipped away by the container around its iframe; scrolled frame offsets applied.
    let away = node_by_id(model, "clipped-away").expect("#clipped-away");
    assert!(!snap.analysis.facts(away).in_viewport || !snap.analysis.facts(away).visible());
    // Tracking and zero-size frames add nothing to read.
    assert!(!text.contains("TRACKER-PIXEL"), "{text}");

    // The same through the session (confirmation, uids, JSON).
    let live = take_snapshot(&page, &Kept::default(), &mut UidTable::new(), &options)
        .await
        .expect("live snapshot");
    for id in ["xo-btn", "leaf-btn", "scrolled-btn"] {
        let node = node_by_id(&live.model, id).expect("button");
        let c = live.analysis.click(node);
        assert!(
            !c.occluded && c.click_point.is_some(),
            "#{id} after confirmation: {c:?}"
        );
    }

    // A frame whose content could not be read is said to be so, with the reason.
    let mut capture = capture_everything(&page).await.expect("capture");
    let model = Model::from_capture(capture.clone()).expect("model");
    let xo = node_by_id(&model, "xo").expect("#xo");
    let xo_backend = i64::from(model.node(xo).backend_node_id);
    let xo_frame = model
        .node(xo)
        .content_document
        .and_then(|d| model.opt_str(model.docs[d.index()].frame_id))
        .map(str::to_string)
        .expect("the frame id of #xo");
    capture.oopifs.retain(|o| o.frame_id != xo_frame);
    capture.uncaptured_frames.push(UncapturedFrame {
        owner_target: 0,
        owner_backend_node_id: xo_backend,
        reason: "the frame did not answer in time".into(),
    });
    let snap = process(capture, &mut UidTable::new(), page.target_id(), &options).expect("snap");
    let text = a11y(&snap);
    let uid = snap
        .uids
        .dom(node_by_id(&snap.model, "xo").expect("#xo"))
        .expect("uid");
    assert!(
        text.contains(&format!(
            "uid={uid} Iframe \"Cross-origin frame\" (content not captured: the frame did not answer in time)"
        )),
        "{text}"
    );
    assert!(!text.contains("Cross-origin button"), "{text}");

    session.shutdown().await.expect("close");
}

/// Open and closed shadow roots and slotted content come out in flat-tree order with uids; the
/// browser's own form-control internals (user-agent shadow roots) never do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shadow_trees_render_in_flat_tree_order() {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pages/shadow-dom.html");
    session.open(&path.to_string_lossy()).await.expect("open");
    let page = session.current_page().expect("a page").clone();
    let snap = take_snapshot(
        &page,
        &Kept::default(),
        &mut UidTable::new(),
        &SnapshotOptions::default(),
    )
    .await
    .expect("snapshot");
    let model = &snap.model;
    let text = a11y(&snap);
    for (id, line) in [
        ("open-btn", "button \"Open shadow button\""),
        ("closed-btn", "button \"Closed shadow button\""),
        ("light-btn", "button \"Light button\""),
    ] {
        let node = node_by_id(model, id).unwrap_or_else(|| panic!("#{id} in the model"));
        let uid = snap.uids.dom(node).expect("uid");
        assert!(text.contains(&format!("uid={uid} {line}")), "{text}");
    }
    // Flat tree: the slotted title under its slot, before the card's own text, then the
    // default slot's button.
    let pos = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not in:\n{text}"))
    };
    assert!(pos("Slotted title") < pos("Card body"), "{text}");
    assert!(pos("Card body") < pos("Light button"), "{text}");
    // No user-agent shadow content: no node of a user-agent root, no pseudo internals.
    assert!(
        model
            .node_ids()
            .all(|n| model.opt_str(model.rare_strings(n).shadow_root_type) != Some("user-agent")),
        "user-agent shadow nodes leaked into the model"
    );
    let dom = render(
        model,
        &snap.analysis,
        &snap.uids,
        &RenderOptions {
            mode: Mode::Dom,
            format: Format::Text,
            verbose: false,
            consistent: true,
        },
    );
    for leak in ["-webkit-", "slider-thumb", "inner-editor", "datetime"] {
        assert!(
            !text.contains(leak) && !dom.contains(leak),
            "{leak}:\n{text}\n{dom}"
        );
    }
    // One line per control in the dom view.
    for id in ["text-field", "range", "date"] {
        let node = node_by_id(model, id).expect("control");
        let uid = snap.uids.dom(node).expect("uid").to_string();
        assert_eq!(dom.matches(&format!("[{uid}]")).count(), 1, "#{id}:\n{dom}");
    }
    session.shutdown().await.expect("close");
}

/// A scrolled inner panel says how much of it lies above and below (pixels and pages) in both
/// text formats and in JSON; the page's own scroll line reports the document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scroll_containers_report_hidden_content() {
    let (mut session, page, _) = open_scroll_panel().await;
    // What the page itself says about the panel (`scrollTop`, `scrollHeight`, `clientHeight`).
    let (above, below_panel, client) = panel_measured(&page).await;
    assert!(above > 0.0 && below_panel > 0.0, "{above} {below_panel}");
    let panel = scroll_attribute(above, below_panel, client);
    let a11y_text = session
        .execute_json(&serde_json::json!({"cmd": "snapshot", "mode": "a11y"}))
        .await
        .expect("a11y");
    let a11y_text = a11y_text.as_str().expect("text");
    let dom_text = session
        .execute_json(&serde_json::json!({"cmd": "snapshot", "mode": "dom"}))
        .await
        .expect("dom");
    let dom_text = dom_text.as_str().expect("text");
    let json = session
        .execute_json(&serde_json::json!({"cmd": "snapshot", "format": "json"}))
        .await
        .expect("json");

    let content = json["viewport"]["contentHeight"]
        .as_f64()
        .expect("contentHeight");
    let height = json["viewport"]["height"].as_f64().expect("height");
    let below = (content - height).round();
    assert!(
        below > 800.0,
        "the page is longer than the viewport: {content}"
    );
    let pages = format!("{:.1}", below / height);

    // a11y: the panel line and the page root.
    let line = a11y_text
        .lines()
        .find(|l| l.contains("region \"Messages\""))
        .unwrap_or_else(|| panic!("no panel line:\n{a11y_text}"));
    assert!(line.contains(&panel), "{line}");
    let root = a11y_text.lines().next().expect("root line");
    assert!(
        root.contains(&format!(
            "scroll=\"0px above, {below}px below ({pages} pages)\""
        )),
        "{root}"
    );
    // dom: the panel element and the page scroll line.
    assert!(
        dom_text
            .lines()
            .any(|l| l.contains("<div") && l.contains(&panel)),
        "{dom_text}"
    );
    assert!(
        dom_text.starts_with(&format!(
            "... 0 pixels above (0.0 pages) - {below} pixels below ({pages} pages) - scroll to see more ..."
        )),
        "{dom_text}"
    );
    // JSON: the same numbers on the panel's node.
    fn find_scroll(node: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
        if node["name"] == "Messages" {
            out.push(node["scroll"].clone());
        }
        for c in node["children"].as_array().into_iter().flatten() {
            find_scroll(c, out);
        }
    }
    let mut found = Vec::new();
    find_scroll(&json["root"], &mut found);
    let scroll = found
        .first()
        .unwrap_or_else(|| panic!("no panel in {json}"));
    assert_eq!(scroll["above"].as_f64(), Some(above), "{scroll}");
    assert_eq!(scroll["below"].as_f64(), Some(below_panel), "{scroll}");
    assert_eq!(scroll["clientHeight"].as_f64(), Some(client), "{scroll}");
    session.shutdown().await.expect("close");
}

/// A session with `scroll-panel.html` open: the session, its page and the file's path.
async fn open_scroll_panel() -> (Session, pagesight::browser::Page, PathBuf) {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let path = frames_dir().join("scroll-panel.html");
    session.open(&path.to_string_lossy()).await.expect("open");
    let page = session.current_page().expect("a page").clone();
    (session, page, path)
}

/// Runs `expression` in the page's own world.
async fn evaluate(page: &pagesight::browser::Page, expression: &str) {
    page.send(&pagesight::cdp::runtime::EvaluateParams::new(
        expression.to_string(),
    ))
    .await
    .expect("evaluate");
}

/// The page's own report of its panel: pixels above, pixels below, client height.
async fn panel_measured(page: &pagesight::browser::Page) -> (f64, f64, f64) {
    let expression = "(() => { const p = document.getElementById('panel'); \
         return [p.scrollTop, p.scrollHeight - p.scrollTop - p.clientHeight, p.clientHeight]; })()"
        .to_string();
    let measured = page
        .send(&pagesight::cdp::runtime::EvaluateParams {
            return_by_value: Some(true),
            ..pagesight::cdp::runtime::EvaluateParams::new(expression)
        })
        .await
        .expect("evaluate")
        .result
        .value
        .expect("a value");
    let num = |i: usize| measured[i].as_f64().expect("a number");
    (num(0), num(1), num(2))
}

/// A scroll container's attribute as the snapshot line prints it.
fn scroll_attribute(above: f64, below: f64, client: f64) -> String {
    format!(
        "scroll=\"{above}px above ({:.1} pages), {below}px below ({:.1} pages)\"",
        above / client,
        below / client
    )
}

/// The handles a page keeps to the boxes it measures (scroll containers) read the boxes as they
/// are now: after the container scrolls, once it is replaced by a new one, after a reload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_box_handles_read_the_page_as_it_is_now() {
    let (mut session, page, path) = open_scroll_panel().await;
    let panel_line = async |session: &mut Session| {
        let text = session
            .execute_json(&serde_json::json!({"cmd": "snapshot", "mode": "a11y"}))
            .await
            .expect("a11y");
        let text = text.as_str().expect("text").to_string();
        let (above, below, client) = panel_measured(session.current_page().expect("a page")).await;
        let expected = scroll_attribute(above, below, client);
        let line = text
            .lines()
            .find(|l| l.contains("region \"Messages\""))
            .unwrap_or_else(|| panic!("no panel line:\n{text}"))
            .to_string();
        assert!(
            line.contains(&expected),
            "expected {expected} in {line}\n{text}"
        );
    };

    panel_line(&mut session).await;
    // The same box, scrolled: read through the handle kept from the first snapshot.
    evaluate(&page, "document.getElementById('panel').scrollTop = 120").await;
    panel_line(&mut session).await;
    evaluate(&page, "document.getElementById('panel').scrollTop = 650").await;
    panel_line(&mut session).await;
    // A new box in its place (the old one, still held by its handle, is gone from the page).
    evaluate(
        &page,
        "(() => { const p = document.getElementById('panel'); const q = p.cloneNode(true); \
         p.replaceWith(q); q.scrollTop = 480; })()",
    )
    .await;
    panel_line(&mut session).await;
    // A new document: the kept handles died with the old one.
    session
        .execute_json(&serde_json::json!({"cmd": "open", "url": path.to_string_lossy()}))
        .await
        .expect("reopen");
    panel_line(&mut session).await;
    session.shutdown().await.expect("close");
}

/// A snapshot of a page on which nothing it is computed from changed is the last one again
/// (`Snapshot::repeats`: no analysis, no pass over the uid table), and only while nothing
/// changed: the accessibility tree (a focus that moves nothing, its new tree already kept by
/// the page), the uid table (a uid forgotten), the mode and the format each make a new one,
/// which shows the change. On a page taken whole, and on a long one whose view's
/// accessibility nodes are asked for one by one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_repeats_the_last_only_while_nothing_it_is_computed_from_changed() {
    let (session, page, _) = open_scroll_panel().await;
    repeats_only_while_unchanged(&page).await;
    session.shutdown().await.expect("close");

    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let lines: String = (0..3000)
        .map(|k| format!("<p>Line {k} <a href='?{k}'>link {k}</a></p>"))
        .collect();
    let long = format!(
        "data:text/html,<title>Long</title><button id='row-btn'>Row 4 button</button>{lines}"
    );
    session.open(&long).await.expect("open");
    let page = session.current_page().expect("a page").clone();
    repeats_only_while_unchanged(&page).await;
    session.shutdown().await.expect("close");
}

/// The body of [`a_snapshot_repeats_the_last_only_while_nothing_it_is_computed_from_changed`]
/// on `page`, which shows a button `Row 4 button` with the id `row-btn`.
async fn repeats_only_while_unchanged(page: &pagesight::browser::Page) {
    let kept = Kept::default();
    let mut table = UidTable::new();
    let mut last = None;
    // A snapshot's text, and whether it repeated the last one (made no pass over the table).
    let take = async |table: &mut UidTable, last: &mut Option<Snapshot>, options| {
        let passes = table.snapshots();
        let taken = take_snapshot_after(page, &kept, table, &options, last)
            .await
            .expect("a snapshot");
        (taken.output.clone(), table.snapshots() == passes)
    };
    let a11y = SnapshotOptions::default();
    let button_line = |text: &str| -> String {
        text.lines()
            .find(|l| l.contains("button \"Row 4 button\""))
            .unwrap_or_else(|| panic!("no button:\n{text}"))
            .to_string()
    };

    // The first reads the page, the second keeps its model, the third uses it and settles the
    // uids: from the fourth on, each repeats the last.
    let mut taken = Vec::new();
    for _ in 0..5 {
        taken.push(take(&mut table, &mut last, a11y.clone()).await);
    }
    let repeated: Vec<bool> = taken.iter().map(|(_, r)| *r).collect();
    assert_eq!(repeated, [false, false, false, true, true]);
    let unchanged = taken[0].0.clone();
    assert!(taken.iter().all(|(t, _)| *t == unchanged), "{taken:#?}");
    assert!(!button_line(&unchanged).contains("focused"), "{unchanged}");

    // The button focused, nothing scrolled, while another agent on the same page looks at it
    // twice (so the page keeps the new tree): the next snapshot says so at once.
    evaluate(
        page,
        "document.getElementById('row-btn').focus({preventScroll: true})",
    )
    .await;
    let (mut other_table, mut other_last) = (UidTable::new(), None);
    for _ in 0..2 {
        let (text, _) = take(&mut other_table, &mut other_last, a11y.clone()).await;
        assert!(button_line(&text).contains("focused"), "{text}");
    }
    let (focused, repeated) = take(&mut table, &mut last, a11y.clone()).await;
    assert!(!repeated);
    assert!(button_line(&focused).contains("focused"), "{focused}");
    let mut again = Vec::new();
    for _ in 0..4 {
        again.push(take(&mut table, &mut last, a11y.clone()).await);
    }
    assert!(again.iter().all(|(t, _)| *t == focused), "{again:#?}");
    assert!(
        again.last().is_some_and(|(_, r)| *r),
        "repeats once settled"
    );

    // The button's uid forgotten (as an action that found its node gone does): the next
    // snapshot gives the button a new one rather than the last text's.
    let uid_of = |line: &str| -> Uid {
        let uid = line.split("uid=").nth(1).expect("a uid");
        uid.split_whitespace()
            .next()
            .expect("a uid")
            .parse()
            .expect("a uid")
    };
    let old = uid_of(&button_line(&focused));
    table.forget(old);
    let (renewed, repeated) = take(&mut table, &mut last, a11y.clone()).await;
    assert!(!repeated);
    assert_ne!(uid_of(&button_line(&renewed)), old, "{renewed}");

    // Another mode, then another format: each computed, each time.
    let dom = SnapshotOptions {
        mode: Mode::Dom,
        ..a11y.clone()
    };
    let json = SnapshotOptions {
        format: Format::Json,
        ..a11y.clone()
    };
    for options in [dom, json.clone(), json] {
        let (text, repeated) = take(&mut table, &mut last, options.clone()).await;
        assert!(!repeated, "{options:?}");
        assert_ne!(text, renewed, "{options:?}");
    }
}

/// A page whose state has not changed since its last snapshot is not read again (its model of
/// the DOM is kept, see `live::kept_model`), and every change still shows: a panel scrolled
/// (only its rectangles change), a text changed, the page scrolled, the page loaded again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_page_is_not_read_again_yet_every_change_shows() {
    let (mut session, page, path) = open_scroll_panel().await;
    let run = async |expression: &str| evaluate(&page, expression).await;
    // Three snapshots of each state: the first reads it, the second keeps it, the third uses
    // what was kept.
    let three = async |session: &mut Session| -> Vec<String> {
        let mut texts = Vec::new();
        for _ in 0..3 {
            let text = session
                .execute_json(&serde_json::json!({"cmd": "snapshot", "mode": "a11y"}))
                .await
                .expect("a11y");
            texts.push(text.as_str().expect("text").to_string());
        }
        texts
    };
    let panel_line = |text: &str| -> Option<String> {
        text.lines()
            .find(|l| l.contains("region \"Messages\""))
            .map(str::to_string)
    };
    let button_uid = |text: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.contains("button \""))
            .unwrap_or_else(|| panic!("no button:\n{text}"));
        let uid = line.split("uid=").nth(1).expect("a uid");
        uid.split_whitespace().next().expect("a uid").to_string()
    };

    // Of each three, exactly the third used the kept model: the first two read the reply.
    let kept = session.current_kept().expect("a page").clone();
    let reused = |kept: &Kept, before: u64, what: &str| {
        assert_eq!(kept.reused_snapshots(), before + 1, "{what}");
        before + 1
    };
    let unchanged = three(&mut session).await;
    let count = reused(&kept, 0, "unchanged");
    // The page is small enough to be taken whole: its tree, unchanged, was copied the third time.
    assert_eq!(kept.reused_trees(), 1, "trees of the unchanged page");
    assert!(
        unchanged.iter().all(|t| t == &unchanged[0]),
        "{unchanged:#?}"
    );
    let uid = button_uid(&unchanged[0]);

    // Only the panel's rectangles change: its printed scroll state follows.
    run("document.getElementById('panel').scrollTop = 120").await;
    for text in three(&mut session).await {
        let (above, below, client) = panel_measured(&page).await;
        let expected = scroll_attribute(above, below, client);
        let line = panel_line(&text).unwrap_or_else(|| panic!("no panel:\n{text}"));
        assert!(line.contains(&expected), "expected {expected} in {line}");
        assert_eq!(button_uid(&text), uid, "{text}");
    }
    let count = reused(&kept, count, "panel scrolled");

    // A text changes.
    run("document.getElementById('row-btn').textContent = 'Renamed button'").await;
    for text in three(&mut session).await {
        assert!(text.contains("button \"Renamed button\""), "{text}");
        assert!(!text.contains("Row 4 button"), "{text}");
        assert_eq!(button_uid(&text), uid, "{text}");
    }
    let count = reused(&kept, count, "text changed");

    // The page scrolls the panel out of the view, then back.
    run("window.scrollTo(0, 600)").await;
    for text in three(&mut session).await {
        assert_eq!(panel_line(&text), None, "{text}");
    }
    let count = reused(&kept, count, "page scrolled away");
    run("window.scrollTo(0, 0)").await;
    for text in three(&mut session).await {
        assert!(panel_line(&text).is_some(), "{text}");
    }
    let count = reused(&kept, count, "page scrolled back");

    // Two views alternated on an unchanged page: each is kept apart, so the default view (kept
    // already) is used in every round and the whole page's from its third, and each view still
    // shows what it promises.
    let trees = kept.reused_trees();
    let mut rounds = Vec::new();
    for _ in 0..3 {
        for expand in [None, Some("all")] {
            let mut cmd = serde_json::json!({"cmd": "snapshot", "mode": "a11y"});
            if let Some(expand) = expand {
                cmd["expand"] = serde_json::json!(expand);
            }
            let text = session.execute_json(&cmd).await.expect("snapshot");
            rounds.push(text.as_str().expect("text").to_string());
        }
    }
    assert_eq!(kept.reused_snapshots(), count + 4, "two views alternated");
    for pair in rounds.chunks(2) {
        assert_eq!(pair[0], rounds[0]);
        assert_eq!(pair[1], rounds[1]);
    }
    assert_ne!(
        rounds[0], rounds[1],
        "the whole page shows more than the view"
    );
    // Both views read the same full tree, unchanged all along, kept since the page scrolled back.
    assert_eq!(kept.reused_trees(), trees + 6, "trees of the two views");

    // A new document: the same markup, new nodes.
    session
        .execute_json(&serde_json::json!({"cmd": "open", "url": path.to_string_lossy()}))
        .await
        .expect("reopen");
    let kept = session.current_kept().expect("a page").clone();
    let before = kept.reused_snapshots();
    for text in three(&mut session).await {
        assert!(text.contains("button \"Row 4 button\""), "{text}");
        assert_ne!(button_uid(&text), uid, "{text}");
    }
    reused(&kept, before, "a new document");
    session.shutdown().await.expect("close");
}
