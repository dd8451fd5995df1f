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

/// The extraction of `capture`, and its links, as read by the offline pipeline.
fn extraction_of(capture: crate::capture::Capture) -> super::Extraction {
    let target = capture.target_id.clone().unwrap_or_default();
    let mut table = crate::identity::UidTable::new();
    let snapshot = crate::snapshot::analyze_unchecked(
        capture.into(),
        &mut table,
        &target,
        &super::SNAPSHOT_OPTIONS,
    )
    .expect("a recorded capture analyses");
    super::extract(
        &snapshot.model,
        &snapshot.analysis,
        &snapshot.uids,
        &super::ExtractOptions {
            all: false,
            links: true,
        },
    )
}

/// A live extraction captures no accessibility tree and reads its roles from the markup:
/// on every recorded page it must take the same blocks, write the same markdown and list the
/// same links as from the same capture with Chromium's tree, and name 95% of the links as the
/// tree does (the others with part of the tree's name).
#[test]
fn the_markup_gives_the_extraction_what_the_accessibility_tree_gave() {
    use crate::capture::tests::{fixture_json, recorded_capture_names};
    use crate::capture::Capture;
    let (mut links, mut renamed) = (0, Vec::new());
    for name in recorded_capture_names() {
        let json = fixture_json(&name);
        let with_tree = Capture::from_bytes(&json).expect("a recorded capture loads");
        assert!(
            !with_tree.ax_trees.is_empty(),
            "{name}: a recorded capture holds the tree"
        );
        let without = Capture::from_bytes(&json)
            .expect("a recorded capture loads")
            .without_accessibility();
        let (a, b) = (extraction_of(with_tree), extraction_of(without));
        assert_eq!(a.markdown, b.markdown, "{name}: markdown");
        assert_eq!(a.blocks, b.blocks, "{name}: blocks");
        let urls =
            |e: &super::Extraction| e.links.iter().map(|l| l.url.clone()).collect::<Vec<_>>();
        assert_eq!(urls(&a), urls(&b), "{name}: links");
        for (x, y) in a.links.iter().zip(&b.links) {
            links += 1;
            // Where the names differ, the markup's misses only what an icon's symbol says
            // (an SVG's `<use>` of a symbol whose `<title>` names it), never says otherwise.
            if x.text != y.text {
                assert!(
                    !y.text.is_empty() && x.text.contains(&y.text),
                    "{name}: the tree names a link {:?}, the markup {:?}",
                    x.text,
                    y.text
                );
                renamed.push(format!("{name}: {:?} / {:?}", x.text, y.text));
            }
        }
    }
    assert!(links > 100, "{links}");
    assert!(
        renamed.len() * 20 <= links,
        "{} of {links} links named otherwise than by the tree: {renamed:#?}",
        renamed.len()
    );
}

/// A capture without the tree is for the extraction only: a snapshot of it is refused.
#[test]
fn a_capture_without_the_tree_renders_no_snapshot() {
    use crate::capture::tests::fixture_json;
    use crate::capture::Capture;
    let capture = Capture::from_bytes(&fixture_json("sign-in.json.gz"))
        .expect("loads")
        .without_accessibility();
    let mut table = crate::identity::UidTable::new();
    let Err(refused) = crate::snapshot::analyze_capture(
        capture,
        &mut table,
        "target",
        &crate::snapshot::SnapshotOptions::default(),
    ) else {
        panic!("a snapshot of a capture without the tree was rendered");
    };
    assert_eq!(refused.code(), crate::error::ErrorCode::InvalidArgument);
    assert!(
        refused.message().contains("no accessibility data"),
        "{}",
        refused.message()
    );
}
