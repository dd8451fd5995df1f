//! `screenshot` against a real headless Chromium: the three formats, the whole page, one
//! element, writing a file, and annotated pictures whose labels are the uids of the snapshot
//! they took. Each test opens its own page of one shared browser (launched once per test
//! binary, killed at exit) and runs commands as a front end does.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use base64::Engine as _;
use pagesight::browser::{kill_launched_browsers, Browser, LaunchOptions, LaunchTransport};
use pagesight::cdp::runtime::EvaluateParams;
use pagesight::render::annotate::colour;
use pagesight::session::{Session, SessionOptions};
use serde_json::{json, Value};
use tiny_skia::Pixmap;

static BROWSER: OnceLock<Result<String, String>> = OnceLock::new();

extern "C" fn kill_shared_browser() {
    kill_launched_browsers();
}

/// The WebSocket URL of the shared browser, launching it on first use on a thread of its own.
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
        Err(e) => panic!("cannot launch Chromium for the screenshot tests: {e}"),
    }
}

fn page_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/pages")
        .join(name)
}

struct Tab {
    s: Session,
}

impl Tab {
    async fn open(page: &str) -> Tab {
        Tab::open_with(page, pagesight::AllowedFolders::default()).await
    }

    /// Opens `page` in a session whose commands may write files in `files` only.
    async fn open_with(page: &str, files: pagesight::AllowedFolders) -> Tab {
        let options = SessionOptions {
            browser: Some(browser_url()),
            files,
            ..SessionOptions::default()
        };
        let mut s = Session::start(options)
            .await
            .expect("connect to the shared browser");
        let url = page_path(page);
        let r = s
            .execute_json(&json!({"cmd": "open", "url": url.to_string_lossy()}))
            .await;
        assert!(r.is_ok(), "open {page}: {r:?}");
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

    /// The snapshot text.
    async fn snapshot(&mut self) -> String {
        let v = self.ok(json!({"cmd": "snapshot"})).await;
        v.as_str().expect("snapshot text").to_string()
    }
}

/// The image bytes of a screenshot result.
fn bytes(result: &Value) -> Vec<u8> {
    let data = result["data"].as_str().expect("data");
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64")
}

fn size(result: &Value) -> (u64, u64) {
    (
        result["width"].as_u64().expect("width"),
        result["height"].as_u64().expect("height"),
    )
}

fn decode(png: &[u8]) -> Pixmap {
    Pixmap::decode_png(png).expect("a PNG")
}

fn pixel(p: &Pixmap, x: u32, y: u32) -> [u8; 3] {
    let c = p.pixel(x, y).expect("inside the image");
    [c.red(), c.green(), c.blue()]
}

/// The uid of the line of `text` that contains `needle`.
fn uid_of(text: &str, needle: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle} in\n{text}"));
    line.trim_start()
        .strip_prefix("uid=")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no uid on {line}"))
        .to_string()
}

/// Every uid the snapshot text prints.
fn uids_in(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("uid="))
        .filter_map(|r| r.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn the_three_formats_have_their_magic_bytes_and_the_viewport_size() {
    let mut t = Tab::open("screenshot/labels.html").await;
    let png = t.ok(json!({"cmd": "screenshot"})).await;
    assert_eq!(png["format"], "png");
    assert_eq!(size(&png), (1280, 800));
    let b = bytes(&png);
    assert!(b.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!((decode(&b).width(), decode(&b).height()), (1280, 800));
    assert!(png.get("annotated").is_none() && png.get("path").is_none());

    let jpeg = t
        .ok(json!({"cmd": "screenshot", "format": "jpeg", "quality": 50}))
        .await;
    assert_eq!(jpeg["format"], "jpeg");
    assert_eq!(size(&jpeg), (1280, 800));
    assert!(bytes(&jpeg).starts_with(&[0xFF, 0xD8, 0xFF]));
    let best = t
        .ok(json!({"cmd": "screenshot", "format": "jpeg", "quality": 100}))
        .await;
    assert!(bytes(&best).len() > bytes(&jpeg).len(), "quality is used");

    let webp = t.ok(json!({"cmd": "screenshot", "format": "webp"})).await;
    assert_eq!(webp["format"], "webp");
    assert_eq!(size(&webp), (1280, 800));
    let w = bytes(&webp);
    assert!(w.starts_with(b"RIFF") && &w[8..12] == b"WEBP");
}

#[tokio::test]
async fn full_page_is_taller_than_the_viewport() {
    let mut t = Tab::open("long-page.html").await;
    let page_height = t
        .eval("document.documentElement.scrollHeight")
        .await
        .as_u64()
        .expect("a height");
    let r = t.ok(json!({"cmd": "screenshot", "fullPage": true})).await;
    let (w, h) = size(&r);
    assert!(h > 800, "{h}");
    assert_eq!(h, page_height);
    assert!((1265..=1280).contains(&w), "{w}");
    let p = decode(&bytes(&r));
    assert_eq!((u64::from(p.width()), u64::from(p.height())), (w, h));
    // The viewport is where it was.
    assert_eq!(t.eval("scrollY").await, json!(0));
}

#[tokio::test]
async fn a_uid_clips_to_the_element_box_and_scrolls_it_into_view() {
    let mut t = Tab::open("screenshot/labels.html").await;
    let text = t.snapshot().await;
    let target = uid_of(&text, "\"Target\"");
    let r = t.ok(json!({"cmd": "screenshot", "uid": target})).await;
    assert_eq!(size(&r), (200, 60));
    let p = decode(&bytes(&r));
    // The button's face, not the page's white.
    assert_eq!(pixel(&p, 5, 5), [0xEE, 0xEE, 0xEE]);
    assert_eq!(pixel(&p, 0, 0), [0x88, 0x88, 0x88], "its border");

    // An element below the fold: scrolled into view, then clipped to its box.
    let far = t
        .eval(
            "(()=>{const s=document.createElement('button');s.id='later';\
                     s.textContent='Later';s.style.cssText='position:absolute;left:40px;\
                     top:1700px;width:120px;height:30px';document.body.append(s);return 1})()",
        )
        .await;
    assert_eq!(far, json!(1));
    let text = t.ok(json!({"cmd": "snapshot", "expand": "all"})).await;
    let later = uid_of(text.as_str().unwrap_or(""), "\"Later\"");
    let r = t.ok(json!({"cmd": "screenshot", "uid": later})).await;
    assert_eq!(size(&r), (120, 30));
    let y = t.eval("scrollY").await.as_f64().unwrap_or(0.0);
    assert!(y > 0.0, "the page scrolled to the element");
}

#[tokio::test]
async fn a_uid_of_a_removed_element_is_stale_and_unknown_uids_are_named() {
    let mut t = Tab::open("screenshot/labels.html").await;
    let (code, _) = t.err(json!({"cmd": "screenshot", "uid": "1_3"})).await;
    assert_eq!(code, "NO_SNAPSHOT");
    let text = t.snapshot().await;
    let target = uid_of(&text, "\"Target\"");
    t.eval("document.getElementById('target').remove()").await;
    let (code, message) = t.err(json!({"cmd": "screenshot", "uid": target})).await;
    assert_eq!(code, "STALE_UID", "{message}");
    let (code, _) = t.err(json!({"cmd": "screenshot", "uid": "1_9999"})).await;
    assert_eq!(code, "UNKNOWN_UID");
    let (code, message) = t
        .err(json!({"cmd": "screenshot", "uid": "1_1", "fullPage": true}))
        .await;
    assert_eq!(code, "INVALID_ARGUMENT", "{message}");
}

#[tokio::test]
async fn path_writes_the_file_and_a_bad_folder_leaves_nothing() {
    let mut t = Tab::open("screenshot/labels.html").await;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("shot.jpeg");
    let r = t
        .ok(json!({"cmd": "screenshot", "format": "jpeg", "path": file.to_string_lossy()}))
        .await;
    assert!(r.get("data").is_none(), "{r}");
    let written = PathBuf::from(r["path"].as_str().expect("path"));
    assert_eq!(
        written.canonicalize().ok(),
        file.canonicalize().ok(),
        "{written:?}"
    );
    let b = std::fs::read(&file).expect("the file");
    assert!(b.starts_with(&[0xFF, 0xD8, 0xFF]));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o644,
            "an ordinary file, not a private temporary one"
        );
    }
    assert_eq!(size(&r), (1280, 800));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("shot.jpeg")]);

    let missing = dir.path().join("no-such-folder").join("shot.png");
    let (code, message) = t
        .err(json!({"cmd": "screenshot", "path": missing.to_string_lossy()}))
        .await;
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(message.contains("does not exist"), "{message}");
    assert!(!missing.exists());
    let count = std::fs::read_dir(dir.path()).expect("list").count();
    assert_eq!(count, 1, "nothing left behind");
}

#[tokio::test]
async fn a_path_outside_the_allowed_folders_is_refused_before_the_picture() {
    let allowed = tempfile::tempdir().expect("a temporary folder");
    let elsewhere = tempfile::tempdir().expect("a temporary folder");
    let mut files = pagesight::AllowedFolders::none();
    files.add(allowed.path()).expect("allow the folder");
    let mut t = Tab::open_with("screenshot/labels.html", files).await;
    let outside = elsewhere.path().join("shot.png");
    let (code, message) = t
        .err(json!({"cmd": "screenshot", "path": outside.to_string_lossy()}))
        .await;
    assert_eq!(code, "INVALID_ARGUMENT", "{message}");
    assert!(message.contains("shot.png"), "{message}");
    assert!(message.contains("--allow-dir"), "{message}");
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).expect("list").count(),
        0
    );
    // `..` out of the allowed folder is outside too.
    let escape = allowed.path().join("..").join("escaped.png");
    let (code, _) = t
        .err(json!({"cmd": "screenshot", "path": escape.to_string_lossy()}))
        .await;
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(!escape.exists());
    // The session goes on: a path inside is written.
    let inside = allowed.path().join("shot.png");
    t.ok(json!({"cmd": "screenshot", "path": inside.to_string_lossy()}))
        .await;
    assert!(inside.exists());
}

/// A folder no one may create files in, and what keeps it alive: a folder without write
/// permission, or for a user who may write anyway (root), the process's own folder under
/// `/proc`, where no file can be created.
fn read_only_folder() -> Option<(Option<tempfile::TempDir>, PathBuf)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().ok()?;
        let locked = dir.path().join("locked");
        std::fs::create_dir(&locked).ok()?;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).ok()?;
        if std::fs::write(locked.join("probe"), "p").is_err() {
            return Some((Some(dir), locked));
        }
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).ok()?;
    }
    let proc_self = std::fs::canonicalize("/proc/self").ok()?;
    Some((None, proc_self))
}

#[tokio::test]
async fn a_read_only_folder_is_a_clear_error() {
    let Some((_keep, locked)) = read_only_folder() else {
        eprintln!("no folder that cannot be written was found; skipped");
        return;
    };
    let mut files = pagesight::AllowedFolders::none();
    files.add(&locked).expect("allow the folder");
    let mut t = Tab::open_with("screenshot/labels.html", files).await;
    let file = locked.join("shot.png");
    let (code, message) = t
        .err(json!({"cmd": "screenshot", "path": file.to_string_lossy()}))
        .await;
    assert_eq!(code, "INVALID_ARGUMENT", "{message}");
    assert!(message.contains("cannot be written"), "{message}");
    assert!(!file.exists());
}

#[tokio::test]
async fn annotate_labels_exactly_the_snapshots_interactive_uids() {
    let mut t = Tab::open("screenshot/labels.html").await;
    let plain = t.ok(json!({"cmd": "screenshot"})).await;
    let plain = decode(&bytes(&plain));
    // Asked for JPEG, an annotated screenshot is still PNG.
    let r = t
        .ok(json!({"cmd": "screenshot", "annotate": true, "format": "jpeg"}))
        .await;
    assert_eq!(r["format"], "png");
    assert_eq!(size(&r), (1280, 800));
    let labelled: Vec<String> = r["uids"]
        .as_array()
        .expect("uids")
        .iter()
        .filter_map(|u| u.as_str().map(str::to_string))
        .collect();
    assert_eq!(r["annotated"], json!(labelled.len()));
    // The snapshot the screenshot took is the page's last one: the same text now.
    let text = t.snapshot().await;
    let in_text = uids_in(&text);
    assert!(
        labelled.iter().all(|u| in_text.contains(u)),
        "{labelled:?}\n{text}"
    );
    let target = uid_of(&text, "\"Target\"");
    let link = uid_of(&text, "\"A link\"");
    let field = uid_of(&text, "\"Field\"");
    let heading = uid_of(&text, "heading");
    let expected: BTreeSet<String> = [&target, &link, &field].into_iter().cloned().collect();
    let got: BTreeSet<String> = labelled.iter().cloned().collect();
    assert_eq!(got, expected, "{text}");
    assert!(!got.contains(&heading));

    let p = decode(&bytes(&r));
    let i = labelled.iter().position(|u| *u == target).unwrap_or(0);
    let (fill, _) = colour(i);
    // The button's box edges (600..800 x 200..260) carry its colour.
    assert_eq!(pixel(&p, 600, 230), fill);
    assert_eq!(pixel(&p, 601, 230), fill);
    assert_eq!(pixel(&p, 799, 230), fill);
    assert_eq!(pixel(&p, 700, 259), fill);
    // Inside the button and inside the panel (not interactive): as in the plain picture.
    assert_eq!(pixel(&p, 700, 235), pixel(&plain, 700, 235));
    assert_eq!(pixel(&p, 240, 450), pixel(&plain, 240, 450));
    assert_eq!(pixel(&p, 240, 450), [10, 120, 200]);

    // The uids are acted on without another snapshot.
    t.ok(json!({"cmd": "click", "uid": target})).await;
}

#[tokio::test]
async fn annotate_full_page_labels_elements_below_the_fold() {
    let mut t = Tab::open("screenshot/labels.html").await;
    let r = t
        .ok(json!({"cmd": "screenshot", "annotate": true, "fullPage": true}))
        .await;
    assert!(size(&r).1 >= 2000, "{r}");
    let labelled: Vec<String> = r["uids"]
        .as_array()
        .expect("uids")
        .iter()
        .filter_map(|u| u.as_str().map(str::to_string))
        .collect();
    let text = t.ok(json!({"cmd": "snapshot", "expand": "all"})).await;
    let text = text.as_str().unwrap_or("");
    let far = uid_of(text, "\"Far below\"");
    assert!(labelled.contains(&far), "{labelled:?}");
    let p = decode(&bytes(&r));
    let i = labelled.iter().position(|u| *u == far).unwrap_or(0);
    let (fill, _) = colour(i);
    // The button's left edge at x=40, 1400..1440.
    assert_eq!(pixel(&p, 40, 1420), fill);
}

#[tokio::test]
async fn annotate_writes_pngs_to_look_at() {
    // Pictures of a few pages for a person to look at, written when asked for.
    let Ok(folder) = std::env::var("PAGESIGHT_SCREENSHOT_DIR") else {
        return;
    };
    for page in [
        "screenshot/labels.html",
        "forms.html",
        "widgets-custom.html",
        "overlay-cookie-banner.html",
    ] {
        // The folder asked for is allowed, wherever it is.
        let files =
            pagesight::AllowedFolders::with_defaults(&[&folder]).expect("an existing folder");
        let mut t = Tab::open_with(page, files).await;
        let name = page.replace('/', "-").replace(".html", ".png");
        let path = Path::new(&folder).join(name);
        t.ok(json!({"cmd": "screenshot", "annotate": true, "path": path.to_string_lossy()}))
            .await;
    }
}
