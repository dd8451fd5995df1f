//! Writing the content tree as markdown and as plain text.
//!
//! Why the care with escaping: the text comes from the page, and a page must not be able to
//! forge structure in what an agent reads — a paragraph starting with `#` is not a heading, a
//! `[link](…)` typed as text is not a link, `<b>` typed as text is not HTML. Every piece of
//! page text is escaped where markdown would read it as markup, and only there, so the text
//! stays readable; URLs are percent-encoded so they cannot close their link.

use super::ir::{has_content, Block, Inline};
use super::url::for_markdown;

/// The blocks as markdown, separated by blank lines.
pub(crate) fn markdown(blocks: &[Block]) -> String {
    let parts: Vec<String> = blocks
        .iter()
        .map(md_block)
        .filter(|s| !s.is_empty())
        .collect();
    parts.join("\n\n")
}

/// The blocks as plain text: no markup, paragraphs separated by blank lines.
pub(crate) fn text(blocks: &[Block]) -> String {
    let parts: Vec<String> = blocks
        .iter()
        .map(text_block)
        .filter(|s| !s.is_empty())
        .collect();
    parts.join("\n\n")
}

pub(crate) fn md_block(b: &Block) -> String {
    match b {
        Block::Heading(level, inl) => {
            let t = md_line(inl);
            if t.is_empty() {
                String::new()
            } else {
                format!("{} {}", "#".repeat(usize::from(*level).clamp(1, 6)), t)
            }
        }
        Block::Para(inl) => md_line(inl),
        Block::List {
            ordered,
            start,
            items,
        } => {
            let mut out = Vec::new();
            for (k, item) in items.iter().enumerate() {
                let marker = if *ordered {
                    format!("{}. ", *start as usize + k)
                } else {
                    "- ".to_string()
                };
                let indent = " ".repeat(marker.len());
                let mut body = String::new();
                let mut prev_para = false;
                for b in item {
                    let s = md_block(b);
                    if s.is_empty() {
                        continue;
                    }
                    let para = matches!(b, Block::Para(_));
                    if !body.is_empty() {
                        body.push_str(if para && prev_para { "\n\n" } else { "\n" });
                    }
                    prev_para = para;
                    body.push_str(&s);
                }
                if body.is_empty() {
                    continue;
                }
                let mut lines = body.lines();
                let mut s = format!("{marker}{}", lines.next().unwrap_or(""));
                for l in lines {
                    s.push('\n');
                    if !l.is_empty() {
                        s.push_str(&indent);
                        s.push_str(l);
                    }
                }
                out.push(s);
            }
            out.join("\n")
        }
        Block::Code { lang, text } => {
            let mut fence = "```".to_string();
            while text.contains(fence.as_str()) {
                fence.push('`');
            }
            format!(
                "{fence}{}\n{text}\n{fence}",
                lang.as_deref().unwrap_or_default()
            )
        }
        Block::Quote(bs) => {
            let inner = markdown(bs);
            inner
                .lines()
                .map(|l| {
                    if l.is_empty() {
                        ">".to_string()
                    } else {
                        format!("> {l}")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        Block::Table(rows) => {
            let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
            if cols == 0 {
                return String::new();
            }
            let mut out = Vec::new();
            for (k, r) in rows.iter().enumerate() {
                let mut cells: Vec<String> =
                    r.iter().map(|c| md_line(c).replace('\n', " ")).collect();
                cells.resize(cols, String::new());
                out.push(format!("| {} |", cells.join(" | ")));
                if k == 0 {
                    out.push(format!("|{}", " --- |".repeat(cols)));
                }
            }
            out.join("\n")
        }
        Block::Rule => "---".to_string(),
    }
}

/// Inlines as one markdown paragraph: spaces collapsed, line starts made safe.
fn md_line(inl: &[Inline]) -> String {
    if !has_content(inl) {
        return String::new();
    }
    let mut s = String::new();
    md_inlines(inl, &mut s);
    let s = tidy_spaces(&s);
    // A line that would start a heading, list, quote or thematic break reads as text.
    s.split('\n')
        .map(|l| {
            let l = l.trim();
            escape_line_start(l)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Collapses runs of spaces (from inline boundaries) and trims each line.
fn tidy_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c == ' ' {
            space = true;
            continue;
        }
        if c == '\n' {
            space = false;
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('\n');
            continue;
        }
        if space && !out.is_empty() && !out.ends_with('\n') {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out.trim().to_string()
}

fn escape_line_start(l: &str) -> String {
    let first = l.chars().next();
    match first {
        Some('#' | '>' | '-' | '+' | '=' | '|') => format!("\\{l}"),
        Some(c) if c.is_ascii_digit() => {
            let digits = l.chars().take_while(|c| c.is_ascii_digit()).count();
            match l[digits..].chars().next() {
                Some('.' | ')') if digits <= 9 => {
                    format!("{}\\{}", &l[..digits], &l[digits..])
                }
                _ => l.to_string(),
            }
        }
        _ => l.to_string(),
    }
}

fn md_inlines(inl: &[Inline], out: &mut String) {
    for i in inl {
        match i {
            Inline::Text(t) => escape_text(t, out),
            Inline::Emph(k) => wrap(k, "*", out),
            Inline::Strong(k) => wrap(k, "**", out),
            Inline::Code(c) => {
                let mut fence = "`".to_string();
                while c.contains(fence.as_str()) {
                    fence.push('`');
                }
                let pad = if c.starts_with('`') || c.ends_with('`') {
                    " "
                } else {
                    ""
                };
                out.push_str(&format!("{fence}{pad}{c}{pad}{fence}"));
            }
            Inline::Link { url, kids } => {
                let mut inner = String::new();
                md_inlines(kids, &mut inner);
                let inner = tidy_spaces(&inner.replace('\n', " "));
                if inner.is_empty() {
                    continue;
                }
                out.push_str(&format!("[{inner}]({})", for_markdown(url)));
            }
            Inline::Image { alt, url } => {
                let mut a = String::new();
                escape_text(alt, &mut a);
                out.push_str(&format!("![{a}]({})", for_markdown(url)));
            }
            Inline::Break => out.push_str("\\\n"),
        }
    }
}

/// Emphasis around inlines, its spaces moved outside the markers.
fn wrap(kids: &[Inline], marker: &str, out: &mut String) {
    let mut inner = String::new();
    md_inlines(kids, &mut inner);
    let inner = inner.replace("\\\n", " ").replace('\n', " ");
    let trimmed = inner.trim();
    if trimmed.is_empty() {
        out.push_str(&inner);
        return;
    }
    if inner.starts_with(' ') {
        out.push(' ');
    }
    out.push_str(marker);
    out.push_str(trimmed);
    out.push_str(marker);
    if inner.ends_with(' ') {
        out.push(' ');
    }
}

/// Page text escaped where markdown would read it as markup.
pub(crate) fn escape_text(t: &str, out: &mut String) {
    let chars: Vec<char> = t.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(k + 1).copied();
        match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '_' => {
                // Inside a word an underscore is no emphasis.
                let inner = prev.is_some_and(char::is_alphanumeric)
                    && next.is_some_and(char::is_alphanumeric);
                if !inner {
                    out.push('\\');
                }
                out.push('_');
            }
            '&' => {
                // Only what would be read as a character reference.
                let rest: String = chars[k + 1..].iter().take(32).collect();
                let entity = rest.find(';').is_some_and(|e| {
                    e > 0
                        && rest[..e]
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '#')
                });
                if entity {
                    out.push('\\');
                }
                out.push('&');
            }
            '!' if next == Some('[') => {
                out.push('\\');
                out.push('!');
            }
            _ => out.push(c),
        }
    }
}

fn text_block(b: &Block) -> String {
    match b {
        Block::Heading(_, inl) | Block::Para(inl) => text_line(inl),
        Block::List { items, .. } => items
            .iter()
            .map(|item| {
                item.iter()
                    .map(text_block)
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Block::Code { text, .. } => text.clone(),
        Block::Quote(bs) => text(bs),
        Block::Table(rows) => rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| text_line(c).replace('\n', " "))
                    .collect::<Vec<_>>()
                    .join("\t")
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Block::Rule => String::new(),
    }
}

fn text_line(inl: &[Inline]) -> String {
    let mut s = String::new();
    text_inlines(inl, &mut s);
    tidy_spaces(&s)
}

fn text_inlines(inl: &[Inline], out: &mut String) {
    for i in inl {
        match i {
            Inline::Text(t) => out.push_str(t),
            Inline::Emph(k) | Inline::Strong(k) => text_inlines(k, out),
            Inline::Link { kids, .. } => text_inlines(kids, out),
            Inline::Code(c) => out.push_str(c),
            Inline::Image { .. } => {}
            Inline::Break => out.push('\n'),
        }
    }
}
