//! The transport against a real headless Chromium.
//!
//! One browser per transport is shared by the tests of this file (launched once, on a runtime
//! that lives as long as the process, cleaned up at exit); tests that kill a browser launch
//! their own.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pagesight::browser::{Browser, LaunchOptions, LaunchTransport, Page};
use pagesight::cdp::{browser as cdp_browser, page as cdp_page, runtime};
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

fn launch(transport: LaunchTransport) -> Browser {
    static AT_EXIT: OnceLock<()> = OnceLock::new();
    AT_EXIT.get_or_init(|| {
        // SAFETY: registering a plain extern "C" function.
        unsafe {
            libc::atexit(clean_up_at_exit);
        }
    });
    rt().block_on(Browser::launch(LaunchOptions {
        transport,
        ..LaunchOptions::default()
    }))
    .expect("Chromium launches (set CHROME if it is not on PATH)")
}

/// Call outside `rt().block_on` (launching blocks on the runtime).
fn pipe_browser() -> &'static Browser {
    static BROWSER: OnceLock<Browser> = OnceLock::new();
    BROWSER.get_or_init(|| launch(LaunchTransport::Pipe))
}

fn websocket_browser() -> &'static Browser {
    static BROWSER: OnceLock<Browser> = OnceLock::new();
    BROWSER.get_or_init(|| launch(LaunchTransport::WebSocket))
}

fn evaluate(expression: &str, await_promise: bool) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        return_by_value: Some(true),
        await_promise: Some(await_promise),
        ..runtime::EvaluateParams::new(expression.to_owned())
    }
}

async fn concurrent_commands(browser: &Browser) {
    let page = browser.new_page().await.expect("a page");
    let mut tasks = Vec::new();
    for i in 0..200i64 {
        let page = page.clone();
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let version = page
                    .connection()
                    .send(None, &cdp_browser::GetVersionParams {})
                    .await?;
                Ok::<_, pagesight::Error>(serde_json::json!(version.product))
            } else {
                let reply = page.send(&evaluate(&format!("{i} * 2"), false)).await?;
                Ok(reply.result.value.unwrap_or_default())
            }
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        let value = task.await.expect("task").expect("reply");
        if i % 2 == 0 {
            assert!(
                value.as_str().unwrap_or_default().contains("Chrome"),
                "{value}"
            );
        } else {
            assert_eq!(value, serde_json::json!(i * 2));
        }
    }
    page.close().await.expect("close the page");
}

#[test]
fn two_hundred_concurrent_commands_over_pipe() {
    let browser = pipe_browser();
    rt().block_on(concurrent_commands(browser));
}

#[test]
fn two_hundred_concurrent_commands_over_websocket() {
    let browser = websocket_browser();
    rt().block_on(concurrent_commands(browser));
}

#[test]
fn events_are_routed_to_their_session() {
    let browser = pipe_browser();
    rt().block_on(async {
        let (a, b) = tokio::join!(browser.new_page(), browser.new_page());
        let (a, b): (Page, Page) = (a.expect("page a"), b.expect("page b"));
        let mut a_events = a.subscribe::<cdp_page::LifecycleEventEvent>();
        let mut b_events = b.subscribe::<cdp_page::LifecycleEventEvent>();

        let outcome = a
            .navigate("data:text/html,<title>a</title>a", Duration::from_secs(10))
            .await
            .expect("navigate a");
        assert!(!outcome.timed_out);
        let mut seen = 0;
        while let Some(event) = a_events.try_next() {
            let event = event.expect("a lifecycle event");
            assert_eq!(event.frame_id, a.target_id(), "an event of page a");
            seen += 1;
        }
        assert!(seen > 0, "page a saw its lifecycle events");
        // Page b may still be hearing of its own first load (about:blank) on a busy machine:
        // what matters is that nothing of page a reaches it.
        while let Some(event) = b_events.try_next() {
            let event = event.expect("b lifecycle event");
            assert_eq!(
                event.frame_id,
                b.target_id(),
                "page b saw nothing of page a"
            );
        }

        b.navigate("data:text/html,b", Duration::from_secs(10))
            .await
            .expect("navigate b");
        let event = b_events.try_next().expect("an event").expect("parsed");
        assert_eq!(event.frame_id, b.target_id());
        while let Some(event) = a_events.try_next() {
            let event = event.expect("a lifecycle event");
            assert_eq!(
                event.frame_id,
                a.target_id(),
                "page a saw nothing of page b"
            );
        }
        let _ = tokio::join!(a.close(), b.close());
    });
}

#[test]
fn command_timeout_leaves_the_connection_usable() {
    let browser = pipe_browser();
    rt().block_on(async {
        let page = browser.new_page().await.expect("a page");
        let started = Instant::now();
        let never = page
            .connection()
            .send_with_timeout(
                Some(page.session_id()),
                &evaluate("new Promise(() => {})", true),
                Duration::from_millis(200),
            )
            .await;
        let elapsed = started.elapsed();
        assert_eq!(never.map_err(|e| e.code()).err(), Some(ErrorCode::Timeout));
        assert!(elapsed < Duration::from_millis(1000), "{elapsed:?}");
        let reply = page
            .send(&evaluate("1 + 1", false))
            .await
            .expect("still works");
        assert_eq!(reply.result.value, Some(serde_json::json!(2)));
        page.close().await.expect("close");
    });
}

#[test]
fn cdp_error_reply_is_a_protocol_error() {
    let browser = pipe_browser();
    rt().block_on(async {
        let error = browser
            .connection()
            .send_raw("Nonexistent.method", None, &serde_json::json!({}))
            .await
            .expect_err("an unknown method fails");
        assert_eq!(error.code(), ErrorCode::ProtocolError);
        assert!(
            error
                .message()
                .contains("'Nonexistent.method' wasn't found"),
            "{error}"
        );
        // And the raw path answers known methods.
        let version = browser
            .connection()
            .send_raw("Browser.getVersion", None, &serde_json::json!({}))
            .await
            .expect("raw getVersion");
        assert!(version.as_str().contains("protocolVersion"));
    });
}

fn killed_mid_command(transport: LaunchTransport) {
    rt().block_on(async {
        let browser = Browser::launch(LaunchOptions {
            transport,
            ..LaunchOptions::default()
        })
        .await
        .expect("launch");
        let page = browser.new_page().await.expect("a page");
        let mut waiters = Vec::new();
        for _ in 0..20 {
            let page = page.clone();
            waiters.push(tokio::spawn(async move {
                let result = page.send(&evaluate("new Promise(() => {})", true)).await;
                (result.map(|_| ()), Instant::now())
            }));
        }
        let mut events = page.connection().subscribe_all();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let pid = browser.pid().expect("a launched browser has a pid") as libc::pid_t;
        let killed_at = Instant::now();
        // SAFETY: signalling the browser this test launched.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        for waiter in waiters {
            let (result, at) = waiter.await.expect("task");
            assert_eq!(
                result.map_err(|e| e.code()).err(),
                Some(ErrorCode::BrowserClosed)
            );
            let after = at.duration_since(killed_at);
            assert!(after < Duration::from_secs(1), "answered after {after:?}");
        }
        loop {
            match tokio::time::timeout(Duration::from_secs(1), events.next()).await {
                Ok(Some(Ok(_))) => continue,
                Ok(Some(Err(e))) => {
                    assert_eq!(e.code(), ErrorCode::BrowserClosed);
                    break;
                }
                other => panic!("the subscriber should learn the browser closed: {other:?}"),
            }
        }
        let dir = browser.profile_dir().map(|p| p.to_path_buf());
        browser.close().await.expect("close a dead browser");
        assert!(!dir.expect("a profile").exists());
    });
}

#[test]
fn browser_killed_mid_command_over_pipe() {
    killed_mid_command(LaunchTransport::Pipe);
}

#[test]
fn browser_killed_mid_command_over_websocket() {
    killed_mid_command(LaunchTransport::WebSocket);
}

async fn large_reply(browser: &Browser) {
    let page = browser.new_page().await.expect("a page");
    // 20 MiB: above tungstenite's default 16 MiB frame limit.
    let reply = page
        .send(&evaluate("'x'.repeat(20 * 1024 * 1024)", false))
        .await
        .expect("a 20 MiB reply");
    let length = reply
        .result
        .value
        .as_ref()
        .and_then(|v| v.as_str())
        .map(str::len);
    assert_eq!(length, Some(20 * 1024 * 1024));
    page.close().await.expect("close");
}

#[test]
fn replies_larger_than_16_mib_over_pipe() {
    let browser = pipe_browser();
    rt().block_on(large_reply(browser));
}

#[test]
fn replies_larger_than_16_mib_over_websocket() {
    let browser = websocket_browser();
    rt().block_on(large_reply(browser));
}
