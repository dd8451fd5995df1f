//! The `diff` command on a live page: after an action, what the agent would see added and
//! removed, compared with golden files under `fixtures/golden/diff/`. After checking a change by
//! eye, rewrite them with `PAGESIGHT_BLESS=1 cargo test -p pagesight --test diff`.

mod common;

use std::path::{Path, PathBuf};

use pagesight::session::{Session, SessionOptions};
use pagesight::ErrorCode;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The uid on the first line of `text` that contains `needle`.
fn uid_on_line(text: &str, needle: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"));
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("uid=") {
        return rest.split(' ').next().unwrap_or("").to_string();
    }
    // dom view: `[uid]<tag …` or `*[uid]<tag …`
    let t = t.trim_start_matches('*').trim_start_matches('[');
    t.split(']').next().unwrap_or("").to_string()
}

fn text_of(v: Value) -> String {
    v.as_str().expect("a text result").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_shows_what_an_action_changed() {
    let mut goldens = common::Goldens::new();
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");

    // No snapshot yet: nothing to compare with.
    session
        .open(
            &root()
                .join("fixtures/pages/diff/dropdown.html")
                .to_string_lossy(),
        )
        .await
        .expect("open");
    let e = session
        .execute_json(&json!({"cmd": "diff"}))
        .await
        .expect_err("diff before any snapshot");
    assert_eq!(e.code(), ErrorCode::NoSnapshot);

    let cases = [
        ("dropdown", "a11y", "button \"Account\""),
        ("form", "dom", "Create account"),
        ("modal", "a11y", "button \"Close\""),
    ];
    for (page, mode, target) in cases {
        session
            .open(
                &root()
                    .join(format!("fixtures/pages/diff/{page}.html"))
                    .to_string_lossy(),
            )
            .await
            .expect("open");
        let before = text_of(
            session
                .execute_json(&json!({"cmd": "snapshot", "mode": mode}))
                .await
                .expect("snapshot"),
        );
        let uid = uid_on_line(&before, target);
        session
            .execute_json(&json!({"cmd": "click", "uid": uid}))
            .await
            .expect("click");
        let diff = text_of(
            session
                .execute_json(&json!({"cmd": "diff"}))
                .await
                .expect("diff"),
        );
        // Nothing happened since: an empty diff.
        let again = text_of(
            session
                .execute_json(&json!({"cmd": "diff"}))
                .await
                .expect("diff"),
        );
        assert_eq!(again, "(no changes)\n", "{page}");
        // The page URLs hold where the checkout lives; the goldens must not.
        let prefix = format!(
            "file://{}/",
            std::fs::canonicalize(root().join("fixtures/pages"))
                .expect("fixtures/pages exists")
                .display()
        );
        let diff = diff.replace(&prefix, "file:///fixtures/pages/");
        let path = root().join(format!("fixtures/golden/diff/{page}.{mode}.txt"));
        goldens.check(&path, &diff);
    }
    session.shutdown().await.expect("close");
    goldens.assert_all_match();
}
