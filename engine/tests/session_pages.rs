//! What a session says about the pages it opens — where each arrived, its HTTP status and
//! title, its links — and sessions kept apart in browser contexts of their own; against a real
//! headless Chromium.

mod common;

use pagesight::command::Evaluate;
use pagesight::extract::ExtractOptions;
use pagesight::session::{Session, SessionOptions};
use pagesight::{Browser, LaunchOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_says_where_it_arrived_its_status_and_title() {
    let origins =
        common::serve_two_origins(common::pages_dir("")).expect("serve the fixture pages");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let url = format!("{}/links-list.html", origins.a);
    let opened = session.open(&url).await.expect("open a served page");
    assert_eq!(opened.status, Some(200));
    assert_eq!(opened.final_url.as_deref(), Some(url.as_str()));
    assert_eq!(opened.title.as_deref(), Some("Links of a page"));

    // A 404 is a page with its status, not an error, even with an empty body (Chromium then
    // shows a page of its own); the summary says so.
    let missing = format!("{}/no-such-page.html", origins.a);
    let opened = session.open(&missing).await.expect("a 404 opens");
    assert_eq!(opened.status, Some(404));
    assert!(opened.summary.contains("HTTP 404"), "{}", opened.summary);
    assert!(opened.warning.is_some_and(|w| w.contains("empty body")));

    // A file has no HTTP status.
    let file = common::pages_dir("").join("forms.html");
    let opened = session
        .open(&file.to_string_lossy())
        .await
        .expect("open a file");
    assert_eq!(opened.status, None);
    assert!(opened.final_url.is_some_and(|u| u.starts_with("file://")));
    session.shutdown().await.expect("close Chromium");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_lists_every_link_absolute_and_once() {
    let origins =
        common::serve_two_origins(common::pages_dir("")).expect("serve the fixture pages");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    session
        .open(&format!("{}/links-list.html", origins.a))
        .await
        .expect("open the page");
    let extraction = session
        .extract(&ExtractOptions {
            all: false,
            links: true,
        })
        .await
        .expect("extract");
    let a = &origins.a;
    let got: Vec<(String, String)> = extraction
        .links
        .iter()
        .map(|l| (l.url.clone(), l.text.clone()))
        .collect();
    let want: Vec<(String, String)> = [
        (format!("{a}/docs/intro.html"), "Introduction"),
        (format!("{a}/about"), "About us"),
        // `#top` resolves against the `<base href>`, as a click on it would.
        (format!("{a}/docs/"), "Back to top"),
        (
            "https://example.org/elsewhere?q=1".to_string(),
            "Elsewhere, by its label",
        ),
        (format!("{a}/docs/guide/"), "guide"),
        (format!("{a}/docs/hidden.html"), "Hidden"),
        (format!("{a}/docs/area.html"), "An area"),
    ]
    .into_iter()
    .map(|(u, t)| (u, t.to_string()))
    .collect();
    assert_eq!(got, want);
    // Each link names its anchor by a uid an action takes.
    let uid = extraction.links[0].uid.clone().expect("a uid");
    session
        .snapshot(&Default::default())
        .await
        .expect("a snapshot");
    let clicked = session
        .click(&pagesight::command::Click {
            uid,
            button: Default::default(),
            count: 1,
            then: Default::default(),
        })
        .await;
    assert!(clicked.is_ok(), "{clicked:?}");
    // Without `links`, none are listed.
    let plain = session
        .extract(&ExtractOptions::default())
        .await
        .expect("extract");
    assert!(plain.links.is_empty());
    session.shutdown().await.expect("close Chromium");
}

async fn cookie_after(session: &mut Session, url: &str, set: Option<&str>) -> String {
    session.open(url).await.expect("open the page");
    let function = match set {
        Some(cookie) => {
            format!("() => {{ document.cookie = '{cookie}'; return document.cookie; }}")
        }
        None => "() => document.cookie".to_string(),
    };
    let read = session
        .evaluate(&Evaluate {
            function,
            args: Vec::new(),
        })
        .await
        .expect("read the cookie");
    read.value.as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn isolated_sessions_share_no_cookies_and_take_their_pages_with_them() {
    let origins =
        common::serve_two_origins(common::pages_dir("")).expect("serve the fixture pages");
    let url = format!("{}/forms.html", origins.a);
    let browser = Browser::launch(LaunchOptions::default())
        .await
        .expect("launch Chromium");
    let session = |isolated: bool| {
        Session::with_browser(
            browser.share(),
            SessionOptions {
                isolated,
                allow_evaluate: true,
                ..SessionOptions::default()
            },
        )
    };
    let (mut one, mut two) = (
        session(true).await.expect("a session"),
        session(true).await.expect("a session"),
    );
    assert_eq!(
        cookie_after(&mut one, &url, Some("who=one")).await,
        "who=one"
    );
    assert_eq!(
        cookie_after(&mut two, &url, None).await,
        "",
        "contexts apart"
    );
    // Sessions in the default context share it.
    let (mut three, mut four) = (
        session(false).await.expect("a session"),
        session(false).await.expect("a session"),
    );
    assert_eq!(
        cookie_after(&mut three, &url, Some("who=three")).await,
        "who=three"
    );
    assert_eq!(cookie_after(&mut four, &url, None).await, "who=three");

    let pages_before = browser.pages().await.expect("the pages").len();
    let target = one.current_target().expect("a page").to_string();
    one.shutdown().await.expect("dispose of the context");
    let pages = browser.pages().await.expect("the pages");
    assert_eq!(pages.len(), pages_before - 1);
    assert!(
        pages.iter().all(|p| p.target_id != target),
        "its page went with it"
    );
    for s in [two, three, four] {
        s.shutdown().await.expect("let the session go");
    }
    browser.close().await.expect("close Chromium");
}
