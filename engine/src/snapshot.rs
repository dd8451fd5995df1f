//! The offline pipeline of one snapshot: capture -> model -> analysis -> uids -> text.
//!
//! Everything here but the taking of a live page's snapshot ([`take_snapshot_after`]: capture it,
//! then ask Chromium about the hit tests the analysis is unsure of before rendering) is pure (no
//! I/O): the same function renders a live capture, a saved capture (`snapshot --from-capture`)
//! and the benchmarks' recorded pages, so what is tested offline is exactly what runs live.

use crate::analysis::{analyze_view, Analysis, AnalysisOptions, Expand};
use crate::browser::Page;
use crate::capture::{AxScope, Capture};
use crate::error::{Error, Result};
use crate::identity::{assign_uids, TableMark, Uid, UidAssignment, UidTable};
use crate::live::{capture_for_view, confirm_hits, Captured, Inputs, Kept};
use crate::model::Model;
use crate::render::budget::{self, Omitted, TooSmall};
use crate::render::{changed_note, render, render_lines, Consistency, Format, Mode, RenderOptions};

/// What one snapshot should show and how: the fields of the `snapshot` command (absent or
/// `null` fields take their defaults).
#[derive(
    Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default)]
pub struct SnapshotOptions {
    /// `a11y` (default) or `dom`.
    #[serde(deserialize_with = "crate::command::null_as_default")]
    pub mode: Mode,
    /// `text` (default) or `json`.
    #[serde(deserialize_with = "crate::command::null_as_default")]
    pub format: Format,
    /// How far beyond the viewport to show elements (default: the viewport).
    #[serde(deserialize_with = "crate::command::null_as_default")]
    pub expand: Expand,
    /// a11y mode: the full AX tree instead of the interesting nodes.
    #[serde(deserialize_with = "crate::command::null_as_default")]
    pub verbose: bool,
    /// Show only this element and what is under it: the lines the whole page prints for them,
    /// moved left to start the text. A subtree is shown whole, whatever `expand` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Text formats: at most this many characters (newlines included). A longer snapshot
    /// keeps its most useful whole lines (the viewport and what is near it first) and says in
    /// a line of its own where each part left out is and how to see it. JSON is never cut.
    #[serde(rename = "maxChars", skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
}

impl SnapshotOptions {
    /// The view the analysis and the capture serve: a subtree is shown whole.
    pub fn view_expand(&self) -> Expand {
        if self.uid.is_some() {
            Expand::All
        } else {
            self.expand
        }
    }

    /// Parses the `expand` argument of the command line and the session: a number of CSS px, or
    /// `all`.
    pub fn parse_expand(text: &str) -> Result<Expand> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("all") {
            return Ok(Expand::All);
        }
        match t.parse::<f64>() {
            Ok(px) if px.is_finite() && px >= 0.0 => Ok(if px == 0.0 {
                Expand::Viewport
            } else {
                Expand::Pixels(px)
            }),
            _ => Err(Error::invalid_argument(format!(
                "expand must be a number of pixels (0 or more) or \"all\", not {text:?}"
            ))),
        }
    }

    /// Parses a mode name (`a11y` or `dom`).
    pub fn parse_mode(text: &str) -> Result<Mode> {
        match text.trim() {
            "a11y" => Ok(Mode::A11y),
            "dom" => Ok(Mode::Dom),
            other => Err(Error::invalid_argument(format!(
                "mode must be \"a11y\" or \"dom\", not {other:?}"
            ))),
        }
    }

    /// Parses a format name (`text` or `json`).
    pub fn parse_format(text: &str) -> Result<Format> {
        match text.trim() {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            other => Err(Error::invalid_argument(format!(
                "format must be \"text\" or \"json\", not {other:?}"
            ))),
        }
    }
}

/// One processed snapshot: the rendered output and everything it was computed from, kept so
/// that actions can find nodes and a later snapshot can be compared with it.
#[derive(Debug)]
pub struct Snapshot {
    /// The rendered text (or JSON).
    pub output: String,
    /// How much of the view `output` shows (a subtree, a budget).
    pub shown: Shown,
    pub model: Model,
    pub analysis: Analysis,
    pub uids: UidAssignment,
    /// Whether the capture was of one state of the page, and if not what it left out: said in
    /// the JSON (`consistent`) and in a line of the text.
    pub consistency: Consistency,
    /// What it was computed from, when the next snapshot can be found to be computed from the
    /// same (see [`Snapshot::repeats`]).
    pub(crate) source: Option<Source>,
    /// How much of the accessibility tree its capture held: one of a subtree renders nothing
    /// but that subtree.
    scope: AxScope,
}

/// What a snapshot's text was computed from: the capture's inputs, the options, the page and
/// the uid table as its uids left it.
#[derive(Debug)]
pub(crate) struct Source {
    inputs: Inputs,
    options: SnapshotOptions,
    page_target: String,
    table: TableMark,
}

impl Snapshot {
    /// The rendered output; the rest is freed aside (see [`Snapshot::replace`]).
    pub fn into_output(self) -> String {
        let Snapshot {
            output,
            shown: _,
            model,
            analysis,
            uids,
            consistency: _,
            source: _,
            scope: _,
        } = self;
        let large = model.nodes.len() >= crate::parallel::LARGE_PAGE_NODES;
        crate::parallel::drop_aside((model, analysis, uids), large);
        output
    }

    /// This snapshot's text in the mode of `view` (`verbose` too), as text: its output when it
    /// was rendered so, else rendered again. What lies in view is the snapshot's own: its
    /// analysis was made with the `expand` it was taken with. A snapshot of one element's
    /// subtree holds the accessibility data of nothing else: of a whole view it has no text
    /// (empty, as for a page with no snapshot yet).
    pub fn text_in(&self, view: &SnapshotOptions) -> String {
        let text = SnapshotOptions {
            format: Format::Text,
            ..view.clone()
        };
        match &self.source {
            Some(source) if source.options == text => self.output.clone(),
            _ if matches!(self.scope, AxScope::Subtree { .. }) => String::new(),
            _ => render_snapshot(self, &text),
        }
    }

    /// Puts `new` in `slot`, freeing the snapshot it held on another thread when it is large:
    /// the caller waits for the new one to be answered, not for the old one to be freed.
    pub fn replace(slot: &mut Option<Snapshot>, new: Snapshot) {
        if let Some(old) = slot.replace(new) {
            drop(old.into_output());
        }
    }

    /// Whether this snapshot is what the pipeline would compute from `captured` with `options`
    /// and the page's uid `table` (`page_target`: the page), so that it stands for the new one
    /// as it is.
    ///
    /// Why: an agent often takes a snapshot of a page that has not changed. When every part of
    /// the capture is one the page kept from an earlier snapshot (see `live::kept_model`),
    /// the capture holds the same data as this snapshot's; the same options then give the
    /// same analysis and text, and a uid table left as this snapshot left it, which minted no uid
    /// for a node it can key (see [`UidTable::settled`]), gives the same uids with no new mark. Computing them again is most
    /// of the engine's work on such a snapshot. Text only: the JSON names the snapshot's number.
    pub fn repeats(
        &self,
        captured: &Captured,
        table: &UidTable,
        page_target: &str,
        options: &SnapshotOptions,
    ) -> bool {
        self.source.as_ref().is_some_and(|source| {
            captured.inputs() == Some(&source.inputs)
                && source.options == *options
                && source.page_target == page_target
                && table.still(source.table)
        })
    }
}

/// [`process`] for a page whose last snapshot is `last`: the new snapshot replaces it, unless
/// `last` [repeats](Snapshot::repeats) it, when it stays as it is.
pub fn process_next<'s>(
    capture: impl Into<Captured>,
    table: &mut UidTable,
    page_target: &str,
    options: &SnapshotOptions,
    last: &'s mut Option<Snapshot>,
) -> Result<&'s Snapshot> {
    if let Some(captured) = unless_repeated(last, capture.into(), table, page_target, options) {
        Snapshot::replace(last, process(captured, table, page_target, options)?);
    }
    held(last)
}

/// `captured`, unless `last` [repeats](Snapshot::repeats) the snapshot it would give: what a
/// page's next snapshot is computed from, if anything (see [`process_next`] and
/// [`take_snapshot_after`]).
fn unless_repeated(
    last: &Option<Snapshot>,
    captured: Captured,
    table: &UidTable,
    page_target: &str,
    options: &SnapshotOptions,
) -> Option<Captured> {
    let repeats = last
        .as_ref()
        .is_some_and(|l| l.repeats(&captured, table, page_target, options));
    (!repeats).then_some(captured)
}

/// The snapshot a page's slot holds once its next one was taken.
fn held(last: &Option<Snapshot>) -> Result<&Snapshot> {
    last.as_ref()
        .ok_or_else(|| Error::protocol("the snapshot was not kept"))
}

/// One live snapshot of `page`: capture, analysis, Chromium's word on the unsure hit tests,
/// render. `kept`: what the page's snapshots keep for the next one.
pub async fn take_snapshot(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    options: &SnapshotOptions,
) -> Result<Snapshot> {
    take_snapshot_scoped(page, kept, uids, options, scope_of(uids, options)).await
}

/// [`take_snapshot`] with a capture of `scope`, which must hold what `options` show (a
/// subtree's text is the same from a subtree-scoped capture as from a full one, which is how
/// the two are compared).
pub async fn take_snapshot_scoped(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    options: &SnapshotOptions,
    scope: AxScope,
) -> Result<Snapshot> {
    let capture = capture_for_view(page, kept, scope).await?;
    snapshot_of(page, capture, uids, options).await
}

/// [`take_snapshot`] for a page whose last snapshot is `last`: the new snapshot replaces it,
/// unless `last` [repeats](Snapshot::repeats) it (nothing it was computed from changed), when
/// it stays as it is.
pub async fn take_snapshot_after<'s>(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    options: &SnapshotOptions,
    last: &'s mut Option<Snapshot>,
) -> Result<&'s Snapshot> {
    let capture = capture_for_view(page, kept, scope_of(uids, options)).await?;
    if let Some(captured) = unless_repeated(last, capture, uids, page.target_id(), options) {
        Snapshot::replace(last, snapshot_of(page, captured, uids, options).await?);
    }
    held(last)
}

/// The scope a live snapshot with `options` captures: the subtree of the element its `uid`
/// names when the page's uid table knows that element's `backendNodeId`, else its view (a uid
/// the table cannot resolve is answered as before: `UNKNOWN_UID`, `STALE_UID`, or not shown).
pub fn scope_of(uids: &UidTable, options: &SnapshotOptions) -> AxScope {
    AxScope::for_snapshot(
        options.view_expand(),
        options.verbose,
        subtree_backend_id(uids, options),
    )
}

/// The `backendNodeId` of the element whose subtree `options` asks for, if the table knows it.
fn subtree_backend_id(uids: &UidTable, options: &SnapshotOptions) -> Option<i64> {
    let uid = options.uid.as_deref()?;
    uids.resolve(uid).ok()?.backend_node_id
}

/// The snapshot of a live capture: analysis, Chromium's word on the unsure hit tests, render.
async fn snapshot_of(
    page: &Page,
    capture: Captured,
    uids: &mut UidTable,
    options: &SnapshotOptions,
) -> Result<Snapshot> {
    let mut snapshot = analyze_capture(capture, uids, page.target_id(), options)?;
    confirm_hits(page, &snapshot.model, &mut snapshot.analysis).await?;
    (snapshot.output, snapshot.shown) = render_shown(&snapshot, options);
    Ok(snapshot)
}

/// Runs the offline pipeline on a capture, assigning uids from (and updating) the page's table.
/// `page_target` identifies the page in the table (its target id).
pub fn process(
    capture: impl Into<Captured>,
    table: &mut UidTable,
    page_target: &str,
    options: &SnapshotOptions,
) -> Result<Snapshot> {
    let mut snapshot = analyze_capture(capture, table, page_target, options)?;
    (snapshot.output, snapshot.shown) = render_shown(&snapshot, options);
    Ok(snapshot)
}

/// The pipeline up to the uids: model, analysis, uid assignment; `output` is left empty. A live
/// snapshot confirms unsure hit tests with Chromium between this and [`render_snapshot`].
pub fn analyze_capture(
    capture: impl Into<Captured>,
    table: &mut UidTable,
    page_target: &str,
    options: &SnapshotOptions,
) -> Result<Snapshot> {
    let captured = capture.into();
    // A capture holding only the viewport's accessibility nodes cannot show more than that, nor
    // one holding only an element's subtree anything but that subtree (the uid is resolved
    // before this snapshot's uids replace the table's), nor one holding none anything.
    let scope = captured.capture().ax_scope;
    let subtree = match scope {
        AxScope::Subtree { .. } => subtree_backend_id(table, options),
        _ => None,
    };
    scope.check_snapshot(options.view_expand(), options.verbose, subtree)?;
    analyze_unchecked(captured, table, page_target, options)
}

/// [`analyze_capture`] without asking whether the capture's accessibility scope serves
/// `options`: for the extraction, which reads a capture without accessibility nodes and
/// renders no snapshot of it.
pub(crate) fn analyze_unchecked(
    captured: Captured,
    table: &mut UidTable,
    page_target: &str,
    options: &SnapshotOptions,
) -> Result<Snapshot> {
    let scope = captured.capture().ax_scope;
    let inputs = captured.inputs().cloned();
    let consistency = match (captured.capture().consistent, captured.left_out()) {
        (true, 0) => Consistency::Whole,
        (_, left_out) => Consistency::Partial { left_out },
    };
    let (model, view) = captured.into_model_and_view()?;
    // Uids depend on the model alone, not on the analysis.
    let (uids, analysis) = crate::parallel::join(
        model.nodes.len() >= crate::parallel::LARGE_PAGE_NODES,
        || assign_uids(&model, table, page_target),
        || {
            analyze_view(
                &model,
                &AnalysisOptions {
                    expand: options.view_expand(),
                },
                view,
            )
        },
    );
    let source = match (inputs, table.settled()) {
        (Some(inputs), Some(table)) if options.format == Format::Text => Some(Source {
            inputs,
            options: options.clone(),
            page_target: page_target.to_string(),
            table,
        }),
        _ => None,
    };
    Ok(Snapshot {
        output: String::new(),
        shown: Shown::Whole,
        model,
        analysis,
        uids,
        consistency,
        source,
        scope,
    })
}

/// Renders an analysed snapshot in the mode and format `options` ask for, its subtree and
/// budget applied (what is not shown is said in [`Snapshot::shown`]).
pub fn render_snapshot(snapshot: &Snapshot, options: &SnapshotOptions) -> String {
    render_shown(snapshot, options).0
}

/// How much of its view a snapshot's output shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shown {
    /// All of it (a subtree: all of the subtree).
    #[default]
    Whole,
    /// What the `maxChars` budget left room for.
    Budgeted(Omitted),
    /// The subtree's uid is on no line of the view: the output is empty.
    UidNotShown,
    /// The budget is too small to show even the outline: the output is empty.
    TooSmall(TooSmall),
}

impl Shown {
    /// An error for a snapshot that shows nothing of what was asked, else `Ok`. `uid`: the
    /// subtree asked for.
    pub fn check(&self, uid: Option<&str>, mode: Mode, max_chars: Option<usize>) -> Result<()> {
        match self {
            Shown::Whole | Shown::Budgeted(_) => Ok(()),
            Shown::UidNotShown => {
                if let Some(Err(e)) = uid.map(str::parse::<Uid>) {
                    return Err(e);
                }
                Err(Error::invalid_argument(format!(
                "uid {} is on the page but the {} view does not print it; take the subtree of a \
                 uid this view prints (a snapshot in this mode shows them)",
                uid.unwrap_or("?"),
                match mode {
                    Mode::A11y => "a11y",
                    Mode::Dom => "dom",
                }
                )))
            }
            Shown::TooSmall(t) => Err(Error::invalid_argument(format!(
                "maxChars {} is too small to show any of this snapshot: its outline alone (a \
                 line saying what was left out) takes {} characters; ask for more, or for the \
                 subtree of one element with uid",
                max_chars.unwrap_or(0),
                t.needed
            ))),
        }
    }
}

/// The output of an analysed snapshot and how much of its view it shows: the view rendered,
/// then cut to the subtree of `options.uid`, then to the budget of `options.max_chars`; a text
/// of a page that changed while it was read says so in a line of its own (see
/// [`changed_note`]), within the budget.
fn render_shown(snapshot: &Snapshot, options: &SnapshotOptions) -> (String, Shown) {
    let note = match options.format {
        Format::Text => changed_note(options.mode, snapshot.consistency),
        Format::Json => None,
    };
    let room = note.as_ref().map_or(0, |n| n.chars().count() + 1);
    let (text, shown) = render_view(snapshot, options, room);
    match (note, shown) {
        (Some(note), Shown::Whole) => (with_note(text, &note, false), shown),
        (Some(note), Shown::Budgeted(_)) => (with_note(text, &note, true), shown),
        (Some(_), Shown::TooSmall(t)) => {
            let needed = t.needed + room;
            (text, Shown::TooSmall(TooSmall { needed }))
        }
        (_, shown) => (text, shown),
    }
}

/// `text` with the line `note`: last, or before the budget's summary line (`budgeted`), which
/// stays last.
fn with_note(text: String, note: &str, budgeted: bool) -> String {
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let (head, summary) = match body.rfind('\n') {
        Some(at) if budgeted => (&body[..at], Some(&body[at + 1..])),
        None if budgeted => ("", Some(body)),
        _ => (body, None),
    };
    let mut out = String::with_capacity(text.len() + note.len() + 2);
    if !head.is_empty() {
        out.push_str(head);
        out.push('\n');
    }
    out.push_str(note);
    if let Some(summary) = summary {
        out.push('\n');
        out.push_str(summary);
    }
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// [`render_shown`] without the note: `max_chars` leaves `room` characters for it.
fn render_view(snapshot: &Snapshot, options: &SnapshotOptions, room: usize) -> (String, Shown) {
    let render_options = RenderOptions {
        mode: options.mode,
        format: options.format,
        verbose: options.verbose,
        consistent: snapshot.consistency == Consistency::Whole,
    };
    let (model, analysis, uids) = (&snapshot.model, &snapshot.analysis, &snapshot.uids);
    let uid = match options.uid.as_deref().map(str::parse::<Uid>) {
        None => None,
        Some(Ok(uid)) => Some(uid),
        Some(Err(_)) => return (String::new(), Shown::UidNotShown),
    };
    if uid.is_none() && options.max_chars.is_none() {
        return (render(model, analysis, uids, &render_options), Shown::Whole);
    }
    let Some(rendered) = render_lines(model, analysis, uids, &render_options) else {
        // JSON is for programs, not for a model's context: never cut, only narrowed.
        let json = render(model, analysis, uids, &render_options);
        return match uid {
            None => (json, Shown::Whole),
            Some(uid) => match crate::render::json::subtree(&json, uid) {
                Some(json) => (json, Shown::Whole),
                None => (String::new(), Shown::UidNotShown),
            },
        };
    };
    let style = match options.mode {
        Mode::A11y => budget::Style::A11y,
        Mode::Dom => budget::Style::Dom,
    };
    let rendered = match uid {
        None => rendered,
        Some(uid) => match budget::subtree(&rendered, uid, style) {
            Some(sub) => sub,
            None => return (String::new(), Shown::UidNotShown),
        },
    };
    match options.max_chars {
        None => (rendered.text, Shown::Whole),
        // Not even room for the note: what the outline alone needs (the note is added).
        Some(max) if max < room => {
            let needed = budget::apply(&rendered, 0, style)
                .err()
                .map_or(0, |t| t.needed);
            (String::new(), Shown::TooSmall(TooSmall { needed }))
        }
        Some(max) => match budget::apply(&rendered, max - room, style) {
            Ok((text, None)) => (text, Shown::Whole),
            Ok((text, Some(omitted))) => (text, Shown::Budgeted(omitted)),
            Err(too_small) => (String::new(), Shown::TooSmall(too_small)),
        },
    }
}

/// Renders a saved capture (gzip'd or plain JSON bytes) with a fresh uid table: the offline
/// `snapshot --from-capture` path.
pub fn render_capture(bytes: &[u8], options: &SnapshotOptions) -> Result<String> {
    let capture = Capture::from_bytes(bytes)?;
    let target = capture.target_id.clone().unwrap_or_default();
    let mut table = UidTable::new();
    let snapshot = process(capture, &mut table, &target, options)?;
    snapshot
        .shown
        .check(options.uid.as_deref(), options.mode, options.max_chars)?;
    Ok(snapshot.into_output())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every index a capture holds, set to values out of range (past the end, negative, past 32
    /// bits, the largest integer), through the whole offline pipeline: each capture is refused with
    /// an error or rendered, never a panic nor an allocation sized by the index.
    #[test]
    fn indices_out_of_range_are_errors_or_ignored_never_panics() {
        let mut page = crate::model::tests::simple();
        page.ax = vec![
            json!({"nodeId": "1", "ignored": false, "role": {"type": "internalRole", "value": "RootWebArea"},
                   "childIds": ["2"], "backendDOMNodeId": 1000}),
            json!({"nodeId": "2", "ignored": false, "role": {"type": "role", "value": "button"},
                   "name": {"type": "computedString", "value": "Go"}, "parentId": "1",
                   "backendDOMNodeId": 1003}),
        ];
        page.docs[0]["layout"]["text"][4] = json!(0);
        page.docs[0]["textBoxes"] = json!({"layoutIndex": [4], "bounds": [[50.0, 50.0, 10.0, 10.0]],
                                           "start": [0], "length": [5]});
        let fine = page.capture_json();
        let paths = [
            "/domSnapshot/documents/0/documentURL",
            "/domSnapshot/documents/0/title",
            "/domSnapshot/documents/0/frameId",
            "/domSnapshot/documents/0/nodes/parentIndex/3",
            "/domSnapshot/documents/0/nodes/nodeType/3",
            "/domSnapshot/documents/0/nodes/nodeName/3",
            "/domSnapshot/documents/0/nodes/nodeValue/5",
            "/domSnapshot/documents/0/nodes/backendNodeId/3",
            "/domSnapshot/documents/0/nodes/attributes/3/0",
            "/domSnapshot/documents/0/nodes/attributes/3/1",
            "/domSnapshot/documents/0/layout/nodeIndex/3",
            "/domSnapshot/documents/0/layout/styles/3/0",
            "/domSnapshot/documents/0/layout/text/4",
            "/domSnapshot/documents/0/layout/paintOrders/3",
            "/domSnapshot/documents/0/textBoxes/layoutIndex/0",
            "/domSnapshot/documents/0/textBoxes/start/0",
            "/domSnapshot/documents/0/textBoxes/length/0",
            "/axTrees/0/nodes/0/backendDOMNodeId",
            "/axTrees/0/nodes/1/backendDOMNodeId",
            "/axTrees/0/nodes/0/childIds/0",
            "/axTrees/0/nodes/1/parentId",
        ];
        let absurd = [
            json!(6),
            json!(4242),
            json!(-2),
            json!(i64::from(i32::MAX) + 1),
            json!(u32::MAX),
            json!(i64::MAX),
            json!(i64::MIN),
        ];
        let options = [
            SnapshotOptions::default(),
            SnapshotOptions {
                mode: Mode::Dom,
                ..Default::default()
            },
        ];
        for path in paths {
            assert!(fine.pointer(path).is_some(), "{path} is not in the capture");
            for value in &absurd {
                let mut capture = fine.clone();
                let slot = capture.pointer_mut(path).expect("the path exists");
                // Ids of the accessibility tree are strings.
                *slot = if slot.is_string() {
                    json!(value.to_string())
                } else {
                    value.clone()
                };
                let bytes = capture.to_string();
                for options in &options {
                    // Either outcome is fine; what is checked is that there is one.
                    let _ = render_capture(bytes.as_bytes(), options);
                }
            }
        }
        for options in &options {
            render_capture(fine.to_string().as_bytes(), options)
                .expect("the capture unchanged renders");
        }
    }

    #[test]
    fn the_note_of_a_changing_page_is_last_or_right_before_the_budget_line() {
        assert_eq!(with_note("a\nb\n".into(), "n", false), "a\nb\nn\n");
        assert_eq!(with_note("a\nb".into(), "n", false), "a\nb\nn");
        assert_eq!(with_note("a\nb\nsum\n".into(), "n", true), "a\nb\nn\nsum\n");
        assert_eq!(with_note("sum".into(), "n", true), "n\nsum");
        assert_eq!(with_note(String::new(), "n", false), "n");
    }

    #[test]
    fn only_a_partial_snapshot_has_a_note_and_it_says_how_much_was_left_out() {
        assert_eq!(changed_note(Mode::A11y, Consistency::Whole), None);
        let note = changed_note(Mode::A11y, Consistency::Partial { left_out: 37 });
        assert!(note.is_some_and(|n| n.starts_with("… ") && n.contains("37 elements")));
        let note = changed_note(Mode::Dom, Consistency::Partial { left_out: 1 });
        assert!(note.is_some_and(|n| n.starts_with("... ") && n.ends_with(" ...")));
        let note = changed_note(Mode::A11y, Consistency::Partial { left_out: 0 });
        assert!(note.is_some_and(|n| n.contains("a frame changed")));
    }
}
