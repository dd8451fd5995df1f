//! Shared by the live test files: fixture pages served over loopback HTTP.
//!
//! Cross-site iframes only happen between sites, so the frame and action tests serve a folder
//! of `fixtures/pages/` on two loopback origins, `127.0.0.1:P1` and `localhost:P2`: Chromium puts
//! the second site in another renderer (an out-of-process iframe). `{{A}}` and `{{B}}` in a
//! served page are replaced by the two origins, so pages can point at each other.

// Each test file is its own crate and uses only part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// The two origins pages are served on.
#[derive(Debug, Clone)]
pub struct Origins {
    /// `http://127.0.0.1:P1`
    pub a: String,
    /// `http://localhost:P2`
    pub b: String,
}

/// `fixtures/pages/<folder>` of the workspace.
pub fn pages_dir(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/pages")
        .join(folder)
}

/// Serves `dir` on two new loopback origins, one thread per connection, for as long as the
/// test process lives.
pub fn serve_two_origins(dir: PathBuf) -> std::io::Result<Origins> {
    let a = TcpListener::bind("127.0.0.1:0")?;
    let b = TcpListener::bind("127.0.0.1:0")?;
    let origins = Origins {
        a: format!("http://127.0.0.1:{}", a.local_addr()?.port()),
        b: format!("http://localhost:{}", b.local_addr()?.port()),
    };
    serve_on(a, dir.clone(), origins.clone());
    serve_on(b, dir, origins.clone());
    Ok(origins)
}

/// Serves `dir` on `listener`, naming `origins` in the pages.
pub fn serve_on(listener: TcpListener, dir: PathBuf, origins: Origins) {
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (dir, origins) = (dir.clone(), origins.clone());
            std::thread::spawn(move || respond(stream, &dir, &origins));
        }
    });
}

/// Answers one request with a file of `dir` (or 404) and closes the connection.
fn respond(mut stream: TcpStream, dir: &Path, origins: &Origins) {
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(clone);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let name = path
        .split('?')
        .next()
        .unwrap_or("/")
        .trim_start_matches('/');
    let file = (!name.contains("..") && !name.is_empty())
        .then(|| std::fs::read_to_string(dir.join(name)).ok())
        .flatten();
    let response = match file {
        Some(body) => {
            let body = body
                .replace("{{A}}", &origins.a)
                .replace("{{B}}", &origins.b);
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }
        None => {
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
        }
    };
    let _ = stream.write_all(response.as_bytes());
}

/// The `.html` files directly in `dir`, sorted (none if it cannot be read).
pub fn html_in(dir: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "html"))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    pages
}

/// Outputs compared with golden files: each mismatch is collected, so one run shows them all.
/// With `PAGESIGHT_BLESS=1` the goldens are rewritten instead (check the diff before committing).
pub struct Goldens {
    bless: bool,
    mismatches: Vec<String>,
}

impl Goldens {
    pub fn new() -> Goldens {
        Goldens {
            bless: std::env::var_os("PAGESIGHT_BLESS").is_some(),
            mismatches: Vec::new(),
        }
    }

    /// Compares `got` with the golden at `path` (or writes it, when blessing).
    pub fn check(&mut self, path: &Path, got: &str) {
        if self.bless {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("create the goldens' folder");
            }
            std::fs::write(path, got).expect("write golden");
            return;
        }
        let expected = std::fs::read_to_string(path).unwrap_or_default();
        if expected != got {
            self.mismatches.push(format!(
                "{}: differs from the golden\n--- expected\n{expected}\n--- got\n{got}",
                path.display()
            ));
        }
    }

    /// Fails with every mismatch found.
    pub fn assert_all_match(self) {
        assert!(
            self.mismatches.is_empty(),
            "{}\n(rewrite with PAGESIGHT_BLESS=1 after checking the change)",
            self.mismatches.join("\n")
        );
    }
}

/// Applies a patch of an action's `changes` (docs/protocol.md, "Patch") to the text it was made
/// from. Written here from the documented format alone, apart from the engine's own `apply`, so
/// that the tests check the format as a client reads it. Panics on a patch that does not fit.
pub fn apply_changes(before: &str, changes: &str) -> String {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let lines: Vec<&str> = changes.split_inclusive('\n').collect();
    let mut out = String::new();
    let (mut copied, mut at) = (0usize, 0usize);
    while at < lines.len() {
        let header = lines[at].trim_end_matches('\n');
        let numbers: Vec<usize> = header
            .trim_start_matches("@@ -")
            .trim_end_matches(" @@")
            .split([',', ' ', '+'])
            .filter(|s| !s.is_empty())
            .map(|n| {
                n.parse()
                    .unwrap_or_else(|_| panic!("bad hunk header {header:?}"))
            })
            .collect();
        assert!(
            header.starts_with("@@ -") && numbers.len() == 4,
            "bad hunk header {header:?}"
        );
        let (line, removed, added) = (numbers[0], numbers[1], numbers[3]);
        let start = if removed == 0 { line } else { line - 1 };
        assert!(start >= copied, "hunk {header:?} goes back");
        out.extend(old[copied..start].iter().copied());
        at += 1;
        // One side's lines, each with its newline unless a "\ No newline" line follows it.
        let mut take = |sign: char, n: usize| -> Vec<String> {
            (0..n)
                .map(|_| {
                    let l = lines[at].strip_prefix(sign).unwrap_or_else(|| {
                        panic!(
                            "line {:?} of {header:?} should start with {sign}",
                            lines[at]
                        )
                    });
                    at += 1;
                    let mut l = l.to_string();
                    if lines.get(at).is_some_and(|n| n.starts_with('\\')) {
                        at += 1;
                        l.pop();
                    }
                    l
                })
                .collect()
        };
        for (i, gone) in take('-', removed).into_iter().enumerate() {
            assert_eq!(old[start + i], gone, "hunk {header:?} removes another line");
        }
        for new in take('+', added) {
            out.push_str(&new);
        }
        copied = start + removed;
    }
    out.extend(old[copied..].iter().copied());
    out
}

/// Checks that an action's `changes` turn the snapshot text `before` (taken right before the
/// action) into exactly `fresh` (taken right after it).
pub fn assert_changes_exact(before: &str, changes: &str, fresh: &str) {
    let applied = apply_changes(before, changes);
    assert!(
        applied == fresh,
        "the changes do not give the fresh snapshot\n--- before\n{before}\n--- changes\n{changes}\n--- applied\n{applied}\n--- fresh\n{fresh}"
    );
}

/// Python's stdtypes page as Debian's `python3.11-doc` installs it (a long real page; the
/// tests that read it skip it when it is missing).
pub const STDTYPES: &str = "/usr/share/doc/python3.11-doc/html/library/stdtypes.html";

/// Replaces every uid (`1_23`) by `#`, wherever it appears.
pub fn normalise_uids(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let a = if boundary { digits(i) } else { 0 };
        if a > 0 && b.get(i + a) == Some(&b'_') {
            let c = digits(i + a + 1);
            if c > 0 {
                out.push('#');
                i += a + 1 + c;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}
