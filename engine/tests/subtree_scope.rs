//! A snapshot with `uid` asks Chromium only for the accessibility nodes of the element's subtree
//! and its ancestors (`AxScope::Subtree`); its text must be the one the whole page's capture
//! gives cut to that subtree.
//!
//! For fixture pages (a long generated reference, forms, shadow DOM, same-process and
//! out-of-process iframes) and, when installed, python's `stdtypes` page, on one live Chromium
//! and one page state: a live capture of the whole page (every frame's full accessibility tree,
//! what a snapshot with `uid` used to take) rendered with
//! `uid` against a subtree-scoped capture fetched node by node rendered with the same `uid`, for
//! several uids per page (spread over the text, the largest subtree below the root, elements
//! inside iframes), in the a11y (plain and verbose) and dom text modes. Both are rendered as the
//! second snapshot of a uid table whose first was the whole page, as an agent takes them. Uids of
//! DOM nodes are the same in both by construction; accessibility-only nodes (no DOM node) are
//! minted in another order, so uids are compared normalised and the exact match is reported.
//!
//! Also: a subtree-scoped capture refuses to be rendered as anything but its own subtree, and
//! through a session a uid whose element was removed is still `STALE_UID`.

use std::path::{Path, PathBuf};

use pagesight::analysis::Expand;
use pagesight::browser::Page;
use pagesight::capture::AxScope;
use pagesight::cdp::runtime::EvaluateParams;
use pagesight::identity::UidTable;
use pagesight::live::{capture_for_view, capture_for_view_fetching, AxFetch, Captured, Kept};
use pagesight::render::{Format, Mode};
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::{process, SnapshotOptions};
use pagesight::ErrorCode;

mod common;
use common::{normalise_uids, pages_dir, serve_two_origins, Origins, STDTYPES};

/// The first lines where two renders differ, with a line of context.
fn difference(whole: &str, scoped: &str) -> String {
    let a: Vec<&str> = whole.lines().collect();
    let b: Vec<&str> = scoped.lines().collect();
    let first = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let mut out = format!(
        "    {} lines (cut of the whole) vs {} (subtree), first difference at line {}\n",
        a.len(),
        b.len(),
        first + 1
    );
    for k in first.saturating_sub(1)..(first + 4) {
        if let Some(l) = a.get(k) {
            out.push_str(&format!("    whole   {l}\n"));
        }
        if let Some(l) = b.get(k) {
            out.push_str(&format!("    subtree {l}\n"));
        }
    }
    out
}

/// Whether the subtree's text is the whole page's cut with only lines of generated `":"` text
/// left out (a `::after`'s content, which no partial call reaches): every other line the same,
/// in the same order.
fn only_generated_colons_missing(whole: &str, scoped: &str) -> bool {
    let mut scoped = scoped.lines().peekable();
    for line in whole.lines() {
        if scoped.peek() == Some(&line) {
            scoped.next();
        } else if !line.trim_end().ends_with("\":\"") {
            return false;
        }
    }
    scoped.next().is_none()
}

/// The uid a text line shows (`uid=1_3 …` in the a11y view, `[1_3]<a …>` in the dom view).
fn uid_of(line: &str) -> Option<String> {
    let rest = line.trim_start();
    let rest = rest
        .strip_prefix("uid=")
        .or_else(|| rest.strip_prefix('['))?;
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(rest.len());
    let uid = &rest[..end];
    uid.contains('_').then(|| uid.to_string())
}

/// Nesting level of a line in a mode's text.
fn depth(line: &str, mode: Mode) -> usize {
    match mode {
        Mode::A11y => (line.len() - line.trim_start_matches(' ').len()) / 2,
        Mode::Dom => line.len() - line.trim_start_matches('\t').len(),
    }
}

/// Uids of the whole text worth a subtree: `spread` spread over it, and the one below the root
/// with the most lines under it.
fn pick_uids(text: &str, mode: Mode, spread: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let with_uid: Vec<usize> = (0..lines.len())
        .filter(|&i| uid_of(lines[i]).is_some())
        .collect();
    let mut out = Vec::new();
    for k in 1..=spread {
        if let Some(&i) = with_uid.get(k * with_uid.len() / (spread + 1)) {
            out.extend(uid_of(lines[i]));
        }
    }
    let size = |i: usize| {
        let d = depth(lines[i], mode);
        lines[i + 1..]
            .iter()
            .position(|l| depth(l, mode) <= d)
            .unwrap_or(lines.len() - i - 1)
    };
    if let Some(&largest) = with_uid
        .iter()
        .filter(|&&i| depth(lines[i], mode) > 0)
        .max_by_key(|&&i| size(i))
    {
        out.extend(uid_of(lines[largest]));
    }
    out.sort();
    out.dedup();
    out
}

#[derive(Default)]
struct Tally {
    compared: usize,
    exact: usize,
    normalised: usize,
    nonempty: usize,
    in_frames: usize,
    failures: Vec<String>,
    /// Differences on the installed reference page, reported but not failed: Chromium gives
    /// the text of generated content (a `::after`'s `":"`) no node a partial call reaches.
    known: Vec<String>,
}

/// `capture` rendered with `options` as the second snapshot of a table whose first was
/// `primer` viewed whole.
fn second_snapshot(
    primer: &Captured,
    capture: Captured,
    target: &str,
    options: &SnapshotOptions,
) -> pagesight::Result<String> {
    let whole = SnapshotOptions {
        mode: options.mode,
        expand: Expand::All,
        ..SnapshotOptions::default()
    };
    let mut table = UidTable::new();
    process(primer.clone(), &mut table, target, &whole)?;
    process(capture, &mut table, target, options).map(|s| s.output)
}

/// Compares, for uids of the page as it is now, the cut of the whole capture with the subtree
/// capture. `spread`: uids taken across each mode's text; `frames`: uids in iframes too.
async fn compare(name: &str, page: &Page, spread: usize, frames: usize, tally: &mut Tally) {
    // As a live snapshot of the whole page takes it (every frame's full tree), which is how a
    // snapshot with `uid` was taken before it had a scope of its own.
    let full = match capture_for_view(page, &Kept::default(), AxScope::Full).await {
        Ok(full) => full,
        Err(e) => {
            tally
                .failures
                .push(format!("{name}: full capture failed: {e}"));
            return;
        }
    };
    let target = page.target_id();
    for mode in [Mode::A11y, Mode::Dom] {
        let whole = SnapshotOptions {
            mode,
            expand: Expand::All,
            ..SnapshotOptions::default()
        };
        let mut table = UidTable::new();
        let text = match process(full.clone(), &mut table, target, &whole) {
            Ok(s) => s.output,
            Err(e) => {
                tally.failures.push(format!("{name} {mode:?}: {e}"));
                continue;
            }
        };
        let mut uids = pick_uids(&text, mode, spread);
        // Elements of other frames than the page's own.
        let in_frames: Vec<String> = text
            .lines()
            .filter_map(uid_of)
            .filter(|u| {
                table
                    .resolve(u)
                    .is_ok_and(|r| r.backend_node_id.is_some() && r.document.frame_id != target)
            })
            .collect();
        for k in 0..frames.min(in_frames.len()) {
            uids.push(in_frames[k * in_frames.len() / frames.min(in_frames.len())].clone());
        }
        for uid in uids {
            let Some(backend_node_id) = table.resolve(&uid).ok().and_then(|r| r.backend_node_id)
            else {
                continue;
            };
            let in_frame = in_frames.contains(&uid);
            let scope = AxScope::Subtree { backend_node_id };
            let scoped =
                match capture_for_view_fetching(page, &Kept::default(), scope, AxFetch::Partial)
                    .await
                {
                    Ok(s) => s,
                    Err(e) => {
                        tally
                            .failures
                            .push(format!("{name} {uid}: subtree capture failed: {e}"));
                        continue;
                    }
                };
            if scoped.capture().ax_scope != scope {
                tally
                    .failures
                    .push(format!("{name} {uid}: the capture is not subtree-scoped"));
            }
            let verbose: &[bool] = match mode {
                Mode::A11y => &[false, true],
                Mode::Dom => &[false],
            };
            for &verbose in verbose {
                let options = SnapshotOptions {
                    mode,
                    format: Format::Text,
                    verbose,
                    uid: Some(uid.clone()),
                    ..SnapshotOptions::default()
                };
                let what = format!("{name} {mode:?} verbose={verbose} uid={uid}");
                let (a, b) = match (
                    second_snapshot(&full, full.clone(), target, &options),
                    second_snapshot(&full, scoped.clone(), target, &options),
                ) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(e), _) | (_, Err(e)) => {
                        tally.failures.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                tally.compared += 1;
                tally.nonempty += usize::from(!a.is_empty());
                tally.in_frames += usize::from(in_frame && !a.is_empty());
                if a == b {
                    tally.exact += 1;
                } else if normalise_uids(&a) == normalise_uids(&b) {
                    tally.normalised += 1;
                } else {
                    let diff = format!(
                        "{what} differs:\n{}",
                        difference(&normalise_uids(&a), &normalise_uids(&b))
                    );
                    if name == "stdtypes"
                        && only_generated_colons_missing(&normalise_uids(&a), &normalise_uids(&b))
                    {
                        tally.known.push(diff);
                    } else {
                        tally.failures.push(diff);
                    }
                }
            }
            // The subtree capture shows nothing wider than its subtree.
            let wider = SnapshotOptions {
                mode,
                expand: Expand::All,
                ..SnapshotOptions::default()
            };
            let mut t = UidTable::new();
            match process(scoped, &mut t, target, &wider) {
                Err(e) if e.code() == ErrorCode::InvalidArgument => {}
                other => tally.failures.push(format!(
                    "{name} {uid}: a subtree capture rendered whole gave {:?}",
                    other.map(|s| s.output.len())
                )),
            }
        }
    }
}

/// Opens `url`, waits for it to settle, compares.
async fn check_page(
    session: &mut Session,
    name: &str,
    url: &str,
    spread: usize,
    frames: usize,
    tally: &mut Tally,
) {
    if let Err(e) = session.open(url).await {
        tally.failures.push(format!("{name}: cannot open: {e}"));
        return;
    }
    let Some(page) = session.current_page() else {
        return;
    };
    // A full and a subtree capture are taken one after the other: the page must not change in
    // between (a page that keeps changing itself says when it has stopped).
    let params = EvaluateParams {
        await_promise: Some(true),
        return_by_value: Some(true),
        ..EvaluateParams::new(
            "Promise.race([window.fixtureSettled ?? true, \
             new Promise(r => setTimeout(() => r(false), 20000))])"
                .to_string(),
        )
    };
    let _ = page.send(&params).await;
    compare(name, page, spread, frames, tally).await;
}

fn fixtures() -> PathBuf {
    pages_dir("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtree_snapshots_print_what_the_whole_page_cut_prints() {
    let mut session = match Session::start(SessionOptions::default()).await {
        Ok(s) => s,
        Err(e) => panic!("cannot launch Chromium: {e}"),
    };
    let mut tally = Tally::default();
    let root = fixtures();
    for (page, spread) in [
        ("budget/long-reference.html", 6),
        ("forms.html", 4),
        ("shadow-dom.html", 3),
        ("iframe-srcdoc.html", 3),
        ("widgets-custom.html", 3),
    ] {
        let url = root.join(page).to_string_lossy().to_string();
        check_page(&mut session, page, &url, spread, 2, &mut tally).await;
    }
    // Same-process and out-of-process iframes.
    if let Ok(Origins { a, .. }) = serve_two_origins(root.join("frames")) {
        let name = "frames/top.html";
        check_page(
            &mut session,
            name,
            &format!("{a}/top.html"),
            2,
            4,
            &mut tally,
        )
        .await;
    }
    if Path::new(STDTYPES).exists() {
        check_page(&mut session, "stdtypes", STDTYPES, 2, 0, &mut tally).await;
    } else {
        eprintln!("{STDTYPES} is not installed: the long reference page is not compared");
    }
    let _ = session.shutdown().await;
    eprintln!(
        "{} subtrees compared ({} not empty, {} in iframes): {} identical, {} identical up to \
         the numbering of accessibility-only nodes; {} problem(s)",
        tally.compared,
        tally.nonempty,
        tally.in_frames,
        tally.exact,
        tally.normalised,
        tally.failures.len()
    );
    for f in &tally.failures {
        eprintln!("  {f}");
    }
    for k in &tally.known {
        eprintln!("  known gap (generated content): {k}");
    }
    assert!(tally.nonempty >= 40, "too few subtrees compared");
    assert!(tally.in_frames >= 2, "too few subtrees in iframes compared");
    assert!(
        tally.failures.is_empty(),
        "{} difference(s), printed above",
        tally.failures.len()
    );
}

/// Runs `expr` in the current page.
async fn evaluate(session: &Session, expr: &str) {
    if let Some(page) = session.current_page() {
        let _ = page.send(&EvaluateParams::new(expr.to_string())).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uid_snapshot_of_a_removed_element_is_stale() {
    let mut session = match Session::start(SessionOptions::default()).await {
        Ok(s) => s,
        Err(e) => panic!("cannot launch Chromium: {e}"),
    };
    let url = fixtures().join("budget/long-reference.html");
    let outcome = async {
        session.open(&url.to_string_lossy()).await?;
        let whole = session
            .execute_json(&serde_json::json!({"cmd": "snapshot", "expand": "all"}))
            .await?;
        let text = whole
            .as_str()
            .or_else(|| whole["text"].as_str())
            .unwrap_or("")
            .to_string();
        // The first heading of the page's second half, and the section holding it.
        let lines: Vec<&str> = text.lines().collect();
        let heading = lines[lines.len() / 2..]
            .iter()
            .find(|l| l.contains(" heading "))
            .and_then(|l| uid_of(l))
            .expect("a heading in the second half");
        let sub = |uid: &str| serde_json::json!({"cmd": "snapshot", "uid": uid});
        let before = session.execute_json(&sub(&heading)).await?;
        let before = before
            .as_str()
            .or_else(|| before["text"].as_str())
            .unwrap_or("")
            .to_string();
        assert!(
            before.starts_with(&format!("uid={heading} heading")),
            "{before}"
        );
        // Remove every heading: the one asked for is among them.
        evaluate(
            &session,
            "document.querySelectorAll('h1,h2,h3,h4,h5,h6').forEach(h => h.remove())",
        )
        .await;
        let after = session.execute_json(&sub(&heading)).await;
        Ok::<_, pagesight::Error>(after.map(|_| ()))
    }
    .await;
    let _ = session.shutdown().await;
    match outcome {
        Ok(Err(e)) => assert_eq!(e.code(), ErrorCode::StaleUid, "{}", e.message()),
        Ok(Ok(())) => panic!("a removed element's subtree was shown"),
        Err(e) => panic!("{}", e.message()),
    }
}
