//! What a subtree snapshot (`uid`) costs with its accessibility data fetched for the subtree
//! only, against the same snapshot taken from the whole page's capture (every frame's full
//! accessibility tree, then the element's lines cut out), and against the whole page's own
//! snapshot (`expand: "all"`).
//!
//! Why: a subtree prints a small part of a long page, yet used to cost what the whole page
//! does. Its DOM snapshot is still whole (Chromium has no subtree option for it); the
//! accessibility tree, the largest part of a long page's snapshot, is what the subtree scope
//! narrows. Three subtrees per page: a small one (one section: the first element past the middle
//! of the a11y text holding 30 to 400 lines), a large one (the element holding the most lines,
//! at most half the page's) and the largest one below the page's root (its main content). Each
//! run takes, in turn, each subtree both ways, then the whole page;
//! both ways must print the same text (up to the numbering of accessibility-only nodes, which
//! are minted as they are met), checked once per subtree.
//!
//! Each snapshot starts with nothing the page kept from the last one (a fresh `Kept`): the
//! engine builds its model of the page every time, as after a change of the page.

use std::time::{Duration, Instant};

use pagesight::analysis::Expand;
use pagesight::capture::AxScope;
use pagesight::identity::UidTable;
use pagesight::live::{ax_subtree_fetch_set, capture_for_view, AxFetch, Kept};
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::{scope_of, take_snapshot_scoped, SnapshotOptions};
use pagesight::Page;
use pagesight_benches::{median, ms, page_name, page_url};

/// Options of `subtree`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Measure these pages (repeatable; default: Python's stdtypes page, if installed).
    #[arg(long = "page", value_name = "PATH|URL")]
    pages: Vec<String>,
    /// Timed snapshots of each kind per page.
    #[arg(long, default_value_t = 7)]
    runs: usize,
}

const STDTYPES: &str = "/usr/share/doc/python3.11-doc/html/library/stdtypes.html";

pub async fn run(args: Args) -> Result<(), String> {
    let pages = if args.pages.is_empty() {
        if !std::path::Path::new(STDTYPES).is_file() {
            return Err(format!(
                "{STDTYPES} not found (Debian package python3.11-doc)"
            ));
        }
        vec![STDTYPES.to_string()]
    } else {
        args.pages.clone()
    };
    let mut session = Session::start(SessionOptions::default())
        .await
        .map_err(|e| e.message().to_string())?;
    println!(
        "{:<18} {:<6} {:>7} {:>7} {:>9} {:>12} {:>11} {:>11} {:>9}",
        "page",
        "tree",
        "lines",
        "of",
        "ax nodes",
        "of dom nodes",
        "before ms",
        "after ms",
        "whole ms"
    );
    let mut outcome = Ok(());
    for page in &pages {
        if let Err(e) = measure(&mut session, page, args.runs.max(1)).await {
            outcome = Err(format!("{page}: {e}"));
            break;
        }
    }
    let _ = session.shutdown().await;
    outcome
}

/// One snapshot with `options` from a capture of `scope`, timed, with a kept state of its own.
async fn timed(
    page: &Page,
    table: &mut UidTable,
    options: &SnapshotOptions,
    scope: AxScope,
) -> Result<(String, Duration), String> {
    let kept = Kept::default();
    let start = Instant::now();
    let snapshot = take_snapshot_scoped(page, &kept, table, options, scope)
        .await
        .map_err(|e| e.message().to_string())?;
    let took = start.elapsed();
    Ok((snapshot.into_output(), took))
}

async fn measure(session: &mut Session, path: &str, runs: usize) -> Result<(), String> {
    session
        .open(&page_url(path)?)
        .await
        .map_err(|e| e.message().to_string())?;
    let page = session
        .current_page()
        .ok_or_else(|| "no page".to_string())?;
    let mut table = UidTable::new();
    let whole = SnapshotOptions {
        expand: Expand::All,
        ..SnapshotOptions::default()
    };
    let (text, _) = timed(page, &mut table, &whole, AxScope::Full).await?;
    let lines: Vec<&str> = text.lines().collect();
    let small = section(&lines, 30..=400).ok_or("no section of 30 to 400 lines")?;
    let large = largest(&lines, lines.len() / 2).ok_or("no subtree of half the page")?;
    let main = largest(&lines, lines.len()).ok_or("no subtree below the root")?;
    // How many accessibility nodes each subtree asks for, of the page's DOM nodes.
    let dom = capture_for_view(
        page,
        &Kept::default(),
        AxScope::for_view(Expand::All, false),
    )
    .await
    .map_err(|e| e.message().to_string())?
    .into_capture();
    let dom_nodes = dom.dom_snapshot.node_count()
        + dom
            .oopifs
            .iter()
            .map(|o| o.dom_snapshot.node_count())
            .sum::<usize>();
    let mut rows = Vec::new();
    for (name, (uid, sub_lines)) in [("small", small), ("large", large), ("main", main)] {
        let options = SnapshotOptions {
            uid: Some(uid.clone()),
            ..SnapshotOptions::default()
        };
        let scope = scope_of(&table, &options);
        let AxScope::Subtree { backend_node_id } = scope else {
            return Err(format!("uid {uid} has no backendNodeId"));
        };
        let wanted: usize = ax_subtree_fetch_set(&dom, backend_node_id)
            .map_err(|e| e.message().to_string())?
            .iter()
            .map(Vec::len)
            .sum();
        let node_by_node = AxFetch::Auto.node_by_node(wanted, dom_nodes);
        rows.push((name, uid, sub_lines, options, scope, wanted, node_by_node));
    }
    let mut before = vec![Vec::new(); rows.len()];
    let mut after = vec![Vec::new(); rows.len()];
    let mut whole_times = Vec::new();
    for run in 0..runs {
        for (k, (name, uid, _, options, scope, _, _)) in rows.iter().enumerate() {
            let (a, ta) = timed(page, &mut table, options, AxScope::Full).await?;
            let (b, tb) = timed(page, &mut table, options, *scope).await?;
            if run == 0 && normalise_uids(&a) != normalise_uids(&b) {
                return Err(format!(
                    "the {name} subtree ({uid}) prints otherwise from its own capture"
                ));
            }
            before[k].push(ta);
            after[k].push(tb);
        }
        whole_times.push(timed(page, &mut table, &whole, AxScope::Full).await?.1);
    }
    for (k, (name, _, sub_lines, _, _, wanted, node_by_node)) in rows.iter().enumerate() {
        println!(
            "{:<18} {:<6} {:>7} {:>7} {:>9} {:>12} {:>11} {:>11} {:>9}",
            page_name(path),
            name,
            sub_lines,
            lines.len(),
            format!("{wanted}{}", if *node_by_node { "" } else { "*" }),
            dom_nodes,
            ms(median(&before[k])),
            ms(median(&after[k])),
            ms(median(&whole_times)),
        );
    }
    println!("(* more than the node-by-node share: the full trees are fetched instead)");
    Ok(())
}

/// Nesting level of an a11y text line.
fn depth(line: &str) -> usize {
    (line.len() - line.trim_start_matches(' ').len()) / 2
}

/// How many lines the subtree of line `i` holds below it.
fn size(lines: &[&str], i: usize) -> usize {
    let d = depth(lines[i]);
    lines[i + 1..]
        .iter()
        .position(|l| depth(l) <= d)
        .unwrap_or(lines.len() - i - 1)
}

/// The uid a line shows.
fn uid(line: &str) -> Option<String> {
    line.trim_start()
        .strip_prefix("uid=")
        .and_then(|r| r.split(' ').next())
        .map(str::to_string)
}

/// The first element past the middle of the text whose subtree holds `range` lines.
fn section(lines: &[&str], range: std::ops::RangeInclusive<usize>) -> Option<(String, usize)> {
    (lines.len() / 2..lines.len()).find_map(|i| {
        let n = size(lines, i);
        range.contains(&n).then(|| uid(lines[i]).map(|u| (u, n)))?
    })
}

/// The element below the root whose subtree holds the most lines, at most `most`.
fn largest(lines: &[&str], most: usize) -> Option<(String, usize)> {
    (1..lines.len())
        .filter(|&i| uid(lines[i]).is_some() && size(lines, i) <= most)
        .max_by_key(|&i| size(lines, i))
        .and_then(|i| uid(lines[i]).map(|u| (u, size(lines, i))))
}

/// Replaces every uid (`1_23`) by `#`.
fn normalise_uids(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let a = if boundary { digits(i) } else { 0 };
        if a > 0 && b.get(i + a) == Some(&b'_') {
            let c = digits(i + a + 1);
            if c > 0 {
                out.push('#');
                i += a + 1 + c;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}
