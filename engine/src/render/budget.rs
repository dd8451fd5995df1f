//! The character budget and the subtree of a text snapshot: pure stages over rendered lines.
//!
//! Why: a whole long page is far more text than an agent can afford to read on every step (a
//! language reference runs to half a million characters), yet cutting the text at a length
//! would drop the rest silently and could leave a line half written. So the budget works on
//! whole lines of the rendered text and keeps the most useful of them: the lines in the
//! viewport first, then those near it, and among equals interactive elements, headings and
//! landmarks before plain text. Every kept line keeps its ancestors, so the kept text is still
//! a tree an agent can read the same way, and each line is exactly the line the full text
//! holds. In place of each run of lines left out there is one marker line saying how many
//! lines are missing and which uid to take a subtree snapshot of to read them; the text's last
//! line says that the budget applied. Nothing is dropped without a line saying so.
//!
//! A subtree snapshot ([`subtree`]) is the same lines the whole page prints for an element and
//! everything under it, moved left so the element starts the text: what a marker points to.
//!
//! Both stages read only the lines and what the renderers noted of each ([`Line`]), never the
//! model, so what they keep depends on the text alone and the renderers stay what they were.

use std::fmt::Write as _;

use crate::identity::Uid;

/// The `maxChars` a front end should give a whole-page snapshot (`expand: "all"`) when its
/// caller names none.
///
/// Why this number: it has to print an ordinary page whole, so that a page an agent can read
/// in full is never cut, and cut only the reference pages and long documents whose full text
/// would take a large share of a model's context on every step. A budget of this size keeps
/// the viewport and its surroundings of a long page, with a marker for every part left out,
/// in about a tenth of a common context window. The measurements behind it are in the
/// benches' README ("Snapshot budget").
pub const DEFAULT_MAX_CHARS: usize = 40_000;

/// How far from the viewport (in viewport heights) a line still counts as near it.
const NEAR_VIEWS: f64 = 1.0;

/// What a line is, for choosing which lines to keep first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LineKind {
    /// A line the text's shape needs wherever the viewport is (the a11y root, the dom view's
    /// scroll line and page bounds): kept before any other.
    Frame,
    /// Something to act on, a heading or a landmark: what an agent steers by.
    Landmark,
    /// Everything else (text, groups, images).
    Plain,
}

/// One line of a rendered text, with what the budget needs to know of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// Byte range of the line in the text, without its newline.
    pub start: usize,
    pub end: usize,
    /// Nesting level (indent units).
    pub depth: u32,
    /// The uid the line shows, if any.
    pub uid: Option<Uid>,
    pub kind: LineKind,
    /// Distance of what the line shows from the viewport, in viewport heights (0 inside it;
    /// `f64::INFINITY` when unknown).
    pub distance: f64,
}

/// A rendered text and its lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub text: String,
    pub lines: Vec<Line>,
}

/// How marker lines are spelled in a text format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The a11y view: two spaces of indent per level; a marker starts with `…`, which no line
    /// of the view does (they start with `uid=`).
    A11y,
    /// The dom view: a tab per level; a marker starts with `... ` like the view's scroll line,
    /// which free text cannot (it would be escaped).
    Dom,
}

impl Style {
    fn indent(self) -> &'static str {
        match self {
            Style::A11y => "  ",
            Style::Dom => "\t",
        }
    }

    fn lead(self) -> &'static str {
        match self {
            Style::A11y => "…",
            Style::Dom => "...",
        }
    }

    /// Whether `line` (as printed, indent included) is a marker or summary line of this style.
    pub fn is_marker(self, line: &str) -> bool {
        let rest = line.trim_start_matches(self.indent());
        match self {
            Style::A11y => rest.starts_with("… "),
            Style::Dom => {
                rest.starts_with("... ") && rest[4..].split(' ').nth(1).is_some_and(|w| w == "more")
                    || rest.starts_with("... maxChars=")
            }
        }
    }
}

/// What the budget left out of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Omitted {
    /// Lines of the full text left out.
    pub lines: usize,
    /// Lines of the full text.
    pub total_lines: usize,
    /// Characters of the full text.
    pub total_chars: usize,
}

/// Why a text cannot be shown within a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooSmall {
    /// The fewest characters that show the text's outline (its markers and summary line).
    pub needed: usize,
}

/// `rendered` within `max_chars` characters (newlines included): the text itself when it fits,
/// else the most useful whole lines with a marker for each run left out and a summary line.
pub fn apply(
    rendered: &Rendered,
    max_chars: usize,
    style: Style,
) -> Result<(String, Option<Omitted>), TooSmall> {
    let total_chars = rendered.text.chars().count();
    if total_chars <= max_chars {
        return Ok((rendered.text.clone(), None));
    }
    let lines = &rendered.lines;
    let n = lines.len();
    let text = |i: usize| {
        rendered
            .text
            .get(lines[i].start..lines[i].end)
            .unwrap_or("")
    };
    let cost: Vec<usize> = (0..n).map(|i| text(i).chars().count() + 1).collect();
    let parent = parents(lines);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| (tier(&lines[i]), lines[i].kind);
        key(a)
            .cmp(&key(b))
            .then(lines[a].distance.total_cmp(&lines[b].distance))
            .then(a.cmp(&b))
    });
    let mut target = max_chars;
    loop {
        let kept = choose(&order, &parent, &cost, target);
        let out = assemble(rendered, &parent, &kept, style, max_chars, total_chars);
        let len = out.0.chars().count();
        if len <= max_chars {
            return Ok(out);
        }
        if target == 0 {
            // The summary names the budget: count it as it would read with the one needed.
            let mut needed = len;
            loop {
                let at_needed = assemble(rendered, &parent, &kept, style, needed, total_chars);
                let len = at_needed.0.chars().count();
                if len <= needed {
                    return Err(TooSmall { needed });
                }
                needed = len;
            }
        }
        // The markers took more than the lines left room for: keep fewer lines.
        target = target.saturating_sub((len - max_chars).max(target / 16).max(1));
    }
}

/// The lines of the element showing `uid` and of everything under it, moved left so the
/// element's line has no indent; `None` when no line shows `uid`.
pub fn subtree(rendered: &Rendered, uid: Uid, style: Style) -> Option<Rendered> {
    let lines = &rendered.lines;
    let first = lines.iter().position(|l| l.uid == Some(uid))?;
    let base = lines[first].depth;
    let end = lines[first + 1..]
        .iter()
        .position(|l| l.depth <= base)
        .map_or(lines.len(), |k| first + 1 + k);
    let cut = style.indent().len() * base as usize;
    let mut out = Rendered::default();
    for line in &lines[first..end] {
        let whole = rendered.text.get(line.start..line.end).unwrap_or("");
        let kept = whole.get(cut.min(whole.len())..).unwrap_or("");
        let start = out.text.len();
        out.text.push_str(kept);
        out.lines.push(Line {
            start,
            end: out.text.len(),
            depth: line.depth - base,
            ..*line
        });
        out.text.push('\n');
    }
    Some(out)
}

/// 0: the frame; 1: in the viewport; 2: near it; 3: farther.
fn tier(line: &Line) -> u8 {
    if line.kind == LineKind::Frame {
        0
    } else if line.distance <= 0.0 {
        1
    } else if line.distance <= NEAR_VIEWS {
        2
    } else {
        3
    }
}

/// The nearest earlier line with a smaller depth, for every line.
fn parents(lines: &[Line]) -> Vec<Option<usize>> {
    let mut stack: Vec<usize> = Vec::new();
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            while stack.last().is_some_and(|&s| lines[s].depth >= line.depth) {
                stack.pop();
            }
            let p = stack.last().copied();
            stack.push(i);
            p
        })
        .collect()
}

/// Keeps lines in `order` while they fit in `target` characters, each with its ancestors.
fn choose(order: &[usize], parent: &[Option<usize>], cost: &[usize], target: usize) -> Vec<bool> {
    let mut kept = vec![false; cost.len()];
    let mut used = 0usize;
    for &i in order {
        let mut need = 0usize;
        let mut at = Some(i);
        while let Some(k) = at.filter(|&k| !kept[k]) {
            need += cost[k];
            at = parent[k];
        }
        if need == 0 || used + need > target {
            continue;
        }
        used += need;
        let mut at = Some(i);
        while let Some(k) = at.filter(|&k| !kept[k]) {
            kept[k] = true;
            at = parent[k];
        }
    }
    kept
}

/// The kept lines with a marker for each run left out, and the summary line.
fn assemble(
    rendered: &Rendered,
    parent: &[Option<usize>],
    kept: &[bool],
    style: Style,
    max_chars: usize,
    total_chars: usize,
) -> (String, Option<Omitted>) {
    let lines = &rendered.lines;
    let n = lines.len();
    // The nearest kept ancestor of every line (parents come first).
    let mut holder: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        holder[i] = parent[i].and_then(|p| if kept[p] { Some(p) } else { holder[p] });
    }
    let mut out = String::with_capacity(max_chars.min(1 << 20) + 256);
    let mut omitted = 0usize;
    let mut i = 0;
    while i < n {
        if kept[i] {
            out.push_str(
                rendered
                    .text
                    .get(lines[i].start..lines[i].end)
                    .unwrap_or(""),
            );
            out.push('\n');
            i += 1;
            continue;
        }
        let h = holder[i];
        let mut j = i + 1;
        while j < n && !kept[j] && holder[j] == h {
            j += 1;
        }
        push_marker(&mut out, lines, parent, h, j - i, style);
        omitted += j - i;
        i = j;
    }
    let _ = writeln!(
        out,
        "{} maxChars={max_chars}: {omitted} of {n} lines left out (the whole snapshot is \
         {total_chars} characters); each {} line above says what is missing and how to see it",
        style.lead(),
        style.lead(),
    );
    let report = Omitted {
        lines: omitted,
        total_lines: n,
        total_chars,
    };
    (out, Some(report))
}

/// `… 214 more lines inside uid=3_17: snapshot with uid=3_17`, at the depth of the lines it
/// stands for, naming the nearest kept ancestor with a uid (one with no ancestor of its own is
/// the whole page, which a larger budget shows).
fn push_marker(
    out: &mut String,
    lines: &[Line],
    parent: &[Option<usize>],
    holder: Option<usize>,
    count: usize,
    style: Style,
) {
    let depth = holder.map_or(0, |h| lines[h].depth + 1);
    for _ in 0..depth {
        out.push_str(style.indent());
    }
    let mut at = holder;
    let named = loop {
        match at {
            Some(k) if parent[k].is_none() => break None,
            Some(k) => match lines[k].uid {
                Some(uid) => break Some(uid),
                None => at = parent[k],
            },
            None => break None,
        }
    };
    let what = if count == 1 { "line" } else { "lines" };
    let _ = match (named, style) {
        (Some(uid), Style::A11y) => write!(
            out,
            "… {count} more {what} inside uid={uid}: snapshot with uid={uid}"
        ),
        (Some(uid), Style::Dom) => write!(
            out,
            "... {count} more {what} inside [{uid}]: snapshot with uid={uid} ..."
        ),
        (None, _) => write!(
            out,
            "{} {count} more {what} here: snapshot with a larger maxChars, or scroll here",
            style.lead()
        ),
    };
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text of lines `(depth, uid n, kind, distance)`, in the a11y style.
    fn rendered(spec: &[(u32, u32, LineKind, f64)]) -> Rendered {
        let mut r = Rendered::default();
        for &(depth, n, kind, distance) in spec {
            let start = r.text.len();
            r.text.push_str(&"  ".repeat(depth as usize));
            let _ = write!(r.text, "uid=1_{n} generic \"line number {n}\"");
            r.lines.push(Line {
                start,
                end: r.text.len(),
                depth,
                uid: Some(Uid { snapshot: 1, n }),
                kind,
                distance,
            });
            r.text.push('\n');
        }
        r
    }

    fn long() -> Rendered {
        let mut spec = vec![(0, 0, LineKind::Frame, 0.0)];
        for s in 0..20u32 {
            spec.push((1, 1000 + s, LineKind::Landmark, s as f64));
            for k in 0..20u32 {
                spec.push((2, s * 100 + k, LineKind::Plain, s as f64));
            }
        }
        rendered(&spec)
    }

    #[test]
    fn a_text_that_fits_is_returned_whole() {
        let r = long();
        let (text, omitted) = apply(&r, r.text.len(), Style::A11y).unwrap();
        assert_eq!(text, r.text);
        assert_eq!(omitted, None);
    }

    #[test]
    fn the_budget_keeps_whole_lines_in_order_with_markers_and_never_exceeds() {
        let r = long();
        let full: Vec<&str> = r.text.lines().collect();
        for max in [300, 500, 1000, 3000, 8000] {
            let (text, omitted) = apply(&r, max, Style::A11y).unwrap();
            assert!(text.chars().count() <= max, "{max}: {}", text.len());
            let omitted = omitted.unwrap();
            assert!(omitted.lines > 0);
            let mut at = 0;
            for line in text.lines().filter(|l| !Style::A11y.is_marker(l)) {
                let k = full[at..].iter().position(|f| *f == line).unwrap();
                at += k + 1;
            }
            assert!(text.lines().last().unwrap().starts_with("… maxChars="));
            // The root and the viewport's section come first.
            assert!(text.starts_with("uid=1_0 generic"));
            if max >= 1000 {
                assert!(text.contains("uid=1_1000 "), "{text}");
                assert!(text.contains("uid=1_5 "), "{text}");
            }
        }
    }

    #[test]
    fn markers_name_the_nearest_kept_ancestor_and_its_subtree_holds_the_lines() {
        let r = long();
        let (text, _) = apply(&r, 1500, Style::A11y).unwrap();
        let marker = text
            .lines()
            .find(|l| l.contains("inside uid="))
            .expect("a marker inside a section");
        let uid: Uid = marker.rsplit("uid=").next().unwrap().parse().unwrap();
        let sub = subtree(&r, uid, Style::A11y).unwrap();
        assert!(sub.text.starts_with(&format!("uid={uid} ")));
        assert!(sub.lines.len() > 1);
        assert!(sub.lines.iter().skip(1).all(|l| l.depth == 1));
    }

    #[test]
    fn a_budget_too_small_for_the_outline_says_what_it_needs() {
        let r = long();
        let err = apply(&r, 10, Style::A11y).unwrap_err();
        assert!(err.needed > 10);
        let (text, _) = apply(&r, err.needed, Style::A11y).unwrap();
        assert!(text.chars().count() <= err.needed);
    }

    #[test]
    fn an_unknown_uid_has_no_subtree() {
        assert!(subtree(&long(), Uid { snapshot: 9, n: 9 }, Style::A11y).is_none());
    }
}
