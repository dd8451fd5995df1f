//! `pagesight crawl` against a site of its own: a loopback server of a few hundred generated
//! pages with links, slow pages, pages failing with 404 and 500, one that never finishes
//! loading, a redirect loop and a robots.txt; the real binary, a real headless Chromium.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Pages `/p/0` … `/p/{PAGES-1}`.
const PAGES: usize = 240;

/// The links of page `n`: a few other pages (a graph every page of which is reachable from
/// page 0), and on every tenth page a link to a page robots.txt disallows.
fn links_of(n: usize) -> Vec<String> {
    let mut links: Vec<String> = [2 * n + 1, 2 * n + 2, (n * 7 + 3) % PAGES]
        .into_iter()
        .filter(|&m| m < PAGES)
        .map(|m| format!("/p/{m}"))
        .collect();
    if n.is_multiple_of(10) {
        links.push(format!("/private/{n}"));
    }
    links
}

fn page_html(n: usize) -> String {
    let links: String = links_of(n)
        .iter()
        .map(|l| format!("<li><a href=\"{l}#part\">to {l}</a></li>"))
        .collect();
    format!(
        "<!doctype html><html><head><title>Page {n}</title></head><body>\
         <nav><ul>{links}</ul></nav><main><article><h1>Page number {n}</h1>\
         <p>This is the article of page {n}. It says something about the number {n}, \
         at enough length that a reader would call it the page's main content.</p>\
         <p>A second paragraph of page {n} makes it an article worth extracting.</p>\
         </article></main></body></html>"
    )
}

/// The site: serves until dropped (its thread outlives the test, blocked in `accept`).
struct Site {
    address: String,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Site {
    fn start() -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let address = format!("http://{}", listener.local_addr().expect("its address"));
        let hits = Arc::new(Mutex::new(Vec::new()));
        let recorded = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let recorded = recorded.clone();
                std::thread::spawn(move || serve(stream, &recorded));
            }
        });
        Site { address, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn hits_of(&self, prefix: &str) -> usize {
        let hits = self.hits.lock().map(|h| h.clone()).unwrap_or_default();
        hits.iter().filter(|h| h.starts_with(prefix)).count()
    }
}

fn serve(mut stream: TcpStream, hits: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => return,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
    if let Ok(mut h) = hits.lock() {
        h.push(path.clone());
    }
    let html = |status: &str, body: String| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let redirect = |to: &str| {
        format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    };
    let response = match path.as_str() {
        "/robots.txt" => {
            let body = "User-agent: *\nDisallow: /private/\n";
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            )
        }
        "/missing" => html(
            "404 Not Found",
            "<title>Not here</title><h1>No such page</h1>".into(),
        ),
        "/broken" => html(
            "500 Internal Server Error",
            "<title>Broken</title><h1>The server failed</h1>".into(),
        ),
        "/gone" => "HTTP/1.1 410 Gone\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
        "/loop-a" => redirect("/loop-b"),
        "/loop-b" => redirect("/loop-a"),
        "/moved" => redirect("/p/1"),
        "/hang" => {
            // Headers and the start of a page, then nothing: the page never finishes loading.
            let start = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\
                         Connection: close\r\n\r\n<title>Never done</title><p>The start of a page \
                         that never finishes loading.</p>";
            let _ = stream.write_all(start.as_bytes());
            let _ = stream.flush();
            std::thread::sleep(Duration::from_secs(120));
            return;
        }
        "/busy" => html(
            "200 OK",
            "<title>Busy</title><p>A page whose script never yields.</p>\
             <script>for (;;) {}</script>"
                .into(),
        ),
        // A whole page whose one image takes 8 s: parsed at once, loaded only then. A script
        // says which of the two the page was read after.
        "/held" => html(
            "200 OK",
            "<title>Held</title><main><h1>A held page</h1><p id=\"state\">read once parsed</p>\
             <img src=\"/held.png\" alt=\"\"></main><script>addEventListener('load', () => \
             document.getElementById('state').textContent = 'read after its load')</script>"
                .into(),
        ),
        "/held.png" => {
            std::thread::sleep(Duration::from_secs(8));
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into()
        }
        // A script that redirects while the page is parsed, to a page that takes its time.
        "/leaving" => html(
            "200 OK",
            "<title>Leaving</title><script>location.replace('/slow/3')</script><p>Leaving.</p>"
                .into(),
        ),
        // A page that goes elsewhere a moment after it is parsed, and one that closes its
        // window: what a tab kept for the next page must not carry over to it.
        p if p.starts_with("/wander/") => html(
            "200 OK",
            format!(
                "<title>Wander {p}</title><main><h1>A wandering page</h1></main>\
                 <script>setTimeout(() => location.href = '/p/0', 400)</script>"
            ),
        ),
        p if p.starts_with("/closing/") => html(
            "200 OK",
            format!(
                "<title>Closing {p}</title><main><h1>A closing page</h1></main>\
                 <script>setTimeout(() => window.close(), 300)</script>"
            ),
        ),
        p if p.starts_with("/slow/") => {
            std::thread::sleep(Duration::from_millis(1500));
            html(
                "200 OK",
                format!("<title>Slow {p}</title><h1>A slow page</h1>"),
            )
        }
        p if p.starts_with("/private/") => html("200 OK", format!("<title>Private {p}</title>")),
        p => match p.strip_prefix("/p/").and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n < PAGES => html("200 OK", page_html(n)),
            _ => html("404 Not Found", "<title>Not here</title>".into()),
        },
    };
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
    // Drain what the client still sends, so closing does not reset the connection.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut rest = [0u8; 512];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let _ = stream.read(&mut rest);
}

fn pagesight() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pagesight"));
    command.stdin(Stdio::null());
    command
}

fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("the output file");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

fn by_url(records: &[Value]) -> BTreeMap<String, Value> {
    let mut map = BTreeMap::new();
    for r in records {
        let url = r["url"].as_str().expect("a url").to_string();
        assert!(
            map.insert(url.clone(), r.clone()).is_none(),
            "{url} has two lines"
        );
    }
    map
}

fn write_urls(dir: &Path, urls: &[String]) -> PathBuf {
    let path = dir.join("urls.txt");
    std::fs::write(&path, urls.join("\n")).expect("the URL list");
    path
}

fn code(r: &Value) -> Option<&str> {
    r["error"]["code"].as_str()
}

#[test]
fn every_url_gets_exactly_one_line_and_failures_carry_their_codes() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut urls: Vec<String> = (0..40).map(|n| site.url(&format!("/p/{n}"))).collect();
    for special in [
        "/missing", "/broken", "/gone", "/loop-a", "/moved", "/hang", "/slow/1", "/slow/2",
    ] {
        urls.push(site.url(special));
    }
    urls.push("http://127.0.0.1:9/".into()); // nothing listens on the discard port
    urls.push("no-such-file.html".into());
    urls.push(site.url("/p/3#again")); // the same page as /p/3
    let list = write_urls(dir.path(), &urls);
    let out = dir.path().join("out.jsonl");
    let started = Instant::now();
    let status = pagesight()
        .args([
            "crawl",
            "--quiet",
            "--concurrency",
            "4",
            "--extract",
            "markdown",
            "--links",
        ])
        .args(["--page-timeout", "6", "--retries", "1", "--out"])
        .arg(&out)
        .arg(&list)
        .status()
        .expect("run pagesight crawl");
    assert!(status.success(), "the crawl failed");
    let lines = by_url(&records(&out));
    let expected: BTreeSet<&String> = urls.iter().filter(|u| !u.ends_with("#again")).collect();
    assert_eq!(
        lines.keys().collect::<BTreeSet<_>>(),
        expected,
        "one line per URL"
    );

    let page = &lines[&site.url("/p/5")];
    assert_eq!(page["status"], 200);
    assert_eq!(page["title"], "Page 5");
    assert!(code(page).is_none(), "{page}");
    let markdown = page["markdown"].as_str().expect("markdown");
    assert!(
        markdown.contains("This is the article of page 5"),
        "{markdown}"
    );
    let links: Vec<&str> = page["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| l["url"].as_str().expect("a link's url"))
        .collect();
    assert_eq!(
        links,
        links_of(5).iter().map(|l| site.url(l)).collect::<Vec<_>>(),
        "absolute, without fragments"
    );
    assert!(page["links"][0]["uid"]
        .as_str()
        .is_some_and(|u| u.contains('_')));

    // A 404 or a 500 is a page with its status, not an error; so is a 410 with an empty body.
    for (path, status) in [("/missing", 404), ("/broken", 500), ("/gone", 410)] {
        let r = &lines[&site.url(path)];
        assert_eq!(r["status"], status, "{r}");
        assert!(code(r).is_none(), "{r}");
    }
    let moved = &lines[&site.url("/moved")];
    assert_eq!(moved["finalUrl"], site.url("/p/1"), "{moved}");
    assert_eq!(moved["status"], 200);
    assert_eq!(
        code(&lines[&site.url("/loop-a")]),
        Some("NAVIGATION_FAILED")
    );
    assert_eq!(
        code(&lines["http://127.0.0.1:9/"]),
        Some("NAVIGATION_FAILED")
    );
    assert_eq!(code(&lines["no-such-file.html"]), Some("INVALID_ARGUMENT"));
    // The page that never finishes loading is read as it is once half its time is up.
    let hang = &lines[&site.url("/hang")];
    assert_eq!(hang["loaded"], false, "{hang}");
    assert!(
        hang["markdown"]
            .as_str()
            .is_some_and(|m| m.contains("never finishes")),
        "{hang}"
    );
    for slow in ["/slow/1", "/slow/2"] {
        assert!(code(&lines[&site.url(slow)]).is_none());
    }
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "the crawl took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_page_that_takes_too_long_is_cut_and_retried() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().join("out.jsonl");
    // The load's share is half of 4 s: /slow answers after 1.5 s and loads in time; /hang
    // never loads and is read as it is; /busy's script never yields, so nothing can be read
    // of it: it is cut at 4 s, tried once more, and cut again.
    let started = Instant::now();
    let status = pagesight()
        .args([
            "crawl",
            "--quiet",
            "--page-timeout",
            "4",
            "--retries",
            "1",
            "--out",
        ])
        .arg(&out)
        .args(["--url", &site.url("/slow/9"), "--url", &site.url("/hang")])
        .args(["--url", &site.url("/busy")])
        .status()
        .expect("run pagesight crawl");
    assert!(status.success());
    let lines = by_url(&records(&out));
    assert_eq!(lines.len(), 3);
    let slow = &lines[&site.url("/slow/9")];
    assert_eq!(slow["loaded"], true, "{slow}");
    let hang = &lines[&site.url("/hang")];
    assert_eq!(hang["loaded"], false, "{hang}");
    assert!(code(hang).is_none(), "{hang}");
    let busy = &lines[&site.url("/busy")];
    assert_eq!(code(busy), Some("TIMEOUT"), "{busy}");
    assert_eq!(busy["attempts"], 2, "{busy}");
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "the crawl took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_page_is_read_once_parsed_unless_its_load_is_asked_for() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let crawl = |wait: Option<&str>, out: &Path| {
        let mut command = pagesight();
        command
            .args(["crawl", "--quiet", "--extract", "markdown", "--out"])
            .arg(out)
            .args(["--url", &site.url("/held"), "--url", &site.url("/leaving")]);
        if let Some(wait) = wait {
            command.args(["--wait-until", wait]);
        }
        let status = command.status().expect("run pagesight crawl");
        assert!(status.success());
        by_url(&records(out))
    };
    let parsed = crawl(None, &dir.path().join("parsed.jsonl"));
    let held = &parsed[&site.url("/held")];
    assert_eq!(held["loaded"], true, "{held}");
    let markdown = held["markdown"].as_str().unwrap_or_default();
    assert!(markdown.contains("read once parsed"), "{held}");
    // A redirect started while the document was parsed is followed to its page.
    let leaving = &parsed[&site.url("/leaving")];
    assert_eq!(leaving["finalUrl"], site.url("/slow/3"), "{leaving}");
    assert!(
        leaving["markdown"]
            .as_str()
            .is_some_and(|m| m.contains("A slow page")),
        "{leaving}"
    );
    let loaded = crawl(Some("load"), &dir.path().join("loaded.jsonl"));
    let held = &loaded[&site.url("/held")];
    assert_eq!(held["loaded"], true, "{held}");
    let markdown = held["markdown"].as_str().unwrap_or_default();
    assert!(markdown.contains("read after its load"), "{held}");
    assert_eq!(
        loaded[&site.url("/leaving")]["finalUrl"],
        site.url("/slow/3")
    );
    let refused = pagesight()
        .args(["crawl", "--url", &site.url("/held"), "--wait-until", "idle"])
        .output()
        .expect("run pagesight crawl");
    assert!(!refused.status.success());
}

#[test]
fn a_shared_context_reads_page_after_page_in_the_tabs_it_keeps() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let browser = runtime
        .block_on(pagesight::Browser::launch(pagesight::LaunchOptions {
            transport: pagesight::browser::LaunchTransport::WebSocket,
            ..pagesight::LaunchOptions::default()
        }))
        .expect("launch a Chromium with a debugging port");
    let endpoint = browser.websocket_url().expect("its WebSocket").to_string();
    let tabs_before: BTreeSet<String> = runtime
        .block_on(browser.pages())
        .expect("the browser's pages")
        .into_iter()
        .map(|p| p.target_id)
        .collect();
    // Pages of the site, with wandering and closing ones among them, each followed by a slow
    // one: the page goes elsewhere, or closes its window, while the next page's navigation
    // waits for its server.
    let mut urls = Vec::new();
    for n in 0..60 {
        urls.push(site.url(&format!("/p/{n}")));
        if n % 12 == 5 {
            urls.push(site.url(&format!("/wander/{n}")));
            urls.push(site.url(&format!("/slow/{n}")));
        }
        if n % 12 == 11 {
            urls.push(site.url(&format!("/closing/{n}")));
            urls.push(site.url(&format!("/slow/{n}")));
        }
    }
    let list = write_urls(dir.path(), &urls);
    let out = dir.path().join("out.jsonl");
    let mut child = pagesight()
        .args(["crawl", "--quiet", "--shared-context", "--concurrency", "2"])
        .args(["--extract", "markdown", "--browser", &endpoint, "--out"])
        .arg(&out)
        .arg(&list)
        .spawn()
        .expect("start pagesight crawl");
    // Every tab the crawl has open, seen while it runs.
    let mut seen = BTreeSet::new();
    let mut most_at_once = 0;
    let mut closed_one = false;
    let deadline = Instant::now() + Duration::from_secs(180);
    while child.try_wait().expect("the crawl's state").is_none() {
        assert!(Instant::now() < deadline, "the crawl did not end");
        let open: Vec<String> = runtime
            .block_on(browser.pages())
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.target_id)
            .filter(|id| !tabs_before.contains(id))
            .collect();
        most_at_once = most_at_once.max(open.len());
        // Once, midway: one of the crawl's tabs is closed under it, as a person or another
        // program might. The page in it, or the next one given that tab, is tried again.
        let done = std::fs::read_to_string(&out).map_or(0, |t| t.lines().count());
        if !closed_one && done >= urls.len() / 2 {
            if let Some(victim) = open.first() {
                let options = pagesight::SessionOptions {
                    target: Some(victim.clone()),
                    ..pagesight::SessionOptions::default()
                };
                runtime.block_on(async {
                    let mut other = pagesight::Session::with_browser(browser.share(), options)
                        .await
                        .expect("attach to the crawl's tab");
                    other.close().await.expect("close it");
                });
                closed_one = true;
            }
        }
        seen.extend(open);
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(closed_one, "no tab was closed");
    assert!(child.wait().expect("the crawl ends").success());
    let lines = by_url(&records(&out));
    assert_eq!(lines.len(), urls.len(), "every URL once");
    for (url, r) in &lines {
        assert!(code(r).is_none(), "{r}");
        let path = url.trim_start_matches(&site.address);
        let markdown = r["markdown"].as_str().unwrap_or_default();
        match path.strip_prefix("/p/") {
            // Each page read as itself, whatever its tab showed before.
            Some(n) => {
                assert_eq!(r["title"], format!("Page {n}"), "{r}");
                assert_eq!(r["finalUrl"], url.as_str(), "{r}");
                assert!(markdown.contains(&format!("Page number {n}")), "{r}");
            }
            // A wandering page may have left before it was read (a slow machine); then its
            // record says where it went.
            None if path.starts_with("/wander/") && r["finalUrl"] == site.url("/p/0") => {}
            None => {
                let title = r["title"].as_str().unwrap_or_default();
                assert!(title.ends_with(path), "{r}");
                assert_eq!(r["finalUrl"], url.as_str(), "{r}");
            }
        }
    }
    // Two pages at a time, in a handful of tabs: the closing pages' tabs are replaced.
    assert!(most_at_once <= 2, "{most_at_once} tabs at once");
    assert!(
        seen.len() <= 2 + 2 * 5,
        "{} tabs for {} pages",
        seen.len(),
        urls.len()
    );
    // And none is left behind.
    let left: Vec<String> = runtime
        .block_on(browser.pages())
        .expect("the browser's pages")
        .into_iter()
        .map(|p| p.target_id)
        .filter(|id| !tabs_before.contains(id))
        .collect();
    assert!(left.is_empty(), "tabs left open: {left:?}");
    runtime.block_on(async {
        let _ = browser.close().await;
    });
}

/// The pages within `depth` links of page 0, and the private pages they link to.
fn reachable(depth: usize) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut seen = BTreeSet::from([0usize]);
    let mut private = BTreeSet::new();
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    while let Some((n, d)) = queue.pop_front() {
        if d == depth {
            continue;
        }
        for link in links_of(n) {
            if link.starts_with("/private/") {
                private.insert(link);
            } else if let Some(m) = link.strip_prefix("/p/").and_then(|m| m.parse().ok()) {
                if seen.insert(m) {
                    queue.push_back((m, d + 1));
                }
            }
        }
    }
    (seen.iter().map(|n| format!("/p/{n}")).collect(), private)
}

#[test]
fn following_links_visits_what_depth_scope_and_robots_allow() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().join("out.jsonl");
    let status = pagesight()
        .args([
            "crawl",
            "--quiet",
            "--concurrency",
            "4",
            "--follow",
            "same-origin",
        ])
        .args(["--depth", "3", "--out"])
        .arg(&out)
        .args(["--url", &site.url("/p/0")])
        .status()
        .expect("run pagesight crawl");
    assert!(status.success());
    let lines = by_url(&records(&out));
    let (pages, private) = reachable(3);
    let visited: BTreeSet<String> = lines
        .iter()
        .filter(|(_, r)| code(r).is_none())
        .map(|(u, _)| u.trim_start_matches(&site.address).to_string())
        .collect();
    assert_eq!(visited, pages, "exactly the pages within three links");
    let refused: BTreeSet<String> = lines
        .iter()
        .filter(|(_, r)| code(r) == Some("ROBOTS_DISALLOWED"))
        .map(|(u, _)| u.trim_start_matches(&site.address).to_string())
        .collect();
    assert_eq!(
        refused, private,
        "robots.txt's disallowed pages are named, not fetched"
    );
    assert_eq!(site.hits_of("/private/"), 0);
    assert_eq!(site.hits_of("/robots.txt"), 1, "robots.txt read once");
    for r in lines.values() {
        assert!(r["depth"].as_u64().is_some_and(|d| d <= 3), "{r}");
        assert!(
            r.get("links").is_none(),
            "links are printed only with --links"
        );
    }

    // A page cap, and robots.txt ignored.
    let capped = dir.path().join("capped.jsonl");
    let status = pagesight()
        .args([
            "crawl",
            "--quiet",
            "--concurrency",
            "2",
            "--follow",
            "same-origin",
        ])
        .args([
            "--depth",
            "5",
            "--max-pages",
            "12",
            "--ignore-robots",
            "--out",
        ])
        .arg(&capped)
        .args(["--url", &site.url("/p/0")])
        .status()
        .expect("run pagesight crawl");
    assert!(status.success());
    let lines = by_url(&records(&capped));
    assert_eq!(lines.len(), 12, "{:?}", lines.keys());
    assert!(lines.values().all(|r| code(r).is_none()));
    assert!(
        lines.contains_key(&site.url("/private/0")),
        "robots.txt ignored"
    );
}

#[test]
fn resume_after_a_kill_takes_up_exactly_the_rest() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let urls: Vec<String> = (0..PAGES).map(|n| site.url(&format!("/p/{n}"))).collect();
    let list = write_urls(dir.path(), &urls);
    let out = dir.path().join("out.jsonl");
    let mut child = pagesight()
        .args(["crawl", "--quiet", "--concurrency", "4", "--out"])
        .arg(&out)
        .arg(&list)
        .spawn()
        .expect("start pagesight crawl");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let done = std::fs::read_to_string(&out).map_or(0, |t| t.lines().count());
        if done >= 30 {
            break;
        }
        assert!(Instant::now() < deadline, "the crawl made no progress");
        assert!(
            child.try_wait().ok().flatten().is_none(),
            "the crawl ended early"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL the crawl");
    let _ = child.wait();
    let first = records(&out)
        .iter()
        .map(|r| r["url"].as_str().unwrap_or_default().to_string())
        .collect::<BTreeSet<_>>();
    assert!(first.len() >= 30 && first.len() < PAGES, "{}", first.len());
    let hits_before = site.hits_of("/p/");

    let status = pagesight()
        .args([
            "crawl",
            "--quiet",
            "--concurrency",
            "4",
            "--resume",
            "--out",
        ])
        .arg(&out)
        .arg(&list)
        .status()
        .expect("resume pagesight crawl");
    assert!(status.success());
    let lines = by_url(&records(&out));
    assert_eq!(lines.len(), PAGES, "every URL once");
    assert!(lines.values().all(|r| code(r).is_none()));
    let fetched_again = site.hits_of("/p/") - hits_before;
    // Pages in flight at the kill had no line: they are fetched again, nothing else is.
    assert!(
        fetched_again >= PAGES - first.len() && fetched_again <= PAGES - first.len() + 4,
        "{fetched_again} fetched on resume, {} were done",
        first.len()
    );
}

#[test]
fn two_browsers_one_killed_in_the_middle_nothing_lost() {
    let site = Site::start();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let launch = || {
        runtime
            .block_on(pagesight::Browser::launch(pagesight::LaunchOptions {
                transport: pagesight::browser::LaunchTransport::WebSocket,
                ..pagesight::LaunchOptions::default()
            }))
            .expect("launch a Chromium with a debugging port")
    };
    let (first, second) = (launch(), launch());
    let endpoint = |b: &pagesight::Browser| b.websocket_url().expect("its WebSocket").to_string();
    let (first_url, second_url) = (endpoint(&first), endpoint(&second));
    let urls: Vec<String> = (0..120).map(|n| site.url(&format!("/p/{n}"))).collect();
    let list = write_urls(dir.path(), &urls);
    let out = dir.path().join("out.jsonl");
    let mut child = pagesight()
        .args([
            "crawl",
            "--quiet",
            "--concurrency",
            "4",
            "--retries",
            "1",
            "--out",
        ])
        .arg(&out)
        .args(["--browser", &first_url, "--browser", &second_url])
        .arg(&list)
        .spawn()
        .expect("start pagesight crawl");
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()) < 20 {
        assert!(Instant::now() < deadline, "the crawl made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = first.pid().expect("a launched browser's pid");
    // SAFETY: kill(2) on the process group of a browser this test launched.
    unsafe { libc::kill(-(pid as i32), libc::SIGKILL) };
    let status = child.wait().expect("the crawl ends");
    assert!(status.success());
    let lines = by_url(&records(&out));
    assert_eq!(lines.len(), urls.len(), "every URL once");
    let failed: Vec<&Value> = lines.values().filter(|r| code(r).is_some()).collect();
    assert!(failed.is_empty(), "nothing lost: {failed:?}");
    let label = |u: &str| u.split('?').next().unwrap_or(u).to_string();
    let on_second = lines
        .values()
        .filter(|r| r["browser"].as_str() == Some(label(&second_url).as_str()))
        .count();
    let on_first = lines.len() - on_second;
    assert!(
        on_first >= 1 && on_second > urls.len() / 2,
        "{on_first} / {on_second}"
    );
    let retried = lines
        .values()
        .filter(|r| r["attempts"].as_u64() > Some(1))
        .count();
    // The pages in flight on the killed browser, and one or two each time the set-aside
    // browser is tried again (after 1, 2, 4, 8 … s): a handful, not a share of the crawl.
    assert!(
        retried <= 2 + 2 * 7,
        "{retried} pages were tried more than once"
    );
    assert!(
        lines
            .values()
            .filter(|r| r["attempts"].as_u64() > Some(1))
            .all(|r| r["browser"].as_str() == Some(label(&second_url).as_str())),
        "every page redone was redone on the browser left"
    );
    runtime.block_on(async {
        let _ = first.close().await;
        let _ = second.close().await;
    });
}

#[test]
fn a_crawl_with_no_browser_to_reach_says_so_at_once() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().join("out.jsonl");
    let started = Instant::now();
    let result = pagesight()
        .args(["crawl", "--url", "http://127.0.0.1:9/", "--out"])
        .arg(&out)
        .args([
            "--browser",
            "http://127.0.0.1:9",
            "--browser",
            "ws://127.0.0.1:9/devtools",
        ])
        .output()
        .expect("run pagesight crawl");
    assert!(!result.status.success());
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("no browser to crawl with"), "{stderr}");
    assert!(stderr.contains("127.0.0.1:9"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));

    // Bad input is refused before any browser starts.
    for args in [
        vec!["--url", "http://127.0.0.1:9/", "--concurrency", "0"],
        vec!["--url", "http://127.0.0.1:9/", "--follow", "sideways"],
        vec!["--url", "http://127.0.0.1:9/", "--page-timeout", "0"],
        vec![
            "--url",
            "http://127.0.0.1:9/",
            "--browser-header",
            "no colon",
        ],
        vec![],
    ] {
        let result = pagesight()
            .arg("crawl")
            .args(&args)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run pagesight crawl");
        assert!(!result.status.success(), "{args:?} was taken");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.starts_with("pagesight: "), "{args:?}: {stderr}");
    }
}
