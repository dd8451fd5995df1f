//! The command line as users type it: one test per invocation the README shows, run through the
//! real `pagesight` binary against a real headless Chromium, so an example that stops working
//! fails the suite.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The checkout's root: the README's commands run from there.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the workspace")
        .to_path_buf()
}

fn pagesight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagesight"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("run pagesight")
}

fn stdout_of(args: &[&str]) -> String {
    let out = pagesight(args);
    assert!(
        out.status.success(),
        "pagesight {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The line the a11y snapshot of `forms.html` shows for its name field.
const FORMS_TITLE: &str = "Forms: values set by script";
const NAME_FIELD: &str = "textbox \"Full name\" value=\"Ada Lovelace\"";

#[test]
fn snapshot_of_a_file() {
    let text = stdout_of(&["snapshot", "fixtures/pages/forms.html"]);
    assert!(text.contains(NAME_FIELD), "{text}");
    assert!(text.contains("uid="), "{text}");
}

#[test]
fn snapshot_of_a_url() {
    let server = serve(&root().join("fixtures/pages"));
    let url = format!("http://{}/forms.html", server);
    let text = stdout_of(&["snapshot", &url]);
    assert!(text.contains(NAME_FIELD), "{text}");
}

#[test]
fn snapshot_in_dom_mode() {
    let text = stdout_of(&["snapshot", "fixtures/pages/forms.html", "--mode", "dom"]);
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with('[') && l.contains("<input")),
        "{text}"
    );
}

#[test]
fn snapshot_as_json_of_the_whole_page() {
    let text = stdout_of(&[
        "snapshot",
        "fixtures/pages/forms.html",
        "--format",
        "json",
        "--expand",
        "all",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let text = json.to_string();
    assert!(text.contains("Full name"), "{text}");
}

#[test]
fn capture_then_render_offline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("page.json.gz");
    let file = file.to_str().expect("UTF-8 temp path");
    stdout_of(&["capture", "fixtures/pages/forms.html", "-o", file]);
    let text = stdout_of(&["snapshot", "--from-capture", file]);
    assert!(text.contains(NAME_FIELD), "{text}");
}

#[test]
fn capture_outside_the_allowed_folders_is_refused() {
    let outside = format!("/pagesight-outside-{}/page.json.gz", std::process::id());
    let out = pagesight(&["capture", "fixtures/pages/forms.html", "-o", &outside]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("page.json.gz") && err.contains("--allow-dir"),
        "{err}"
    );
    let out = pagesight(&["run", "--allow-dir", "/no/such/folder/for/pagesight"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/no/such/folder/for/pagesight"), "{err}");
}

#[test]
fn run_a_json_lines_session() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pagesight"))
        .arg("run")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pagesight run");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(
            b"{\"cmd\":\"open\",\"url\":\"fixtures/pages/forms.html\"}\n\
              {\"cmd\":\"snapshot\",\"mode\":\"dom\"}\n\
              {\"cmd\":\"fly\"}\n",
        )
        .expect("write commands");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["ok"], true, "{}", lines[0]);
    assert_eq!(lines[0]["result"]["loaded"], true, "{}", lines[0]);
    let snapshot = lines[1]["result"].as_str().expect("snapshot text");
    assert!(snapshot.contains("<input"), "{snapshot}");
    assert_eq!(lines[2]["ok"], false);
    assert_eq!(lines[2]["error"]["code"], "INVALID_ARGUMENT");
}

#[test]
fn a_session_answers_unreadable_lines_and_goes_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pagesight"))
        .arg("run")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pagesight run");
    let mut stdin = child.stdin.take().expect("stdin");
    // Written from another thread: the long line fills the pipe before the session reads it.
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        stdin.write_all(b"{\"cmd\":\"open\",\"url\":\"caf\xe9.html\"}\n")?;
        stdin.write_all(b"{\"cmd\":\"open\",\"url\":\"fixtures/pages/forms.html\"}\n")?;
        // Longer than the 16 MiB limit, and valid JSON but for its length.
        stdin.write_all(b"{\"cmd\":\"pages\",\"pad\":\"")?;
        stdin.write_all(&vec![b'x'; 17 << 20])?;
        stdin.write_all(b"\"}\n")?;
        stdin.write_all("[".repeat(100_000).as_bytes())?;
        stdin.write_all(b"\n{\"cmd\":\"pages\"}\n")
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer").expect("write commands");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    for (i, what) in [(0, "UTF-8"), (2, "16777216 bytes"), (3, "deeper than 127")] {
        assert_eq!(lines[i]["ok"], false, "{}", lines[i]);
        assert_eq!(
            lines[i]["error"]["code"], "INVALID_ARGUMENT",
            "{}",
            lines[i]
        );
        let message = lines[i]["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(what), "{message}");
    }
    assert_eq!(lines[1]["result"]["loaded"], true, "{}", lines[1]);
    assert_eq!(lines[4]["ok"], true, "{}", lines[4]);
}

#[test]
fn doctor_reports_the_browser() {
    let text = stdout_of(&["doctor"]);
    assert!(text.to_lowercase().contains("chrom"), "{text}");
}

#[test]
fn snapshot_of_a_page_of_a_running_browser() {
    let browser = RunningBrowser::start(&root().join("fixtures/pages/forms.html"));
    let endpoint = format!("http://127.0.0.1:{}", browser.port);
    let target = browser.page_target("forms.html", FORMS_TITLE);
    // No page argument: the attached page is snapshotted as it is, not navigated.
    let text = stdout_of(&["snapshot", "--browser", &endpoint, "--target", &target]);
    assert!(text.contains(NAME_FIELD), "{text}");
    // The page is still there, as it was: pagesight only let go of it.
    assert_eq!(browser.page_target("forms.html", FORMS_TITLE), target);
}

#[test]
fn target_without_a_browser_is_refused() {
    let out = pagesight(&["snapshot", "--target", "ABC"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--browser"), "{err}");
}

#[test]
fn snapshot_without_a_page_says_what_to_give() {
    let out = pagesight(&["snapshot"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("PAGE"), "{err}");
}

/// Serves the files of `dir` over HTTP on a loopback port; returns `host:port`.
fn serve(dir: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address").to_string();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let n = stream.read(&mut request).unwrap_or(0);
            let request = String::from_utf8_lossy(&request[..n]);
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let file = dir.join(path.trim_start_matches('/'));
            let response = match std::fs::read(&file) {
                Ok(body) => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    r.extend_from_slice(&body);
                    r
                }
                Err(_) => {
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_vec()
                }
            };
            let _ = stream.write_all(&response);
        }
    });
    addr
}

/// A Chromium started by the test with an open debugging port, as a user would start one to
/// let pagesight attach; killed by its PID and its profile removed when dropped.
struct RunningBrowser {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
}

impl RunningBrowser {
    fn start(page: &Path) -> RunningBrowser {
        let chromium = pagesight::browser::find_chromium(None).expect("Chromium");
        let profile = tempfile::tempdir().expect("profile dir");
        let url = url_of(page);
        let child = Command::new(chromium)
            .args(pagesight::browser::CHROMIUM_FLAGS)
            .arg("--remote-debugging-port=0")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Chromium");
        let mut browser = RunningBrowser {
            child,
            port: 0,
            _profile: profile,
        };
        // Chromium writes the port it chose into the profile.
        let port_file = browser._profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(30);
        while browser.port == 0 {
            assert!(Instant::now() < deadline, "Chromium did not open its port");
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                browser.port = text
                    .lines()
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(0);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        browser
    }

    /// The target id of the page whose URL ends with `suffix`, once its document has been
    /// parsed: Chromium lists the target (with its URL) as soon as the navigation starts, and
    /// names it by its `title` only once the parser has read that far.
    fn page_target(&self, suffix: &str, title: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let list = http_get(self.port, "/json/list");
            if let Ok(serde_json::Value::Array(targets)) = serde_json::from_str(&list) {
                let found = targets.iter().find(|t| {
                    t["type"] == "page"
                        && t["title"] == title
                        && t["url"].as_str().is_some_and(|u| u.ends_with(suffix))
                });
                if let Some(id) = found.and_then(|t| t["id"].as_str()) {
                    return id.to_string();
                }
            }
            assert!(Instant::now() < deadline, "no page {suffix} in {list}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for RunningBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn url_of(path: &Path) -> String {
    let absolute = path.canonicalize().expect("fixture path");
    format!("file://{}", absolute.display())
}

/// A plain HTTP GET on loopback; the body, or "" when it fails. The body is read up to its
/// `Content-Length`: Chromium's debugging server keeps the connection open.
fn http_get(port: u16, path: &str) -> String {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return String::new();
    }
    let mut response = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let text = String::from_utf8_lossy(&response).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length {
                return body.to_string();
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return String::new(),
            Ok(n) => response.extend_from_slice(&chunk[..n]),
        }
    }
}

#[test]
fn extract_the_main_content() {
    let markdown = stdout_of(&["extract", "fixtures/extract/cookie-sticky.html"]);
    assert!(
        markdown.starts_with("# City council approves the new park"),
        "{markdown}"
    );
    let json = stdout_of(&[
        "extract",
        "fixtures/extract/cookie-sticky.html",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["title"], "City council approves the new park");
    assert!(
        json["blocks"].as_array().is_some_and(|b| !b.is_empty()),
        "{json}"
    );
    let text = stdout_of(&[
        "extract",
        "fixtures/extract/cookie-sticky.html",
        "--format",
        "text",
    ]);
    assert!(!text.contains('#'), "{text}");
}
