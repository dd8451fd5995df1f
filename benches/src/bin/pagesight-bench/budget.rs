//! The snapshot budget and the subtree snapshot, on real pages: how long each page's whole
//! text is (`expand: "all"`), what the default budget keeps of it, and what a subtree snapshot
//! costs against a whole-page one.
//!
//! The sizes are what the engine's default budget (`DEFAULT_MAX_CHARS`) is chosen from: it
//! should print the ordinary pages whole and cut the long references. The times compare a
//! snapshot of one element's subtree (an element about halfway down the page, holding a few
//! dozen lines) with the whole page's, snapshots alternating so neither repeats the one before.

use std::time::{Duration, Instant};

use pagesight::render::budget::DEFAULT_MAX_CHARS;
use pagesight::session::{Session, SessionOptions};
use pagesight_benches::{median, ms, page_name, page_url, workspace_dir};
use serde_json::{json, Value};

/// Options of `budget`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Measure these pages (repeatable; default: the fixture pages and the installed docs:
    /// Python's stdtypes, Node's fs, a bootstrap example).
    #[arg(long = "page", value_name = "PATH|URL")]
    pages: Vec<String>,
    /// Timed snapshots of each kind per page.
    #[arg(long, default_value_t = 7)]
    runs: usize,
}

/// Installed documentation pages measured when no page is given (each skipped if absent).
const DOCS: &[&str] = &[
    "/usr/share/doc/python3.11-doc/html/library/stdtypes.html",
    "/usr/share/doc/nodejs/api/fs.html",
    "/usr/share/doc/libjs-bootstrap5/examples/cheatsheet/index.html",
];

/// The fixture pages measured when no page is given.
const FIXTURES: &[&str] = &[
    "forms.html",
    "long-page.html",
    "widgets-custom.html",
    "text-clamp-and-widgets.html",
    "budget/long-reference.html",
];

fn pages(args: &Args) -> Vec<String> {
    if !args.pages.is_empty() {
        return args.pages.clone();
    }
    let fixtures = workspace_dir().join("fixtures/pages");
    let mut out: Vec<String> = FIXTURES
        .iter()
        .map(|f| fixtures.join(f).display().to_string())
        .collect();
    for doc in DOCS {
        if std::path::Path::new(doc).is_file() {
            out.push((*doc).to_string());
        } else {
            eprintln!("note: {doc} not found, skipped");
        }
    }
    out
}

pub async fn run(args: Args) -> Result<(), String> {
    let mut session = Session::start(SessionOptions::default())
        .await
        .map_err(|e| e.message().to_string())?;
    println!(
        "{:<28} {:>9} {:>7} {:>9} {:>9} {:>8} {:>10} {:>10} {:>6}",
        "page",
        "a11y chr",
        "lines",
        "dom chr",
        "budgeted",
        "omitted",
        "whole ms",
        "subtree ms",
        "sub ln"
    );
    let mut outcome = Ok(());
    for page in pages(&args) {
        if let Err(e) = measure(&mut session, &page, args.runs.max(1)).await {
            outcome = Err(format!("{page}: {e}"));
            break;
        }
    }
    let _ = session.shutdown().await;
    outcome
}

async fn snapshot(session: &mut Session, command: Value) -> Result<(Value, Duration), String> {
    let mut command = command;
    command["cmd"] = json!("snapshot");
    let start = Instant::now();
    let result = session
        .execute_json(&command)
        .await
        .map_err(|e| e.message().to_string())?;
    Ok((result, start.elapsed()))
}

fn text(result: &Value) -> &str {
    result
        .as_str()
        .or_else(|| result["text"].as_str())
        .unwrap_or("")
}

async fn measure(session: &mut Session, page: &str, runs: usize) -> Result<(), String> {
    session
        .open(&page_url(page)?)
        .await
        .map_err(|e| e.message().to_string())?;
    let (full, _) = snapshot(session, json!({"expand": "all"})).await?;
    let full = text(&full).to_string();
    let (dom, _) = snapshot(session, json!({"mode": "dom", "expand": "all"})).await?;
    let (cut, _) = snapshot(
        session,
        json!({"expand": "all", "maxChars": DEFAULT_MAX_CHARS}),
    )
    .await?;
    let uid = middle_element(&full);
    let mut whole = Vec::new();
    let mut sub = Vec::new();
    let mut sub_lines = 0;
    for _ in 0..runs {
        whole.push(snapshot(session, json!({"expand": "all"})).await?.1);
        if let Some(uid) = &uid {
            let (r, t) = snapshot(session, json!({"uid": uid})).await?;
            sub_lines = text(&r).lines().count();
            sub.push(t);
        }
    }
    println!(
        "{:<28} {:>9} {:>7} {:>9} {:>9} {:>8} {:>10} {:>10} {:>6}",
        page_name(page),
        full.chars().count(),
        full.lines().count(),
        text(&dom).chars().count(),
        text(&cut["text"])
            .chars()
            .count()
            .max(text(&cut).chars().count()),
        cut["omittedLines"],
        ms(median(&whole)),
        if sub.is_empty() {
            "-".to_string()
        } else {
            ms(median(&sub))
        },
        sub_lines
    );
    Ok(())
}

/// The uid of the first element after the middle of the text whose subtree holds 10 to 200
/// lines.
fn middle_element(full: &str) -> Option<String> {
    let lines: Vec<&str> = full.lines().collect();
    let depth = |l: &str| (l.len() - l.trim_start_matches(' ').len()) / 2;
    (lines.len() / 2..lines.len()).find_map(|i| {
        let d = depth(lines[i]);
        let size = lines[i + 1..]
            .iter()
            .position(|l| depth(l) <= d)
            .unwrap_or(lines.len() - i - 1);
        (10..=200).contains(&size).then(|| {
            lines[i]
                .trim_start()
                .strip_prefix("uid=")
                .and_then(|r| r.split(' ').next())
                .map(str::to_string)
        })?
    })
}
