//! A lean typed reply for `DOMSnapshot.captureSnapshot`: the protocol's own shape, with every
//! list of lists (an element's attributes, a box's style row, each rectangle) held flat.
//!
//! The generated bindings ([`crate::cdp`]) stay the one way pagesight speaks CDP; this module
//! does not replace them. [`CaptureDomSnapshot`] sends the generated
//! [`CaptureSnapshotParams`] unchanged; only its reply type differs, as
//! [`super::ax`] does for the accessibility tree.
//!
//! Why: the generated `CaptureSnapshotReturns` holds each of those inner lists as a `Vec` of
//! its own: on a long page, many thousands of small allocations to parse, to clone and to free,
//! and a 24-byte header plus an allocation's overhead for every 4-number rectangle. Here each such list is a
//! [`Ragged`]: one list of values and one of where each row is in it, so a document's styles,
//! bounds or attributes are two allocations however many rows they have, and rows that repeat
//! are held once.
//!
//! Every field of the protocol's types is kept, with the same names, the same required and
//! optional fields and the same JSON: a capture file written with these types reads as the
//! protocol's `CaptureSnapshotReturns` and the other way round. Tolerance is that of the
//! generated bindings: unknown fields are ignored.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::cdp::dom_snapshot::{
    CaptureSnapshotParams, RareBooleanData, RareIntegerData, RareStringData,
};

mod reader;

/// `DOMSnapshot.captureSnapshot` with the generated parameters, answered as a lean
/// [`DomSnapshot`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct CaptureDomSnapshot(pub CaptureSnapshotParams);

impl crate::cdp::Command for CaptureDomSnapshot {
    const METHOD: &'static str = <CaptureSnapshotParams as crate::cdp::Command>::METHOD;
    type Response = DomSnapshot;
}

/// The reply of [`CaptureDomSnapshot`] (the protocol's `CaptureSnapshotReturns`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DomSnapshot {
    /// The documents: the page's first, then its same-process frames' (`contentDocumentIndex`
    /// points into this list).
    pub documents: Vec<DocumentRecord>,
    /// Every string the documents refer to by index.
    pub strings: Vec<String>,
}

impl DomSnapshot {
    /// The string at a snapshot string index (`-1` and out-of-range indices are `None`).
    pub fn string(&self, i: i64) -> Option<&str> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(String::as_str)
    }

    /// How many DOM nodes its documents hold.
    pub fn node_count(&self) -> usize {
        self.documents
            .iter()
            .map(|d| d.nodes.backend_node_id.as_ref().map_or(0, Vec::len))
            .sum()
    }
}

/// One document (the protocol's `DocumentSnapshot`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentRecord {
    #[serde(rename = "documentURL")]
    pub document_url: i64,
    pub title: i64,
    #[serde(rename = "baseURL")]
    pub base_url: i64,
    #[serde(rename = "contentLanguage")]
    pub content_language: i64,
    #[serde(rename = "encodingName")]
    pub encoding_name: i64,
    #[serde(rename = "publicId")]
    pub public_id: i64,
    #[serde(rename = "systemId")]
    pub system_id: i64,
    #[serde(rename = "frameId")]
    pub frame_id: i64,
    pub nodes: NodeTreeRecord,
    pub layout: LayoutTreeRecord,
    #[serde(rename = "textBoxes")]
    pub text_boxes: TextBoxRecord,
    #[serde(
        rename = "scrollOffsetX",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub scroll_offset_x: Option<f64>,
    #[serde(
        rename = "scrollOffsetY",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub scroll_offset_y: Option<f64>,
    #[serde(
        rename = "contentWidth",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub content_width: Option<f64>,
    #[serde(
        rename = "contentHeight",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub content_height: Option<f64>,
}

/// A document's nodes, one entry per node in every list (the protocol's `NodeTreeSnapshot`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NodeTreeRecord {
    #[serde(
        rename = "parentIndex",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_index: Option<Vec<i64>>,
    #[serde(rename = "nodeType", default, skip_serializing_if = "Option::is_none")]
    pub node_type: Option<Vec<i64>>,
    #[serde(
        rename = "shadowRootType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub shadow_root_type: Option<RareStringData>,
    #[serde(rename = "nodeName", default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<Vec<i64>>,
    #[serde(rename = "nodeValue", default, skip_serializing_if = "Option::is_none")]
    pub node_value: Option<Vec<i64>>,
    #[serde(
        rename = "backendNodeId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub backend_node_id: Option<Vec<i64>>,
    /// Per node, its attributes as `[name, value, name, value, …]` string indices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Ragged<i64>>,
    #[serde(rename = "textValue", default, skip_serializing_if = "Option::is_none")]
    pub text_value: Option<RareStringData>,
    #[serde(
        rename = "inputValue",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_value: Option<RareStringData>,
    #[serde(
        rename = "inputChecked",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub input_checked: Option<RareBooleanData>,
    #[serde(
        rename = "optionSelected",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub option_selected: Option<RareBooleanData>,
    #[serde(
        rename = "contentDocumentIndex",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub content_document_index: Option<RareIntegerData>,
    #[serde(
        rename = "pseudoType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub pseudo_type: Option<RareStringData>,
    #[serde(
        rename = "pseudoIdentifier",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub pseudo_identifier: Option<RareStringData>,
    #[serde(
        rename = "isClickable",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub is_clickable: Option<RareBooleanData>,
    #[serde(
        rename = "currentSourceURL",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub current_source_url: Option<RareStringData>,
    #[serde(rename = "originURL", default, skip_serializing_if = "Option::is_none")]
    pub origin_url: Option<RareStringData>,
}

/// A document's layout boxes, one entry per box in every list (the protocol's
/// `LayoutTreeSnapshot`). Rectangles are `[x, y, width, height]` rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutTreeRecord {
    #[serde(rename = "nodeIndex")]
    pub node_index: Vec<i64>,
    /// Per box, the values of the requested computed styles as string indices, in request order.
    pub styles: Ragged<i64>,
    pub bounds: Ragged<f64>,
    pub text: Vec<i64>,
    #[serde(rename = "stackingContexts")]
    pub stacking_contexts: RareBooleanData,
    #[serde(
        rename = "paintOrders",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub paint_orders: Option<Vec<i64>>,
    #[serde(
        rename = "offsetRects",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub offset_rects: Option<Ragged<f64>>,
    #[serde(
        rename = "scrollRects",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub scroll_rects: Option<Ragged<f64>>,
    #[serde(
        rename = "clientRects",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_rects: Option<Ragged<f64>>,
    #[serde(
        rename = "blendedBackgroundColors",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub blended_background_colors: Option<Vec<i64>>,
    #[serde(
        rename = "textColorOpacities",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub text_color_opacities: Option<Vec<f64>>,
}

/// A document's inline text boxes (the protocol's `TextBoxSnapshot`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBoxRecord {
    #[serde(rename = "layoutIndex")]
    pub layout_index: Vec<i64>,
    pub bounds: Ragged<f64>,
    pub start: Vec<i64>,
    pub length: Vec<i64>,
}

/// A list of lists held flat: the values of every row one after another, and where each row
/// is in them. Reads and writes as a JSON array of arrays.
///
/// Rows that are equal may share their values: a box's style row and an element's attribute
/// list repeat across a page (the python3.11-doc `stdtypes` page has 31k style rows, 34 of them
/// distinct), and a box's bounds are often the box before's, so the fast reader stores such
/// rows once. Whether rows share is invisible to every reader of the list: two lists are equal
/// when their rows are.
#[derive(Clone)]
pub struct Ragged<T> {
    /// Row `k` is `values[spans[k][0]..spans[k][1]]`.
    spans: Vec<[u32; 2]>,
    values: Vec<T>,
}

impl<T> Default for Ragged<T> {
    fn default() -> Self {
        Ragged {
            spans: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Ragged<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.rows()).finish()
    }
}

impl<T: PartialEq> PartialEq for Ragged<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.rows().eq(other.rows())
    }
}

/// Refused: a list with more values than a row's span can address (over 4 billion, far past
/// any reply Chromium sends).
#[derive(Debug)]
pub(crate) struct TooManyValues;

impl<T> Ragged<T> {
    /// An empty list.
    pub fn new() -> Ragged<T> {
        Ragged::default()
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Row `k`, if there is one.
    pub fn get(&self, k: usize) -> Option<&[T]> {
        let [start, end] = *self.spans.get(k)?;
        self.values.get(start as usize..end as usize)
    }

    /// Every row, in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[T]> + '_ {
        self.spans
            .iter()
            .map(|&[start, end]| self.values.get(start as usize..end as usize).unwrap_or(&[]))
    }

    /// Adds a row at the end.
    ///
    /// # Panics
    /// When the list would hold more than `u32::MAX` values.
    pub fn push(&mut self, row: &[T])
    where
        T: Clone,
    {
        let start = self.values.len();
        self.values.extend_from_slice(row);
        if self.end_row(start).is_err() {
            panic!("a Ragged list holds at most u32::MAX values");
        }
    }

    /// Ends a row whose values are `values[start..]`.
    pub(crate) fn end_row(&mut self, start: usize) -> Result<(), TooManyValues> {
        let span = [
            u32::try_from(start).map_err(|_| TooManyValues)?,
            u32::try_from(self.values.len()).map_err(|_| TooManyValues)?,
        ];
        self.spans.push(span);
        Ok(())
    }

    /// Adds a row equal to row `k`, sharing its values; `None` (and nothing added) when there
    /// is no row `k`.
    pub(crate) fn repeat_row(&mut self, k: usize) -> Option<()> {
        let span = *self.spans.get(k)?;
        self.spans.push(span);
        Some(())
    }

    /// The values, for the reader that fills them.
    pub(crate) fn values_mut(&mut self) -> &mut Vec<T> {
        &mut self.values
    }

    /// Room for `rows` more rows.
    pub(crate) fn reserve_rows(&mut self, rows: usize) {
        self.spans.reserve(rows);
    }

    /// Gives back what growing left spare.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.values.shrink_to_fit();
        self.spans.shrink_to_fit();
    }

    /// Whether some rows share their values.
    #[cfg(test)]
    pub(crate) fn shared(&self) -> bool {
        let mut end = 0;
        for &[start, stop] in &self.spans {
            if start != end {
                return true;
            }
            end = stop;
        }
        false
    }
}

impl<T: Clone> FromIterator<Vec<T>> for Ragged<T> {
    fn from_iter<I: IntoIterator<Item = Vec<T>>>(iter: I) -> Self {
        let mut out = Ragged::new();
        for row in iter {
            out.push(&row);
        }
        out
    }
}

impl<T: Serialize> Serialize for Ragged<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for row in self.rows() {
            seq.serialize_element(row)?;
        }
        seq.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ragged<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Rows<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Rows<T> {
            type Value = Ragged<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of arrays")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ragged<T>, A::Error> {
                let mut out = Ragged::<T>::new();
                loop {
                    let start = out.values.len();
                    let row = RowInto {
                        values: &mut out.values,
                    };
                    if seq.next_element_seed(row)?.is_none() {
                        break;
                    }
                    out.end_row(start).map_err(|_| {
                        serde::de::Error::custom("a list of lists with over 4 billion values")
                    })?;
                }
                // Lists grow by doubling; what a long reply leaves spare is given back.
                out.shrink_to_fit();
                Ok(out)
            }
        }
        d.deserialize_seq(Rows(PhantomData))
    }
}

/// Reads one inner array, appending its values to the flat list.
struct RowInto<'a, T> {
    values: &'a mut Vec<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for RowInto<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for RowInto<'_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<T>()? {
            self.values.push(v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdp::dom_snapshot::CaptureSnapshotReturns;

    fn reply() -> serde_json::Value {
        serde_json::json!({
            "strings": ["F0", "div", "class", "x", "block"],
            "documents": [{
                "documentURL": -1, "title": -1, "baseURL": -1, "contentLanguage": -1,
                "encodingName": -1, "publicId": -1, "systemId": -1, "frameId": 0,
                "nodes": {"parentIndex": [-1, 0, 1], "nodeType": [9, 1, 1],
                          "nodeName": [-1, 1, 1], "backendNodeId": [1, 2, 3],
                          "attributes": [[], [2, 3], []],
                          "isClickable": {"index": [2]}},
                "layout": {"nodeIndex": [1, 2], "styles": [[4], [4]],
                           "bounds": [[0, 0, 800, 600.5], [8, 8, 10, 10]],
                           "text": [-1, -1], "stackingContexts": {"index": [0]},
                           "paintOrders": [1, 2],
                           "clientRects": [[], [0, 0, 10, 10]]},
                "textBoxes": {"layoutIndex": [1], "bounds": [[8, 8, 4, 10]],
                              "start": [0], "length": [2]},
                "scrollOffsetX": 0, "scrollOffsetY": 12.5,
                "someFutureField": {"nested": [1, [2]]}
            }],
            "someFutureTopLevel": true
        })
    }

    #[test]
    fn reads_rows_flat_and_writes_the_protocol_json() {
        let lean: DomSnapshot = serde_json::from_value(reply()).unwrap();
        let d = &lean.documents[0];
        let attrs = d.nodes.attributes.as_ref().unwrap();
        assert_eq!(attrs.len(), 3);
        assert_eq!(attrs.get(1), Some(&[2i64, 3][..]));
        assert_eq!(attrs.get(2), Some(&[][..]));
        assert_eq!(attrs.get(3), None);
        assert_eq!(d.layout.bounds.get(0), Some(&[0.0, 0.0, 800.0, 600.5][..]));
        let client = d.layout.client_rects.as_ref().unwrap();
        assert_eq!(client.get(0), Some(&[][..]));
        assert_eq!(client.get(1), Some(&[0.0, 0.0, 10.0, 10.0][..]));
        assert_eq!(d.text_boxes.bounds.len(), 1);
        assert_eq!(lean.string(1), Some("div"));
        assert_eq!(lean.string(-1), None);
        assert_eq!(lean.node_count(), 3);

        // The same JSON as the generated type, both ways.
        let generated: CaptureSnapshotReturns = serde_json::from_value(reply()).unwrap();
        let a = serde_json::to_value(&lean).unwrap();
        assert_eq!(a, serde_json::to_value(&generated).unwrap());
        let back: DomSnapshot = serde_json::from_value(a).unwrap();
        assert_eq!(back, lean);
    }

    #[test]
    fn refuses_what_the_generated_type_refuses() {
        let mut bad = reply();
        bad["documents"][0]["layout"]["bounds"] = serde_json::json!([[0, 0, "wide", 1]]);
        assert!(serde_json::from_value::<DomSnapshot>(bad.clone()).is_err());
        assert!(serde_json::from_value::<CaptureSnapshotReturns>(bad).is_err());
        let mut bad = reply();
        bad["documents"][0]["layout"]["styles"] = serde_json::json!([4, 4]);
        assert!(serde_json::from_value::<DomSnapshot>(bad).is_err());
        let mut missing = reply();
        missing["documents"][0]
            .as_object_mut()
            .unwrap()
            .remove("layout");
        assert!(serde_json::from_value::<DomSnapshot>(missing).is_err());
    }

    #[test]
    fn builds_rows_one_by_one() {
        let mut r = Ragged::new();
        assert!(r.is_empty());
        r.push(&[1.0, 2.0]);
        r.push(&[]);
        r.push(&[3.0]);
        assert_eq!(r.len(), 3);
        assert_eq!(
            r.rows().collect::<Vec<_>>(),
            vec![&[1.0, 2.0][..], &[], &[3.0]]
        );
        let same: Ragged<f64> = vec![vec![1.0, 2.0], vec![], vec![3.0]]
            .into_iter()
            .collect();
        assert_eq!(same, r);
        assert_eq!(format!("{r:?}"), "[[1.0, 2.0], [], [3.0]]");
    }
}
