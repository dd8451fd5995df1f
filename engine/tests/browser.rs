//! Launch, connect, close and pages against a real headless Chromium.
//!
//! Each lifecycle test launches its own browser (about half a second each) because what it
//! checks is the process and profile of that browser. The navigation tests share one.
//! Tests that need a different environment or a signal run the test binary again as a child
//! process (`PAGESIGHT_TEST_CHILD` selects the child's role).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pagesight::browser::{Browser, LaunchOptions, LaunchTransport, Viewport};
use pagesight::cdp::runtime;
use pagesight::ErrorCode;
use tokio::runtime::Runtime;

fn rt() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

extern "C" fn clean_up_at_exit() {
    pagesight::browser::kill_launched_browsers();
}

fn options(transport: LaunchTransport) -> LaunchOptions {
    static AT_EXIT: OnceLock<()> = OnceLock::new();
    AT_EXIT.get_or_init(|| {
        // SAFETY: registering a plain extern "C" function.
        unsafe {
            libc::atexit(clean_up_at_exit);
        }
    });
    LaunchOptions {
        transport,
        ..LaunchOptions::default()
    }
}

/// Call outside `rt().block_on`.
fn shared_browser() -> &'static Browser {
    static BROWSER: OnceLock<Browser> = OnceLock::new();
    BROWSER.get_or_init(|| {
        rt().block_on(Browser::launch(options(LaunchTransport::Pipe)))
            .expect("Chromium launches (set CHROME if it is not on PATH)")
    })
}

/// Whether any process of group `pgid` is still running. Zombies do not count: helpers
/// orphaned by the browser's death are reaped by init, which some container inits do slowly.
fn process_group_alive(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // pid (comm) state ppid pgrp ...; comm may contain spaces, so split after the ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        group == Some(pgid) && state != Some("Z")
    })
}

/// The browser's whole process group is gone (allowing a moment for orphaned helpers to be
/// reaped by init) and its profile directory is removed.
fn assert_cleaned_up(pid: u32, profile: &Path) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while process_group_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !process_group_alive(pid),
        "process group {pid} is still alive"
    );
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "process {pid} is not reaped"
    );
    assert!(!profile.exists(), "{} still exists", profile.display());
}

fn evaluate(expression: &str) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        return_by_value: Some(true),
        ..runtime::EvaluateParams::new(expression.to_owned())
    }
}

fn launch_and_close(transport: LaunchTransport) {
    rt().block_on(async {
        let started = Instant::now();
        let browser = Browser::launch(options(transport)).await.expect("launch");
        let launched_in = started.elapsed();
        let pid = browser.pid().expect("pid");
        let profile = browser.profile_dir().expect("profile").to_path_buf();
        assert!(profile.exists());
        let version = browser.version().await.expect("version");
        assert!(version.product.contains("Chrome"), "{}", version.product);
        let started = Instant::now();
        browser.close().await.expect("close");
        eprintln!(
            "{transport:?}: launched in {launched_in:?}, closed in {:?}",
            started.elapsed()
        );
        assert_cleaned_up(pid, &profile);
    });
}

#[test]
fn launch_and_close_over_pipe() {
    launch_and_close(LaunchTransport::Pipe);
}

#[test]
fn launch_and_close_over_websocket() {
    launch_and_close(LaunchTransport::WebSocket);
}

#[test]
fn launch_and_close_over_pipe_and_websocket() {
    launch_and_close(LaunchTransport::PipeAndWebSocket);
}

/// Driven over the pipe, the browser still lets another client in through its WebSocket; a
/// shared handle drives pages over the same pipe and leaves it open when it is closed.
#[test]
fn a_pipe_with_a_websocket_lets_others_in_and_shared_handles_let_go() {
    rt().block_on(async {
        let browser = Browser::launch(options(LaunchTransport::PipeAndWebSocket))
            .await
            .expect("launch");
        let ws = browser.websocket_url().expect("a ws url").to_owned();
        assert!(ws.starts_with("ws://127.0.0.1:"), "{ws}");
        let other = Browser::connect(&ws)
            .await
            .expect("another client connects");
        assert!(other.version().await.is_ok());
        other.close().await.expect("disconnect");

        let shared = browser.share();
        assert_eq!(shared.pid(), None);
        let page = shared
            .new_page()
            .await
            .expect("a page over the shared pipe");
        page.navigate(
            "data:text/html,<title>shared</title>",
            Duration::from_secs(10),
        )
        .await
        .expect("navigate");
        shared.close().await.expect("let go");
        // The pipe is still open, for the page and the browser.
        assert!(page.send(&evaluate("1")).await.is_ok());
        assert!(browser.version().await.is_ok());

        // Closing the browser ends what shares it.
        let shared = browser.share();
        let pid = browser.pid().expect("pid");
        let profile = browser.profile_dir().expect("profile").to_path_buf();
        browser.close().await.expect("close");
        assert_eq!(
            shared.version().await.map_err(|e| e.code()).err(),
            Some(ErrorCode::BrowserClosed)
        );
        assert_cleaned_up(pid, &profile);
    });
}

#[test]
fn dropping_a_launched_browser_cleans_up() {
    let (pid, profile) = rt().block_on(async {
        let browser = Browser::launch(options(LaunchTransport::Pipe))
            .await
            .expect("launch");
        let page = browser.new_page().await.expect("a page");
        page.navigate("data:text/html,hi", Duration::from_secs(10))
            .await
            .expect("navigate");
        let found = (
            browser.pid().expect("pid"),
            browser.profile_dir().expect("profile").to_path_buf(),
        );
        drop(browser);
        // The page's connection handle is now useless too.
        let after = page.send(&evaluate("1")).await;
        assert_eq!(
            after.map_err(|e| e.code()).err(),
            Some(ErrorCode::BrowserClosed)
        );
        found
    });
    assert_cleaned_up(pid, &profile);
}

#[test]
fn a_browser_handed_over_as_its_pipe_answers_and_is_cleaned_up() {
    use std::io::{Read, Write};
    // No runtime: the pipe is read and written on this thread. (`options` registers the
    // clean-up at exit the other tests rely on.)
    let _ = options(LaunchTransport::Pipe);
    let browser = pagesight::browser::PipeBrowser::launch(None)
        .expect("Chromium launches (set CHROME if it is not on PATH)");
    let (pid, profile) = (
        browser.pid(),
        browser.profile_dir().expect("profile").to_path_buf(),
    );
    assert!(profile.is_dir());
    browser
        .commands()
        .write_all(b"{\"id\":1,\"method\":\"Browser.getVersion\"}\0")
        .expect("write");
    let mut read = Vec::new();
    let mut chunk = [0u8; 4096];
    let reply = loop {
        let n = browser.replies().read(&mut chunk).expect("read");
        assert!(n > 0, "the browser closed its pipe");
        read.extend_from_slice(&chunk[..n]);
        let messages: Vec<&[u8]> = read.split(|b| *b == 0).collect();
        let complete = &messages[..messages.len() - 1];
        if let Some(reply) = complete.iter().find(|m| m.starts_with(b"{\"id\":1,")) {
            break String::from_utf8_lossy(reply).into_owned();
        }
    };
    assert!(reply.contains("\"product\""), "{reply}");
    drop(browser);
    assert_cleaned_up(pid, &profile);
}

#[test]
fn connect_over_http_and_websocket_never_kills() {
    rt().block_on(async {
        let launched = Browser::launch(options(LaunchTransport::WebSocket))
            .await
            .expect("launch");
        let ws = launched.websocket_url().expect("a ws url").to_owned();
        let authority = ws
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .expect("host:port")
            .to_owned();

        let by_ws = Browser::connect(&ws).await.expect("connect by ws://");
        let by_http = Browser::connect(&format!("http://{authority}"))
            .await
            .expect("connect by http://");
        assert_eq!(by_ws.pid(), None);
        let page = by_http
            .new_page()
            .await
            .expect("a page over the second connection");
        let pages = by_ws.pages().await.expect("pages");
        assert!(pages.iter().any(|p| p.target_id == page.target_id()));
        let attached = by_ws
            .attach_page(page.target_id())
            .await
            .expect("attach to an existing page");
        attached
            .navigate(
                "data:text/html,<title>shared</title>",
                Duration::from_secs(10),
            )
            .await
            .expect("navigate");
        assert!(by_http.version().await.is_ok());

        by_ws.close().await.expect("disconnect");
        drop(by_http);
        // The launched browser is untouched.
        let pid = launched.pid().expect("pid");
        assert!(process_group_alive(pid));
        assert!(launched.version().await.is_ok());
        let profile = launched.profile_dir().expect("profile").to_path_buf();
        launched.close().await.expect("close");
        assert_cleaned_up(pid, &profile);
    });
}

#[test]
fn bad_endpoints_are_clear_errors() {
    rt().block_on(async {
        let refused = Browser::connect("http://127.0.0.1:1")
            .await
            .expect_err("refused");
        assert_eq!(refused.code(), ErrorCode::BrowserClosed);
        assert!(
            refused.message().contains("--remote-debugging-port"),
            "{refused}"
        );
        let bad = Browser::connect("localhost:9222")
            .await
            .expect_err("no scheme");
        assert_eq!(bad.code(), ErrorCode::InvalidArgument);
    });
}

#[test]
fn attach_to_a_missing_target_is_an_invalid_argument() {
    let browser = shared_browser();
    rt().block_on(async {
        let error = browser
            .attach_page("0123456789ABCDEF0123456789ABCDEF")
            .await
            .expect_err("no such target");
        assert_eq!(error.code(), ErrorCode::InvalidArgument, "{error}");
    });
}

#[test]
fn navigate_waits_for_load_and_sets_the_viewport() {
    let browser = shared_browser();
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        // The load event waits for the image; the script records when it ran.
        let html =
            "data:text/html,<title>t</title><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>\
                    <script>addEventListener('load', () => window.loaded = true)</script>";
        let outcome = page
            .navigate(html, Duration::from_secs(10))
            .await
            .expect("navigate");
        assert!(!outcome.timed_out);
        assert!(outcome.loader_id.is_some());
        assert_eq!(outcome.frame_id.as_deref(), Some(page.target_id()));
        let loaded = page
            .send(&evaluate(
                "[window.loaded, innerWidth, innerHeight, devicePixelRatio, document.readyState]",
            ))
            .await
            .expect("evaluate");
        assert_eq!(
            loaded.result.value,
            Some(serde_json::json!([true, 1280, 800, 1, "complete"]))
        );

        // Same-document navigation: no new document, no wait.
        let fragment = page
            .navigate(&format!("{html}#part"), Duration::from_secs(10))
            .await
            .expect("fragment");
        assert!(!fragment.timed_out);
        assert_eq!(fragment.loader_id, None);
        page.close().await.expect("close");

        let small = browser
            .new_page_with_viewport(Viewport {
                width: 400,
                height: 300,
                device_scale_factor: 2.0,
            })
            .await
            .expect("a page");
        let size = small
            .send(&evaluate("[innerWidth, innerHeight, devicePixelRatio]"))
            .await
            .expect("evaluate");
        assert_eq!(size.result.value, Some(serde_json::json!([400, 300, 2])));
        small.close().await.expect("close");
    });
}

#[test]
fn navigate_to_a_file() {
    let browser = shared_browser();
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("page.html");
    std::fs::write(&file, "<title>from a file</title><p>hello</p>").expect("write");
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let outcome = page
            .navigate(
                &format!("file://{}", file.display()),
                Duration::from_secs(10),
            )
            .await
            .expect("navigate");
        assert!(!outcome.timed_out);
        let title = page.send(&evaluate("document.title")).await.expect("title");
        assert_eq!(title.result.value, Some(serde_json::json!("from a file")));
        page.close().await.expect("close");
    });
}

#[test]
fn a_page_reports_each_new_document_without_being_asked_for_one() {
    // A capture tells a new document from the old one by `DOM.documentUpdated`: the page's DOM
    // domain must report one for every new document, with no `DOM.getDocument` before.
    let browser = shared_browser();
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("page.html");
    std::fs::write(&file, "<title>one</title><p>hello</p>").expect("write");
    let url = format!("file://{}", file.display());
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let mut updates = page
            .connection()
            .subscribe_methods(Some(page.session_id()), &["DOM.documentUpdated"]);
        let mut arrived = async || {
            let wait = tokio::time::timeout(Duration::from_secs(10), updates.next()).await;
            let arrived = matches!(wait, Ok(Some(Ok(_))));
            while updates.try_next().is_some() {}
            arrived
        };
        let outcome = page
            .navigate(&url, Duration::from_secs(10))
            .await
            .expect("navigate");
        assert!(!outcome.timed_out);
        assert!(arrived().await, "no documentUpdated for a navigation");
        let rewrite = "document.open(); document.write('<p>two</p>'); document.close(); 1";
        page.send(&evaluate(rewrite)).await.expect("rewrite");
        assert!(arrived().await, "no documentUpdated for document.open()");
        page.send(&evaluate("location.reload(); 1"))
            .await
            .expect("reload");
        assert!(arrived().await, "no documentUpdated for a reload");
        page.close().await.expect("close");
    });
}

#[test]
fn navigate_to_a_closed_port_fails_with_the_net_error() {
    let browser = shared_browser();
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        // Port 1 is on Chromium's list of restricted ports: it refuses before connecting.
        let unsafe_port = page
            .navigate("http://127.0.0.1:1/", Duration::from_secs(10))
            .await
            .expect_err("restricted port");
        assert_eq!(unsafe_port.code(), ErrorCode::NavigationFailed);
        assert!(
            unsafe_port.message().contains("net::ERR_UNSAFE_PORT"),
            "{unsafe_port}"
        );
        // A free port nobody listens on: the connection is refused.
        let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let error = page
            .navigate(
                &format!("http://127.0.0.1:{closed_port}/"),
                Duration::from_secs(10),
            )
            .await
            .expect_err("refused");
        assert_eq!(error.code(), ErrorCode::NavigationFailed);
        assert!(
            error.message().contains("net::ERR_CONNECTION_REFUSED"),
            "{error}"
        );
        let invalid = page
            .navigate("not a url", Duration::from_secs(10))
            .await
            .expect_err("invalid");
        assert_eq!(invalid.code(), ErrorCode::NavigationFailed, "{invalid}");
        // Still usable.
        assert!(page.send(&evaluate("1")).await.is_ok());
        page.close().await.expect("close");
    });
}

#[test]
fn a_load_that_never_finishes_times_out_without_an_error() {
    let browser = shared_browser();
    // A server that accepts and answers with headers, then never finishes the body.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            use std::io::{Read, Write};
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<title>slow</title>",
            );
            held.push(stream);
        }
    });
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let started = Instant::now();
        let outcome = page
            .navigate(
                &format!("http://127.0.0.1:{port}/"),
                Duration::from_millis(800),
            )
            .await
            .expect("a timeout is not an error");
        assert!(outcome.timed_out);
        assert!(started.elapsed() < Duration::from_secs(3));
        let title = page
            .send(&evaluate("document.title"))
            .await
            .expect("usable");
        assert_eq!(title.result.value, Some(serde_json::json!("slow")));
        page.close().await.expect("close");
    });
}

#[test]
fn a_page_that_navigates_itself_does_not_keep_the_one_asked_for_from_loading() {
    // Each generation loads the next 20 ms after it runs: a navigation of the old document is
    // often in flight when another page is asked for, and Chromium lets it commit after ours.
    let browser = shared_browser();
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pages");
    let generations = format!(
        "file://{}?delay=20",
        pages.join("frames/gen-nav.html").display()
    );
    let forms = format!("file://{}", pages.join("forms.html").display());
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        for round in 0..40u64 {
            page.navigate(&generations, Duration::from_secs(10))
                .await
                .expect("navigate");
            tokio::time::sleep(Duration::from_millis(20 + round % 13)).await;
            let started = Instant::now();
            let outcome = page
                .navigate(&forms, Duration::from_secs(10))
                .await
                .expect("navigate");
            assert!(!outcome.timed_out, "round {round}: {outcome:?}");
            assert!(started.elapsed() < Duration::from_secs(5), "round {round}");
            let title = page.send(&evaluate("document.title")).await.expect("title");
            assert_eq!(
                title.result.value,
                Some(serde_json::json!("Forms: values set by script")),
                "round {round}"
            );
        }
        page.close().await.expect("close");
    });
}

#[test]
fn a_page_that_redirects_itself_before_it_loads_is_followed_to_where_it_goes() {
    let browser = shared_browser();
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(
        dir.path().join("first.html"),
        "<title>first</title><script>location.replace('second.html')</script>",
    )
    .expect("write");
    std::fs::write(dir.path().join("second.html"), "<title>second</title>").expect("write");
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let started = Instant::now();
        let outcome = page
            .navigate(
                &format!("file://{}", dir.path().join("first.html").display()),
                Duration::from_secs(10),
            )
            .await
            .expect("navigate");
        assert!(!outcome.timed_out, "{outcome:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let title = page.send(&evaluate("document.title")).await.expect("title");
        assert_eq!(title.result.value, Some(serde_json::json!("second")));
        page.close().await.expect("close");
    });
}

#[test]
fn a_page_that_navigates_itself_without_end_is_not_followed_without_end() {
    // Each document navigates to the next as it loads (from its `load` handler, or while it is
    // parsed): there is no last document to wait for. A person sees pages flash by; `open`
    // must answer after a few of them, not wait out its timeout.
    let browser = shared_browser();
    let dir = tempfile::tempdir().expect("a temp dir");
    let next =
        "location.replace(location.pathname + '?n=' + (Number(location.search.slice(3)) + 1))";
    std::fs::write(
        dir.path().join("onload.html"),
        format!("<title>onload</title><body onload=\"{next}\"><p>next</p></body>"),
    )
    .expect("write");
    std::fs::write(
        dir.path().join("inline.html"),
        format!("<title>inline</title><script>{next}</script>"),
    )
    .expect("write");
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        for name in ["onload.html", "inline.html"] {
            let started = Instant::now();
            let outcome = page
                .navigate(
                    &format!("file://{}", dir.path().join(name).display()),
                    Duration::from_secs(20),
                )
                .await
                .expect("navigate");
            let took = started.elapsed();
            assert!(took < Duration::from_secs(5), "{name}: {took:?}");
            if name == "onload.html" {
                // Each document loads before it navigates: one that loaded is given back.
                assert!(
                    !outcome.timed_out && !outcome.kept_navigating,
                    "{name}: {outcome:?}"
                );
            } else {
                // None ever loads: given up on, and said so.
                assert!(
                    outcome.timed_out && outcome.kept_navigating,
                    "{name}: {outcome:?}"
                );
            }
            assert!(outcome.loader_id.is_some(), "{name}: {outcome:?}");
            // Still the page asked for, a later generation of it (asked of the browser: the
            // page itself is between documents most of the time).
            let tree = page
                .send(&pagesight::cdp::page::GetFrameTreeParams {})
                .await
                .expect("frame tree");
            let url = tree.frame_tree.frame.url;
            assert!(url.contains(name), "{name}: {url}");
        }
        page.close().await.expect("close");
    });
}

/// A server whose `/loop` redirects to itself forever, `/hop/N` redirects to `/hop/N-1` down to
/// a page at `/hop/0`.
fn redirect_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            use std::io::{Read, Write};
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]);
            let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
            let hops = path
                .strip_prefix("/hop/")
                .and_then(|n| n.parse::<u32>().ok());
            let reply = match hops {
                Some(0) => "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 24\r\n\
                            Connection: close\r\n\r\n<title>arrived</title>\r\n"
                    .to_string(),
                Some(n) => format!(
                    "HTTP/1.1 302 Found\r\nLocation: /hop/{}\r\nContent-Length: 0\r\n\
                     Connection: close\r\n\r\n",
                    n - 1
                ),
                None => "HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\
                         Connection: close\r\n\r\n"
                    .to_string(),
            };
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    port
}

#[test]
fn a_redirect_loop_fails_with_the_net_error_and_a_chain_arrives() {
    let browser = shared_browser();
    let port = redirect_server();
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let started = Instant::now();
        let error = page
            .navigate(
                &format!("http://127.0.0.1:{port}/loop"),
                Duration::from_secs(20),
            )
            .await
            .expect_err("a redirect loop cannot load");
        assert_eq!(error.code(), ErrorCode::NavigationFailed, "{error}");
        assert!(
            error.message().contains("net::ERR_TOO_MANY_REDIRECTS"),
            "{error}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the loop was not cut short"
        );
        // Five hops then a page: an ordinary load, and the page is where it ended.
        let outcome = page
            .navigate(
                &format!("http://127.0.0.1:{port}/hop/5"),
                Duration::from_secs(10),
            )
            .await
            .expect("a redirect chain loads");
        assert!(!outcome.timed_out);
        let title = page.send(&evaluate("document.title")).await.expect("title");
        assert_eq!(title.result.value, Some(serde_json::json!("arrived")));
        let href = page
            .send(&evaluate("location.pathname"))
            .await
            .expect("pathname");
        assert_eq!(href.result.value, Some(serde_json::json!("/hop/0")));
        page.close().await.expect("close");
    });
}

#[test]
fn pages_lists_page_targets() {
    let browser = shared_browser();
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let pages = browser.pages().await.expect("pages");
        let listed = pages
            .iter()
            .find(|p| p.target_id == page.target_id())
            .expect("the new page is listed");
        assert!(listed.attached);
        let id = page.target_id().to_owned();
        page.close().await.expect("close");
        // Closing only starts the target's teardown: it leaves the list some time later,
        // later still on a loaded machine.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let pages = browser.pages().await.expect("pages");
            if pages.iter().all(|p| p.target_id != id) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the closed page is still listed after 10 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

// ---- tests that run the test binary again as a child process ----

const CHILD_ROLE: &str = "PAGESIGHT_TEST_CHILD";

fn child(test: &str, role: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ROLE, role)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

#[test]
fn missing_chromium_is_a_clear_error() {
    if std::env::var(CHILD_ROLE).as_deref() == Ok("missing-chrome") {
        let error = rt()
            .block_on(Browser::launch(LaunchOptions::default()))
            .expect_err("CHROME points nowhere");
        println!("ERROR {}", error);
        return;
    }
    if std::env::var_os(CHILD_ROLE).is_some() {
        return;
    }
    let output = child("missing_chromium_is_a_clear_error", "missing-chrome")
        .env("CHROME", "/nonexistent/chromium")
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.find("ERROR ").map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no error line in {stdout}"));
    assert!(line.contains("BROWSER_CLOSED"), "{line}");
    assert!(
        line.contains("CHROME is set to /nonexistent/chromium"),
        "{line}"
    );
    assert!(line.contains("unset it"), "{line}");

    // And the message when nothing is found at all.
    let found = pagesight::browser::find_chromium(Some(Path::new("/nonexistent/chromium")));
    assert!(found.is_err());
}

#[test]
fn sigint_kills_the_browser_and_removes_the_profile() {
    if std::env::var(CHILD_ROLE).as_deref() == Ok("sigint") {
        rt().block_on(async {
            pagesight::browser::exit_on_signals_with_cleanup().expect("signal handlers");
            let browser = Browser::launch(LaunchOptions::default())
                .await
                .expect("launch");
            println!(
                "READY {} {}",
                browser.pid().expect("pid"),
                browser.profile_dir().expect("profile").display()
            );
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(browser);
        });
        return;
    }
    if std::env::var_os(CHILD_ROLE).is_some() {
        return;
    }
    let mut process = child("sigint_kills_the_browser_and_removes_the_profile", "sigint")
        .spawn()
        .expect("run the child");
    let stdout = process.stdout.take().expect("stdout");
    let ready = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.find("READY ").map(|at| l[at..].to_owned()))
        .expect("the child launched a browser");
    let mut fields = ready.split_whitespace().skip(1);
    let pid: u32 = fields.next().and_then(|p| p.parse().ok()).expect("pid");
    let profile = PathBuf::from(fields.next().expect("profile"));
    assert!(process_group_alive(pid));
    // SAFETY: signalling the child this test started.
    unsafe {
        libc::kill(process.id() as libc::pid_t, libc::SIGINT);
    }
    let status = process.wait().expect("the child exits");
    assert_eq!(status.code(), Some(130));
    assert_cleaned_up_allowing_init(pid, &profile);
}

/// Like `assert_cleaned_up`, for a browser whose parent was another process (init reaps it).
fn assert_cleaned_up_allowing_init(pid: u32, profile: &Path) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while (process_group_alive(pid) || Path::new(&format!("/proc/{pid}")).exists())
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !process_group_alive(pid),
        "process group {pid} is still alive"
    );
    assert!(!profile.exists(), "{} still exists", profile.display());
}

#[test]
fn sigkill_of_the_owner_still_kills_the_browser() {
    if std::env::var(CHILD_ROLE).as_deref() == Ok("sigkill") {
        rt().block_on(async {
            let browser = Browser::launch(LaunchOptions::default())
                .await
                .expect("launch");
            println!(
                "READY {} {}",
                browser.pid().expect("pid"),
                browser.profile_dir().expect("profile").display()
            );
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(browser);
        });
        return;
    }
    if std::env::var_os(CHILD_ROLE).is_some() {
        return;
    }
    let mut process = child("sigkill_of_the_owner_still_kills_the_browser", "sigkill")
        .spawn()
        .expect("run the child");
    let stdout = process.stdout.take().expect("stdout");
    let ready = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.find("READY ").map(|at| l[at..].to_owned()))
        .expect("the child launched a browser");
    let mut fields = ready.split_whitespace().skip(1);
    let pid: u32 = fields.next().and_then(|p| p.parse().ok()).expect("pid");
    let profile = PathBuf::from(fields.next().expect("profile"));
    let _ = process.kill();
    let _ = process.wait();
    let deadline = Instant::now() + Duration::from_secs(3);
    while process_group_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!process_group_alive(pid), "the browser outlived its owner");
    // Nobody can remove the profile of a SIGKILLed owner: that is this test's job.
    let _ = std::fs::remove_dir_all(profile);
}

#[test]
fn doctor_reports_a_working_chromium() {
    let report = rt()
        .block_on(pagesight::doctor::doctor(
            pagesight::doctor::DoctorOptions::default(),
        ))
        .expect("doctor");
    let text = report.to_string();
    eprintln!("{text}");
    assert!(report.ok(), "{text}");
    assert!(report.product.contains("Chrome"), "{text}");
    assert_eq!(report.pinned_protocol_version, "1.3");
    assert_eq!(
        report.commands_checked_against,
        pagesight::doctor::CommandSource::RunningBrowser
    );
    assert!(report.executable.is_some());
    assert!(text.contains("status:           OK"), "{text}");
}
