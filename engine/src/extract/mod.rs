//! Extraction: a page's main content as markdown, read from what Chromium rendered.
//!
//! Why from the rendered page: the markup of a page says what might be shown; the snapshot
//! says what is. Text that is `display:none`, invisible, clipped away, moved off-screen,
//! squeezed into a dot or `aria-hidden` is not read (`prep`); boxes pinned to the screen
//! (sticky headers, cookie banners, overlays) and the landmarks that are page chrome are left
//! out before the main content is chosen (`select`); what a block is comes from its computed
//! `display`, not its tag (`ir`). No script is injected: the extraction reads the same model,
//! analysis and uids as a snapshot taken with the whole page expanded (`--expand all`), so
//! every block it takes can be named by the uid an agent would act on. A live extraction
//! captures the page without its accessibility tree, which costs Chromium more than the rest
//! of the capture and gives the content nothing its markup does not (`role`: the landmarks'
//! and tables' roles; a link's text); from a recorded capture, which holds the tree, the roles
//! are Chromium's.
//!
//! [`extract`] is pure (model, analysis and uids in, [`Extraction`] out); [`extract_page`]
//! takes the snapshot it needs of a live page first.

mod ir;
mod links;
mod meta;
mod prep;
mod render;
mod role;
mod select;
mod url;

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::analysis::{Analysis, Expand};
use crate::browser::Page;
use crate::error::Result;
use crate::identity::{UidAssignment, UidTable};
use crate::live::{capture_for_view, Kept};
use crate::model::Model;
use crate::snapshot::{analyze_unchecked, SnapshotOptions};

pub use links::Link;

/// What to extract: the fields of the `extract` command.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default)]
pub struct ExtractOptions {
    /// The whole visible page instead of its main content.
    #[serde(deserialize_with = "crate::command::null_as_default")]
    pub all: bool,
    /// Also list every link of the page ([`Extraction::links`]).
    #[serde(deserialize_with = "crate::command::null_as_default")]
    pub links: bool,
}

/// A page's content, read for a person or a model: the result of `extract`.
#[derive(
    Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Extraction {
    /// The article's title (its main heading, else the page's title).
    pub title: Option<String>,
    /// Who wrote it, when the page says.
    pub byline: Option<String>,
    /// When it was published, as the page writes it (usually ISO 8601).
    pub published: Option<String>,
    /// The page's language (`lang` of the top document).
    pub lang: Option<String>,
    /// The content as markdown, headed by the title.
    pub markdown: String,
    /// The same blocks without markup, paragraphs separated by blank lines (no title).
    pub text: String,
    /// The uids of the elements the blocks were taken from, in reading order.
    pub blocks: Vec<String>,
    /// With `links`: every link of the page (not only of its main content), absolute, each
    /// URL once, in document order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
}

/// The snapshot options an extraction reads: the whole page.
pub const SNAPSHOT_OPTIONS: SnapshotOptions = SnapshotOptions {
    mode: crate::render::Mode::A11y,
    format: crate::render::Format::Text,
    expand: Expand::All,
    verbose: false,
    uid: None,
    max_chars: None,
};

/// Extracts the content of an analysed snapshot taken with [`SNAPSHOT_OPTIONS`].
pub fn extract(
    model: &Model,
    analysis: &Analysis,
    uids: &UidAssignment,
    options: &ExtractOptions,
) -> Extraction {
    let prep = prep::Prep::new(model, analysis);
    let selection = select::select(model, &prep, options.all);
    let meta = meta::read(model, &prep, &selection.roots, options.all);
    let skip: Vec<_> = meta.title_node.into_iter().collect();
    let builder = ir::Builder {
        model,
        analysis,
        prep: &prep,
        dropped: &selection.dropped,
        skip: &skip,
    };
    let blocks = builder.build(&selection.roots);
    let mut uid_list: Vec<String> = Vec::new();
    for (node, _) in &blocks {
        if let Some(u) = uids.dom(*node) {
            let u = u.to_string();
            if uid_list.last() != Some(&u) && !uid_list.contains(&u) {
                uid_list.push(u);
            }
        }
    }
    let plain: Vec<ir::Block> = blocks.into_iter().map(|(_, b)| b).collect();
    let body = render::markdown(&plain);
    let mut markdown = String::new();
    if let Some(t) = meta.title.as_deref().filter(|_| !options.all) {
        markdown.push_str("# ");
        let mut escaped = String::new();
        render::escape_text(t, &mut escaped);
        markdown.push_str(&escaped);
        if !body.is_empty() {
            markdown.push_str("\n\n");
        }
    }
    markdown.push_str(&body);
    if !markdown.is_empty() {
        markdown.push('\n');
    }
    Extraction {
        title: meta.title,
        byline: meta.byline,
        published: meta.published,
        lang: meta.lang,
        markdown,
        text: render::text(&plain),
        blocks: uid_list,
        links: match options.links {
            true => links::links(model, uids),
            false => Vec::new(),
        },
    }
}

/// How long an extraction of a live page took: Chromium's part (the capture) and the
/// engine's (model, analysis, uids and the extraction itself).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ExtractTiming {
    /// Chromium's capture of the page.
    pub capture: Duration,
    /// The engine's model, analysis, uids and extraction.
    pub engine: Duration,
}

/// Takes a snapshot of `page` with [`SNAPSHOT_OPTIONS`] (uids from the page's `uids` table,
/// so the block uids are those of the page's other snapshots) and extracts its content.
pub async fn extract_page(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    options: &ExtractOptions,
) -> Result<Extraction> {
    Ok(extract_page_timed(page, kept, uids, options).await?.0)
}

/// [`extract_page`], also saying how long each part took.
pub async fn extract_page_timed(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    options: &ExtractOptions,
) -> Result<(Extraction, ExtractTiming)> {
    let start = Instant::now();
    // The whole page without its accessibility tree: the content reads the DOM, its layout
    // and the few roles its markup gives (see `role`).
    let captured = capture_for_view(page, kept, crate::capture::AxScope::None).await?;
    let captured_at = Instant::now();
    let snapshot = analyze_unchecked(captured, uids, page.target_id(), &SNAPSHOT_OPTIONS)?;
    let extraction = extract(&snapshot.model, &snapshot.analysis, &snapshot.uids, options);
    let done = Instant::now();
    drop(snapshot.into_output());
    Ok((
        extraction,
        ExtractTiming {
            capture: captured_at - start,
            engine: done - captured_at,
        },
    ))
}
