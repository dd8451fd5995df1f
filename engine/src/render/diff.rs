//! What changed between two snapshots, in two forms.
//!
//! [`diff`] (the `diff` command) is what the agent would read: the lines of the previous
//! rendering that are gone (`- …`) and the lines of the new one that were not there (`+ …`).
//! [`patch`] (an action's `"diff": true`) is exact: a compact unified diff that [`apply`] turns
//! the previous text back into the new one with, byte for byte.
//!
//! Why a diff of rendered text rather than of models: the agent reasons about what it reads, so
//! "what changed" must be stated in the same lines, with the same uids, it would see in a full
//! snapshot — a menu that opened is `+ uid=3_40 menuitem "Close"`, a dialog that closed is
//! `- uid=2_12 dialog "Sign in"`, a button whose state changed is a `-`/`+` pair. Unchanged
//! lines are not repeated, which is the point: after an action the answer is a few lines, not the
//! whole page again.
//!
//! For [`diff`], lines are compared without their indentation (nesting is context the agent
//! already has) and without the dom view's `*` new-element mark (it depends on which snapshot
//! came before, not on the page). Equal lines are matched as a multiset, so a line that merely
//! moved is not reported; what remains is printed in document order, removals first. Pure and
//! linear in the size of the two texts.
//!
//! For [`patch`], lines are compared whole, indentation and marks included, since applying it
//! must give the new text exactly; the line matching is `similar`'s Myers diff. Hunks carry no
//! context lines: every snapshot line names its element (its uid, or its text), so a changed line
//! stands on its own, the agent has the previous snapshot already, and context would only repeat
//! it; the hunk headers' positions (`@@ -12,2 +12,3 @@`) are what a program needs to apply it,
//! and what tells the agent where in the page the change is.

use std::ops::Range;

use rustc_hash::FxHashMap;

/// What [`diff`] prints when nothing changed.
pub const NO_CHANGES: &str = "(no changes)";

/// A line as compared: indentation and the `*` new mark removed.
fn key(line: &str) -> &str {
    let t = line.trim_start_matches([' ', '\t']);
    match t.strip_prefix('*') {
        Some(rest) if rest.starts_with('[') => rest,
        _ => t,
    }
}

/// The lines removed from `before` and added in `after`, one per line with `- ` / `+ `, or
/// [`NO_CHANGES`].
pub fn diff(before: &str, after: &str) -> String {
    let mut counts: FxHashMap<&str, i64> = FxHashMap::default();
    for line in before.lines().map(key).filter(|l| !l.is_empty()) {
        *counts.entry(line).or_default() += 1;
    }
    // Lines of `after` matched by an equal line of `before` are unchanged.
    let mut added = Vec::new();
    for line in after.lines().map(key).filter(|l| !l.is_empty()) {
        match counts.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => added.push(line),
        }
    }
    // What is left over in the counts was removed; print it in `before`'s order.
    let mut out = String::new();
    for line in before.lines().map(key).filter(|l| !l.is_empty()) {
        if let Some(n) = counts.get_mut(line) {
            if *n > 0 {
                *n -= 1;
                out.push_str("- ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    for line in added {
        out.push_str("+ ");
        out.push_str(line);
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str(NO_CHANGES);
        out.push('\n');
    }
    out
}

/// The lines of a text, each with its `\n` (the last one without, when the text does not end
/// with one).
fn lines_of(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Writes one line of a hunk: its sign, the line whole, and for a last line without a newline
/// the marker of unified diffs that says so.
fn push_line(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push('\n');
        out.push_str(NO_NEWLINE);
        out.push('\n');
    }
}

/// What follows a hunk line that is the last line of its text and has no `\n`.
pub const NO_NEWLINE: &str = "\\ No newline at end of file";

/// The exact change from `before` to `after` as a unified diff without context lines: for each
/// run of changed lines a header `@@ -<line>,<count> +<line>,<count> @@` (1-based line numbers in
/// each text; for a count of 0, the number of the line after which the change goes, as unified
/// diffs have it), then the removed lines as `-<line>` and the added ones as `+<line>`, whole
/// and with their indentation. A last line without a newline is followed by
/// `\ No newline at end of file`. Empty when the texts are equal. [`apply`] undoes it exactly.
pub fn patch(before: &str, after: &str) -> String {
    let old = lines_of(before);
    let new = lines_of(after);
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new);
    let mut out = String::new();
    for (old_range, new_range) in changed_runs(&ops) {
        let (old_start, new_start) = (old_range.start, new_range.start);
        let (old_len, new_len) = (old_range.len(), new_range.len());
        // Unified diffs number an empty side by the line before it.
        let number = |start: usize, len: usize| if len == 0 { start } else { start + 1 };
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            number(old_start, old_len),
            old_len,
            number(new_start, new_len),
            new_len
        ));
        for line in &old[old_start..old_start + old_len] {
            push_line(&mut out, '-', line);
        }
        for line in &new[new_start..new_start + new_len] {
            push_line(&mut out, '+', line);
        }
    }
    out
}

/// The runs of changed lines of a diff: consecutive operations other than "equal", joined, as
/// the lines they cover in each text. Positions are counted here from the operations' lengths,
/// in order, so each run starts where the text before it ends.
fn changed_runs(ops: &[similar::DiffOp]) -> Vec<(Range<usize>, Range<usize>)> {
    let mut runs: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open = false;
    for op in ops {
        let (removed, added) = (op.old_range().len(), op.new_range().len());
        if op.tag() == similar::DiffTag::Equal {
            i += removed;
            j += added;
            open = open && removed == 0;
            continue;
        }
        match runs.last_mut() {
            Some((ro, rn)) if open => {
                ro.end += removed;
                rn.end += added;
            }
            _ => runs.push((i..i + removed, j..j + added)),
        }
        i += removed;
        j += added;
        open = true;
    }
    runs
}

/// Why a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError(pub String);

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatchError {}

/// One hunk header's numbers.
fn header(line: &str) -> Option<[usize; 4]> {
    let rest = line.strip_prefix("@@ -")?.strip_suffix(" @@")?;
    let (old, new) = rest.split_once(" +")?;
    let pair = |s: &str| -> Option<(usize, usize)> {
        let (a, b) = s.split_once(',')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    let ((a, b), (c, d)) = (pair(old)?, pair(new)?);
    Some([a, b, c, d])
}

/// The lines of a hunk's side, read from `lines` at `*at`: `count` lines starting with `sign`,
/// a `\ No newline at end of file` after one taking its newline away.
fn side(
    lines: &[&str],
    at: &mut usize,
    sign: char,
    count: usize,
) -> Result<Vec<String>, PatchError> {
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let line = lines
            .get(*at)
            .and_then(|l| l.strip_prefix(sign))
            .ok_or_else(|| PatchError(format!("line {} should start with {sign:?}", *at + 1)))?;
        *at += 1;
        let mut text = line.to_string();
        if lines
            .get(*at)
            .is_some_and(|l| l.trim_end_matches('\n') == NO_NEWLINE)
        {
            *at += 1;
            text.pop();
        }
        out.push(text);
    }
    Ok(out)
}

/// Applies a [`patch`] to the text it was made from, giving the text it was made to. Fails when
/// the patch is malformed or its removed lines are not those of `before` at their positions.
pub fn apply(before: &str, patch: &str) -> Result<String, PatchError> {
    let old = lines_of(before);
    let lines = lines_of(patch);
    let mut out = String::with_capacity(before.len() + patch.len());
    // Lines of `before` copied so far.
    let mut copied = 0;
    let mut at = 0;
    while at < lines.len() {
        let h = lines[at].trim_end_matches('\n');
        let [old_line, old_len, _, new_len] =
            header(h).ok_or_else(|| PatchError(format!("not a hunk header: {h:?}")))?;
        at += 1;
        let start = if old_len == 0 {
            old_line
        } else {
            old_line.saturating_sub(1)
        };
        if start < copied || start + old_len > old.len() {
            return Err(PatchError(format!(
                "hunk {h:?} does not fit a text of {} lines",
                old.len()
            )));
        }
        out.extend(old[copied..start].iter().copied());
        let removed = side(&lines, &mut at, '-', old_len)?;
        for (i, line) in removed.iter().enumerate() {
            if old[start + i] != line.as_str() {
                return Err(PatchError(format!(
                    "line {} of the text is not the one the patch removes",
                    start + i + 1
                )));
            }
        }
        for line in side(&lines, &mut at, '+', new_len)? {
            out.push_str(&line);
        }
        copied = start + old_len;
    }
    out.extend(old[copied..].iter().copied());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_only_what_changed() {
        let before = "uid=1_0 RootWebArea \"P\"\n  uid=1_2 button \"Menu\" haspopup=\"menu\"\n  uid=1_3 link \"Home\"\n";
        let after = "uid=1_0 RootWebArea \"P\"\n  uid=1_2 button \"Menu\" expanded haspopup=\"menu\"\n    uid=2_7 menuitem \"Close\"\n  uid=1_3 link \"Home\"\n";
        assert_eq!(
            diff(before, after),
            "- uid=1_2 button \"Menu\" haspopup=\"menu\"\n\
             + uid=1_2 button \"Menu\" expanded haspopup=\"menu\"\n\
             + uid=2_7 menuitem \"Close\"\n"
        );
    }

    #[test]
    fn ignores_indentation_new_marks_and_moves() {
        let before = "[1_2]<button>Go />\n\t[1_3]<a>Home />\ntext\n";
        let after = "\t*[1_3]<a>Home />\ntext\n[1_2]<button>Go />\n";
        assert_eq!(diff(before, after), "(no changes)\n");
        assert_eq!(diff("", ""), "(no changes)\n");
    }

    #[test]
    fn repeated_lines_count() {
        assert_eq!(diff("a\na\n", "a\n"), "- a\n");
        assert_eq!(diff("a\n", "a\na\nb\n"), "+ a\n+ b\n");
    }

    /// A small deterministic generator, so the property test needs no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// A text of lines drawn from a few, so that equal lines repeat and the matching has choices;
    /// some with a trailing newline, some without, some empty.
    fn random_text(rng: &mut Rng) -> String {
        const WORDS: [&str; 9] = [
            "uid=1_0 RootWebArea \"P\"",
            "  uid=1_2 button \"Go\"",
            "  uid=1_3 link \"Home\"",
            "",
            "    uid=2_7 menuitem \"Close\"",
            "\t*[1_4]<a>Home />",
            "@@ -1,1 +1,1 @@",
            "-  uid=1_2",
            "\\ No newline at end of file",
        ];
        let n = rng.below(12);
        let mut s: String = (0..n)
            .map(|_| format!("{}\n", WORDS[rng.below(WORDS.len())]))
            .collect();
        if rng.below(3) == 0 {
            s.pop();
        }
        s
    }

    /// `new` from `old` by a few random edits: lines replaced, inserted, removed, the end's
    /// newline toggled.
    fn edited(rng: &mut Rng, old: &str) -> String {
        let mut lines: Vec<String> = old.split_inclusive('\n').map(str::to_string).collect();
        for _ in 0..rng.below(5) {
            let other = random_text(rng);
            let pick: Vec<String> = other.split_inclusive('\n').map(str::to_string).collect();
            let at = rng.below(lines.len() + 1);
            match rng.below(3) {
                0 if at < lines.len() => {
                    lines.remove(at);
                }
                1 => {
                    for (i, l) in pick.into_iter().enumerate() {
                        let l = if l.ends_with('\n') {
                            l
                        } else {
                            format!("{l}\n")
                        };
                        lines.insert((at + i).min(lines.len()), l);
                    }
                }
                _ if at < lines.len() => lines[at] = format!("changed {at}\n"),
                _ => {}
            }
        }
        let mut s: String = lines.concat();
        if rng.below(4) == 0 {
            if s.ends_with('\n') {
                s.pop();
            } else {
                s.push('\n');
            }
        }
        s
    }

    #[test]
    fn patch_is_unified_without_context() {
        let before = "uid=1_0 RootWebArea \"P\"\n  uid=1_2 button \"Menu\" haspopup=\"menu\"\n  uid=1_3 link \"Home\"\n";
        let after = "uid=1_0 RootWebArea \"P\"\n  uid=1_2 button \"Menu\" expanded haspopup=\"menu\"\n    uid=2_7 menuitem \"Close\"\n  uid=1_3 link \"Home\"\n";
        let p = patch(before, after);
        assert_eq!(
            p,
            "@@ -2,1 +2,2 @@\n\
             -  uid=1_2 button \"Menu\" haspopup=\"menu\"\n\
             +  uid=1_2 button \"Menu\" expanded haspopup=\"menu\"\n\
             +    uid=2_7 menuitem \"Close\"\n"
        );
        assert_eq!(apply(before, &p).as_deref(), Ok(after));
        assert_eq!(patch(before, before), "");
        assert_eq!(apply(before, "").as_deref(), Ok(before));
    }

    #[test]
    fn patch_numbers_pure_insertions_and_removals_by_the_line_before() {
        assert_eq!(patch("a\nc\n", "a\nb\nc\n"), "@@ -1,0 +2,1 @@\n+b\n");
        assert_eq!(patch("a\nb\nc\n", "a\nc\n"), "@@ -2,1 +1,0 @@\n-b\n");
        assert_eq!(patch("", "a\n"), "@@ -0,0 +1,1 @@\n+a\n");
        assert_eq!(
            patch("a\n", "a"),
            "@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn apply_refuses_a_patch_of_another_text() {
        let p = patch("a\nb\n", "a\nc\n");
        assert!(apply("a\nx\n", &p).is_err());
        assert!(apply("a\n", &p).is_err());
        assert!(apply("a\nb\n", "@@ nonsense\n").is_err());
    }

    #[test]
    fn applying_the_patch_gives_the_new_text_exactly() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for case in 0..20_000 {
            let old = random_text(&mut rng);
            let new = if rng.below(2) == 0 {
                edited(&mut rng, &old)
            } else {
                random_text(&mut rng)
            };
            let p = patch(&old, &new);
            assert_eq!(
                apply(&old, &p).as_deref(),
                Ok(new.as_str()),
                "case {case}: {old:?} -> {new:?} by {p:?}"
            );
            assert_eq!(p.is_empty(), old == new, "case {case}");
        }
    }
}
