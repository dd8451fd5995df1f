//! Actions on uids against a real headless Chromium: each test opens its own page of one shared
//! browser (launched once per test binary, killed at exit), acts through
//! `Session::execute(&json!({...}))` as a front end does, and reads back what the page saw.

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pagesight::browser::{kill_launched_browsers, Browser, LaunchOptions, LaunchTransport};
use pagesight::cdp::dom::DescribeNodeParams;
use pagesight::cdp::runtime::EvaluateParams;
use pagesight::session::{Session, SessionOptions};
use serde_json::{json, Value};

mod common;
use common::{assert_changes_exact, serve_on, serve_two_origins, Origins};

static BROWSER: OnceLock<Result<String, String>> = OnceLock::new();

extern "C" fn kill_shared_browser() {
    kill_launched_browsers();
}

/// The WebSocket URL of the shared browser, launching it on first use. It lives on a thread of
/// its own (with its own runtime) so that every test's runtime can come and go.
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
                        // Keep the browser (and its connection) alive for the whole test run.
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
        Err(e) => panic!("cannot launch Chromium for the action tests: {e}"),
    }
}

fn page_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/pages")
        .join(name)
}

/// The two loopback origins of the cross-site tests (see `common`), serving
/// `fixtures/pages/actions/`.
fn origins() -> &'static Origins {
    static ORIGINS: OnceLock<Origins> = OnceLock::new();
    ORIGINS.get_or_init(|| {
        serve_two_origins(page_path("actions")).expect("serve the pages on two loopback origins")
    })
}

/// A third origin, `127.0.0.2:P`: a site of its own, so its pages get a renderer no other
/// test's page shares (for pages that stall their renderer). `None` where that address cannot
/// be bound.
fn own_site() -> Option<&'static str> {
    static OWN: OnceLock<Option<String>> = OnceLock::new();
    OWN.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.2:0").ok()?;
        let origin = format!("http://127.0.0.2:{}", listener.local_addr().ok()?.port());
        serve_on(listener, page_path("actions"), origins().clone());
        Some(origin)
    })
    .as_deref()
}

/// One test's tab: a session on its own page of the shared browser, with `page` loaded, and the
/// uids its last snapshot gave the page's elements.
struct Tab {
    s: Session,
    uids: HashMap<String, String>,
}

impl Tab {
    async fn open(page: &str) -> Tab {
        let path = page_path(page);
        Tab::open_url(&path.to_string_lossy()).await
    }

    /// Opens `name` of `fixtures/pages/actions/` from the first loopback origin.
    async fn open_served(name: &str) -> Tab {
        Tab::open_url(&format!("{}/{name}", origins().a)).await
    }

    /// Opens `name` of `fixtures/pages/actions/` from [`own_site`] (or the first origin).
    async fn open_own_site(name: &str) -> Tab {
        let origin = own_site().unwrap_or(&origins().a);
        Tab::open_url(&format!("{origin}/{name}")).await
    }

    async fn open_url(url: &str) -> Tab {
        Tab::open_url_with(url, pagesight::AllowedFolders::default()).await
    }

    /// Opens `url` in a session whose commands may read and write files in `files` only.
    async fn open_url_with(url: &str, files: pagesight::AllowedFolders) -> Tab {
        let options = SessionOptions {
            browser: Some(browser_url()),
            files,
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

    /// Runs an action that must succeed, as [`Tab::ok`], asking `"diff": true` too, and checks
    /// its exactness: the `changes` turn the text of a snapshot taken right before the action
    /// into exactly the text of a fresh one taken right after it. When the action leaves a
    /// dialog open, no snapshot can be taken: `changes` is `null` and a note says why.
    async fn act(&mut self, mut cmd: Value) -> Value {
        let before = self.ok(json!({"cmd":"snapshot"})).await;
        cmd["diff"] = json!(true);
        let r = self.ok(cmd.clone()).await;
        assert!(
            r["summary"].as_str().is_some_and(|s| !s.is_empty()),
            "{cmd}: no summary in {r}"
        );
        if r.get("dialog").is_some_and(|d| !d.is_null()) {
            assert_eq!(r["changes"], Value::Null, "{cmd}: {r}");
            assert!(
                r["note"].as_str().is_some_and(|n| n.contains("no changes")),
                "{r}"
            );
            return r;
        }
        let changes = r["changes"]
            .as_str()
            .unwrap_or_else(|| panic!("{cmd}: no changes in {r}"));
        let fresh = self.ok(json!({"cmd":"snapshot"})).await;
        assert_changes_exact(
            before.as_str().unwrap_or_default(),
            changes,
            fresh.as_str().unwrap_or_default(),
        );
        r
    }

    async fn err(&mut self, cmd: Value) -> (String, String) {
        match self.run(cmd.clone()).await {
            Ok(v) => panic!("{cmd} should have failed but returned {v}"),
            Err(e) => e,
        }
    }

    /// Evaluates an expression in the page and returns its value.
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

    async fn backend_id(&self, js: &str) -> i64 {
        let page = self.s.current_page().expect("a page is open");
        let r = page
            .send(&EvaluateParams {
                return_by_value: Some(false),
                ..EvaluateParams::new(js.to_string())
            })
            .await
            .expect("Runtime.evaluate");
        let object_id = r
            .result
            .object_id
            .unwrap_or_else(|| panic!("{js} is not an element"));
        page.send(&DescribeNodeParams {
            object_id: Some(object_id),
            ..Default::default()
        })
        .await
        .expect("DOM.describeNode")
        .node
        .backend_node_id
    }

    /// Takes a snapshot (JSON, whole page) and remembers every printed node's uid by
    /// backendNodeId.
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
                    // Elements of other renderers have no backend id the page knows: by
                    // role and name instead.
                    if let (Some(role), Some(name)) = (v["role"].as_str(), v["name"].as_str()) {
                        out.entry(format!("{role}:{name}"))
                            .or_insert_with(|| u.to_string());
                    }
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

    /// The uid of the element a JS expression names (e.g. `document.getElementById('inc')`),
    /// from the last [`Tab::snapshot`].
    async fn uid_js(&mut self, js: &str) -> String {
        let b = self.backend_id(js).await.to_string();
        match self.uids.get(&b) {
            Some(u) => u.clone(),
            None => panic!("{js} (backend {b}) has no uid in the snapshot"),
        }
    }

    async fn uid(&mut self, id: &str) -> String {
        self.uid_js(&format!("document.getElementById({id:?})"))
            .await
    }

    /// The uid of the first element with this role and accessible name in any frame, from the
    /// last [`Tab::snapshot`].
    fn uid_named(&self, role: &str, name: &str) -> String {
        match self.uids.get(&format!("{role}:{name}")) {
            Some(u) => u.clone(),
            None => panic!("no {role} named {name:?} has a uid in the snapshot"),
        }
    }

    /// The messages the cross-site frame posted to the page (`#log`).
    async fn frame_log(&self) -> Vec<Value> {
        let text = self.text("log").await;
        serde_json::from_str::<Vec<Value>>(&text).unwrap_or_default()
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

// ----- click -----

#[tokio::test]
async fn click_increments_a_counter() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let inc = t.uid("inc").await;
    let r = t.act(json!({"cmd":"click","uid":inc})).await;
    assert_eq!(r["clicked"], json!(inc));
    assert!(r["at"]["x"].as_f64().is_some(), "{r}");
    t.act(json!({"cmd":"click","uid":inc})).await;
    assert_eq!(t.text("count").await, "2");
    t.close().await;
}

#[tokio::test]
async fn double_right_and_middle_click() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let dbl = t.uid("dbl").await;
    t.act(json!({"cmd":"click","uid":dbl,"count":2})).await;
    assert_eq!(t.text("dbl-count").await, "1");
    let ctx = t.uid("ctx").await;
    let r = t
        .act(json!({"cmd":"click","uid":ctx,"button":"right"}))
        .await;
    assert_eq!(r["button"], "right");
    assert_eq!(t.text("ctx-count").await, "1");
    t.act(json!({"cmd":"click","uid":ctx,"button":"middle"}))
        .await;
    assert_eq!(t.text("mid-count").await, "1");
    t.close().await;
}

#[tokio::test]
async fn click_scrolls_a_far_element_into_view() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let far = t.uid("far").await;
    t.act(json!({"cmd":"click","uid":far})).await;
    assert_eq!(t.text("far-count").await, "1");
    t.close().await;
}

#[tokio::test]
async fn click_inside_a_shadow_root() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let btn = t
        .uid_js("document.getElementById('shadow-host').shadowRoot.getElementById('shadow-btn')")
        .await;
    t.act(json!({"cmd":"click","uid":btn})).await;
    assert_eq!(t.text("count").await, "1");
    t.close().await;
}

#[tokio::test]
async fn click_through_a_pseudo_element_and_a_dropdown_option() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let icon = t.uid("icon-btn").await;
    t.act(json!({"cmd":"click","uid":icon})).await;
    assert_eq!(t.text("count").await, "1");
    let large = t.uid("opt-large").await;
    let r = t.act(json!({"cmd":"click","uid":large})).await;
    assert_eq!(r["value"], "Large", "{r}");
    assert_eq!(
        t.eval("document.getElementById('size').value").await,
        "Large"
    );
    t.close().await;
}

#[tokio::test]
async fn click_that_navigates_waits_for_the_load() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let link = t.uid("nav-link").await;
    let r = t.act(json!({"cmd":"click","uid":link})).await;
    assert_eq!(r["navigated"], true, "{r}");
    assert_eq!(r["loaded"], true, "{r}");
    assert!(
        r["url"].as_str().unwrap_or("").ends_with("hover-menu.html"),
        "{r}"
    );
    assert_eq!(t.eval("document.readyState").await, "complete");
    assert_code!(t.err(json!({"cmd":"click","uid":link})).await, "STALE_UID");
    t.close().await;
}

#[tokio::test]
async fn back_and_forward_return_to_each_page_and_wait_for_it() {
    let mut t = Tab::open_served("clicks.html").await;
    let second = format!("{}/hover-menu.html", origins().a);
    t.ok(json!({"cmd":"open","url": second})).await;
    for (cmd, page) in [
        ("back", "clicks.html"),
        ("forward", "hover-menu.html"),
        ("back", "clicks.html"),
    ] {
        let started = std::time::Instant::now();
        let r = t.ok(json!({"cmd": cmd})).await;
        assert_eq!(r["loaded"], true, "{cmd}: {r}");
        let went = if cmd == "back" {
            "Went back to "
        } else {
            "Went forward to "
        };
        let summary = r["summary"].as_str().unwrap_or_default();
        assert!(
            summary.starts_with(went) && summary.ends_with(&format!("{page} and it loaded.")),
            "{cmd}: {r}"
        );
        assert!(
            r["url"].as_str().unwrap_or("").ends_with(page),
            "{cmd}: {r}"
        );
        let at = t.eval("location.pathname").await;
        assert!(at.as_str().unwrap_or("").ends_with(page), "{cmd}: {at}");
        assert_eq!(t.eval("document.readyState").await, "complete", "{cmd}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{cmd} took {:?}",
            started.elapsed()
        );
    }
    t.close().await;
}

#[tokio::test]
async fn click_inside_a_same_process_iframe() {
    let mut t = Tab::open("iframe-srcdoc.html").await;
    t.eval(
        "document.getElementById('frame').contentDocument.getElementById('frame-button')\
         .addEventListener('click',()=>{document.title='clicked in frame'})",
    )
    .await;
    t.snapshot().await;
    let b = t
        .uid_js("document.getElementById('frame').contentDocument.getElementById('frame-button')")
        .await;
    t.act(json!({"cmd":"click","uid":b})).await;
    assert_eq!(t.eval("document.title").await, "clicked in frame");
    t.close().await;
}

#[tokio::test]
async fn click_on_occluded_button_names_the_backdrop() {
    let mut t = Tab::open("overlay-modal.html").await;
    t.snapshot().await;
    let save = t.uid("btn-page-save").await;
    let msg = assert_code!(t.err(json!({"cmd":"click","uid":save})).await, "OCCLUDED");
    assert!(msg.contains("modal-backdrop"), "{msg}");
    // The dialog's own buttons are clickable.
    let stay = t.uid("modal-cancel").await;
    t.act(json!({"cmd":"click","uid":stay})).await;
    t.close().await;
}

#[tokio::test]
async fn click_waits_for_a_short_lived_overlay() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let inc = t.uid("inc").await;
    t.eval(
        "(()=>{const d=document.createElement('div');d.id='flash';\
         d.style.cssText='position:fixed;inset:0;background:rgba(0,0,0,.3)';\
         document.body.append(d);setTimeout(()=>d.remove(),120);})()",
    )
    .await;
    t.ok(json!({"cmd":"click","uid":inc})).await;
    assert_eq!(t.text("count").await, "1");
    t.close().await;
}

#[tokio::test]
async fn disabled_hidden_and_zero_size_are_not_interactable() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    for (id, why) in [
        ("disabled-btn", "disabled"),
        ("aria-disabled", "aria-disabled"),
        ("gone", "display:none"),
        ("ghost", "visibility:hidden"),
        ("zero", "size"),
    ] {
        let uid = t.uid(id).await;
        let msg = assert_code!(
            t.err(json!({"cmd":"click","uid":uid})).await,
            "NOT_INTERACTABLE"
        );
        assert!(msg.contains(why), "{id}: {msg}");
    }
    t.close().await;
}

// ----- uid resolution -----

#[tokio::test]
async fn removed_element_is_stale() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let removable = t.uid("removable").await;
    let remover = t.uid("remove-it").await;
    t.act(json!({"cmd":"click","uid":remover})).await;
    let msg = assert_code!(
        t.err(json!({"cmd":"click","uid":removable})).await,
        "STALE_UID"
    );
    assert!(msg.contains("snapshot"), "{msg}");
    // Forgotten: stays stale.
    assert_code!(
        t.err(json!({"cmd":"hover","uid":removable})).await,
        "STALE_UID"
    );
    t.close().await;
}

#[tokio::test]
async fn uid_after_reload_is_stale() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let inc = t.uid("inc").await;
    t.ok(json!({"cmd":"reload"})).await;
    assert_code!(t.err(json!({"cmd":"click","uid":inc})).await, "STALE_UID");
    t.close().await;
}

#[tokio::test]
async fn unknown_uid_and_no_snapshot() {
    let mut t = Tab::open("actions/clicks.html").await;
    assert_code!(
        t.err(json!({"cmd":"click","uid":"1_3"})).await,
        "NO_SNAPSHOT"
    );
    t.snapshot().await;
    assert_code!(
        t.err(json!({"cmd":"click","uid":"99_1"})).await,
        "UNKNOWN_UID"
    );
    assert_code!(
        t.err(json!({"cmd":"click","uid":"nonsense"})).await,
        "UNKNOWN_UID"
    );
    assert_code!(t.err(json!({"cmd":"click"})).await, "INVALID_ARGUMENT");
    t.close().await;
}

// ----- hover -----

#[tokio::test]
async fn hover_opens_menus() {
    let mut t = Tab::open("actions/hover-menu.html").await;
    t.snapshot().await;
    let css = t.uid("css-trigger").await;
    let r = t.act(json!({"cmd":"hover","uid":css})).await;
    assert_eq!(r["hovered"], json!(css));
    let shown = t
        .eval("getComputedStyle(document.getElementById('css-items')).display")
        .await;
    assert_eq!(shown, "block");
    let js = t.uid("js-trigger").await;
    t.act(json!({"cmd":"hover","uid":js})).await;
    assert_eq!(t.text("hovered").await, "js-menu");
    let shown = t
        .eval("getComputedStyle(document.getElementById('js-items')).display")
        .await;
    assert_eq!(shown, "block");
    // The item that appeared can be clicked once a new snapshot names it.
    t.snapshot().await;
    let item = t.uid("js-item").await;
    t.act(json!({"cmd":"click","uid":item})).await;
    assert_eq!(t.eval("location.hash").await, "#profile");
    t.close().await;
}

// ----- fill -----

#[tokio::test]
async fn fill_text_fields_replacing_their_value() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let name = t.uid("name").await;
    let r = t
        .act(json!({"cmd":"fill","uid":name,"text":"Ada Lovelace"}))
        .await;
    assert_eq!(
        r["summary"],
        format!("Filled textbox \"Name\" (uid={name}) with \"Ada Lovelace\".")
    );
    let mut fields = r.clone();
    if let Some(map) = fields.as_object_mut() {
        map.remove("summary");
        map.remove("changes");
    }
    assert_eq!(fields, json!({"filled": name, "value": "Ada Lovelace"}));
    assert_eq!(
        t.eval("document.getElementById('name').value").await,
        "Ada Lovelace"
    );
    let bio = t.uid("bio").await;
    let r = t
        .act(json!({"cmd":"fill","uid":bio,"text":"Line one\nLine two"}))
        .await;
    assert_eq!(r["value"], "Line one\nLine two");
    let editor = t.uid("editor").await;
    let r = t
        .act(json!({"cmd":"fill","uid":editor,"text":"Plain new text"}))
        .await;
    assert_eq!(r["value"], "Plain new text");
    assert_eq!(t.text("editor").await, "Plain new text");
    // Empty text clears.
    let r = t.act(json!({"cmd":"fill","uid":name,"text":""})).await;
    assert_eq!(r["value"], "");
    t.close().await;
}

#[tokio::test]
async fn fill_a_controlled_input() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let c = t.uid("controlled").await;
    let r = t.act(json!({"cmd":"fill","uid":c,"text":"hello"})).await;
    // The page upper-cases its state and writes it back: the value read back is the page's.
    assert_eq!(r["value"], "HELLO");
    assert_eq!(t.text("echo").await, "HELLO");
    t.act(json!({"cmd":"fill","uid":c,"text":"again"})).await;
    assert_eq!(t.text("echo").await, "AGAIN");
    t.close().await;
}

#[tokio::test]
async fn fill_number_date_and_read_only() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let age = t.uid("age").await;
    assert_eq!(
        t.act(json!({"cmd":"fill","uid":age,"text":"42"})).await["value"],
        "42"
    );
    let when = t.uid("when").await;
    assert_eq!(
        t.act(json!({"cmd":"fill","uid":when,"text":"2024-03-15"}))
            .await["value"],
        "2024-03-15"
    );
    let msg = assert_code!(
        t.err(json!({"cmd":"fill","uid":when,"text":"15/03/2024"}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(msg.contains("YYYY-MM-DD"), "{msg}");
    let ro = t.uid("ro").await;
    assert_code!(
        t.err(json!({"cmd":"fill","uid":ro,"text":"x"})).await,
        "NOT_INTERACTABLE"
    );
    let go = t.uid("go").await;
    assert_code!(
        t.err(json!({"cmd":"fill","uid":go,"text":"x"})).await,
        "NOT_INTERACTABLE"
    );
    t.close().await;
}

#[tokio::test]
async fn fill_checkboxes() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let agree = t.uid("agree").await;
    let r = t.act(json!({"cmd":"fill","uid":agree,"text":"true"})).await;
    assert_eq!(r["checked"], true);
    assert_eq!(
        t.eval("document.getElementById('agree').checked").await,
        true
    );
    // Already checked: nothing changes.
    t.act(json!({"cmd":"fill","uid":agree,"text":"true"})).await;
    assert_eq!(
        t.eval("document.getElementById('agree').checked").await,
        true
    );
    let news = t.uid("news").await;
    let r = t.act(json!({"cmd":"fill","uid":news,"text":"false"})).await;
    assert_eq!(r["checked"], false);
    assert_eq!(
        t.eval("document.getElementById('news').checked").await,
        false
    );
    assert_code!(
        t.err(json!({"cmd":"fill","uid":news,"text":"maybe"})).await,
        "INVALID_ARGUMENT"
    );
    t.close().await;
}

// ----- select -----

#[tokio::test]
async fn select_native_by_text_and_value() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let color = t.uid("color").await;
    let r = t
        .act(json!({"cmd":"select","uid":color,"option":"Green"}))
        .await;
    assert_eq!(r["value"], "g");
    assert_eq!(t.text("color-echo").await, "changed:g");
    let r = t
        .act(json!({"cmd":"select","uid":color,"option":"b"}))
        .await;
    assert_eq!(r["value"], "b");
    assert_eq!(t.eval("document.getElementById('color').value").await, "b");
    let msg = assert_code!(
        t.err(json!({"cmd":"select","uid":color,"option":"Purple"}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(msg.contains("\"Red\"") && msg.contains("\"Blue\""), "{msg}");
    assert_code!(
        t.err(json!({"cmd":"select","uid":color,"option":"Gray"}))
            .await,
        "NOT_INTERACTABLE"
    );
    t.close().await;
}

#[tokio::test]
async fn select_in_a_custom_listbox() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let fruit = t.uid("fruit").await;
    let r = t
        .act(json!({"cmd":"select","uid":fruit,"option":"Banana"}))
        .await;
    assert_eq!(r["option"], "Banana");
    assert_eq!(t.text("fruit-echo").await, "Banana");
    let msg = assert_code!(
        t.err(json!({"cmd":"select","uid":fruit,"option":"Durian"}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(msg.contains("Cherry"), "{msg}");
    t.close().await;
}

// ----- press -----

#[tokio::test]
async fn press_enter_submits_a_form() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let q = t.uid("q").await;
    t.act(json!({"cmd":"fill","uid":q,"text":"rust"})).await;
    let r = t.act(json!({"cmd":"press","key":"Enter","uid":q})).await;
    assert_eq!(r["pressed"], "Enter");
    assert_eq!(t.text("submitted").await, "yes:rust");
    t.close().await;
}

#[tokio::test]
async fn press_tab_moves_focus_and_shift_tab_back() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let first = t.uid("first").await;
    let second = t.uid("second").await;
    let r = t.act(json!({"cmd":"press","key":"Tab","uid":first})).await;
    assert_eq!(t.text("focus").await, "second");
    assert_eq!(r["focus"]["uid"], json!(second));
    t.act(json!({"cmd":"press","key":"Shift+Tab"})).await;
    assert_eq!(t.text("focus").await, "first");
    assert!(t.text("keys").await.contains("S-Tab"));
    t.close().await;
}

#[tokio::test]
async fn press_control_a_selects_and_keys_type() {
    let mut t = Tab::open("actions/forms.html").await;
    t.snapshot().await;
    let name = t.uid("name").await;
    t.act(json!({"cmd":"press","key":"Control+A","uid":name}))
        .await;
    let selected = t
        .eval("(e=>e.selectionStart===0&&e.selectionEnd===e.value.length)(document.getElementById('name'))")
        .await;
    assert_eq!(selected, true);
    // Typing replaces the selection; Shift+letter types the capital.
    t.act(json!({"cmd":"press","key":"Shift+x"})).await;
    t.act(json!({"cmd":"press","key":"y"})).await;
    t.act(json!({"cmd":"press","key":"Backspace"})).await;
    assert_eq!(t.eval("document.getElementById('name').value").await, "X");
    let keys = t.text("keys").await;
    assert!(
        keys.contains("C-a") && keys.contains("S-X") && keys.contains("Backspace"),
        "{keys}"
    );
    // No modifier stays down: a plain key is plain afterwards.
    assert!(keys.trim_end().ends_with("Backspace"), "{keys}");
    assert!(!keys.contains("C-y"), "{keys}");
    assert_code!(
        t.err(json!({"cmd":"press","key":"Hyper+Q"})).await,
        "INVALID_ARGUMENT"
    );
    t.close().await;
}

// ----- scroll -----

#[tokio::test]
async fn scroll_the_page_and_a_container() {
    let mut t = Tab::open("actions/scroll.html").await;
    let r = t
        .act(json!({"cmd":"scroll","direction":"down","pixels":500}))
        .await;
    assert_eq!(r["scrolled"], "page");
    let moved = r["moved"].as_f64().unwrap_or(0.0);
    assert!((moved - 500.0).abs() < 2.0, "{r}");
    assert_eq!(r["atEnd"], false);
    let y = t.eval("scrollY").await.as_f64().unwrap_or(0.0);
    assert!((y - 500.0).abs() < 2.0, "scrollY {y}");
    let r = t.act(json!({"cmd":"scroll","direction":"up"})).await;
    assert_eq!(r["atEnd"], true, "{r}");
    assert_eq!(t.eval("scrollY").await, 0);

    t.snapshot().await;
    let item = t.uid("item-0").await;
    let box_uid = t.uid("box").await;
    let r = t
        .act(json!({"cmd":"scroll","uid":item,"direction":"down","pixels":150}))
        .await;
    assert_eq!(r["scrolled"], json!(box_uid), "{r}");
    assert!(
        (r["moved"].as_f64().unwrap_or(0.0) - 150.0).abs() < 2.0,
        "{r}"
    );
    assert_eq!(r["atEnd"], false);
    let r = t
        .act(json!({"cmd":"scroll","uid":box_uid,"direction":"down"}))
        .await;
    assert_eq!(r["atEnd"], true, "{r}");
    let end = t
        .eval("(b=>b.scrollTop===b.scrollHeight-b.clientHeight)(document.getElementById('box'))")
        .await;
    assert_eq!(end, true);
    // The page did not move.
    assert_eq!(t.eval("scrollY").await, 0);
    t.close().await;
}

// ----- upload -----

#[tokio::test]
async fn upload_through_a_hidden_file_input() {
    let mut t = Tab::open("actions/upload.html").await;
    t.snapshot().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let a = dir.path().join("notes.txt");
    let b = dir.path().join("photo.png");
    std::fs::write(&a, "hello").expect("write");
    std::fs::write(&b, "png").expect("write");
    let pick = t.uid("pick").await;
    let r = t
        .act(json!({"cmd":"upload","uid":pick,"files":[a.to_string_lossy()]}))
        .await;
    assert_eq!(r["files"], json!(["notes.txt"]));
    assert_eq!(t.text("file-name").await, "notes.txt");
    let btn = t.uid("photo-btn").await;
    t.act(json!({"cmd":"upload","uid":btn,"files":[a.to_string_lossy(), b.to_string_lossy()]}))
        .await;
    assert_eq!(t.text("photo-names").await, "notes.txt,photo.png");
    let missing = dir.path().join("missing.pdf");
    let msg = assert_code!(
        t.err(json!({"cmd":"upload","uid":pick,"files":[missing.to_string_lossy()]}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(msg.contains("missing.pdf"), "{msg}");
    t.close().await;
}

#[tokio::test]
async fn upload_of_a_file_outside_the_allowed_folders_is_refused() {
    let allowed = tempfile::tempdir().expect("temp dir");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let inside = allowed.path().join("inside.txt");
    let outside = elsewhere.path().join("secret.txt");
    std::fs::write(&inside, "ok").expect("write");
    std::fs::write(&outside, "secret").expect("write");
    let mut files = pagesight::AllowedFolders::none();
    files.add(allowed.path()).expect("allow the folder");
    let url = page_path("actions/upload.html");
    let mut t = Tab::open_url_with(&url.to_string_lossy(), files).await;
    t.snapshot().await;
    let pick = t.uid("pick").await;
    let msg = assert_code!(
        t.err(json!({"cmd":"upload","uid":pick,"files":[outside.to_string_lossy()]}))
            .await,
        "INVALID_ARGUMENT"
    );
    assert!(msg.contains("secret.txt"), "{msg}");
    assert!(msg.contains("outside the folders"), "{msg}");
    assert!(msg.contains("--allow-dir"), "{msg}");
    // A link inside the allowed folder to the file outside is refused the same way.
    #[cfg(unix)]
    {
        let link = allowed.path().join("link.txt");
        std::os::unix::fs::symlink(&outside, &link).expect("link");
        assert_code!(
            t.err(json!({"cmd":"upload","uid":pick,"files":[link.to_string_lossy()]}))
                .await,
            "INVALID_ARGUMENT"
        );
    }
    assert_eq!(
        t.text("file-name").await,
        "none",
        "nothing was given to the input"
    );
    // One file outside refuses the whole list.
    assert_code!(
        t.err(json!({"cmd":"upload","uid":pick,"files":[inside.to_string_lossy(), outside.to_string_lossy()]}))
            .await,
        "INVALID_ARGUMENT"
    );
    let r = t
        .act(json!({"cmd":"upload","uid":pick,"files":[inside.to_string_lossy()]}))
        .await;
    assert_eq!(r["files"], json!(["inside.txt"]));
    t.close().await;
}

// ----- dialogs -----

#[tokio::test]
async fn alert_confirm_and_prompt_never_hang() {
    let mut t = Tab::open("actions/dialogs.html").await;
    t.snapshot().await;
    let alert = t.uid("alert").await;
    let r = t
        .act(json!({"cmd":"click","uid":alert,"snapshot":true}))
        .await;
    assert_eq!(
        r["dialog"],
        json!({"type":"alert","message":"Hello from the page"}),
        "{r}"
    );
    assert_eq!(r["snapshot"], Value::Null);
    // Another action while it is open is refused, not hung: the dialog covers the page.
    let msg = assert_code!(t.err(json!({"cmd":"click","uid":alert})).await, "OCCLUDED");
    assert!(
        msg.contains("alert") && msg.contains("\"cmd\":\"dialog\""),
        "{msg}"
    );
    let pages = t.ok(json!({"cmd":"pages"})).await;
    let current = pages
        .as_array()
        .and_then(|p| p.iter().find(|p| p["current"] == true))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(current["dialog"]["type"], "alert", "{pages}");
    let r = t.ok(json!({"cmd":"dialog","accept":true})).await;
    assert_eq!(r["accepted"], true);
    assert_eq!(
        r["summary"], "Accepted the alert dialog \"Hello from the page\".",
        "{r}"
    );
    assert_eq!(t.text("after-alert").await, "yes");

    let confirm = t.uid("confirm").await;
    let r = t.act(json!({"cmd":"click","uid":confirm})).await;
    assert_eq!(r["dialog"]["type"], "confirm");
    let summary = r["summary"].as_str().unwrap_or_default();
    assert!(
        summary.starts_with(&format!("Clicked button \"Confirm\" (uid={confirm})."))
            && summary.contains(
                "A confirm dialog opened: \"Delete everything?\" — answer it with dialog."
            ),
        "{summary}"
    );
    t.ok(json!({"cmd":"dialog","accept":false})).await;
    assert_eq!(t.text("confirm-result").await, "false");

    let prompt = t.uid("prompt").await;
    let r = t.act(json!({"cmd":"click","uid":prompt})).await;
    assert_eq!(r["dialog"]["type"], "prompt");
    assert_eq!(r["dialog"]["defaultPrompt"], "Ada");
    t.ok(json!({"cmd":"dialog","accept":true,"text":"Grace"}))
        .await;
    assert_eq!(t.text("prompt-result").await, "Grace");

    assert_code!(
        t.err(json!({"cmd":"dialog","accept":true})).await,
        "INVALID_ARGUMENT"
    );
    t.close().await;
}

// ----- summaries and changes -----

#[tokio::test]
async fn summaries_name_the_element_and_never_a_password() {
    let mut t = Tab::open("forms.html").await;
    t.snapshot().await;
    let name = t.uid_named("textbox", "Full name");
    let r = t
        .act(json!({"cmd":"fill","uid":name,"text":"Grace Hopper"}))
        .await;
    assert_eq!(
        r["summary"],
        format!("Filled textbox \"Full name\" (uid={name}) with \"Grace Hopper\"."),
        "{r}"
    );
    let password = t.uid_named("textbox", "Password");
    let r = t
        .act(json!({"cmd":"fill","uid":password,"text":"hunter2"}))
        .await;
    assert_eq!(
        r["summary"],
        format!("Filled textbox \"Password\" (uid={password}) (the value is not shown)."),
        "{r}"
    );
    assert!(!r.to_string().contains("hunter2"), "{r}");
    let news = t.uid_named("checkbox", "Newsletter (unchecked by script)");
    let r = t.act(json!({"cmd":"fill","uid":news,"text":"true"})).await;
    assert_eq!(
        r["summary"],
        format!("Ticked checkbox \"Newsletter (unchecked by script)\" (uid={news})."),
        "{r}"
    );
    let changes = r["changes"].as_str().unwrap_or_default();
    assert!(
        changes.contains(&format!(
            "+    uid={news} checkbox \"Newsletter (unchecked by script)\""
        )),
        "{changes}"
    );
    let country = t.uid_named("combobox", "Country");
    let r = t
        .act(json!({"cmd":"select","uid":country,"option":"Spain"}))
        .await;
    assert_eq!(
        r["summary"],
        format!("Chose \"Spain\" in combobox \"Country\" (uid={country})."),
        "{r}"
    );
    let r = t.act(json!({"cmd":"press","uid":name,"key":"Tab"})).await;
    let summary = r["summary"].as_str().unwrap_or_default();
    assert!(
        summary.starts_with(&format!(
            "Pressed Tab on textbox \"Full name\" (uid={name}). The focus is now on "
        )),
        "{summary}"
    );
    let opened = t.ok(json!({"cmd":"open","url":"about:blank"})).await;
    assert_eq!(opened["summary"], "Opened about:blank and it loaded.");
    t.close().await;
}

#[tokio::test]
async fn changes_start_from_nothing_and_follow_each_other() {
    let mut t = Tab::open("actions/clicks.html").await;
    // No snapshot yet: the changes add the whole text.
    let r = t.ok(json!({"cmd":"press","key":"Shift","diff":true})).await;
    let changes = r["changes"].as_str().unwrap_or_default();
    let fresh = t.ok(json!({"cmd":"snapshot"})).await;
    let fresh = fresh.as_str().unwrap_or_default();
    assert!(changes.starts_with("@@ -0,0 +1,"), "{changes}");
    common::assert_changes_exact("", changes, fresh);
    // Each action's changes start where the previous one's ended.
    t.snapshot().await;
    let inc = t.uid("inc").await;
    let before = t.ok(json!({"cmd":"snapshot","expand":"all"})).await;
    let mut text = before.as_str().unwrap_or_default().to_string();
    for n in 1..=3 {
        let r = t.ok(json!({"cmd":"click","uid":inc,"diff":true})).await;
        let changes = r["changes"].as_str().unwrap_or_default();
        assert!(changes.starts_with("@@ "), "click {n}: {changes}");
        text = common::apply_changes(&text, changes);
    }
    assert_eq!(t.text("count").await, "3");
    let fresh = t.ok(json!({"cmd":"snapshot","expand":"all"})).await;
    assert_eq!(text, fresh.as_str().unwrap_or_default());
    // Nothing changed: no hunk, and the summary says so.
    let r = t.ok(json!({"cmd":"press","key":"Shift","diff":true})).await;
    assert_eq!(r["changes"], "", "{r}");
    let summary = r["summary"].as_str().unwrap_or_default();
    assert!(
        summary.starts_with("Pressed Shift.") && summary.ends_with(" The snapshot did not change."),
        "{r}"
    );
    t.close().await;
}

// ----- snapshot with the result -----

#[tokio::test]
async fn action_returns_a_fresh_snapshot() {
    let mut t = Tab::open("actions/clicks.html").await;
    t.snapshot().await;
    let inc = t.uid("inc").await;
    let r = t
        .act(json!({"cmd":"click","uid":inc,"snapshot":true}))
        .await;
    let text = r["snapshot"].as_str().unwrap_or_default();
    assert!(text.contains(&format!("uid={inc}")), "{text}");
    assert!(
        text.contains("Clicks: 1") || text.contains("\"1\""),
        "{text}"
    );
    // The uids stay valid after the action's snapshot.
    t.act(json!({"cmd":"click","uid":inc})).await;
    assert_eq!(t.text("count").await, "2");
    t.close().await;
}

// ----- out-of-process (cross-site) iframes -----

impl Tab {
    /// Waits until the frame has posted a message matching `pred`: up to 20 s, by the clock
    /// (each look at the log is itself slow on a loaded machine), so a message that never
    /// comes still fails the test.
    async fn wait_log(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            if let Some(m) = self.frame_log().await.into_iter().find(|m| pred(m)) {
                return m;
            }
            if std::time::Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!(
            "the frame never reported {what} within 20 s; log: {:?}",
            self.frame_log().await
        );
    }
}

#[tokio::test]
async fn click_fill_select_and_press_inside_a_cross_site_frame() {
    let mut t = Tab::open_served("oopif.html").await;
    let targets =
        t.s.current_page()
            .map(|p| p.frame_targets())
            .unwrap_or_default();
    assert_eq!(targets.len(), 1, "the frame must run in another renderer");
    t.snapshot().await;

    // The frame lies below the fold, offset by margin, border and padding: the click scrolls
    // the page and must land on the button through the translated point.
    let btn = t.uid_named("button", "Press me");
    let r = t.act(json!({"cmd":"click","uid":btn})).await;
    assert_eq!(r["clicked"], json!(btn));
    let m = t
        .wait_log("the click", |m| {
            m["kind"] == "click" && m["value"]["target"] == "btn"
        })
        .await;
    assert_eq!(m["value"]["trusted"], true, "{m}");
    let scroll_y = t.eval("scrollY").await.as_f64().unwrap_or(0.0);
    assert!(
        scroll_y > 100.0,
        "the page was not scrolled to the frame: {scroll_y}"
    );

    // Far down inside the frame: the frame itself scrolls.
    let low = t.uid_named("button", "Low button");
    t.act(json!({"cmd":"click","uid":low})).await;
    t.wait_log("the low click", |m| m["value"]["target"] == "low")
        .await;

    let name = t.uid_named("textbox", "Name");
    let r = t.act(json!({"cmd":"fill","uid":name,"text":"Grace"})).await;
    assert_eq!(r["value"], "Grace", "{r}");
    let m = t
        .wait_log("the input", |m| {
            m["kind"] == "input" && m["value"]["value"] == "Grace"
        })
        .await;
    assert_eq!(m["value"]["trusted"], true, "{m}");

    let r = t.act(json!({"cmd":"press","uid":name,"key":"x"})).await;
    assert_eq!(r["focus"]["tag"], "input", "{r}");
    t.wait_log("the key", |m| {
        m["kind"] == "key" && m["value"]["key"] == "x"
    })
    .await;
    t.wait_log("the typed text", |m| {
        m["kind"] == "input" && m["value"]["value"] == "Gracex"
    })
    .await;

    let color = t.uid_named("combobox", "Colour");
    let r = t
        .act(json!({"cmd":"select","uid":color,"option":"Blue"}))
        .await;
    assert_eq!(r["value"], "b", "{r}");
    t.wait_log("the change", |m| {
        m["kind"] == "change" && m["value"]["value"] == "b"
    })
    .await;
    t.close().await;
}

#[tokio::test]
async fn cross_site_frame_covered_by_the_page_is_occluded() {
    let mut t = Tab::open_served("oopif.html").await;
    t.snapshot().await;
    let covered = t.uid_named("button", "Covered");
    let msg = assert_code!(
        t.err(json!({"cmd":"click","uid":covered})).await,
        "OCCLUDED"
    );
    assert!(msg.contains("shade") && msg.contains("Promotion"), "{msg}");
    assert!(
        !t.frame_log()
            .await
            .iter()
            .any(|m| m["value"]["target"] == "covered"),
        "the covered button must not have been clicked"
    );
    t.close().await;
}

#[tokio::test]
async fn dialog_from_a_cross_site_frame_is_reported_and_answered() {
    let mut t = Tab::open_served("oopif.html").await;
    t.snapshot().await;
    let alert = t.uid_named("button", "Alert");
    let r = t.act(json!({"cmd":"click","uid":alert})).await;
    assert_eq!(
        r["dialog"],
        json!({"type":"alert","message":"From the frame"}),
        "{r}"
    );
    let r = t.ok(json!({"cmd":"dialog","accept":true})).await;
    assert_eq!(r["accepted"], true, "{r}");
    t.wait_log("the end of the alert", |m| m["kind"] == "after-alert")
        .await;
    t.close().await;
}

// ----- page commands while a dialog is open -----

#[tokio::test]
async fn page_commands_answer_at_once_while_a_dialog_is_open() {
    let mut t = Tab::open("actions/dialogs.html").await;
    t.snapshot().await;
    let alert = t.uid("alert").await;
    let r = t.act(json!({"cmd":"click","uid":alert})).await;
    assert_eq!(r["dialog"]["type"], "alert", "{r}");
    for cmd in [
        json!({"cmd":"snapshot"}),
        json!({"cmd":"reload"}),
        json!({"cmd":"back"}),
        json!({"cmd":"diff"}),
    ] {
        let started = std::time::Instant::now();
        let msg = assert_code!(t.err(cmd.clone()).await, "OCCLUDED");
        // A generous bound: the command must not wait for the 30 s command timeout.
        assert!(
            started.elapsed().as_secs() < 10,
            "{cmd} took {:?}",
            started.elapsed()
        );
        assert!(
            msg.contains("alert")
                && msg.contains("Hello from the page")
                && msg.contains("\"cmd\":\"dialog\""),
            "{msg}"
        );
    }
    let r = t.s.execute_line(r#"{"cmd":"snapshot"}"#).await;
    assert!(r.contains("\"retryable\":true"), "{r}");
    // `pages` still answers and shows the dialog.
    let pages = t.ok(json!({"cmd":"pages"})).await;
    assert!(pages.to_string().contains("Hello from the page"), "{pages}");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    assert_eq!(t.text("after-alert").await, "yes");
    let snap = t.ok(json!({"cmd":"snapshot"})).await;
    assert!(snap.as_str().unwrap_or("").contains("Prompt"), "{snap}");
    t.close().await;
}

#[tokio::test]
async fn a_dialog_opening_during_a_reload_answers_promptly() {
    let mut t = Tab::open("actions/beforeunload.html").await;
    t.snapshot().await;
    let guard = t.uid("guard").await;
    t.act(json!({"cmd":"click","uid":guard})).await;
    assert_eq!(t.text("guarded").await, "yes");
    let started = std::time::Instant::now();
    let msg = assert_code!(t.err(json!({"cmd":"reload"})).await, "OCCLUDED");
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
    assert!(msg.contains("beforeunload"), "{msg}");
    // Leaving is confirmed: the page reloads, and the guard is gone with the old document.
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    t.ok(json!({"cmd":"snapshot"})).await;
    assert_eq!(t.text("guarded").await, "no");
    t.close().await;
}

// ----- settling after an action -----

#[tokio::test]
async fn an_action_waits_for_a_late_dom_change() {
    let mut t = Tab::open("actions/settle.html").await;
    t.snapshot().await;
    let later = t.uid("later").await;
    let r = t
        .act(json!({"cmd":"click","uid":later,"snapshot":true}))
        .await;
    let text = r["snapshot"].as_str().unwrap_or_default();
    assert!(text.contains("Found 3 results"), "{text}");
    assert!(r.get("settled").is_none(), "{r}");
    t.close().await;
}

#[tokio::test]
async fn a_page_that_never_stops_changing_still_answers() {
    let mut t = Tab::open("actions/settle.html").await;
    t.snapshot().await;
    let start = t.uid("ticker-start").await;
    let started = std::time::Instant::now();
    let r = t.ok(json!({"cmd":"click","uid":start})).await;
    // Capped at a few seconds, not the 30 s command timeout (the bound leaves room for a
    // loaded machine running other tests at the same time).
    assert!(
        started.elapsed().as_secs() < 15,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(r["settled"], false, "{r}");
    let ticks: u64 = t.text("tick").await.parse().unwrap_or(0);
    assert!(ticks > 10, "the ticker is not running: {ticks}");
    t.close().await;
}

// ----- a page that tampers with the DOM's built-ins -----

#[tokio::test]
async fn a_hostile_page_cannot_tamper_with_actions() {
    let mut t = Tab::open("actions/hostile.html").await;
    t.snapshot().await;
    // Its getComputedStyle says everything is hidden, matches() says disabled, contains()
    // says no hit is inside anything: acting from its world would refuse or misreport.
    let inc = t.uid("inc").await;
    t.act(json!({"cmd":"click","uid":inc})).await;
    assert_eq!(t.text("count").await, "1");

    let name = t.uid("name").await;
    let r = t.act(json!({"cmd":"fill","uid":name,"text":"Ada"})).await;
    assert_eq!(r["value"], "Ada", "{r}");
    assert!(r.get("warning").is_none(), "{r}");
    assert_eq!(t.text("name-echo").await, "Ada");

    let color = t.uid("color").await;
    let r = t
        .act(json!({"cmd":"select","uid":color,"option":"Green"}))
        .await;
    assert_eq!(r["value"], "g", "{r}");
    assert_eq!(t.text("color-echo").await, "g");

    let agree = t.uid("agree").await;
    let r = t.act(json!({"cmd":"fill","uid":agree,"text":"true"})).await;
    assert_eq!(r["checked"], true, "{r}");
    assert_eq!(t.text("agree-echo").await, "true");

    // Its scrollTop always reads 0: the container's real offsets are reported.
    let box_ = t.uid("box").await;
    let r = t
        .act(json!({"cmd":"scroll","uid":box_,"direction":"down","pixels":100}))
        .await;
    assert!(r["moved"].as_f64().unwrap_or(0.0) > 50.0, "{r}");
    t.close().await;
}

#[tokio::test]
async fn a_dialog_on_mousedown_does_not_leave_the_button_down() {
    let mut t = Tab::open("actions/mousedown-dialog.html").await;
    t.snapshot().await;
    let press = t.uid("press-alert").await;
    let r = t.act(json!({"cmd":"click","uid":press})).await;
    assert_eq!(r["dialog"]["message"], "Pressed", "{r}");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    assert_eq!(t.text("up").await, "yes");
    // The next pointer move sees no button held.
    let other = t.uid("other").await;
    t.act(json!({"cmd":"hover","uid":other})).await;
    assert_eq!(t.text("buttons").await, "0");
    t.close().await;
}

#[tokio::test]
async fn hover_scroll_and_upload_inside_a_cross_site_frame() {
    let mut t = Tab::open_served("oopif.html").await;
    t.snapshot().await;
    let btn = t.uid_named("button", "Press me");
    t.act(json!({"cmd":"hover","uid":btn})).await;
    t.wait_log("the hover", |m| m["kind"] == "hover").await;

    let list = t.uid_named("list", "Items");
    let r = t
        .act(json!({"cmd":"scroll","uid":list,"direction":"down","pixels":60}))
        .await;
    assert_eq!(r["method"], "wheel", "{r}");
    assert!(r["moved"].as_f64().unwrap_or(0.0) >= 30.0, "{r}");
    t.wait_log("the scroll", |m| {
        m["kind"] == "scroll" && m["value"]["top"].as_f64().unwrap_or(0.0) >= 30.0
    })
    .await;

    let file = std::env::temp_dir().join(format!("pagesight-upload-{}.txt", std::process::id()));
    std::fs::write(&file, "hello").expect("write a file to upload");
    let pick = t.uid_named("button", "Attach file");
    let r = t
        .act(json!({"cmd":"upload","uid":pick,"files":[file.to_string_lossy()]}))
        .await;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    assert_eq!(r["files"], json!([name]), "{r}");
    t.wait_log("the upload", |m| {
        m["kind"] == "upload" && m["value"]["names"] == json!([name])
    })
    .await;
    let _ = std::fs::remove_file(&file);
    t.close().await;
}

#[tokio::test]
async fn click_inside_a_scaled_cross_site_frame() {
    let mut t = Tab::open_served("oopif-scaled.html").await;
    t.snapshot().await;
    // Drawn at 75 %: a point translated without the scale would land elsewhere in the frame.
    for name in ["Low button", "Press me"] {
        let uid = t.uid_named("button", name);
        t.act(json!({"cmd":"click","uid":uid})).await;
    }
    t.wait_log("the low click", |m| m["value"]["target"] == "low")
        .await;
    t.wait_log("the click", |m| m["value"]["target"] == "btn")
        .await;
    let name = t.uid_named("textbox", "Name");
    t.act(json!({"cmd":"fill","uid":name,"text":"Lin"})).await;
    t.wait_log("the input", |m| m["value"]["value"] == "Lin")
        .await;
    t.close().await;
}

#[tokio::test]
async fn click_inside_a_frame_nested_in_a_cross_site_frame() {
    let mut t = Tab::open_served("oopif-nested.html").await;
    // Chromium sends the click to the frame it finds at the point in what was last drawn: a
    // frame not drawn yet would lose it to the frame around it.
    for frame in ["mid", "leaf"] {
        t.wait_log(&format!("that the {frame} frame is ready"), |m| {
            m["kind"] == "ready" && m["value"]["frame"] == frame
        })
        .await;
    }
    let targets =
        t.s.current_page()
            .map(|p| p.frame_targets())
            .unwrap_or_default();
    assert_eq!(
        targets.len(),
        2,
        "both frames must run in renderers of their own"
    );
    t.snapshot().await;
    let deep = t.uid_named("button", "Deep button");
    t.act(json!({"cmd":"click","uid":deep})).await;
    let m = t
        .wait_log("the deep click", |m| m["value"]["target"] == "deep")
        .await;
    assert_eq!(m["value"]["trusted"], true, "{m}");
    t.close().await;
}

// ----- the page changes or stalls under an action -----

#[tokio::test]
async fn a_click_dialog_is_answered_without_a_second_mouseup() {
    let mut t = Tab::open("actions/mousedown-dialog.html").await;
    t.snapshot().await;
    let click = t.uid("click-alert").await;
    let r = t.act(json!({"cmd":"click","uid":click})).await;
    assert_eq!(r["dialog"]["message"], "Clicked", "{r}");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    // One press, one release: the release already reached the page before the dialog.
    assert_eq!(t.text("ups").await, "1");
    let other = t.uid("other").await;
    t.act(json!({"cmd":"hover","uid":other})).await;
    assert_eq!(t.text("ups").await, "1");
    assert_eq!(t.text("buttons").await, "0");
    t.close().await;
}

#[tokio::test]
async fn a_dialog_opened_by_focusing_is_reported() {
    let mut t = Tab::open("actions/mousedown-dialog.html").await;
    t.snapshot().await;
    let field = t.uid("focus-alert").await;
    for cmd in [
        json!({"cmd":"fill","uid":field,"text":"x"}),
        json!({"cmd":"press","uid":field,"key":"a"}),
    ] {
        let started = std::time::Instant::now();
        let r = t.ok(cmd.clone()).await;
        assert!(
            started.elapsed().as_secs() < 10,
            "{cmd} took {:?}",
            started.elapsed()
        );
        assert_eq!(r["dialog"]["message"], "Focused", "{cmd}: {r}");
        t.ok(json!({"cmd":"dialog","accept":true})).await;
        // Focus it away again so the next command focuses it anew.
        let other = t.uid("other").await;
        t.act(json!({"cmd":"click","uid":other})).await;
    }
    t.close().await;
}

#[tokio::test]
async fn an_element_replaced_under_the_pointer_is_stale_and_not_clicked() {
    let mut t = Tab::open("actions/stale.html").await;
    t.snapshot().await;
    let swap = t.uid("swap").await;
    let msg = assert_code!(t.err(json!({"cmd":"click","uid":swap})).await, "STALE_UID");
    assert!(msg.contains(&swap) && msg.contains("snapshot"), "{msg}");
    // Neither the old element nor the one now in its place got the click.
    assert_eq!(t.text("swap-count").await, "0");
    assert_eq!(t.text("swapped-count").await, "0");
    // The uid is forgotten: the next try fails the same way at once.
    assert_code!(t.err(json!({"cmd":"click","uid":swap})).await, "STALE_UID");
    t.close().await;
}

#[tokio::test]
async fn a_field_removed_while_filling_is_stale() {
    let mut t = Tab::open("actions/stale.html").await;
    t.snapshot().await;
    let field = t.uid("vanish").await;
    let msg = assert_code!(
        t.err(json!({"cmd":"fill","uid":field,"text":"Ada"})).await,
        "STALE_UID"
    );
    assert!(msg.contains("removed"), "{msg}");
    assert_eq!(t.text("input-count").await, "0");
    t.close().await;
}

#[tokio::test]
async fn a_page_that_blocks_its_main_thread_after_a_click_still_answers() {
    let mut t = Tab::open_own_site("busy.html").await;
    t.snapshot().await;
    let spin = t.uid("spin").await;
    let started = std::time::Instant::now();
    let r = t.ok(json!({"cmd":"click","uid":spin})).await;
    // The page is busy for 15 s; the action must not wait for it (nor for the 30 s command
    // timeout), and says the page did not settle.
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(r["clicked"], json!(spin), "{r}");
    assert_eq!(r["settled"], false, "{r}");
    t.close().await;
}

#[tokio::test]
async fn a_dialog_opening_while_the_page_settles_is_reported() {
    let mut t = Tab::open("actions/mousedown-dialog.html").await;
    t.snapshot().await;
    let late = t.uid("late-alert").await;
    let started = std::time::Instant::now();
    let r = t
        .act(json!({"cmd":"click","uid":late,"snapshot":true}))
        .await;
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(r["dialog"]["message"], "Later", "{r}");
    assert_eq!(r["snapshot"], Value::Null, "{r}");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    t.ok(json!({"cmd":"snapshot"})).await;
    t.close().await;
}

#[tokio::test]
async fn a_frame_part_off_the_page_is_not_interactable_not_covered() {
    let mut t = Tab::open_served("oopif-offscreen.html").await;
    t.snapshot().await;
    let btn = t.uid_named("button", "Press me");
    let msg = assert_code!(
        t.err(json!({"cmd":"click","uid":btn})).await,
        "NOT_INTERACTABLE"
    );
    assert!(msg.contains("outside the page's viewport"), "{msg}");
    // The part of the same frame that shows still takes clicks.
    let list = t.uid_named("list", "Items");
    t.act(json!({"cmd":"scroll","uid":list,"direction":"down","pixels":60}))
        .await;
    t.wait_log("the scroll", |m| m["kind"] == "scroll").await;
    t.close().await;
}

#[tokio::test]
async fn a_page_that_alerts_while_loading_opens_with_the_dialog() {
    let mut t = Tab::open("actions/clicks.html").await;
    let url = format!(
        "file://{}",
        page_path("actions/alert-on-load.html").to_string_lossy()
    );
    // The navigation happened: its result reports the dialog instead of an error that asks to
    // try again (which would load the page into the same dialog).
    let r = t.ok(json!({"cmd":"open","url":url})).await;
    assert_eq!(r["dialog"]["message"], "Welcome", "{r}");
    assert_eq!(r["loaded"], false, "{r}");
    // While it is open, other page commands are OCCLUDED.
    assert_code!(t.err(json!({"cmd":"snapshot"})).await, "OCCLUDED");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    assert_eq!(t.text("greeted").await, "yes");
    t.snapshot().await;
    // Reloading greets again, and says so the same way.
    let r = t.ok(json!({"cmd":"reload"})).await;
    assert_eq!(r["dialog"]["message"], "Welcome", "{r}");
    t.ok(json!({"cmd":"dialog","accept":true})).await;
    assert_eq!(t.text("greeted").await, "yes");
    t.close().await;
}
