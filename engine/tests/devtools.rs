//! The debugging commands against a real headless Chromium: console messages and network
//! requests a fixture page makes (`fixtures/pages/devtools/`, served over loopback HTTP), their
//! paging, filters and ids, the bounded buffers, and `evaluate` with and without elements.
//! Each test opens its own page of one shared browser, through `Session::execute_json` as a
//! front end does.

use std::sync::OnceLock;
use std::time::Duration;

use pagesight::browser::{kill_launched_browsers, Browser, LaunchOptions, LaunchTransport};
use pagesight::session::{Session, SessionOptions};
use serde_json::{json, Value};

mod common;
use common::{pages_dir, serve_two_origins, Origins};

static BROWSER: OnceLock<Result<String, String>> = OnceLock::new();

extern "C" fn kill_shared_browser() {
    kill_launched_browsers();
}

/// The WebSocket URL of the shared browser, launched on first use on a thread of its own.
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
        Err(e) => panic!("cannot launch Chromium for the devtools tests: {e}"),
    }
}

fn origins() -> &'static Origins {
    static ORIGINS: OnceLock<Origins> = OnceLock::new();
    ORIGINS.get_or_init(|| serve_two_origins(pages_dir("devtools")).expect("serve the pages"))
}

struct Tab {
    s: Session,
}

impl Tab {
    /// A session on a page of its own with these options, the fixture page loaded.
    async fn open(collect_devtools: bool, allow_evaluate: bool) -> Tab {
        let options = SessionOptions {
            browser: Some(browser_url()),
            collect_devtools,
            allow_evaluate,
            ..SessionOptions::default()
        };
        let mut s = Session::start(options).await.expect("connect");
        let url = format!("{}/console-network.html", origins().a);
        let r = s.execute_json(&json!({"cmd": "open", "url": url})).await;
        assert!(r.is_ok(), "open {url}: {r:?}");
        Tab { s }
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

    /// Runs `cmd` until `done` holds for its result (at most 10 s), and returns that result.
    async fn until(&mut self, cmd: Value, done: impl Fn(&Value) -> bool) -> Value {
        let mut last = Value::Null;
        for _ in 0..200 {
            last = self.ok(cmd.clone()).await;
            if done(&last) {
                return last;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{cmd} never gave what was waited for; last: {last}")
    }

    /// The page's messages once the exception and the fetched data's message are in.
    async fn settled_messages(&mut self) -> Value {
        self.until(json!({"cmd":"console_messages"}), |v| {
            let texts = texts(&v["messages"]);
            texts.iter().any(|t| t.contains("boom")) && texts.iter().any(|t| t.starts_with("data"))
        })
        .await
    }

    /// The page's requests once both fetches ended.
    async fn settled_requests(&mut self) -> Value {
        self.until(json!({"cmd":"network_requests"}), |v| {
            let ended = |name: &str| {
                v["requests"].as_array().into_iter().flatten().any(|r| {
                    r["url"].as_str().is_some_and(|u| u.ends_with(name))
                        && r["state"] != json!("pending")
                })
            };
            ended("missing.json") && ended("data.json")
        })
        .await
    }

    /// The uid of the button, from a JSON snapshot.
    async fn button_uid(&mut self) -> String {
        let snap = self
            .ok(json!({"cmd":"snapshot","format":"json","expand":"all"}))
            .await;
        fn find(v: &Value) -> Option<String> {
            if v["role"] == json!("button") && v["name"] == json!("Hello, pagesight") {
                return v["uid"].as_str().map(str::to_string);
            }
            v["children"].as_array()?.iter().find_map(find)
        }
        find(&snap["root"]).unwrap_or_else(|| panic!("no button in {snap}"))
    }

    async fn close(mut self) {
        let _ = self.s.execute_json(&json!({"cmd": "close"})).await;
        let _ = self.s.shutdown().await;
    }
}

fn texts(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["text"].as_str().map(str::to_string))
        .collect()
}

fn find<'a>(list: &'a Value, key: &str, pred: impl Fn(&str) -> bool) -> &'a Value {
    list.as_array()
        .into_iter()
        .flatten()
        .find(|m| m[key].as_str().is_some_and(&pred))
        .unwrap_or_else(|| panic!("nothing with a matching {key} in {list}"))
}

#[tokio::test]
async fn console_messages_have_their_types_sources_and_locations() {
    let mut t = Tab::open(true, false).await;
    let list = t.settled_messages().await;
    let messages = &list["messages"];
    let hello = find(messages, "text", |t| t.starts_with("hello"));
    assert_eq!(hello["type"], json!("log"), "{hello}");
    assert_eq!(hello["source"], json!("console-api"));
    assert_eq!(hello["text"], json!("hello 42 Object"), "{hello}");
    assert!(
        hello["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("console-network.html")),
        "{hello}"
    );
    assert!(hello["line"].as_i64().is_some_and(|l| l > 1), "{hello}");
    assert_eq!(
        find(messages, "text", |t| t == "careful")["type"],
        json!("warn")
    );
    assert_eq!(
        find(messages, "text", |t| t == "fyi")["type"],
        json!("info")
    );
    assert_eq!(
        find(messages, "text", |t| t == "bad thing")["type"],
        json!("error")
    );
    let boom = find(messages, "text", |t| t.contains("boom"));
    assert_eq!(boom["type"], json!("error"));
    assert_eq!(boom["source"], json!("exception"));
    assert!(
        boom["text"]
            .as_str()
            .is_some_and(|t| t.contains("Uncaught")),
        "{boom}"
    );
    // The browser's own message about the 404.
    let failed = find(messages, "text", |t| t.contains("404"));
    assert_eq!(failed["source"], json!("network"), "{failed}");
    assert_eq!(failed["type"], json!("error"), "{failed}");
    assert_eq!(
        list["total"].as_u64(),
        Some(messages.as_array().map_or(0, |m| m.len()) as u64)
    );
    assert_eq!(list["dropped"], json!(0));

    // One message in full.
    let id = hello["id"].clone();
    let full = t.ok(json!({"cmd":"console_message","id":id})).await;
    assert_eq!(full["id"], id);
    assert_eq!(
        full["args"],
        json!(["hello", 42, {"a": 1, "b": "two"}]),
        "{full}"
    );
    assert!(
        full["stackTrace"].as_array().is_some_and(|s| !s.is_empty()),
        "{full}"
    );
    assert!(full["timestamp"].as_f64().is_some_and(|t| t > 0.0));
    // `msgid` is read as the id too.
    let same = t.ok(json!({"cmd":"console_message","msgid":id})).await;
    assert_eq!(same, full);
    let thrown = t.ok(json!({"cmd":"console_message","id":boom["id"]})).await;
    assert!(
        thrown["stackTrace"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{thrown}"
    );
    let message = t.err(json!({"cmd":"console_message","id":9999})).await;
    assert_eq!(message.0, "INVALID_ARGUMENT");
    assert!(message.1.contains("console_messages"), "{}", message.1);
    t.close().await;
}

#[tokio::test]
async fn console_messages_page_and_filter() {
    let mut t = Tab::open(true, false).await;
    let all = t.settled_messages().await;
    let total = all["total"].as_u64().unwrap_or(0);
    assert!(total >= 7, "{all}");

    let warns = t
        .ok(json!({"cmd":"console_messages","types":["warn"]}))
        .await;
    assert_eq!(warns["total"], json!(1), "{warns}");
    assert_eq!(texts(&warns["messages"]), vec!["careful"]);
    let errors = t
        .ok(json!({"cmd":"console_messages","types":["error"]}))
        .await;
    assert!(errors["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|m| m["type"] == json!("error")));
    assert!(errors["total"].as_u64().unwrap_or(0) >= 3, "{errors}");

    let second = t
        .ok(json!({"cmd":"console_messages","pageSize":2,"pageIdx":1,"types":null}))
        .await;
    assert_eq!(second["pageIdx"], json!(1));
    let now = second["total"].as_u64().unwrap_or(0);
    assert!(now >= total, "{second}");
    assert_eq!(second["pages"], json!(now.div_ceil(2)));
    assert_eq!(
        second["messages"],
        json!(all["messages"].as_array().map(|m| m[2..4].to_vec()))
    );
    let beyond = t
        .ok(json!({"cmd":"console_messages","pageSize":2,"pageIdx":99}))
        .await;
    assert_eq!(beyond["messages"], json!([]));
    let zero = t.err(json!({"cmd":"console_messages","pageSize":0})).await;
    assert_eq!(zero.0, "INVALID_ARGUMENT");
    t.close().await;
}

#[tokio::test]
async fn network_requests_are_listed_and_read_with_their_bodies() {
    let mut t = Tab::open(true, false).await;
    let list = t.settled_requests().await;
    let requests = &list["requests"];
    let document = find(requests, "url", |u| u.ends_with("console-network.html"));
    assert_eq!(document["resourceType"], json!("document"));
    assert_eq!(document["status"], json!(200));
    assert_eq!(document["method"], json!("GET"));
    let missing = find(requests, "url", |u| u.ends_with("missing.json"));
    assert_eq!(missing["status"], json!(404), "{missing}");
    assert_eq!(missing["resourceType"], json!("fetch"));
    let data = find(requests, "url", |u| u.ends_with("data.json"));
    assert_eq!(data["status"], json!(200));
    assert_eq!(data["state"], json!("finished"));

    let fetches = t
        .ok(json!({"cmd":"network_requests","resourceTypes":["fetch"]}))
        .await;
    assert_eq!(fetches["total"], json!(2), "{fetches}");
    let first = t.ok(json!({"cmd":"network_requests","pageSize":1})).await;
    assert_eq!(first["requests"][0], requests[0]);
    assert_eq!(first["pages"], first["total"]);

    let full = t.ok(json!({"cmd":"network_request","id":data["id"]})).await;
    assert_eq!(
        full["body"],
        json!("{\"items\":[1,2,3],\"name\":\"pagesight\"}\n"),
        "{full}"
    );
    assert!(full["responseHeaders"].is_object(), "{full}");
    assert!(full["requestHeaders"].is_object(), "{full}");
    assert!(
        full["timing"]["startedAt"]
            .as_f64()
            .is_some_and(|t| t > 0.0),
        "{full}"
    );
    assert!(full["timing"]["durationMs"].as_f64().is_some(), "{full}");
    assert!(full["size"].as_f64().is_some_and(|s| s > 0.0), "{full}");
    assert_eq!(full["mimeType"], json!("text/html"));
    let by_reqid = t
        .ok(json!({"cmd":"network_request","reqid":missing["id"]}))
        .await;
    assert_eq!(by_reqid["status"], json!(404));
    let unknown = t.err(json!({"cmd":"network_request","id":0})).await;
    assert_eq!(unknown.0, "INVALID_ARGUMENT");
    t.close().await;
}

#[tokio::test]
async fn the_buffer_keeps_the_newest_messages_and_counts_the_dropped() {
    let mut t = Tab::open(true, true).await;
    let before = t.settled_messages().await["total"].as_u64().unwrap_or(0);
    // 1200 more, in batches, so none is lost on the way.
    let logged = t
        .ok(json!({"cmd":"evaluate","function":"async () => {
            for (let b = 0; b < 6; b++) {
                for (let i = 0; i < 200; i++) console.log('m' + (b * 200 + i));
                await new Promise((r) => setTimeout(r, 30));
            }
            return 1200;
        }"}))
        .await;
    assert_eq!(logged["value"], json!(1200));
    let list = t
        .until(json!({"cmd":"console_messages","pageSize":10}), |v| {
            v["total"] == json!(1000) && v["dropped"].as_u64() == Some(before + 200)
        })
        .await;
    let first_id = before + 200 + 1;
    assert_eq!(list["messages"][0]["id"], json!(first_id), "{list}");
    let last = t
        .ok(json!({"cmd":"console_messages","pageSize":10,"pageIdx":99}))
        .await;
    assert_eq!(last["messages"].as_array().map(Vec::len), Some(10));
    assert_eq!(last["messages"][9]["text"], json!("m1199"));
    let gone = t.err(json!({"cmd":"console_message","id":1})).await;
    assert_eq!(gone.0, "INVALID_ARGUMENT");
    assert!(gone.1.contains("dropped"), "{}", gone.1);
    t.close().await;
}

#[tokio::test]
async fn evaluate_runs_in_the_main_world_with_elements_as_arguments() {
    let mut t = Tab::open(false, true).await;
    let title = t
        .ok(json!({"cmd":"evaluate","function":"() => document.title"}))
        .await;
    assert_eq!(title, json!({"value": "Console and network"}));
    // The page's own globals: the main world.
    let secret = t
        .ok(json!({"cmd":"evaluate","function":"() => window.pageSecret"}))
        .await;
    assert_eq!(secret["value"], json!(7));
    let promised = t
        .ok(json!({"cmd":"evaluate","function":"async () => { await null; return {n: [1, 2]}; }"}))
        .await;
    assert_eq!(promised["value"], json!({"n": [1, 2]}));
    let nothing = t
        .ok(json!({"cmd":"evaluate","function":"() => undefined"}))
        .await;
    assert_eq!(nothing["value"], Value::Null);

    let button = t.button_uid().await;
    let text = t
        .ok(json!({"cmd":"evaluate","function":"(el) => el.innerText","args":[button]}))
        .await;
    assert_eq!(text["value"], json!("Hello, pagesight"));
    let both = t
        .ok(json!({"cmd":"evaluate",
            "function":"(a, b) => a === b && a.id",
            "args":[button, button]}))
        .await;
    assert_eq!(both["value"], json!("greet"));

    // A function that throws, or does not compile.
    let thrown = t
        .err(json!({"cmd":"evaluate","function":"() => { throw new Error('kaboom'); }"}))
        .await;
    assert_eq!(thrown.0, "INVALID_ARGUMENT");
    assert!(thrown.1.contains("kaboom"), "{}", thrown.1);
    let broken = t.err(json!({"cmd":"evaluate","function":"() => {"})).await;
    assert_eq!(broken.0, "INVALID_ARGUMENT");

    // The element goes away: its uid is stale.
    t.ok(json!({"cmd":"evaluate","function":"() => document.getElementById('greet').remove()"}))
        .await;
    let stale = t
        .err(json!({"cmd":"evaluate","function":"(el) => el.id","args":[button]}))
        .await;
    assert_eq!(stale.0, "STALE_UID", "{}", stale.1);
    let unknown = t
        .err(json!({"cmd":"evaluate","function":"(el) => el.id","args":["9_99"]}))
        .await;
    assert_eq!(unknown.0, "UNKNOWN_UID", "{}", unknown.1);
    t.close().await;
}

#[tokio::test]
async fn the_commands_say_how_to_turn_them_on() {
    let mut t = Tab::open(false, false).await;
    let refused = t
        .err(json!({"cmd":"evaluate","function":"() => document.title"}))
        .await;
    assert_eq!(refused.0, "INVALID_ARGUMENT");
    assert!(refused.1.contains("--allow-evaluate"), "{}", refused.1);
    for cmd in [
        json!({"cmd":"console_messages"}),
        json!({"cmd":"console_message","id":1}),
        json!({"cmd":"network_requests"}),
        json!({"cmd":"network_request","id":1}),
    ] {
        let off = t.err(cmd).await;
        assert_eq!(off.0, "INVALID_ARGUMENT");
        assert!(off.1.contains("--collect-devtools"), "{}", off.1);
    }
    t.close().await;
}
