//! The command API every front end calls: a [`Session`] owns a browser, its pages, and per page
//! the uid table and the previous snapshot; [`Session::execute`] takes one JSON command (the
//! `run` protocol of DESIGN.md) and answers with its JSON result or a typed [`Error`].
//!
//! Why JSON in and out at this level: the command line's `run`, the C ABI's generic call and
//! (later) MCP all speak the same commands, so they share one parser and one set of error
//! messages instead of three.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::act::{interrupted_navigation, ActState, ActTarget, Navigated};
use crate::browser::{Browser, LaunchOptions, LoadOutcome, Page, Viewport};
use crate::cdp::page as cdp_page;
use crate::command::CommandFields;
use crate::error::{Error, ErrorCode, Result};
use crate::identity::UidTable;
use crate::live::Kept;
use crate::render::{Format, Mode};
use crate::snapshot::{take_snapshot_after, Snapshot, SnapshotOptions};

/// How long `open` waits for the page's `load` event before snapshotting anyway.
pub const DEFAULT_LOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// One page of the session with what outlives each snapshot.
#[derive(Debug)]
struct PageState {
    page: Page,
    /// What its snapshots keep for the next one.
    kept: Kept,
    uids: UidTable,
    last: Option<Snapshot>,
    /// The mode of the last `snapshot` command: what `diff` compares in.
    last_mode: Mode,
    /// Dialogs and input state of the page for actions (`crate::act`).
    act: ActState,
}

impl PageState {
    fn new(page: Page) -> Self {
        PageState {
            act: ActState::new(&page),
            page,
            kept: Kept::default(),
            uids: UidTable::new(),
            last: None,
            last_mode: Mode::default(),
        }
    }
}

/// A browser session: pages, their uid tables and previous snapshots.
#[derive(Debug)]
pub struct Session {
    browser: Browser,
    pages: Vec<PageState>,
    current: Option<usize>,
    load_timeout: Duration,
}

/// Where a session's browser comes from.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// Connect to a running browser (`ws://…` or `http://host:port`) instead of launching one.
    pub browser: Option<String>,
    /// Attach to this existing page target instead of opening a new page.
    pub target: Option<String>,
    /// Viewport of pages the session opens itself.
    pub viewport: Viewport,
    /// `None`: [`DEFAULT_LOAD_TIMEOUT`].
    pub load_timeout: Option<Duration>,
}

impl Session {
    /// Launches or connects to a browser as `options` say. With `target`, the session starts
    /// attached to that page; otherwise it opens its first page on the first `open`.
    pub async fn start(options: SessionOptions) -> Result<Session> {
        let browser = match &options.browser {
            Some(endpoint) => Browser::connect(endpoint).await?,
            None => {
                Browser::launch(LaunchOptions {
                    viewport: options.viewport,
                    ..LaunchOptions::default()
                })
                .await?
            }
        };
        Session::with_browser(browser, options).await
    }

    /// A session on `browser`, which it closes when it shuts down (a handle made by
    /// [`Browser::share`] is only let go); `options.browser` is not used. With `target`, the
    /// session starts attached to that page.
    pub async fn with_browser(browser: Browser, options: SessionOptions) -> Result<Session> {
        let mut session = Session {
            browser,
            pages: Vec::new(),
            current: None,
            load_timeout: options.load_timeout.unwrap_or(DEFAULT_LOAD_TIMEOUT),
        };
        if let Some(target) = &options.target {
            let page = session.browser.attach_page(target).await?;
            session.pages.push(PageState::new(page));
            session.current = Some(0);
        }
        Ok(session)
    }

    /// The browser of this session.
    pub fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Closes the session: pages it opened stay only if the browser was connected to; a launched
    /// browser is closed with its profile.
    pub async fn shutdown(self) -> Result<()> {
        self.browser.close().await
    }

    /// Executes one command line of the `run` protocol and returns its response line
    /// (`{"ok":true,"result":…}` or `{"ok":false,"error":{…}}`), never failing.
    pub async fn execute_line(&mut self, line: &str) -> String {
        let response = match serde_json::from_str::<Value>(line) {
            Ok(command) => self.execute(&command).await,
            Err(e) => Err(Error::invalid_argument(format!(
                "a command is one JSON object per line, like {{\"cmd\":\"snapshot\"}}: {e}"
            ))),
        };
        response_line(response)
    }

    /// Executes one command (a JSON object with a `cmd` field).
    pub async fn execute(&mut self, command: &Value) -> Result<Value> {
        let args = CommandFields::parse(command)?;
        match args.cmd() {
            "open" => {
                let url = args.required_str("url", r#"{"cmd":"open","url":"https://example.com"}"#)?;
                self.open(url).await
            }
            "snapshot" => {
                let options = args.snapshot_options()?;
                self.snapshot(&options).await
            }
            "back" => self.history(-1).await,
            "forward" => self.history(1).await,
            "reload" => self.reload().await,
            "pages" => self.list_pages().await,
            "select_page" => {
                let index = args.required_index("index")?;
                self.select_page(index).await
            }
            "close" => self.close_page().await,
            "click" | "hover" | "fill" | "select" | "press" | "scroll" | "upload" | "dialog" => {
                self.act(command).await
            }
            "diff" => self.diff().await.map(Value::String),
            other => Err(Error::invalid_argument(format!(
                "unknown command {other:?}; commands are open, snapshot, diff, back, forward, reload, \
                 pages, select_page, close, click, hover, fill, select, press, scroll, upload, \
                 dialog"
            ))),
        }
    }

    /// Runs an action command on the current page (see [`crate::act`]).
    async fn act(&mut self, command: &Value) -> Result<Value> {
        let state = self.current_page_mut()?;
        let target = ActTarget {
            page: &state.page,
            kept: &state.kept,
            uids: &mut state.uids,
            last: &mut state.last,
            state: &mut state.act,
        };
        crate::act::execute(target, command).await
    }

    /// Navigates the current page (opening one if there is none) and waits for it to load.
    pub async fn open(&mut self, url: &str) -> Result<Value> {
        let url = normalize_url(url)?;
        let index = match self.current {
            Some(i) => i,
            None => {
                let page = self.browser.new_page().await?;
                self.pages.push(PageState::new(page));
                let i = self.pages.len() - 1;
                self.current = Some(i);
                i
            }
        };
        let state = &mut self.pages[index];
        let navigated = state
            .act
            .navigation(state.page.navigate(&url, self.load_timeout))
            .await?;
        Ok(match navigated {
            Navigated::Done(outcome) => load_result(&url, &outcome, self.load_timeout),
            Navigated::Dialog(d) => interrupted_navigation(Some(&url), d),
        })
    }

    /// Takes a snapshot of the current page.
    pub async fn snapshot(&mut self, options: &SnapshotOptions) -> Result<Value> {
        let output = self.snapshot_text(options).await?;
        match options.format {
            Format::Text => Ok(Value::String(output)),
            Format::Json => serde_json::from_str(&output).map_err(|e| {
                Error::protocol(format!("the JSON renderer produced invalid JSON: {e}"))
            }),
        }
    }

    /// Takes a snapshot and returns the rendered text (or JSON text) as is.
    pub async fn snapshot_text(&mut self, options: &SnapshotOptions) -> Result<String> {
        let state = self.current_page_mut()?;
        let taken = take_snapshot_after(
            &state.page,
            &state.kept,
            &mut state.uids,
            options,
            &mut state.last,
        );
        let output = state.act.unless_dialog(taken).await?.output.clone();
        state.last_mode = options.mode;
        Ok(output)
    }

    /// Takes a new snapshot and returns what changed since the previous one of this page, in the
    /// mode of the last `snapshot` (see [`crate::render::diff`]). The new snapshot becomes the
    /// previous one.
    pub async fn diff(&mut self) -> Result<String> {
        let state = self.current_page_mut()?;
        let mode = state.last_mode;
        let Some(previous) = state.last.as_ref() else {
            return Err(Error::new(
                ErrorCode::NoSnapshot,
                "there is no earlier snapshot of this page to compare with; take one with \
                 {\"cmd\":\"snapshot\"} first",
            ));
        };
        let text = |s: &Snapshot| {
            crate::render::render(
                &s.model,
                &s.analysis,
                &s.uids,
                &crate::render::RenderOptions {
                    mode,
                    ..crate::render::RenderOptions::default()
                },
            )
        };
        let before = text(previous);
        let options = SnapshotOptions {
            mode,
            ..SnapshotOptions::default()
        };
        let taken = take_snapshot_after(
            &state.page,
            &state.kept,
            &mut state.uids,
            &options,
            &mut state.last,
        );
        let after = text(state.act.unless_dialog(taken).await?);
        Ok(crate::render::diff::diff(&before, &after))
    }

    async fn history(&mut self, delta: i64) -> Result<Value> {
        let timeout = self.load_timeout;
        let state = self.current_page_mut()?;
        let navigated = state
            .act
            .navigation(go_in_history(&state.page, delta, timeout))
            .await?;
        Ok(match navigated {
            Navigated::Done(v) => v,
            Navigated::Dialog(d) => interrupted_navigation(None, d),
        })
    }

    async fn reload(&mut self) -> Result<Value> {
        let timeout = self.load_timeout;
        let state = self.current_page_mut()?;
        match state.act.navigation(reload(&state.page, timeout)).await? {
            Navigated::Done(v) => Ok(v),
            Navigated::Dialog(d) => Ok(interrupted_navigation(None, d)),
        }
    }

    async fn list_pages(&mut self) -> Result<Value> {
        let targets = self.browser.pages().await?;
        let current = self
            .current
            .map(|i| self.pages[i].page.target_id().to_string());
        let dialogs: Vec<(String, Value)> = self
            .pages
            .iter_mut()
            .filter_map(|p| {
                let d = p.act.open_dialog()?;
                Some((p.page.target_id().to_string(), d))
            })
            .collect();
        let list: Vec<Value> = targets
            .iter()
            .enumerate()
            .map(|(i, p)| {
                json!({
                    "index": i,
                    "targetId": p.target_id,
                    "url": p.url,
                    "title": p.title,
                    "current": current.as_deref() == Some(p.target_id.as_str()),
                    "dialog": dialogs.iter().find(|(t, _)| *t == p.target_id).map(|(_, d)| d),
                })
            })
            .collect();
        Ok(Value::Array(list))
    }

    async fn select_page(&mut self, index: usize) -> Result<Value> {
        let targets = self.browser.pages().await?;
        let Some(info) = targets.get(index) else {
            return Err(Error::invalid_argument(format!(
                "there is no page {index}; the browser has {} page(s) — list them with {{\"cmd\":\"pages\"}}",
                targets.len()
            )));
        };
        let existing = self
            .pages
            .iter()
            .position(|p| p.page.target_id() == info.target_id);
        let i = match existing {
            Some(i) => i,
            None => {
                let page = self.browser.attach_page(&info.target_id).await?;
                self.pages.push(PageState::new(page));
                self.pages.len() - 1
            }
        };
        self.current = Some(i);
        Ok(json!({ "index": index, "targetId": info.target_id, "url": info.url }))
    }

    async fn close_page(&mut self) -> Result<Value> {
        let Some(i) = self.current else {
            return Err(Error::invalid_argument(
                "no page is open; open one with {\"cmd\":\"open\",\"url\":…}",
            ));
        };
        let state = self.pages.remove(i);
        let target = state.page.target_id().to_string();
        state.page.close().await?;
        self.current = if self.pages.is_empty() {
            None
        } else {
            Some(self.pages.len() - 1)
        };
        Ok(json!({ "closed": target }))
    }

    /// The page commands act on, if one is open.
    pub fn current_page(&self) -> Option<&Page> {
        self.current.map(|i| &self.pages[i].page)
    }

    /// What the current page's snapshots keep for the next one, if a page is open.
    pub fn current_kept(&self) -> Option<&Kept> {
        self.current.map(|i| &self.pages[i].kept)
    }

    fn current_page_mut(&mut self) -> Result<&mut PageState> {
        match self.current {
            Some(i) => Ok(&mut self.pages[i]),
            None => Err(Error::new(
                ErrorCode::InvalidArgument,
                "no page is open; open one first with {\"cmd\":\"open\",\"url\":…}",
            )),
        }
    }
}

/// Moves `delta` entries in the page's history and waits for the load.
async fn go_in_history(page: &Page, delta: i64, timeout: Duration) -> Result<Value> {
    let history = page.send(&cdp_page::GetNavigationHistoryParams {}).await?;
    let target = history.current_index + delta;
    let Some(entry) = usize::try_from(target)
        .ok()
        .and_then(|i| history.entries.get(i))
    else {
        let which = if delta < 0 { "back" } else { "forward" };
        return Err(Error::invalid_argument(format!(
            "there is no page to go {which} to in this tab's history"
        )));
    };
    let url = entry.url.clone();
    let loaded = page.go_to_history_entry(entry.id, timeout).await?;
    Ok(json!({ "url": url, "loaded": loaded }))
}

/// Reloads the page and waits for the load.
async fn reload(page: &Page, timeout: Duration) -> Result<Value> {
    let loaded = page.reload(timeout).await?;
    Ok(json!({ "loaded": loaded }))
}

/// The JSON response line for a command's outcome.
pub fn response_line(outcome: Result<Value>) -> String {
    let value = match outcome {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(e) => json!({
            "ok": false,
            "error": {
                "code": e.code().as_str(),
                "message": e.message(),
                "retryable": e.retryable(),
            }
        }),
    };
    value.to_string()
}

fn load_result(url: &str, outcome: &LoadOutcome, timeout: Duration) -> Value {
    let mut out = Map::new();
    out.insert("url".into(), Value::String(url.to_string()));
    out.insert("loaded".into(), Value::Bool(!outcome.timed_out));
    if outcome.kept_navigating {
        out.insert(
            "warning".into(),
            Value::String(
                "the page kept navigating itself from one document to the next and none \
                 finished loading; a snapshot shows it as it is now, and may find it \
                 navigating again"
                    .into(),
            ),
        );
    } else if outcome.timed_out {
        out.insert(
            "warning".into(),
            Value::String(format!(
                "the page did not finish loading within {} s; a snapshot shows it as it is now",
                timeout.as_secs()
            )),
        );
    }
    Value::Object(out)
}

/// A URL as given, or a local file path turned into a `file://` URL (it must exist).
pub fn normalize_url(input: &str) -> Result<String> {
    let s = input.trim();
    if s.is_empty() {
        return Err(Error::invalid_argument("the URL is empty"));
    }
    let lower = s.to_ascii_lowercase();
    let has_scheme = lower.contains("://")
        || ["about:", "data:", "javascript:", "chrome:", "blob:"]
            .iter()
            .any(|p| lower.starts_with(p));
    if has_scheme {
        return Ok(s.to_string());
    }
    let path = Path::new(s);
    let absolute = std::fs::canonicalize(path).map_err(|e| {
        Error::invalid_argument(format!(
            "{s} is neither a URL (like https://example.com) nor a file that can be read: {e}"
        ))
    })?;
    if !absolute.is_file() {
        return Err(Error::invalid_argument(format!("{s} is not a file")));
    }
    Ok(format!(
        "file://{}",
        percent_encode_path(&absolute.to_string_lossy())
    ))
}

fn percent_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
