//! Generated pages of a chosen size for the scale series: realistic document markup (headings,
//! paragraphs with inline links and code, nested lists, data tables, forms, disclosure widgets,
//! a navigation bar) repeated in varied sections until the page holds the requested number of
//! DOM nodes.
//!
//! The generator counts every node it writes (elements, text nodes, and the `::marker`
//! pseudo-elements of list items, which the snapshot lists as nodes; no whitespace is written
//! between tags, so the browser adds no text nodes of its own), so the page Chromium builds has
//! about the requested count plus the handful of nodes of the document shell.

use std::fmt::Write;

/// The scale series: about 1k, 10k, 100k and 300k DOM nodes.
pub const DEFAULT_SIZES: &[usize] = &[1_000, 10_000, 100_000, 300_000];

const WORDS: &[&str] = &[
    "buffer", "request", "token", "session", "layout", "window", "report", "channel", "vector",
    "string", "sequence", "mapping", "iterator", "record", "format", "method", "module", "value",
    "header", "account", "invoice", "shipment", "address", "profile", "setting", "filter",
    "result", "object", "element", "number", "return", "default", "option", "history", "cache",
    "policy", "review", "status", "target", "column", "search", "upload", "release", "version",
];

const FIRST_NAMES: &[&str] = &[
    "Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Donald", "Frances", "Alan", "Margaret",
];

/// A small deterministic pseudo-random sequence (xorshift), so a size always gives the same page.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len())]
    }
}

/// An HTML writer that counts the DOM nodes it emits.
struct Html {
    out: String,
    nodes: usize,
    stack: Vec<&'static str>,
}

impl Html {
    fn open(&mut self, tag: &'static str, attrs: &str) {
        self.nodes += 1;
        // List items and summaries get a `::marker` pseudo-element, a node of the snapshot.
        if tag == "li" || tag == "summary" {
            self.nodes += 1;
        }
        if attrs.is_empty() {
            let _ = write!(self.out, "<{tag}>");
        } else {
            let _ = write!(self.out, "<{tag} {attrs}>");
        }
        self.stack.push(tag);
    }

    /// A void element (`<input>`, `<br>`): one node, no closing tag.
    fn void(&mut self, tag: &'static str, attrs: &str) {
        self.nodes += 1;
        let _ = write!(self.out, "<{tag} {attrs}>");
    }

    fn close(&mut self) {
        if let Some(tag) = self.stack.pop() {
            let _ = write!(self.out, "</{tag}>");
        }
    }

    /// A text node. The text must not need escaping (the generator only writes plain words).
    fn text(&mut self, text: &str) {
        if !text.is_empty() {
            self.nodes += 1;
            self.out.push_str(text);
        }
    }

    /// `<tag attrs>text</tag>`: two nodes.
    fn leaf(&mut self, tag: &'static str, attrs: &str, text: &str) {
        self.open(tag, attrs);
        self.text(text);
        self.close();
    }
}

/// `lo..=hi` random words.
fn sentence(rng: &mut Rng, lo: usize, hi: usize) -> String {
    let words = rng.range(lo, hi);
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.word());
    }
    s
}

fn capitalized(rng: &mut Rng, lo: usize, hi: usize) -> String {
    let s = sentence(rng, lo, hi);
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => s,
    }
}

/// A paragraph: running text with inline links, code and emphasis.
fn paragraph(h: &mut Html, rng: &mut Rng, sections: usize) {
    h.open("p", "");
    let pieces = rng.range(3, 6);
    for k in 0..pieces {
        h.text(&format!("{} ", capitalized(rng, 6, 14)));
        match rng.below(4) {
            0 => h.leaf(
                "a",
                &format!("href=\"#s{}\"", rng.below(sections.max(1))),
                &sentence(rng, 2, 2),
            ),
            1 => h.leaf("code", "", &format!("{}.{}()", rng.word(), rng.word())),
            2 => h.leaf("em", "", rng.word()),
            _ => {}
        }
        if k + 1 == pieces {
            h.text(".");
        }
    }
    h.close();
}

/// A nested list of links, like a table of contents.
fn nested_list(h: &mut Html, rng: &mut Rng, sections: usize, depth: usize) {
    h.open("ul", "");
    for _ in 0..rng.range(3, 5) {
        h.open("li", "");
        h.leaf(
            "a",
            &format!("href=\"#s{}\"", rng.below(sections.max(1))),
            &capitalized(rng, 1, 3),
        );
        h.text(&format!(" — {}", sentence(rng, 3, 8)));
        if depth < 2 && rng.below(3) == 0 {
            nested_list(h, rng, sections, depth + 1);
        }
        h.close();
    }
    h.close();
}

/// A data table with a header, links and row actions.
fn table(h: &mut Html, rng: &mut Rng, index: usize) {
    h.open("table", "class=\"data\"");
    h.leaf(
        "caption",
        "",
        &format!("Table {index}: {}", capitalized(rng, 3, 3)),
    );
    h.open("thead", "");
    h.open("tr", "");
    for name in ["Name", "Owner", "Status", "Amount", "Action"] {
        h.leaf("th", "scope=\"col\"", name);
    }
    h.close();
    h.close();
    h.open("tbody", "");
    for row in 0..rng.range(5, 10) {
        h.open("tr", "");
        h.open("td", "");
        h.leaf(
            "a",
            &format!("href=\"#r{index}-{row}\""),
            &format!("{}-{row}", rng.word()),
        );
        h.close();
        h.leaf("td", "", FIRST_NAMES[rng.below(FIRST_NAMES.len())]);
        h.leaf("td", "", ["open", "closed", "pending"][rng.below(3)]);
        h.leaf(
            "td",
            "class=\"num\"",
            &format!("{}.{:02}", rng.below(10_000), rng.below(100)),
        );
        h.open("td", "");
        h.leaf("button", "type=\"button\"", "Edit");
        h.close();
        h.close();
    }
    h.close();
    h.close();
}

/// A form: labelled inputs, a select, radio buttons, a checkbox, a textarea and buttons.
fn form(h: &mut Html, rng: &mut Rng, index: usize) {
    h.open("form", &format!("id=\"f{index}\" action=\"#\""));
    h.open("fieldset", "");
    h.leaf("legend", "", &capitalized(rng, 2, 2));
    for (k, kind) in ["text", "email", "number", "date"].iter().enumerate() {
        let id = format!("f{index}-{k}");
        h.open("div", "class=\"field\"");
        h.leaf("label", &format!("for=\"{id}\""), &capitalized(rng, 2, 2));
        h.void(
            "input",
            &format!(
                "id=\"{id}\" name=\"{id}\" type=\"{kind}\" placeholder=\"{}\"",
                rng.word()
            ),
        );
        h.close();
    }
    h.open("div", "class=\"field\"");
    h.leaf("label", &format!("for=\"f{index}-sel\""), "Choose");
    h.open("select", &format!("id=\"f{index}-sel\""));
    for k in 0..rng.range(3, 6) {
        h.leaf("option", &format!("value=\"{k}\""), &capitalized(rng, 1, 1));
    }
    h.close();
    h.close();
    h.open("div", "class=\"field\"");
    for k in 0..3 {
        let id = format!("f{index}-r{k}");
        h.void(
            "input",
            &format!("type=\"radio\" name=\"f{index}-r\" id=\"{id}\""),
        );
        h.leaf("label", &format!("for=\"{id}\""), rng.word());
    }
    h.close();
    h.open("div", "class=\"field\"");
    h.open("label", "");
    h.void("input", "type=\"checkbox\"");
    h.text(&format!(" {}", capitalized(rng, 3, 3)));
    h.close();
    h.close();
    h.open("div", "class=\"field\"");
    h.open("textarea", &format!("name=\"f{index}-notes\" rows=\"2\""));
    h.close();
    h.close();
    h.close();
    h.leaf("button", "type=\"submit\"", "Save");
    h.leaf("button", "type=\"reset\"", "Cancel");
    h.close();
}

/// A disclosure widget with a short text.
fn details(h: &mut Html, rng: &mut Rng) {
    h.open("details", "");
    h.leaf("summary", "", &capitalized(rng, 3, 3));
    h.leaf("p", "", &capitalized(rng, 8, 20));
    h.close();
}

fn section(h: &mut Html, rng: &mut Rng, index: usize, sections: usize) {
    h.open("section", &format!("id=\"s{index}\""));
    h.leaf("h2", "", &format!("{index}. {}", capitalized(rng, 2, 4)));
    for _ in 0..rng.range(1, 3) {
        paragraph(h, rng, sections);
    }
    nested_list(h, rng, sections, 0);
    if index % 3 == 0 {
        table(h, rng, index);
    }
    if index % 4 == 1 {
        form(h, rng, index);
    }
    if index % 5 == 2 {
        details(h, rng);
    }
    if index % 2 == 0 {
        h.leaf("h3", "", &capitalized(rng, 2, 2));
        paragraph(h, rng, sections);
    }
    h.close();
}

/// A generated page.
#[derive(Debug, Clone)]
pub struct Page {
    pub html: String,
    /// DOM nodes of the body content as the generator counted them (the document shell —
    /// doctype, `html`, `head`, `title`, `style`, `body` and their text — adds about ten).
    pub nodes: usize,
}

/// Generates a page of about `target_nodes` DOM nodes (it stops at the first section that
/// reaches the count, so it overshoots by at most one section, about 100 nodes).
pub fn generate(target_nodes: usize) -> Page {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ target_nodes as u64);
    // Sections average roughly 80 nodes; links point at sections that exist.
    let sections_estimate = (target_nodes / 80).max(1);
    let mut h = Html {
        out: String::with_capacity(target_nodes * 40),
        nodes: 0,
        stack: Vec::new(),
    };
    h.out.push_str(concat!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<title>Generated reference page</title><style>",
        "body{font:15px/1.5 sans-serif;margin:0}",
        "header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc}",
        "nav a{margin-right:1em}main{max-width:60em;margin:auto;padding:1em}",
        "table.data{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px}",
        ".num{text-align:right}.field{margin:4px 0}",
        "</style></head><body>"
    ));
    h.open("header", "");
    h.open("nav", "aria-label=\"Main\"");
    for k in 0..8 {
        h.leaf(
            "a",
            &format!("href=\"#s{}\"", k * sections_estimate / 8),
            &capitalized(&mut rng, 1, 1),
        );
    }
    h.close();
    h.close();
    h.open("main", "");
    h.leaf("h1", "", "Generated reference page");
    let mut index = 0;
    while h.nodes < target_nodes.saturating_sub(4) {
        section(&mut h, &mut rng, index, sections_estimate);
        index += 1;
    }
    h.close();
    h.open("footer", "");
    h.leaf("p", "", "End of the generated page.");
    h.close();
    h.out.push_str("</body></html>");
    Page {
        html: h.out,
        nodes: h.nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_close_to_the_target() {
        for &n in &[1_000, 10_000, 50_000] {
            let page = generate(n);
            assert!(page.nodes >= n - 4, "{n}: {}", page.nodes);
            assert!(page.nodes < n + 300, "{n}: {}", page.nodes);
        }
    }

    #[test]
    fn tags_are_balanced() {
        let page = generate(2_000);
        let opens = page.html.matches("<section").count();
        let closes = page.html.matches("</section>").count();
        assert_eq!(opens, closes);
        assert!(page.html.ends_with("</body></html>"));
    }

    #[test]
    fn deterministic() {
        assert_eq!(generate(1_500).html, generate(1_500).html);
    }
}
