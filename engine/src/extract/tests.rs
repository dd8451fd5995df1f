//! Unit tests of the pure parts: escaping and the writing of blocks.

use super::ir::{Block, Inline};
use super::render::{markdown, text};

fn t(s: &str) -> Inline {
    Inline::Text(s.to_string())
}

#[test]
fn page_text_cannot_forge_markdown() {
    let blocks = vec![
        Block::Para(vec![t("# not a heading")]),
        Block::Para(vec![t(
            "1. not a list, [not](a link) *nor* <b>html</b> | pipe",
        )]),
        Block::Para(vec![t("- nor an item &amp; snake_case _under_")]),
    ];
    assert_eq!(
        markdown(&blocks),
        "\\# not a heading\n\n\
         1\\. not a list, \\[not\\](a link) \\*nor\\* \\<b\\>html\\</b\\> \\| pipe\n\n\
         \\- nor an item \\&amp; snake_case \\_under\\_"
    );
}

#[test]
fn inline_markup_is_written_with_spaces_outside() {
    let blocks = vec![Block::Para(vec![
        t("A "),
        Inline::Emph(vec![t(" word ")]),
        t("and "),
        Inline::Strong(vec![t("bold")]),
        t(", "),
        Inline::Code("a`b".into()),
        t(" "),
        Inline::Link {
            url: "https://x.test/a b".into(),
            kids: vec![t("link")],
        },
        Inline::Break,
        t("next"),
    ])];
    assert_eq!(
        markdown(&blocks),
        "A *word* and **bold**, ``a`b`` [link](https://x.test/a%20b)\\\nnext"
    );
    assert_eq!(text(&blocks), "A word and bold, a`b link\nnext");
}

#[test]
fn nested_lists_indent_by_their_marker() {
    let inner = Block::List {
        ordered: true,
        start: 3,
        items: vec![
            vec![Block::Para(vec![t("three")])],
            vec![Block::Para(vec![t("four")])],
        ],
    };
    let blocks = vec![Block::List {
        ordered: false,
        start: 1,
        items: vec![
            vec![Block::Para(vec![t("one")]), inner],
            vec![Block::Para(vec![t("two")])],
        ],
    }];
    assert_eq!(markdown(&blocks), "- one\n  3. three\n  4. four\n- two");
    assert_eq!(text(&blocks), "one\nthree\nfour\ntwo");
}

#[test]
fn tables_are_gfm_with_pipes_escaped() {
    let blocks = vec![Block::Table(vec![
        vec![vec![t("a")], vec![t("b|c")]],
        vec![vec![t("1")]],
    ])];
    assert_eq!(markdown(&blocks), "| a | b\\|c |\n| --- | --- |\n| 1 |  |");
}

#[test]
fn code_fences_outgrow_the_code() {
    let blocks = vec![
        Block::Code {
            lang: Some("rust".into()),
            text: "fn main() {}\n```".into(),
        },
        Block::Quote(vec![Block::Para(vec![t("q")]), Block::Para(vec![t("r")])]),
    ];
    assert_eq!(
        markdown(&blocks),
        "````rust\nfn main() {}\n```\n````\n\n> q\n>\n> r"
    );
}
