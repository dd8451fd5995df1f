//! Reading a crawler's JSON lines: pages done and failed, pagesight's timings, and the
//! markdown of the extraction bench's pages, scored with the bench's own scorer.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// One crawler's output, read.
#[derive(Debug, Default)]
pub struct Lines {
    /// URLs with a line and no failure.
    pub ok: usize,
    /// URLs with a failed line, or none at all.
    pub failed: usize,
    /// The first failures: `url: code message`.
    pub failures: Vec<String>,
    /// pagesight's `timings` summed over the pages that have them, and their count.
    pub timings: BTreeMap<String, f64>,
    pub timed: usize,
    /// The markdown of each URL that has one.
    pub markdown: BTreeMap<String, String>,
}

/// Reads the JSON lines of `path` for the URLs `urls`. A line fails when it has an `error`
/// (pagesight) or `"success": false` (the Crawl4AI driver); a URL without a line fails too.
pub fn read_lines(path: &Path, urls: &[String]) -> Result<Lines, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = Lines::default();
    let mut seen: BTreeMap<String, bool> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(url) = value.get("url").and_then(Value::as_str) else {
            continue;
        };
        let error = value.get("error").filter(|e| !e.is_null());
        let failed = error.is_some() || value.get("success") == Some(&Value::Bool(false));
        if failed && lines.failures.len() < 20 {
            let what = match error {
                Some(Value::Object(e)) => format!(
                    "{} {}",
                    e.get("code").and_then(Value::as_str).unwrap_or(""),
                    e.get("message").and_then(Value::as_str).unwrap_or("")
                ),
                Some(Value::String(s)) => s.clone(),
                _ => "failed".to_string(),
            };
            let what: String = what.chars().take(160).collect();
            lines.failures.push(format!("{url}: {}", what.trim()));
        }
        seen.insert(url.to_string(), !failed);
        if let Some(Value::Object(t)) = value.get("timings") {
            lines.timed += 1;
            for (k, v) in t {
                if let Some(ms) = v.as_f64() {
                    *lines.timings.entry(k.clone()).or_default() += ms;
                }
            }
        }
        if let Some(md) = value.get("markdown").and_then(Value::as_str) {
            lines.markdown.insert(url.to_string(), md.to_string());
        }
    }
    for url in urls {
        match seen.get(url) {
            Some(true) => lines.ok += 1,
            Some(false) => lines.failed += 1,
            None => {
                lines.failed += 1;
                if lines.failures.len() < 20 {
                    lines.failures.push(format!("{url}: no line"));
                }
            }
        }
    }
    Ok(lines)
}

/// Markdown with its links and images reduced to their text: `[text](url)` to `text`,
/// `![alt](src)` to `alt`, nested ones too (`[![alt](src)](href)` to `alt`). What is scored is
/// the text a reader gets, not the addresses.
pub fn reduce_links(markdown: &str) -> String {
    let chars: Vec<char> = markdown.chars().collect();
    let mut out = String::with_capacity(markdown.len());
    let mut i = 0;
    while i < chars.len() {
        let bang = chars[i] == '!' && chars.get(i + 1) == Some(&'[');
        let open = if bang { i + 1 } else { i };
        if chars[open] == '[' {
            if let Some((text, next)) = link_at(&chars, open) {
                out.push_str(&reduce_links(&text));
                i = next;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// At `[`: the link's text and the index after its `(...)`, if a link starts here.
fn link_at(chars: &[char], open: usize) -> Option<(String, usize)> {
    let mut depth = 0usize;
    let mut close = None;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(k);
                    break;
                }
            }
            '\n' if k > open && chars.get(k - 1) == Some(&'\n') => return None,
            _ => {}
        }
    }
    let close = close?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let mut depth = 0usize;
    for (k, &c) in chars.iter().enumerate().skip(close + 1) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((chars[open + 1..close].iter().collect(), k + 1));
                }
            }
            '\n' => return None,
            _ => {}
        }
    }
    None
}

/// A scorer's figures.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Score {
    pub f1: f64,
    pub precision: f64,
    pub recall: f64,
}

/// Writes the predictions of the bench's pages (`key -> URL`) from a crawler's markdown and
/// scores them with `score.py` of the bench folder.
pub fn score(
    python: &Path,
    bench: &Path,
    keys: &BTreeMap<String, String>,
    markdown: &BTreeMap<String, String>,
    out: &Path,
) -> Result<Score, String> {
    let predictions: serde_json::Map<String, Value> = keys
        .iter()
        .map(|(key, url)| {
            let text = markdown
                .get(url)
                .map(|m| reduce_links(m))
                .unwrap_or_default();
            (key.clone(), serde_json::json!({ "articleBody": text }))
        })
        .collect();
    let json = serde_json::to_string(&predictions).map_err(|e| e.to_string())?;
    std::fs::write(out, json).map_err(|e| format!("{}: {e}", out.display()))?;
    let scorer = bench.join("score.py");
    let output = Command::new(python)
        .arg(&scorer)
        .arg(out)
        .args(["--bootstrap", "1"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", scorer.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            scorer.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    parse_score(&stdout).ok_or(format!("no score in the scorer's output: {stdout}"))
}

/// The figures of the scorer's line: `NAME PAGES F1 LO-HI PRECISION RECALL EXACT`.
fn parse_score(stdout: &str) -> Option<Score> {
    let line = stdout.lines().nth(1)?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let n = fields.len();
    if n < 7 {
        return None;
    }
    Some(Score {
        f1: fields[n - 5].parse().ok()?,
        precision: fields[n - 3].parse().ok()?,
        recall: fields[n - 2].parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_images_become_their_text() {
        assert_eq!(
            reduce_links("see [the docs](http://x/a_(b)) and ![a cat](c.png)."),
            "see the docs and a cat."
        );
        assert_eq!(reduce_links("[![logo](l.png)](/)"), "logo");
        assert_eq!(reduce_links("a [b] c (d) [e]\n(f)"), "a [b] c (d) [e]\n(f)");
    }

    #[test]
    fn the_scorers_line_is_read() {
        let out = "                              pages     F1        95% CI   prec recall  exact\n\
                   crawl4ai-c1                    123  0.774  0.774-0.774  0.700  0.866  0.000\n";
        let s = parse_score(out).expect("a score");
        assert_eq!((s.f1, s.precision, s.recall), (0.774, 0.7, 0.866));
    }
}
