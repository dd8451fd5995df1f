//! The boxes whose client and scroll rectangles a live snapshot reads itself, and writing what
//! it read into the snapshot where `includeDOMRects` would have put them (see `live::box_rects`
//! for why and how they are read), and the reader of the values' reply.

use std::sync::Arc;

use super::dom::{DomSnapshot, Ragged};
use super::json_reader::{Reader, Surrogates};

/// One layout box whose client and scroll rectangles are needed.
#[derive(Debug, Clone, PartialEq)]
pub struct RectBox {
    /// Index of its document in the snapshot.
    pub doc: usize,
    /// Index of the box in that document's `layout` arrays.
    pub layout: usize,
    /// Its element.
    pub backend_node_id: i64,
    /// The frame of its document.
    pub frame_id: String,
}

/// The part of the top document a view can show: its viewport, in the document's own
/// coordinates, grown by `expand` CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub expand: f64,
}

/// The boxes of `snapshot` whose client and scroll rectangles geometry needs (see the module
/// docs). `view`: for the page's own snapshot, the part of its top document (`documents[0]`)
/// that can be shown — boxes of that document outside it are left out; boxes of any other
/// document are all kept (frames are small). `None`: every document is another renderer's
/// frame, all kept.
///
/// Pure.
pub fn boxes_needing_rects(
    snapshot: &DomSnapshot,
    computed_styles: &[String],
    view: Option<View>,
) -> Vec<RectBox> {
    let strings = &snapshot.strings;
    let style_at = |name: &str| computed_styles.iter().position(|s| s == name);
    let (ox, oy) = (style_at("overflow-x"), style_at("overflow-y"));
    let text = |i: i64| usize::try_from(i).ok().and_then(|i| strings.get(i));
    let mut out = Vec::new();
    for (d, doc) in snapshot.documents.iter().enumerate() {
        let nodes = &doc.nodes;
        let (Some(ids), Some(parents), Some(types)) = (
            &nodes.backend_node_id,
            &nodes.parent_index,
            &nodes.node_type,
        ) else {
            continue;
        };
        let mut wanted = vec![false; ids.len()];
        if let Some(owners) = &nodes.content_document_index {
            for &i in &owners.index {
                if let Some(w) = usize::try_from(i).ok().and_then(|i| wanted.get_mut(i)) {
                    *w = true;
                }
            }
        }
        let child_document = view.is_none() || d > 0;
        if child_document {
            // The root element: the element child of the `#document` (node 0).
            for (i, (&p, &t)) in parents.iter().zip(types).enumerate() {
                if p == 0 && t == 1 {
                    wanted[i] = true;
                }
            }
        }
        let shown = |bounds: &[f64]| match (view, d) {
            (Some(v), 0) => {
                bounds.len() >= 4
                    && bounds[0] < v.x + v.width + v.expand
                    && bounds[0] + bounds[2] > v.x - v.expand
                    && bounds[1] < v.y + v.height + v.expand
                    && bounds[1] + bounds[3] > v.y - v.expand
            }
            _ => true,
        };
        let frame_id = text(doc.frame_id).cloned().unwrap_or_default();
        let layout = &doc.layout;
        for (k, &ni) in layout.node_index.iter().enumerate() {
            let Some(node) = usize::try_from(ni).ok().filter(|&n| n < ids.len()) else {
                continue;
            };
            let style = layout.styles.get(k);
            let clips = |at: Option<usize>| {
                at.and_then(|a| style.and_then(|s| s.get(a)))
                    .and_then(|&v| text(v))
                    .is_some_and(|v| v != "visible")
            };
            let needed = wanted[node] || clips(ox) || clips(oy);
            if needed && types.get(node) == Some(&1) {
                let bounds = layout.bounds.get(k).unwrap_or(&[]);
                if shown(bounds) {
                    out.push(RectBox {
                        doc: d,
                        layout: k,
                        backend_node_id: ids[node],
                        frame_id: frame_id.clone(),
                    });
                }
            }
        }
    }
    out
}

/// Writes the values read for `boxes` into `snapshot` as `clientRects` and `scrollRects`
/// (`[]` for every other box of a document that has any). Pure.
///
/// A document whose rows come out as it already has them is left alone, and a snapshot none of
/// whose documents change is not copied: a page's kept snapshot (see `kept_model.rs`) is
/// shared with the next capture of an unchanged page, and copying a long page's snapshot cost
/// more than the rest of that capture's reading.
pub fn write_rects(snapshot: &mut Arc<DomSnapshot>, boxes: &[RectBox], values: &[[f64; 8]]) {
    // Per document, the boxes read, in layout order; the rows are then written in one pass.
    let mut per_doc: Vec<Vec<(usize, &[f64; 8])>> = vec![Vec::new(); snapshot.documents.len()];
    for (b, v) in boxes.iter().zip(values) {
        if let Some(read) = per_doc.get_mut(b.doc) {
            read.push((b.layout, v));
        }
    }
    let mut changed = Vec::new();
    for (d, (doc, mut read)) in snapshot.documents.iter().zip(per_doc).enumerate() {
        if read.is_empty() {
            continue;
        }
        read.sort_by_key(|&(layout, _)| layout);
        let n = doc.layout.node_index.len();
        // Rows a document already has (all of them or none) are kept where nothing was read.
        let had = |r: &Option<Ragged<f64>>, k: usize| {
            r.as_ref()
                .filter(|r| r.len() == n)
                .and_then(|r| r.get(k))
                .filter(|row| row.len() == 4)
                .map(|row| [row[0], row[1], row[2], row[3]])
        };
        let (mut client, mut scroll) = (Ragged::new(), Ragged::new());
        let mut next = read.iter().peekable();
        for k in 0..n {
            let mut value = None;
            while let Some(&&(layout, v)) = next.peek() {
                if layout > k {
                    break;
                }
                if layout == k {
                    value = Some(*v);
                }
                next.next();
            }
            let value = value.or_else(|| {
                match (
                    had(&doc.layout.client_rects, k),
                    had(&doc.layout.scroll_rects, k),
                ) {
                    (Some(c), Some(s)) => Some([c[0], c[1], c[2], c[3], s[0], s[1], s[2], s[3]]),
                    _ => None,
                }
            });
            match value {
                Some(v) => {
                    client.push(&v[..4]);
                    scroll.push(&v[4..]);
                }
                None => {
                    client.push(&[]);
                    scroll.push(&[]);
                }
            }
        }
        let same = doc.layout.client_rects.as_ref() == Some(&client)
            && doc.layout.scroll_rects.as_ref() == Some(&scroll);
        if !same {
            changed.push((d, client, scroll));
        }
    }
    if changed.is_empty() {
        return;
    }
    let snapshot = Arc::make_mut(snapshot);
    for (d, client, scroll) in changed {
        if let Some(doc) = snapshot.documents.get_mut(d) {
            doc.layout.client_rects = Some(client);
            doc.layout.scroll_rects = Some(scroll);
        }
    }
}

/// The reader's rows from its reply as it comes nearly always (`{"result":{"type":"object",
/// "value":[[…],…]}}`), by the engine's JSON reader: its numbers are the ones serde_json reads,
/// found without its general decimal conversion, which was most of reading the reply. `None`
/// for anything else (an exception, a value that is not a number), which [`ReaderReply`] reads.
pub(crate) fn read_rows(bytes: &[u8]) -> Option<Vec<[f64; 8]>> {
    let mut reader = Reader::new(bytes, Surrogates::Refuse);
    let mut rows = None;
    reader.object(|reader, key| match key {
        b"result" => reader.object(|reader, key| match key {
            b"value" => {
                let mut list = Vec::new();
                reader.array(|reader| {
                    let mut slots = [0.0; 8];
                    let mut k = 0;
                    reader.array(|reader| {
                        let value = reader.nullable(Reader::f64)?;
                        if let Some(slot) = slots.get_mut(k) {
                            *slot = value.filter(|x| x.is_finite()).unwrap_or(0.0);
                        }
                        k += 1;
                        Some(())
                    })?;
                    list.push(slots);
                    Some(())
                })?;
                rows = Some(list);
                Some(())
            }
            _ => reader.skip_value(0),
        }),
        _ => None,
    })?;
    // Nothing but whitespace after the reply.
    reader.next().is_none().then_some(())?;
    rows
}

/// The reader's reply in any shape serde reads, where [`read_rows`] reads only the usual one:
/// each row straight into eight numbers (as a generic value every row was a list of its own).
#[derive(serde::Deserialize)]
pub(crate) struct ReaderReply {
    pub result: ReaderResult,
    #[serde(rename = "exceptionDetails", default)]
    pub exception_details: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
pub(crate) struct ReaderResult {
    #[serde(default)]
    pub value: Option<Vec<ReaderRow>>,
}

/// One row of eight values; what is not a finite number, or missing, is 0, and what is beyond
/// the eighth is ignored.
pub(crate) struct ReaderRow(pub [f64; 8]);

impl<'de> serde::Deserialize<'de> for ReaderRow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ReaderRow;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a row of numbers")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<ReaderRow, A::Error> {
                let mut slots = [0.0; 8];
                let mut k = 0;
                // A number needs no allocation as a generic value; anything else is 0.
                while let Some(v) = seq.next_element::<serde_json::Value>()? {
                    if let Some(slot) = slots.get_mut(k) {
                        *slot = v.as_f64().filter(|x| x.is_finite()).unwrap_or(0.0);
                    }
                    k += 1;
                }
                Ok(ReaderRow(slots))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<ReaderRow, E> {
                Ok(ReaderRow([0.0; 8]))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readers_reply_is_read_into_rows_of_eight() {
        let read = |json: &str| -> Option<Vec<[f64; 8]>> {
            let reply: ReaderReply = serde_json::from_str(json).ok()?;
            Some(reply.result.value?.into_iter().map(|row| row.0).collect())
        };
        let rows = read(
            r#"{"result":{"type":"object","value":[[1,2.5,3,4,5,6,7,8],[1,null,3],
                [1,2,3,4,5,6,7,8,9,10],null,[-0.5,1e3,0,0,0,0,0,"x"]]}}"#,
        );
        assert_eq!(
            rows,
            Some(vec![
                [1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                [1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                [0.0; 8],
                [-0.5, 1000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ])
        );
        assert_eq!(read(r#"{"result":{"type":"undefined"}}"#), None);
        // The engine's reader reads what it reads as serde does, and leaves the rest to it.
        let replies = [
            r#"{"result":{"type":"object","value":[[1,2.5,3,4,5,6,7,8],[1,null,3],[1,2,3,4,5,6,7,8,9,10],[-0.5,1e3,0,0,0,0,0,0]]}}"#,
            r#"{"result":{"type":"object","value":[[0.1,173.34375,1e-7,12345678.875,-0,3.0e2,7,8]]}}"#,
            r#" {"result" : {"value" : [ [ 1 , 2 ] ] , "type":"object"} } "#,
            r#"{"result":{"type":"object","value":[]}}"#,
            r#"{"result":{"type":"object","value":[[1,"x"]]}}"#,
            r#"{"result":{"type":"object","value":[null]}}"#,
            r#"{"result":{"type":"undefined"}}"#,
            r#"{"result":{"type":"object","value":[[1]]},"exceptionDetails":{}}"#,
            r#"{"result":{"type":"object","value":[[1]]}} x"#,
            r#"{"result":{"type":"object","value":[[1,]]}}"#,
        ];
        for json in replies {
            if let Some(fast) = read_rows(json.as_bytes()) {
                assert_eq!(Some(fast), read(json), "{json}");
            }
        }
        assert!(read_rows(replies[0].as_bytes()).is_some());
        assert!(read_rows(replies[1].as_bytes()).is_some());
        assert!(read_rows(replies[7].as_bytes()).is_none(), "an exception");
        // A reply cut anywhere is not read (serde refuses it too).
        let whole = replies[1].as_bytes();
        for cut in 0..whole.len() {
            assert!(read_rows(&whole[..cut]).is_none(), "cut at {cut}");
        }
        let failed: ReaderReply = serde_json::from_str(
            r#"{"result":{"type":"object","subtype":"error"},"exceptionDetails":{"text":"x"}}"#,
        )
        .expect("a reply with an exception");
        assert!(failed.exception_details.is_some());
        // Rows that are not lists are an error, not rows made up.
        assert!(serde_json::from_str::<ReaderReply>(r#"{"result":{"value":[{"a":1}]}}"#).is_err());
    }

    fn snapshot() -> DomSnapshot {
        // #document > HTML > BODY > [DIV overflow:auto (in view), DIV overflow:hidden (far
        // below), IFRAME (content document 1), P]; document 1: #document > HTML.
        serde_json::from_value(serde_json::json!({
            "strings": ["visible", "auto", "hidden", "F0", "F1"],
            "documents": [
                {"documentURL": -1, "title": -1, "baseURL": -1, "contentLanguage": -1,
                 "encodingName": -1, "publicId": -1, "systemId": -1, "frameId": 3,
                 "nodes": {"parentIndex": [-1, 0, 1, 2, 2, 2, 2], "nodeType": [9, 1, 1, 1, 1, 1, 1],
                           "backendNodeId": [1, 2, 3, 4, 5, 6, 7],
                           "contentDocumentIndex": {"index": [5], "value": [1]}},
                 "layout": {"nodeIndex": [1, 2, 3, 4, 5, 6],
                            "styles": [[0, 0], [0, 0], [1, 1], [2, 2], [0, 0], [0, 0]],
                            "bounds": [[0,0,800,3000],[0,0,800,3000],[0,10,100,100],[0,2000,100,100],[0,50,300,150],[0,300,10,10]],
                            "text": [-1,-1,-1,-1,-1,-1], "stackingContexts": {"index": []}},
                 "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []}},
                {"documentURL": -1, "title": -1, "baseURL": -1, "contentLanguage": -1,
                 "encodingName": -1, "publicId": -1, "systemId": -1, "frameId": 4,
                 "nodes": {"parentIndex": [-1, 0], "nodeType": [9, 1], "backendNodeId": [20, 21]},
                 "layout": {"nodeIndex": [1], "styles": [[0, 0]], "bounds": [[0,0,300,150]],
                            "text": [-1], "stackingContexts": {"index": []}},
                 "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []}}
            ]
        }))
        .unwrap()
    }

    fn styles() -> Vec<String> {
        vec!["overflow-x".into(), "overflow-y".into()]
    }

    #[test]
    fn picks_clipping_boxes_in_view_iframe_owners_and_child_roots() {
        let s = snapshot();
        let view = View {
            x: 0.0,
            y: 0.0,
            width: 800.0,
            height: 600.0,
            expand: 0.0,
        };
        let ids = |v| {
            boxes_needing_rects(&s, &styles(), v)
                .iter()
                .map(|b| b.backend_node_id)
                .collect::<Vec<_>>()
        };
        // Not the top document's root; not the overflow box far below the view.
        assert_eq!(ids(Some(view)), vec![4, 6, 21]);
        assert_eq!(
            ids(Some(View {
                expand: 2000.0,
                ..view
            })),
            vec![4, 5, 6, 21]
        );
        // Another renderer's frames: every root element and every clipping box.
        assert_eq!(ids(None), vec![2, 4, 5, 6, 21]);
    }

    /// The snapshot with a row read for every box that needs one, the boxes and the rows.
    fn measured() -> (Arc<DomSnapshot>, Vec<RectBox>, Vec<[f64; 8]>) {
        let mut s = Arc::new(snapshot());
        let boxes = boxes_needing_rects(&s, &styles(), None);
        let values: Vec<[f64; 8]> = (0..boxes.len())
            .map(|i| [i as f64, 0.0, 10.0, 20.0, 0.0, 5.0, 10.0, 90.0])
            .collect();
        write_rects(&mut s, &boxes, &values);
        (s, boxes, values)
    }

    #[test]
    fn writes_rects_where_the_snapshot_option_would() {
        let (s, _, _) = measured();
        let l = &s.documents[0].layout;
        let client = l.client_rects.as_ref().unwrap();
        assert_eq!(client.len(), 6);
        assert_eq!(client.get(2), Some(&[1.0, 0.0, 10.0, 20.0][..]));
        assert_eq!(client.get(5), Some(&[][..]));
        assert_eq!(
            l.scroll_rects.as_ref().unwrap().get(2),
            Some(&[0.0, 5.0, 10.0, 90.0][..])
        );
        assert!(l.offset_rects.is_none());
    }

    #[test]
    fn a_shared_snapshot_is_copied_only_when_its_rects_change() {
        let (mut s, boxes, values) = measured();
        // Kept by a page, and handed to its next capture.
        let kept = Arc::clone(&s);
        write_rects(&mut s, &boxes, &values);
        assert!(Arc::ptr_eq(&kept, &s), "the same rects copied the snapshot");
        // A panel scrolled: the capture gets its own copy; the kept one is left as it was.
        let mut scrolled = values.clone();
        scrolled[0][5] = 40.0;
        write_rects(&mut s, &boxes, &scrolled);
        assert!(!Arc::ptr_eq(&kept, &s));
        let scroll_y = |s: &DomSnapshot| {
            let l = &s.documents[boxes[0].doc].layout;
            l.scroll_rects
                .as_ref()
                .unwrap()
                .get(boxes[0].layout)
                .unwrap()[1]
        };
        assert_eq!(scroll_y(&s), 40.0);
        assert_eq!(scroll_y(&kept), 5.0);
    }
}
