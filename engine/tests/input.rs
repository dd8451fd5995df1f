//! `drag`, `type_text`, `wait_for`, `resize` and `new_page` against a real headless Chromium:
//! each test opens its own page of one shared browser (launched once per test binary, killed
//! at exit), sends commands through `Session::execute_json` as a front end does, and reads
//! back what the page saw.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pagesight::browser::{kill_launched_browsers, Browser, LaunchOptions, LaunchTransport};
use pagesight::cdp::dom::DescribeNodeParams;
use pagesight::cdp::runtime::EvaluateParams;
use pagesight::session::{Session, SessionOptions};
use serde_json::{json, Value};

mod common;
use common::{serve_two_origins, Origins};

static BROWSER: OnceLock<Result<String, String>> = OnceLock::new();

extern "C" fn kill_shared_browser() {
    kill_launched_browsers();
}

/// The WebSocket URL of the shared browser, launching it on first use, on a thread of its own
/// so that every test's runtime can come and go.
fn browser_url() -> String {
    let url = BROWSER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                    return;
                }
            };
            runtime.block_on(async move {
                let options = LaunchOptions {
                    transport: LaunchTransport::WebSocket,
                    ..LaunchOptions::default()
                };
                match Browser::launch(options).await {
                    Ok(browser) => {
                        let url = browser.websocket_url().map(str::to_string);
                        let _ = tx.send(url.ok_or_else(|| "no WebSocket URL".to_string()));
                        std::future::pending::<()>().await;
                        drop(browser);
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                    }
                }
            });
        });
        // SAFETY: registers a plain function without arguments to run at process exit.
        unsafe {
            libc::atexit(kill_shared_browser);
        }
        rx.recv().map_err(|e| e.to_string()).and_then(|r| r)
    });
    match url {
        Ok(u) => u.clone(),
        Err(e) => panic!("cannot launch Chromium for the input tests: {e}"),
    }
}

fn page_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/pages/actions")
        .join(name)
}

/// `fixtures/pages/actions/` served on two loopback origins (cross-site frames).
fn origins() -> &'static Origins {
    static ORIGINS: OnceLock<Origins> = OnceLock::new();
    ORIGINS.get_or_init(|| {
        serve_two_origins(common::pages_dir("actions")).expect("serve the pages on two origins")
    })
}

/// One test's tab: a session on its own page of the shared browser, and the uids its last
/// snapshot gave the page's elements (by `backendNodeId`).
struct Tab {
    s: Session,
    uids: HashMap<String, String>,
}

impl Tab {
    async fn open(name: &str) -> Tab {
        Tab::open_url(&page_path(name).to_string_lossy()).await
    }

    async fn open_served(name: &str) -> Tab {
        Tab::open_url(&format!("{}/{name}", origins().a)).await
    }

    async fn open_url(url: &str) -> Tab {
        let options = SessionOptions {
            browser: Some(browser_url()),
            ..SessionOptions::default()
        };
        let mut s = Session::start(options)
            .await
            .expect("connect to the shared browser");
        let r = s.execute_json(&json!({"cmd": "open", "url": url})).await;
        assert!(r.is_ok(), "open {url}: {r:?}");
        Tab {
            s,
            uids: HashMap::new(),
        }
    }

    async fn run(&mut self, cmd: Value) -> Result<Value, (String, String)> {
        self.s
            .execute_json(&cmd)
            .await
            .map_err(|e| (e.code().as_str().to_string(), e.message().to_string()))
    }

    async fn ok(&mut self, cmd: Value) -> Value {
        match self.run(cmd.clone()).await {
            Ok(v) => v,
            Err(e) => panic!("{cmd} failed: {e:?}"),
        }
    }

    async fn err(&mut self, cmd: Value) -> (String, String) {
        match self.run(cmd.clone()).await {
            Ok(v) => panic!("{cmd} should have failed but returned {v}"),
            Err(e) => e,
        }
    }

    async fn eval(&self, expr: &str) -> Value {
        let page = self.s.current_page().expect("a page is open");
        let r = page
            .send(&EvaluateParams {
                return_by_value: Some(true),
                await_promise: Some(true),
                ..EvaluateParams::new(expr.to_string())
            })
            .await
            .expect("Runtime.evaluate");
        r.result.value.unwrap_or(Value::Null)
    }

    async fn text(&self, id: &str) -> String {
        let v = self
            .eval(&format!("document.getElementById({id:?}).textContent"))
            .await;
        v.as_str().unwrap_or_default().to_string()
    }

    async fn snapshot(&mut self) {
        for mode in ["a11y", "dom"] {
            let snap = self
                .ok(json!({"cmd":"snapshot","format":"json","mode":mode,"expand":"all","verbose":true}))
                .await;
            fn walk(v: &Value, out: &mut HashMap<String, String>) {
                if let (Some(b), Some(u)) =
                    (v.get("backendNodeId"), v.get("uid").and_then(Value::as_str))
                {
                    out.insert(b.to_string(), u.to_string());
                }
                if let Some(children) = v.get("children").and_then(Value::as_array) {
                    for c in children {
                        walk(c, out);
                    }
                }
            }
            if let Some(root) = snap.get("root") {
                walk(root, &mut self.uids);
            }
        }
    }

    /// The uid of the element with this id, from the last [`Tab::snapshot`].
    async fn uid(&mut self, id: &str) -> String {
        let page = self.s.current_page().expect("a page is open");
        let r = page
            .send(&EvaluateParams {
                return_by_value: Some(false),
                ..EvaluateParams::new(format!("document.getElementById({id:?})"))
            })
            .await
            .expect("Runtime.evaluate");
        let object_id = r.result.object_id.unwrap_or_else(|| panic!("no #{id}"));
        let backend = page
            .send(&DescribeNodeParams {
                object_id: Some(object_id),
                ..Default::default()
            })
            .await
            .expect("DOM.describeNode")
            .node
            .backend_node_id;
        match self.uids.get(&backend.to_string()) {
            Some(u) => u.clone(),
            None => panic!("#{id} has no uid in the snapshot"),
        }
    }

    async fn close(mut self) {
        let _ = self.s.execute_json(&json!({"cmd": "close"})).await;
        let _ = self.s.shutdown().await;
    }
}

macro_rules! assert_code {
    ($e:expr, $code:expr) => {{
        let (code, message) = $e;
        assert_eq!(code, $code, "message: {message}");
        message
    }};
}

// ----- drag -----

#[tokio::test]
async fn drag_drops_an_html5_draggable_into_a_zone() {
    let mut t = Tab::open("drag.html").await;
    t.snapshot().await;
    let (card, done) = (t.uid("card").await, t.uid("done").await);
    let r = t
        .ok(json!({"cmd":"drag","fromUid":card,"toUid":done}))
        .await;
    assert_eq!(r["dragged"], json!(card), "{r}");
    assert_eq!(r["onto"], json!(done), "{r}");
    assert_eq!(r["native"], json!(true), "{r}");
    assert!(
        r["from"]["x"].is_number() && r["to"]["y"].is_number(),
        "{r}"
    );
    assert_eq!(t.text("dropped").await, "card into done");
    let parent = t
        .eval("document.getElementById('card').parentElement.id")
        .await;
    assert_eq!(parent, json!("done"));
    let log = t.text("dnd-log").await;
    assert!(log.starts_with("dragstart,"), "{log}");
    assert!(log.contains("drop:done"), "{log}");
    t.close().await;
}

#[tokio::test]
async fn drag_reorders_a_list_that_follows_the_mouse() {
    let mut t = Tab::open("drag.html").await;
    t.snapshot().await;
    let (one, three) = (t.uid("s1").await, t.uid("s3").await);
    let r = t
        .ok(json!({"cmd":"drag","from_uid":one,"to_uid":three,"snapshot":true}))
        .await;
    assert_eq!(r["native"], json!(false), "{r}");
    let order = t.text("order").await;
    assert!(
        order.starts_with("Two,"),
        "the first item moved down: {order}"
    );
    assert_ne!(order, "One,Two,Three");
    let moves: u32 = t.text("moves").await.parse().unwrap_or(0);
    assert!(moves >= 5, "the pointer moved in steps: {moves}");
    assert!(
        r["snapshot"].as_str().is_some_and(|s| s.contains("Three")),
        "{r}"
    );
    t.close().await;
}

#[tokio::test]
async fn drag_fails_like_a_click_on_covered_hidden_stale_or_same_elements() {
    let mut t = Tab::open("drag.html").await;
    t.snapshot().await;
    let card = t.uid("card").await;
    let covered = t.uid("covered-zone").await;
    let hidden = t.uid("gone-card").await;
    let done = t.uid("done").await;
    let m = assert_code!(
        t.err(json!({"cmd":"drag","fromUid":card,"toUid":covered}))
            .await,
        "OCCLUDED"
    );
    assert!(m.contains("veil") && m.contains(&covered), "{m}");
    // Nothing was pressed: the card is where it was.
    assert_eq!(t.text("dropped").await, "nothing");
    let m = assert_code!(
        t.err(json!({"cmd":"drag","fromUid":hidden,"toUid":done}))
            .await,
        "NOT_INTERACTABLE"
    );
    assert!(m.contains("display:none"), "{m}");
    let m = assert_code!(
        t.err(json!({"cmd":"drag","fromUid":card,"toUid":card}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(m.contains("onto another"), "{m}");
    let m = assert_code!(
        t.err(json!({"cmd":"drag","fromUid":card})).await,
        "INVALID_ARGUMENT"
    );
    assert!(m.contains("toUid"), "{m}");
    t.eval("document.getElementById('done').remove()").await;
    assert_code!(
        t.err(json!({"cmd":"drag","fromUid":card,"toUid":done}))
            .await,
        "STALE_UID"
    );
    t.close().await;
}

// ----- type_text -----

#[tokio::test]
async fn type_text_types_into_the_focused_field_and_submits() {
    let mut t = Tab::open("typing.html").await;
    t.snapshot().await;
    let q = t.uid("q").await;
    t.ok(json!({"cmd":"click","uid":q})).await;
    let r = t
        .ok(json!({"cmd":"type_text","text":"héllo 🎉","submitKey":"Enter"}))
        .await;
    assert_eq!(r["typed"], json!("héllo 🎉"), "{r}");
    assert_eq!(r["into"]["id"], json!("q"), "{r}");
    assert_eq!(r["into"]["uid"], json!(q), "{r}");
    assert_eq!(r["value"], json!("héllo 🎉"), "{r}");
    assert_eq!(r["submitKey"], json!("Enter"), "{r}");
    assert_eq!(t.text("submitted").await, "yes:héllo 🎉");
    let inputs: u32 = t.text("inputs").await.parse().unwrap_or(0);
    assert!(inputs >= 1, "the page saw input events");

    // A line break in a text area is a new line; a password reads masked.
    let notes = t.uid("notes").await;
    t.ok(json!({"cmd":"click","uid":notes})).await;
    let r = t.ok(json!({"cmd":"type_text","text":"one\ntwo"})).await;
    assert_eq!(r["value"], json!("one\ntwo"), "{r}");
    assert_eq!(
        t.eval("document.getElementById('notes').value").await,
        json!("one\ntwo")
    );
    let pw = t.uid("pw").await;
    t.ok(json!({"cmd":"click","uid":pw})).await;
    let r = t
        .ok(json!({"cmd":"type_text","text":"s3cret","submitKey":"Tab"}))
        .await;
    assert_eq!(r["value"], json!("********"), "{r}");
    assert!(r.get("focus").is_some(), "{r}");
    assert_eq!(
        t.eval("document.getElementById('pw').value").await,
        json!("s3cret")
    );

    // Editable content takes text too.
    let editor = t.uid("editor").await;
    t.ok(json!({"cmd":"click","uid":editor})).await;
    let r = t.ok(json!({"cmd":"type_text","text":"Rich text"})).await;
    assert!(r.get("value").is_none(), "{r}");
    assert_eq!(t.text("editor").await, "Rich text");
    t.close().await;
}

#[tokio::test]
async fn type_text_refuses_when_nothing_editable_has_the_focus() {
    let mut t = Tab::open("typing.html").await;
    t.snapshot().await;
    let m = assert_code!(
        t.err(json!({"cmd":"type_text","text":"x"})).await,
        "NOT_INTERACTABLE"
    );
    assert!(
        m.contains("nothing on the page has the keyboard focus"),
        "{m}"
    );
    let plain = t.uid("plain").await;
    t.ok(json!({"cmd":"click","uid":plain})).await;
    let m = assert_code!(
        t.err(json!({"cmd":"type_text","text":"x"})).await,
        "NOT_INTERACTABLE"
    );
    assert!(
        m.contains("<button id=\"plain\">") && m.contains(&plain),
        "{m}"
    );
    let ro = t.uid("ro").await;
    t.ok(json!({"cmd":"click","uid":ro})).await;
    let m = assert_code!(
        t.err(json!({"cmd":"type_text","text":"x"})).await,
        "NOT_INTERACTABLE"
    );
    assert!(m.contains("read-only"), "{m}");
    assert_eq!(
        t.eval("document.getElementById('ro').value").await,
        json!("fixed")
    );
    let agree = t.uid("agree").await;
    t.ok(json!({"cmd":"click","uid":agree})).await;
    let m = assert_code!(
        t.err(json!({"cmd":"type_text","text":"x"})).await,
        "NOT_INTERACTABLE"
    );
    assert!(m.contains("checkbox"), "{m}");
    // A bad key is refused before anything is typed.
    let q = t.uid("q").await;
    t.ok(json!({"cmd":"click","uid":q})).await;
    let m = assert_code!(
        t.err(json!({"cmd":"type_text","text":"x","submitKey":"Hyper+Q"}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(m.contains("Hyper"), "{m}");
    assert_eq!(
        t.eval("document.getElementById('q').value").await,
        json!("")
    );
    t.close().await;
}

// ----- wait_for -----

#[tokio::test]
async fn wait_for_resolves_on_delayed_text_in_the_page_its_frames_and_shadow_roots() {
    let mut t = Tab::open_served("wait.html").await;
    t.snapshot().await;
    let later = t.uid("later").await;
    t.ok(json!({"cmd":"click","uid":later})).await;
    let r = t
        .ok(json!({"cmd":"wait_for","text":["Nothing like this","Saved successfully"],"timeout":5000}))
        .await;
    assert_eq!(r["found"], json!("Saved successfully"), "{r}");
    assert!(r["waited"].as_u64().is_some(), "{r}");
    // Text in a cross-site frame, and in an open shadow root.
    let r = t
        .ok(json!({"cmd":"wait_for","text":"Frame ready","timeout":5000}))
        .await;
    assert_eq!(r["found"], json!("Frame ready"), "{r}");
    let r = t
        .ok(json!({"cmd":"wait_for","text":["Shadow greeting"]}))
        .await;
    assert_eq!(r["found"], json!("Shadow greeting"), "{r}");
    // The first of the list that shows is the answer.
    let r = t
        .ok(json!({"cmd":"wait_for","text":["Wait","Idle","Saved successfully"]}))
        .await;
    assert_eq!(r["found"], json!("Wait"), "{r}");
    t.close().await;
}

#[tokio::test]
async fn wait_for_times_out_on_hidden_or_absent_text_and_ends_on_a_dialog() {
    let mut t = Tab::open_served("wait.html").await;
    t.snapshot().await;
    let started = std::time::Instant::now();
    let m = assert_code!(
        t.err(json!({"cmd":"wait_for","text":["Secret message","Never"],"timeout":400}))
            .await,
        "TIMEOUT"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    assert!(m.contains("\"Secret message\", \"Never\""), "{m}");
    let m = assert_code!(
        t.err(json!({"cmd":"wait_for","text":[]})).await,
        "INVALID_ARGUMENT"
    );
    assert!(m.contains("at least one text"), "{m}");
    assert_code!(
        t.err(json!({"cmd":"wait_for","text":"x","timeout":120000}))
            .await,
        "INVALID_ARGUMENT"
    );
    let alert = t.uid("alert-later").await;
    t.ok(json!({"cmd":"click","uid":alert})).await;
    let started = std::time::Instant::now();
    let r = t
        .ok(json!({"cmd":"wait_for","text":"Never","timeout":8000}))
        .await;
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(r["dialog"]["message"], json!("Are you there?"), "{r}");
    assert!(r.get("found").is_none(), "{r}");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    t.close().await;
}

// ----- resize -----

#[tokio::test]
async fn resize_sets_the_viewport_the_page_sees() {
    let mut t = Tab::open("typing.html").await;
    let r = t.ok(json!({"cmd":"resize","width":600,"height":400})).await;
    assert_eq!(
        (r["width"].clone(), r["height"].clone()),
        (json!(600), json!(400))
    );
    assert_eq!(r["inner"], json!({"width":600.0,"height":400.0}), "{r}");
    assert_eq!(t.eval("innerWidth").await, json!(600));
    assert_eq!(t.eval("innerHeight").await, json!(400));
    assert_eq!(
        t.eval("matchMedia('(max-width: 700px)').matches").await,
        json!(true)
    );
    let m = assert_code!(
        t.err(json!({"cmd":"resize","width":50,"height":400})).await,
        "INVALID_ARGUMENT"
    );
    assert!(m.contains("100 to 10000"), "{m}");
    assert_code!(
        t.err(json!({"cmd":"resize","width":600.5,"height":400}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert_code!(
        t.err(json!({"cmd":"resize","width":600})).await,
        "INVALID_ARGUMENT"
    );
    t.close().await;
}

// ----- new_page -----

#[tokio::test]
async fn new_page_opens_a_tab_that_becomes_current() {
    let mut t = Tab::open("typing.html").await;
    let first = t.s.current_page().map(|p| p.target_id().to_string());
    let url = page_path("drag.html");
    let r = t
        .ok(json!({"cmd":"new_page","url":url.to_string_lossy()}))
        .await;
    assert_eq!(r["loaded"], json!(true), "{r}");
    assert!(
        r["url"].as_str().is_some_and(|u| u.ends_with("drag.html")),
        "{r}"
    );
    let target = r["targetId"].as_str().unwrap_or_default().to_string();
    assert_ne!(Some(target.clone()), first);
    let pages = t.ok(json!({"cmd":"pages"})).await;
    let listed = pages
        .as_array()
        .and_then(|p| p.iter().find(|p| p["targetId"] == json!(target)).cloned())
        .unwrap_or_else(|| panic!("the new page is listed: {pages}"));
    assert_eq!(listed["index"], r["index"], "{pages}");
    assert_eq!(listed["current"], json!(true), "{pages}");
    assert_eq!(t.eval("document.title").await, json!("Drag"));
    // Commands act on it: a snapshot shows the new page.
    t.snapshot().await;
    t.uid("card").await;

    // A URL that cannot be opened leaves no tab behind and the current page current.
    assert_code!(
        t.err(json!({"cmd":"new_page","url":"no/such/file.html"}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert_code!(
        t.err(json!({"cmd":"new_page","url":"http://127.0.0.1:9/"}))
            .await,
        "NAVIGATION_FAILED"
    );
    let after = t.ok(json!({"cmd":"pages"})).await;
    let failed = after.as_array().into_iter().flatten().find(|p| {
        p["url"]
            .as_str()
            .is_some_and(|u| u.contains("127.0.0.1:9/") || u.starts_with("chrome-error:"))
    });
    assert!(failed.is_none(), "the failed tab was closed: {after}");
    assert_eq!(
        t.s.current_page().map(|p| p.target_id().to_string()),
        Some(target)
    );
    // Close both tabs.
    let _ = t.s.execute_json(&json!({"cmd": "close"})).await;
    t.close().await;
}
