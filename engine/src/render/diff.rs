//! What changed between two snapshots, as the agent would read it: the lines of the previous
//! rendering that are gone (`- …`) and the lines of the new one that were not there (`+ …`).
//!
//! Why a diff of rendered text rather than of models: the agent reasons about what it reads, so
//! "what changed" must be stated in the same lines, with the same uids, it would see in a full
//! snapshot — a menu that opened is `+ uid=3_40 menuitem "Close"`, a dialog that closed is
//! `- uid=2_12 dialog "Sign in"`, a button whose state changed is a `-`/`+` pair. Unchanged
//! lines are not repeated, which is the point: after an action the answer is a few lines, not the
//! whole page again.
//!
//! Lines are compared without their indentation (nesting is context the agent already has) and
//! without the dom view's `*` new-element mark (it depends on which snapshot came before, not on
//! the page). Equal lines are matched as a multiset, so a line that merely moved is not
//! reported; what remains is printed in document order, removals first. Pure and linear in the
//! size of the two texts.

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
}
