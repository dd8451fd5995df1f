//! A snapshot that fetches only the viewport's accessibility nodes must print exactly what one
//! with the full tree prints.
//!
//! For every fixture page (and, when installed, python's `stdtypes` reference page), on one live
//! Chromium and one page state: a recorded capture (every frame's full accessibility tree, every
//! DOM rect) and a live snapshot's capture scoped to the view, rendered in the a11y and dom text
//! modes with fresh uid tables, must give the same text — at the top of the page and scrolled
//! to its middle, for the viewport, for `--expand 500` and for `--expand all` (whose capture
//! has the full trees but reads only the rectangles geometry needs). Uids of DOM nodes are the same in both by construction;
//! accessibility-only nodes (no DOM node) may be numbered differently, so uids are compared
//! normalised and the exact match is reported. Every difference is printed.
//!
//! The scoped capture is also taken without `includeDOMRects` (the client and scroll rectangles
//! of the boxes geometry needs are read on their own), so the comparison covers that too.
//!
//! Also: a viewport-scoped capture refuses to be rendered with a wider view.

use std::path::{Path, PathBuf};

use pagesight::analysis::Expand;
use pagesight::browser::Page;
use pagesight::capture::AxScope;
use pagesight::cdp::runtime::EvaluateParams;
use pagesight::identity::UidTable;
use pagesight::live::{capture_everything, capture_for_view_fetching, AxFetch, Captured, Kept};
use pagesight::render::{Format, Mode};
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::{process, SnapshotOptions};
use pagesight::ErrorCode;

mod common;
use common::{html_in, normalise_uids, pages_dir, serve_two_origins, Origins, STDTYPES};

fn fixtures() -> PathBuf {
    pages_dir("")
}

/// The first lines where two renders differ, with a line of context.
fn difference(full: &str, partial: &str) -> String {
    let a: Vec<&str> = full.lines().collect();
    let b: Vec<&str> = partial.lines().collect();
    let first = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = first.saturating_sub(1);
    let mut out = format!(
        "    {} lines (full) vs {} (scoped), first difference at line {}\n",
        a.len(),
        b.len(),
        first + 1
    );
    for k in from..(first + 4) {
        if let Some(l) = a.get(k) {
            out.push_str(&format!("    full   {l}\n"));
        }
        if let Some(l) = b.get(k) {
            out.push_str(&format!("    scoped {l}\n"));
        }
    }
    out
}

/// Runs `expr` in the page and waits for the promise it returns.
async fn evaluate(page: &Page, expr: &str) {
    let params = EvaluateParams {
        await_promise: Some(true),
        ..EvaluateParams::new(expr.to_string())
    };
    let _ = page.send(&params).await;
}

/// Waits until a page that keeps changing itself after its load (a frame scrolled on a retrying
/// timer) says it has stopped: it sets `window.fixtureSettled` to a promise that resolves then.
/// A page without one is settled once loaded. False when the promise did not resolve in time.
async fn wait_settled(page: &Page) -> bool {
    // Generous for a loaded machine, still bounded so a page that never settles fails.
    const WAIT_MS: u64 = 20_000;
    let params = EvaluateParams {
        await_promise: Some(true),
        return_by_value: Some(true),
        ..EvaluateParams::new(format!(
            "Promise.race([window.fixtureSettled ?? true, \
             new Promise(r => setTimeout(() => r(false), {WAIT_MS}))])"
        ))
    };
    match page.send(&params).await {
        Ok(r) => r.result.value == Some(serde_json::Value::Bool(true)),
        Err(_) => false,
    }
}

#[derive(Default)]
struct Tally {
    compared: usize,
    exact: usize,
    normalised: usize,
    failures: Vec<String>,
}

/// Compares renders of a recorded capture (full trees, every DOM rect) and of live snapshot
/// captures of the page as it is now, for each view and both modes.
async fn compare(name: &str, page: &Page, tally: &mut Tally) {
    // Node by node even where the whole tree would be cheaper (that is what is tested), and
    // as a live snapshot chooses; the whole page as `--expand all` takes it (full trees, the
    // rectangles of the boxes geometry needs read on their own).
    let views = [Expand::Viewport, Expand::Pixels(500.0)];
    let cases = views
        .into_iter()
        .flat_map(|e| [(e, AxFetch::Partial), (e, AxFetch::Auto)])
        .chain([(Expand::All, AxFetch::Auto)]);
    for (expand, fetch) in cases {
        let scope = AxScope::for_view(expand, false);
        let (full, scoped) = match (
            capture_everything(page).await,
            capture_for_view_fetching(page, &Kept::default(), scope, fetch).await,
        ) {
            (Ok(f), Ok(s)) => (f, s),
            (Err(e), _) | (_, Err(e)) => {
                tally
                    .failures
                    .push(format!("{name} {expand:?} {fetch:?}: capture failed: {e}"));
                continue;
            }
        };
        if fetch == AxFetch::Partial {
            assert_eq!(scoped.capture().ax_scope, scope);
        }
        for mode in [Mode::A11y, Mode::Dom] {
            let options = SnapshotOptions {
                mode,
                format: Format::Text,
                expand,
                verbose: false,
                ..SnapshotOptions::default()
            };
            let render = |c: Captured| {
                let mut table = UidTable::new();
                process(c, &mut table, page.target_id(), &options).map(|s| s.output)
            };
            // The model a live snapshot keeps from choosing what to ask for, with the answers
            // added, is the model of the capture built afresh.
            let rebuilt = render(scoped.capture().clone().into());
            let (a, b) = match (render(full.clone().into()), render(scoped.clone())) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => {
                    tally
                        .failures
                        .push(format!("{name} {expand:?} {fetch:?} {mode:?}: {e}"));
                    continue;
                }
            };
            if rebuilt.as_ref().ok() != Some(&b) {
                tally.failures.push(format!(
                    "{name} {expand:?} {fetch:?} {mode:?}: the kept DOM model renders otherwise than the capture rebuilt"
                ));
            }
            tally.compared += 1;
            if a == b {
                tally.exact += 1;
            } else if normalise_uids(&a) == normalise_uids(&b) {
                tally.normalised += 1;
            } else {
                tally.failures.push(format!(
                    "{name} {expand:?} {fetch:?} {mode:?} differs:\n{}",
                    difference(&normalise_uids(&a), &normalise_uids(&b))
                ));
            }
        }
        // The scoped capture cannot be shown wider than it was taken.
        if scoped.capture().ax_scope.is_full() {
            continue;
        }
        let wider = SnapshotOptions {
            expand: Expand::All,
            ..SnapshotOptions::default()
        };
        let mut table = UidTable::new();
        match process(scoped, &mut table, page.target_id(), &wider) {
            Err(e) if e.code() == ErrorCode::InvalidArgument => {}
            other => tally.failures.push(format!(
                "{name}: a viewport capture rendered with --expand all gave {:?}",
                other.map(|s| s.output.len())
            )),
        }
    }
}

/// Opens `url`, compares at the top and scrolled to the middle.
async fn check_page(session: &mut Session, name: &str, url: &str, tally: &mut Tally) {
    match session.open(url).await {
        Err(e) => {
            tally.failures.push(format!("{name}: cannot open: {e}"));
            return;
        }
        // A page that opens a dialog as it loads (a test page of the actions) has nothing to
        // compare until it is answered, and would block every page after it: answer and skip.
        Ok(opened) if opened.dialog.is_some() => {
            let answered = session
                .execute_json(&serde_json::json!({"cmd": "dialog", "accept": true}))
                .await;
            if let Err(e) = answered {
                tally
                    .failures
                    .push(format!("{name}: its dialog could not be answered: {e}"));
            }
            eprintln!("{name}: opens a dialog as it loads; not compared");
            return;
        }
        Ok(_) => {}
    }
    let Some(page) = session.current_page() else {
        return;
    };
    // A full and a scoped capture are taken one after the other: the page must not change
    // in between.
    if !wait_settled(page).await {
        tally
            .failures
            .push(format!("{name}: the page never said it had settled"));
        return;
    }
    compare(name, page, tally).await;
    evaluate(
        page,
        // Instantly (a page may ask for smooth scrolling), then two frames for it to settle.
        "window.scrollTo({top: Math.max(0, (document.documentElement.scrollHeight - innerHeight) / 2), \
         behavior: 'instant'}); \
         new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
    )
    .await;
    compare(&format!("{name} (middle)"), page, tally).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scoped_snapshots_print_what_full_ones_print() {
    let mut session = match Session::start(SessionOptions::default()).await {
        Ok(s) => s,
        Err(e) => panic!("cannot launch Chromium: {e}"),
    };
    let mut tally = Tally::default();
    let root = fixtures();
    let mut pages = html_in(&root);
    for dir in ["actions", "diff"] {
        pages.extend(html_in(&root.join(dir)));
    }
    for path in &pages {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .to_string();
        check_page(&mut session, &name, &path.to_string_lossy(), &mut tally).await;
    }
    // Frames: same-process and out-of-process iframes, scrolled and clipped ones.
    if let Ok(Origins { a, .. }) = serve_two_origins(root.join("frames")) {
        // The other pages are frames of these (`scrolled.html` alone keeps scrolling itself;
        // `top.html` says when its scroll has stuck).
        for page in ["top.html", "clipped.html", "scroll-panel.html"] {
            let name = format!("frames/{page}");
            check_page(&mut session, &name, &format!("{a}/{page}"), &mut tally).await;
        }
    }
    if Path::new(STDTYPES).exists() {
        check_page(&mut session, "stdtypes", STDTYPES, &mut tally).await;
    } else {
        eprintln!("{STDTYPES} is not installed: the long reference page is not compared");
    }
    let _ = session.shutdown().await;
    eprintln!(
        "{} renders compared: {} identical, {} identical up to uid numbering; {} problem(s)",
        tally.compared,
        tally.exact,
        tally.normalised,
        tally.failures.len()
    );
    for f in &tally.failures {
        eprintln!("  {f}");
    }
    assert!(tally.compared >= 100, "too few renders compared");
    assert!(
        tally.failures.is_empty(),
        "{} difference(s), printed above",
        tally.failures.len()
    );
}

#[test]
fn uids_are_normalised_wherever_they_appear() {
    assert_eq!(
        normalise_uids("uid=1_3 link \"a 2_4\" occluded-by=12_0 x1_2 [3_9]<a>"),
        "uid=# link \"a #\" occluded-by=# x1_2 [#]<a>"
    );
}
