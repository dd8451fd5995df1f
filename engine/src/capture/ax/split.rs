//! Reading the lists of accessibility nodes of a reply or a capture file where they lie, node
//! by node, and a long one on two threads.
//!
//! Each node is read by the engine's own reader (`reader.rs`) and, where that one does not
//! read it, by the serde seed, whose value or error is the one given.
//!
//! Why: on a long page the accessibility tree is the largest JSON a snapshot reads (most of a
//! capture file) and, read by one thread, the longest part of the parse.
//! Cutting the text in two and closing each part as JSON of its own would cost a copy of it,
//! and the copy raised a capture file's peak memory past three times its JSON. Here both
//! threads read the one text in place: the *head* reads it from the start, one node at a time;
//! the *tail*, once it is free (after the DOM snapshot of a capture file, at once for a reply),
//! picks a node start half way through what the head has left and reads from there to the
//! list's end. The head stops when it reaches that node.
//!
//! Each thread reads into a tree of its own ([`AxNodes`]), and the tail's is appended to the
//! head's with its offsets moved: what is copied then is the tail's compact tables (about 50
//! bytes a node and its text), where a list of per-node records copied 240 bytes a node, each
//! record touched a second time just after it was written.
//!
//! The head steps from one node boundary of the list to the next, so it stops only on a real
//! one. A cut that is not one (a `{"nodeId"` nested inside a node, or in a later list) is never
//! met: the head reads to the end and the tail's work is thrown away. Anything the readers here
//! do not expect gives `None`, and the caller reads the text the usual way, which gives the
//! answer, or the error, it always gave.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::de::{DeserializeSeed, IgnoredAny};
use serde::Deserialize;

use super::{read_node, AxNodes};
use crate::capture::json_reader::{is_json_whitespace, Reader, Surrogates};
use crate::capture::AxTreeCapture;

/// What the two threads share: where the head must stop, how far it has come, whether it is
/// done.
struct Meeting {
    /// The node start the tail reads from (`NO_CUT` until it picks one).
    cut: AtomicUsize,
    /// The head's position, for the tail to cut what is left in half.
    progress: AtomicUsize,
    /// The head has read its last node: too late to cut.
    done: AtomicBool,
}

const NO_CUT: usize = usize::MAX;

impl Meeting {
    fn new() -> Meeting {
        Meeting {
            cut: AtomicUsize::new(NO_CUT),
            progress: AtomicUsize::new(0),
            done: AtomicBool::new(false),
        }
    }
}

/// Reads `head` on another thread while this one runs `first`, then (unless the head is done)
/// cuts what the head has left of `text` at a node start half way and runs `tail` from there. The head's result says whether it stopped at the cut; the tail's result is `None`
/// when no cut was made.
fn read_both<F, RF, H, RH, T, RT>(text: &str, first: F, head: H, tail: T) -> (RH, RF, Option<RT>)
where
    F: FnOnce() -> RF,
    H: FnOnce(&Meeting) -> RH + Send,
    RH: Send,
    T: FnOnce(usize) -> RT,
{
    let meeting = Meeting::new();
    let (rh, (rf, rt)) = crate::parallel::join(
        true,
        || {
            let rh = head(&meeting);
            meeting.done.store(true, Ordering::Release);
            rh
        },
        || {
            let rf = first();
            if meeting.done.load(Ordering::Acquire) {
                return (rf, None);
            }
            let (from, end) = (meeting.progress.load(Ordering::Relaxed), text.len());
            let Some(cut) = node_start_after(text, from + end.saturating_sub(from) / 2) else {
                return (rf, None);
            };
            meeting.cut.store(cut, Ordering::Release);
            (rf, Some(tail(cut)))
        },
    );
    (rh, rf, rt)
}

/// The first node start (`{"nodeId"`) at or after `near`. Its quotes are not
/// escaped, so it is never inside a string; it may still be nested deeper than the list (see
/// the module doc).
fn node_start_after(text: &str, near: usize) -> Option<usize> {
    const NODE: &[u8] = b"{\"nodeId\"";
    let window = text.as_bytes().get(near..)?;
    Some(near + memchr::memmem::find(window, NODE)?)
}

/// A position in a JSON text, read one token or one value at a time.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_whitespace(&mut self) {
        let bytes = self.text.as_bytes();
        while bytes.get(self.at).is_some_and(|&b| is_json_whitespace(b)) {
            self.at += 1;
        }
    }

    /// The next byte that is not whitespace, without taking it.
    fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.text.as_bytes().get(self.at).copied()
    }

    /// Takes the next byte that is not whitespace.
    fn next_byte(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn expect(&mut self, want: u8) -> Option<()> {
        (self.next_byte()? == want).then_some(())
    }

    /// Reads one JSON value, as serde_json reads it within a larger text.
    fn value<T: Deserialize<'a>>(&mut self) -> Option<T> {
        let rest = self.text.get(self.at..)?;
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.at += values.byte_offset();
        Some(value)
    }

    /// [`Cursor::value`] read by a seed (an object or list: no value of those needs to see
    /// what follows it to end).
    fn value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Option<S::Value> {
        let rest = self.text.get(self.at..)?;
        let mut de = serde_json::Deserializer::from_str(rest);
        let value = seed.deserialize(&mut de).ok()?;
        // A stream started where the seed stopped reports that place as its offset.
        self.at += de.into_iter::<IgnoredAny>().byte_offset();
        Some(value)
    }

    /// Reads one node onto the end of `nodes`: by the engine's own reader, or, where that one
    /// does not read it, by the seed.
    fn node(&mut self, nodes: &mut AxNodes) -> Option<()> {
        let mut r = Reader::in_text(self.text, self.at, Surrogates::Refuse);
        if read_node(nodes, &mut r).is_some() {
            self.at = r.at;
            return Some(());
        }
        self.value_seed(nodes.node_seed())
    }

    fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }
}

/// How a list or object being read ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// At its closing bracket, taken.
    Closed,
    /// At the tail's cut, before the node there.
    AtCut,
}

/// How many nodes are read before the list's room is set aside from their average length.
const SAMPLE_NODES: usize = 32;

/// Reads a list's nodes from the cursor (just past its `[`, or at a node start within it) to
/// its `]`, or, for the head, to the tail's cut. Room is set aside for the nodes the rest of the
/// text could hold once their average length and what they add to each table are known (each
/// table grown one doubling at a time would copy what it holds about once more).
fn read_run(c: &mut Cursor<'_>, nodes: &mut AxNodes, meeting: Option<&Meeting>) -> Option<Ended> {
    if c.peek()? == b']' {
        c.at += 1;
        return Some(Ended::Closed);
    }
    let (mut meeting, start, count, sizes) = (meeting, c.at, nodes.len(), nodes.size());
    loop {
        c.skip_whitespace();
        if let Some(m) = meeting {
            let cut = m.cut.load(Ordering::Acquire);
            if c.at == cut {
                return Some(Ended::AtCut);
            }
            if c.at > cut {
                // Stepped over a cut that was no node boundary of this list: read on alone.
                meeting = None;
            } else {
                m.progress.store(c.at, Ordering::Relaxed);
            }
        }
        if nodes.len() == count + SAMPLE_NODES {
            let per_node = (c.at - start) / SAMPLE_NODES + 1;
            let more = c.text.len().saturating_sub(c.at) / per_node + 1;
            nodes.reserve_like(&sizes, SAMPLE_NODES, more);
        }
        c.node(nodes)?;
        match c.next_byte()? {
            b',' => {}
            b']' => return Some(Ended::Closed),
            _ => return None,
        }
    }
}

/// An object holding a list of nodes (a tree of a capture file, a reply), as far as it is read.
#[derive(Debug, Default)]
struct NodesObject {
    /// A reply's `frameId`, were there one, is a key like any other: stepped over.
    reply: bool,
    frame_id: Option<String>,
    nodes: Option<AxNodes>,
}

impl NodesObject {
    /// A part read by the head joined with the rest read by the tail: a key given in both parts
    /// is given twice, which a one-piece parse refuses.
    fn join(self, rest: NodesObject) -> Option<NodesObject> {
        let frame_id = match (self.frame_id, rest.frame_id) {
            (Some(_), Some(_)) => return None,
            (a, b) => a.or(b),
        };
        let mut nodes = self.nodes?;
        nodes.append(rest.nodes?).ok()?;
        Some(NodesObject {
            reply: self.reply,
            frame_id,
            nodes: Some(nodes),
        })
    }

    fn into_tree(self) -> Option<AxTreeCapture> {
        let mut nodes = self.nodes?;
        nodes.shrink_to_fit();
        Some(AxTreeCapture {
            frame_id: self.frame_id?,
            nodes,
        })
    }
}

/// Reads an object's members to its `}`: from just past its `{` (`first`), or after a member.
/// `frameId` and `nodes` are kept (each at most once), any other key is stepped over.
fn read_members(
    c: &mut Cursor<'_>,
    object: &mut NodesObject,
    meeting: Option<&Meeting>,
    mut first: bool,
) -> Option<Ended> {
    loop {
        match c.next_byte()? {
            b'}' => return Some(Ended::Closed),
            b',' if !first => {}
            b'"' if first => c.at -= 1,
            _ => return None,
        }
        first = false;
        let key: String = c.value()?;
        c.expect(b':')?;
        match key.as_str() {
            "frameId" if !object.reply => {
                if object.frame_id.replace(c.value()?).is_some() {
                    return None;
                }
            }
            "nodes" => {
                if object.nodes.is_some() {
                    return None;
                }
                c.expect(b'[')?;
                let mut nodes = AxNodes::default();
                let ended = read_run(c, &mut nodes, meeting)?;
                object.nodes = Some(nodes);
                if ended == Ended::AtCut {
                    return Some(Ended::AtCut);
                }
            }
            _ => {
                c.value::<IgnoredAny>()?;
            }
        }
    }
}

/// Reads objects of a list to its `]`, from just past its `[` (`first`) or after an object.
fn read_objects(
    c: &mut Cursor<'_>,
    objects: &mut Vec<NodesObject>,
    meeting: Option<&Meeting>,
    mut first: bool,
) -> Option<Ended> {
    loop {
        match c.next_byte()? {
            b']' => return Some(Ended::Closed),
            b',' if !first => c.expect(b'{')?,
            b'{' if first => {}
            _ => return None,
        }
        first = false;
        let mut object = NodesObject::default();
        let ended = read_members(c, &mut object, meeting, true)?;
        objects.push(object);
        if ended == Ended::AtCut {
            return Some(Ended::AtCut);
        }
    }
}

/// The `axTrees` value a capture file's text `ax` starts with, read on two threads (see the
/// module doc), and how many bytes it takes; `first` runs on this thread before it helps.
/// The trees are `None` when they are not laid out as expected or do not read.
pub(in crate::capture) fn read_trees_with<F: FnOnce() -> RF, RF>(
    ax: &str,
    first: F,
) -> (Option<(Vec<AxTreeCapture>, usize)>, RF) {
    let (head, rf, tail) = read_both(
        ax,
        first,
        |meeting| trees_head(ax, Some(meeting)),
        |cut| trees_tail(ax, cut),
    );
    (join_trees(head, tail), rf)
}

/// [`read_trees_with`] on this thread alone, for a text too short to share.
pub(in crate::capture) fn read_trees(ax: &str) -> Option<(Vec<AxTreeCapture>, usize)> {
    join_trees(trees_head(ax, None), None)
}

/// The head's part of a list of trees: the trees up to the cut, the last one cut short when it
/// met the cut, and where it ended.
type TreesHead = (Vec<NodesObject>, Ended, usize);

/// The tail's part: the rest of the tree that was cut, the trees after it, and where the list
/// ends.
type TreesTail = (NodesObject, Vec<NodesObject>, usize);

fn trees_head(ax: &str, meeting: Option<&Meeting>) -> Option<TreesHead> {
    let mut c = Cursor { text: ax, at: 0 };
    c.expect(b'[')?;
    let mut trees = Vec::new();
    let ended = read_objects(&mut c, &mut trees, meeting, true)?;
    Some((trees, ended, c.at))
}

fn trees_tail(ax: &str, cut: usize) -> Option<TreesTail> {
    let mut c = Cursor { text: ax, at: cut };
    let rest = rest_of_object(&mut c, false)?;
    let mut more = Vec::new();
    (read_objects(&mut c, &mut more, None, false)? == Ended::Closed).then_some(())?;
    Some((rest, more, c.at))
}

/// From a cut in an object's `nodes` list: the rest of the list and the object's members after
/// it, to its `}`.
fn rest_of_object(c: &mut Cursor<'_>, reply: bool) -> Option<NodesObject> {
    let mut nodes = AxNodes::default();
    (read_run(c, &mut nodes, None)? == Ended::Closed).then_some(())?;
    let mut rest = NodesObject {
        reply,
        frame_id: None,
        nodes: Some(nodes),
    };
    (read_members(c, &mut rest, None, false)? == Ended::Closed).then_some(())?;
    Some(rest)
}

/// The trees read by the head, and by the tail when the head stopped at its cut.
fn join_trees(
    head: Option<TreesHead>,
    tail: Option<Option<TreesTail>>,
) -> Option<(Vec<AxTreeCapture>, usize)> {
    let (mut trees, ended, mut at) = head?;
    if ended == Ended::AtCut {
        let (rest, more, tail_at) = tail??;
        let cut_tree = trees.pop()?.join(rest)?;
        trees.push(cut_tree);
        trees.extend(more);
        at = tail_at;
    }
    let trees = trees
        .into_iter()
        .map(NodesObject::into_tree)
        .collect::<Option<Vec<_>>>()?;
    Some((trees, at))
}

/// A JSON list of nodes, alone in `text` but for whitespace, read on this thread; `None` when it
/// does not read.
pub(in crate::capture) fn read_list(text: &str) -> Option<AxNodes> {
    let mut c = Cursor { text, at: 0 };
    c.expect(b'[')?;
    let mut nodes = AxNodes::default();
    (read_run(&mut c, &mut nodes, None)? == Ended::Closed && c.at_end()).then_some(())?;
    nodes.shrink_to_fit();
    Some(nodes)
}

/// The nodes of a reply holding them as `{"nodes":[…]}` (other keys are stepped over), read
/// on two threads when `parallel`; `None` for any other shape, for text after the object, or
/// when a part does not read.
pub(crate) fn read_reply_nodes(text: &str, parallel: bool) -> Option<AxNodes> {
    if !parallel {
        return join_reply(reply_head(text, None), None);
    }
    let (head, (), tail) = read_both(
        text,
        || (),
        |meeting| reply_head(text, Some(meeting)),
        |cut| reply_tail(text, cut),
    );
    join_reply(head, tail)
}

fn reply_head(text: &str, meeting: Option<&Meeting>) -> Option<(NodesObject, Ended)> {
    let mut c = Cursor { text, at: 0 };
    c.expect(b'{')?;
    let mut reply = NodesObject {
        reply: true,
        ..NodesObject::default()
    };
    let ended = read_members(&mut c, &mut reply, meeting, true)?;
    (ended == Ended::AtCut || c.at_end()).then_some((reply, ended))
}

fn reply_tail(text: &str, cut: usize) -> Option<NodesObject> {
    let mut c = Cursor { text, at: cut };
    let rest = rest_of_object(&mut c, true)?;
    c.at_end().then_some(rest)
}

fn join_reply(
    head: Option<(NodesObject, Ended)>,
    tail: Option<Option<NodesObject>>,
) -> Option<AxNodes> {
    let (mut reply, ended) = head?;
    if ended == Ended::AtCut {
        reply = reply.join(tail??)?;
    }
    let mut nodes = reply.nodes?;
    nodes.shrink_to_fit();
    Some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A meeting at which the tail has cut at `cut`.
    fn cut_at(cut: usize) -> Meeting {
        let meeting = Meeting::new();
        meeting.cut.store(cut, Ordering::Relaxed);
        meeting
    }

    /// `read_trees_with` with the cut at `cut`, on this thread.
    fn trees_cut_at(ax: &str, cut: usize) -> Option<(Vec<AxTreeCapture>, usize)> {
        join_trees(
            trees_head(ax, Some(&cut_at(cut))),
            Some(trees_tail(ax, cut)),
        )
    }

    fn one_parse(text: &str) -> (Vec<AxTreeCapture>, usize) {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<Vec<AxTreeCapture>>();
        let trees = values.next().unwrap().unwrap();
        (trees, values.byte_offset())
    }

    fn node(i: usize, name: &str) -> String {
        format!(
            r#"{{"nodeId":"{i}","ignored":false,"role":{{"type":"role","value":"link"}},"name":{{"type":"computedString","value":"{name}","sources":[{{"type":"contents","value":{{"type":"computedString","value":"x"}}}}]}},"childIds":["{}"],"backendDOMNodeId":{i}}}"#,
            i + 1
        )
    }

    fn trees_text(sep: &str) -> String {
        let nodes = |from: usize, n: usize| {
            (from..from + n)
                .map(|i| node(i, &format!("n{i} \\\"q\\\" {{}}, ")))
                .collect::<Vec<_>>()
                .join(&format!(",{sep}"))
        };
        // A nested `{"nodeId"` in a value, a tree with its frame id after its nodes, an unknown
        // key, an empty tree, and what follows the value in a file (with nodes of its own).
        let nested = r#"{"nodeId":"x","value":{"type":"x","value":[{},{"nodeId":1}]}}"#;
        format!(
            r#"[{{"frameId":"A",{sep}"nodes":[{}, {nested},{sep}{}]}},{sep}{{"nodes":[{}],"extra":{{"nodes":[1]}},"frameId":"B"}},{{"frameId":"C","nodes":[ ]}}]{sep},"oopifs":[{{"axTrees":[{{"frameId":"D","nodes":[{}]}}]}}]}}"#,
            nodes(0, 40),
            nodes(100, 40),
            nodes(200, 40),
            nodes(300, 3)
        )
    }

    #[test]
    fn trees_cut_anywhere_read_as_one_parse_or_not_at_all() {
        for sep in ["", " ", "\n  "] {
            let text = trees_text(sep);
            let whole = one_parse(&text);
            let mut met = 0;
            for at in memchr::memmem::find_iter(text.as_bytes(), b"{\"nodeId\"") {
                match trees_cut_at(&text, at) {
                    Some(read) => {
                        assert_eq!(read.1, whole.1, "cut at {at}");
                        assert_eq!(
                            serde_json::to_value(&read.0).unwrap(),
                            serde_json::to_value(&whole.0).unwrap(),
                            "cut at {at}"
                        );
                        met += 1;
                    }
                    None => panic!("cut at {at} did not read"),
                }
            }
            assert!(met > 80, "{met}");
            // On this thread alone.
            let read = read_trees(&text).unwrap();
            assert_eq!(read.1, whole.1);
            assert_eq!(
                serde_json::to_value(&read.0).unwrap(),
                serde_json::to_value(&whole.0).unwrap()
            );
            // On two threads, with the DOM's work first.
            let (read, first) = read_trees_with(&text, || 7);
            assert_eq!(first, 7);
            let read = read.unwrap();
            assert_eq!(read.1, whole.1);
            assert_eq!(
                serde_json::to_value(&read.0).unwrap(),
                serde_json::to_value(&whole.0).unwrap()
            );
        }
    }

    #[test]
    fn trees_a_one_parse_refuses_do_not_read() {
        for bad in [
            r#"[{"frameId":"A","frameId":"B","nodes":[]}]"#,
            r#"[{"frameId":"A","nodes":[],"nodes":[]}]"#,
            r#"[{"nodes":[]}]"#,
            r#"[{"frameId":"A"}]"#,
            r#"[{"frameId":"A","nodes":[{"nodeId":"1"},]}]"#,
            r#"[{"frameId":"A","nodes":[{"nodeId":"1"}]},]"#,
            r#"[{"frameId":"A","nodes":[{"nodeId":"1"}]"#,
            r#"{"frameId":"A","nodes":[]}"#,
        ] {
            assert!(
                serde_json::from_str::<Vec<AxTreeCapture>>(bad).is_err(),
                "{bad}"
            );
            assert!(read_trees_with(bad, || ()).0.is_none(), "{bad}");
            assert!(read_trees(bad).is_none(), "{bad}");
            for at in memchr::memmem::find_iter(bad.as_bytes(), b"{\"nodeId\"") {
                assert!(trees_cut_at(bad, at).is_none(), "{bad} cut at {at}");
            }
        }
    }

    #[test]
    fn a_reply_reads_as_one_parse_cut_anywhere() {
        let nodes: Vec<String> = (0..50).map(|i| node(i, "n")).collect();
        let text = format!(
            r#"{{"frameId":"F","nodes":[{}],"more":[{{"nodeId":"9"}}],"frameId":"G"}}"#,
            nodes.join(", ")
        );
        let whole: super::super::FullAxTree = serde_json::from_str(&text).unwrap();
        for parallel in [false, true] {
            assert_eq!(read_reply_nodes(&text, parallel).unwrap(), whole.nodes);
        }
        for at in memchr::memmem::find_iter(text.as_bytes(), b"{\"nodeId\"") {
            let read = join_reply(
                reply_head(&text, Some(&cut_at(at))),
                Some(reply_tail(&text, at)),
            );
            assert_eq!(read.as_ref(), Some(&whole.nodes), "cut at {at}");
        }
        // Text after the object, another shape: not read here.
        for parallel in [false, true] {
            assert!(read_reply_nodes(&format!("{text}x"), parallel).is_none());
            assert!(read_reply_nodes("[]", parallel).is_none());
            assert_eq!(
                read_reply_nodes(r#"{"nodes":[]}"#, parallel),
                Some(AxNodes::default())
            );
        }
    }
}
