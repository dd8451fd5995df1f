//! The snapshot's character budget (`maxChars`) and subtree (`uid`), live in headless Chromium
//! on a long generated reference page (`fixtures/pages/budget/`) and on the ordinary fixture
//! pages: the budget is never exceeded, what it keeps are exact lines of the whole text in
//! their order, every marker names a uid whose subtree snapshot holds the lines it stands for,
//! and a subtree is exactly the whole page's lines for that element.

mod common;

use pagesight::cdp::runtime::EvaluateParams;
use pagesight::render::budget::DEFAULT_MAX_CHARS;
use pagesight::session::{Session, SessionOptions};
use serde_json::{json, Value};

/// Opens the long reference page in a new session.
async fn long_page() -> Session {
    let origins =
        common::serve_two_origins(common::pages_dir("budget")).expect("serve the fixture pages");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    session
        .open(&format!("{}/long-reference.html", origins.a))
        .await
        .expect("open the long page");
    session
}

/// Runs a snapshot command and returns its result.
async fn snapshot(session: &mut Session, command: Value) -> Value {
    let mut command = command;
    command["cmd"] = json!("snapshot");
    session
        .execute_json(&command)
        .await
        .unwrap_or_else(|e| panic!("{command}: {}", e.message()))
}

/// The text of a budgeted result (an object) or a plain one (a string).
fn text_of(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        other => other["text"].as_str().expect("a text").to_string(),
    }
}

/// Whether a line is a marker or the summary line of the a11y (`…`) or dom (`... N more`) text.
fn is_marker(line: &str) -> bool {
    let rest = line.trim_start();
    rest.starts_with("… ")
        || (rest.starts_with("... ") && rest.contains(" more line"))
        || rest.starts_with("... maxChars=")
}

/// Asserts that every non-marker line of `cut` is a line of `full`, in the same order.
fn assert_lines_of(cut: &str, full: &str, what: &str) {
    let full: Vec<&str> = full.lines().collect();
    let mut at = 0;
    for line in cut.lines().filter(|l| !is_marker(l)) {
        match full[at..].iter().position(|f| *f == line) {
            Some(k) => at += k + 1,
            None => panic!("{what}: {line:?} is not a line of the full text after line {at}"),
        }
    }
}

/// The whole page's lines of the element on `line` (0-based) and its descendants, moved left.
fn subtree_of(full: &str, line: usize, indent: &str) -> String {
    let lines: Vec<&str> = full.lines().collect();
    let depth = |l: &str| {
        let mut d = 0;
        let mut rest = l;
        while let Some(r) = rest.strip_prefix(indent) {
            d += 1;
            rest = r;
        }
        d
    };
    let base = depth(lines[line]);
    let mut out = String::new();
    for (k, l) in lines[line..].iter().enumerate() {
        if k > 0 && depth(l) <= base {
            break;
        }
        out.push_str(&l[indent.len() * base..]);
        out.push('\n');
    }
    out
}

/// The uid a line shows (`uid=3_17 …`, `[3_17]<…`, `*[3_17]<…`).
fn uid_on(line: &str) -> Option<String> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("uid=") {
        return rest.split(' ').next().map(str::to_string);
    }
    let rest = t.strip_prefix('*').unwrap_or(t).strip_prefix('[')?;
    let uid = rest.split(']').next()?;
    let (a, b) = uid.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b)).then(|| uid.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_is_never_exceeded_and_keeps_exact_lines_in_order() {
    let mut session = long_page().await;
    for mode in ["a11y", "dom"] {
        let full = text_of(&snapshot(&mut session, json!({"mode": mode, "expand": "all"})).await);
        assert!(
            full.chars().count() > 3 * DEFAULT_MAX_CHARS / 2,
            "{mode}: the long page should be far longer than the default budget: {}",
            full.len()
        );
        for max in [300, 2_000, 10_000, DEFAULT_MAX_CHARS] {
            let result = snapshot(
                &mut session,
                json!({"mode": mode, "expand": "all", "maxChars": max}),
            )
            .await;
            let text = text_of(&result);
            let what = format!("{mode} maxChars={max}");
            assert!(
                text.chars().count() <= max,
                "{what}: {} characters",
                text.chars().count()
            );
            assert_eq!(result["truncated"], json!(true), "{what}");
            assert_eq!(result["maxChars"], json!(max), "{what}");
            assert_eq!(
                result["totalChars"],
                json!(full.chars().count()),
                "{what}: the full size is reported"
            );
            let omitted = result["omittedLines"].as_u64().expect("omittedLines") as usize;
            assert!(omitted > 0, "{what}");
            assert_lines_of(&text, &full, &what);
            let last = text.lines().last().unwrap_or("");
            assert!(
                last.contains(&format!("maxChars={max}")) && last.contains("left out"),
                "{what}: the last line says the budget applied: {last:?}"
            );
            // The viewport comes first: the first section's heading is kept (after the sticky
            // table of contents, which is in the viewport too).
            if max >= 10_000 {
                assert!(text.contains("Section 1: methods"), "{what}:\n{text}");
            }
            // The lines the markers stand for add up to what was left out.
            let counted: usize = text
                .lines()
                .filter(|l| is_marker(l) && l.contains(" more line"))
                .filter_map(|l| {
                    l.split_whitespace()
                        .nth(1)
                        .and_then(|n| n.parse::<usize>().ok())
                })
                .sum();
            assert_eq!(counted, omitted, "{what}:\n{text}");
        }
    }
    session.shutdown().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markers_name_uids_whose_subtree_holds_the_lines_left_out() {
    let mut session = long_page().await;
    for (mode, indent) in [("a11y", "  "), ("dom", "\t")] {
        let full = text_of(&snapshot(&mut session, json!({"mode": mode, "expand": "all"})).await);
        let cut = text_of(
            &snapshot(
                &mut session,
                json!({"mode": mode, "expand": "all", "maxChars": 12_000}),
            )
            .await,
        );
        let markers: Vec<(String, usize)> = cut
            .lines()
            .filter(|l| is_marker(l))
            .filter_map(|l| {
                if !l.contains("uid=") {
                    return None;
                }
                let uid = l.rsplit("uid=").next()?.split(' ').next()?.to_string();
                let n = l.split_whitespace().nth(1)?.parse().ok()?;
                Some((uid, n))
            })
            .collect();
        // The dom view nests only elements inside elements to act on: on this page its runs
        // lie under the page itself, and no marker names a uid.
        assert!(
            mode == "dom" || !markers.is_empty(),
            "{mode}: no marker names a uid:\n{cut}"
        );
        for (uid, n) in markers.iter().take(4) {
            let sub = text_of(&snapshot(&mut session, json!({"mode": mode, "uid": uid})).await);
            let line = full
                .lines()
                .position(|l| uid_on(l).as_deref() == Some(uid.as_str()))
                .unwrap_or_else(|| panic!("{mode}: {uid} is not in the full text"));
            assert_eq!(
                sub,
                subtree_of(&full, line, indent),
                "{mode}: subtree {uid}"
            );
            // Its lines are more than the marker's: the element itself and what was kept of it.
            assert!(
                sub.lines().count() > *n,
                "{mode}: {uid} holds {n} more lines:\n{sub}"
            );
        }
    }
    session.shutdown().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subtree_is_the_whole_pages_lines_of_that_element() {
    let mut session = long_page().await;
    for (mode, indent) in [("a11y", "  "), ("dom", "\t")] {
        let full = text_of(&snapshot(&mut session, json!({"mode": mode, "expand": "all"})).await);
        let lines: Vec<&str> = full.lines().collect();
        // Far below the viewport: a section's region, its heading, and the last button.
        let picks = [
            lines
                .iter()
                .position(|l| l.contains("region \"Section 60\"")),
            lines.iter().position(|l| l.contains("Section 60")),
            lines.iter().position(|l| l.contains("Run example 79")),
            lines.iter().position(|l| uid_on(l).is_some()),
        ];
        for line in picks.into_iter().flatten() {
            let Some(uid) = uid_on(lines[line]) else {
                continue;
            };
            let sub = text_of(&snapshot(&mut session, json!({"mode": mode, "uid": uid})).await);
            assert_eq!(
                sub,
                subtree_of(&full, line, indent),
                "{mode}: subtree {uid}"
            );
            // A subtree within a budget keeps to it as well.
            let cut = snapshot(
                &mut session,
                json!({"mode": mode, "uid": uid, "maxChars": 600}),
            )
            .await;
            let cut_text = text_of(&cut);
            assert!(cut_text.chars().count() <= 600, "{mode}: {uid}");
            assert_lines_of(&cut_text, &sub, &format!("{mode} subtree {uid} within 600"));
        }
    }
    // JSON: the document's root is the element.
    let full = text_of(&snapshot(&mut session, json!({"expand": "all"})).await);
    let uid = full
        .lines()
        .find(|l| l.contains("Run example 42"))
        .and_then(uid_on)
        .expect("the button of section 42");
    let doc = snapshot(&mut session, json!({"uid": uid, "format": "json"})).await;
    assert_eq!(doc["root"]["uid"], json!(uid));
    assert_eq!(doc["root"]["role"], json!("button"));
    session.shutdown().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_uids_and_too_small_budgets_are_clear_errors() {
    let origins =
        common::serve_two_origins(common::pages_dir("budget")).expect("serve the fixture pages");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    session
        .open(&format!("{}/long-reference.html", origins.a))
        .await
        .expect("open");
    let code = |r: pagesight::Result<Value>| match r {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => (e.code().as_str(), e.message().to_string()),
    };
    let (c, _) = code(
        session
            .execute_json(&json!({"cmd": "snapshot", "uid": "1_3"}))
            .await,
    );
    assert_eq!(c, "NO_SNAPSHOT");

    let full = text_of(&snapshot(&mut session, json!({"expand": "all"})).await);
    for bad in ["9_999", "nonsense", "1_999999"] {
        let (c, m) = code(
            session
                .execute_json(&json!({"cmd": "snapshot", "uid": bad}))
                .await,
        );
        assert_eq!(c, "UNKNOWN_UID", "{bad}: {m}");
    }

    // An element removed from the page: its uid is stale.
    let uid = full
        .lines()
        .find(|l| l.contains("Run example 7\""))
        .and_then(uid_on)
        .expect("the button of section 7");
    let page = session.current_page().expect("a page");
    page.send(&EvaluateParams::new(
        "document.getElementById('section-7').remove()".to_string(),
    ))
    .await
    .expect("remove section 7");
    let (c, m) = code(
        session
            .execute_json(&json!({"cmd": "snapshot", "uid": uid}))
            .await,
    );
    assert_eq!(c, "STALE_UID", "{m}");
    // And stays stale.
    let (c, _) = code(
        session
            .execute_json(&json!({"cmd": "snapshot", "uid": uid}))
            .await,
    );
    assert_eq!(c, "STALE_UID");

    // A budget too small for even the summary line says how much it needs.
    for max in [0, 10] {
        let (c, m) = code(
            session
                .execute_json(&json!({"cmd": "snapshot", "expand": "all", "maxChars": max}))
                .await,
        );
        assert_eq!(c, "INVALID_ARGUMENT", "{m}");
        assert!(m.contains("too small") && m.contains("characters"), "{m}");
    }
    session.shutdown().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ordinary_pages_are_whole_within_the_default_budget() {
    let origins = common::serve_two_origins(common::pages_dir("")).expect("serve the fixtures");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    for page in [
        "forms.html",
        "long-page.html",
        "widgets-custom.html",
        "shadow-dom.html",
    ] {
        session
            .open(&format!("{}/{page}", origins.a))
            .await
            .expect("open");
        let full = text_of(&snapshot(&mut session, json!({"expand": "all"})).await);
        let result = snapshot(
            &mut session,
            json!({"expand": "all", "maxChars": DEFAULT_MAX_CHARS}),
        )
        .await;
        assert_eq!(result["truncated"], json!(false), "{page}");
        assert_eq!(result["omittedLines"], json!(0), "{page}");
        assert_eq!(text_of(&result), full, "{page}");
    }
    session.shutdown().await.expect("close");
}
