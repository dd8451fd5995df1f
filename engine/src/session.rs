//! The command API every front end calls: a [`Session`] owns a browser, its pages, and per page
//! the uid table and the previous snapshot; [`Session::execute`] takes one JSON command (the
//! `run` protocol of docs/protocol.md) and answers with its JSON result or a typed [`Error`].
//!
//! Why JSON in and out at this level: the command line's `run`, the C ABI's generic call and
//! (later) MCP all speak the same commands, so they share one parser and one set of error
//! messages instead of three.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::act::{ActState, ActTarget, ActionRequest, Navigated, DIALOG_WHILE_LOADING};
use crate::browser::{
    Browser, LaunchOptions, LoadOutcome, Page, Viewport, WaitUntil, HTTP_ERROR_PAGE,
};
use crate::cdp::page as cdp_page;
use base64::Engine as _;

use crate::analysis::Expand;
use crate::command::{self, AnswerDialog, Command, ImageFormat};
use crate::devtools::{DevtoolsLog, Paging, NOT_COLLECTING};
use crate::error::{Error, ErrorCode, Result};
use crate::extract::{ExtractOptions, Extraction};
use crate::files::AllowedFolders;
use crate::identity::UidTable;
use crate::live::Kept;
use crate::response::{
    typed_result, ActionResult, Clicked, Closed, ConsoleMessageDetail, ConsoleMessageList, Dialog,
    DialogAnswered, Dragged, Evaluated, Filled, Hovered, Navigation, NetworkRequestDetail,
    NetworkRequestList, Opened, PageInfo, PageOpened, PageSelected, Pressed, Resized, Response,
    Scrolled, Selected, Size, SnapshotOutput, Typed, Uploaded, Waited,
};
use crate::snapshot::{take_snapshot_after, Shown, Snapshot, SnapshotOptions};
use crate::summary::{self, Element, Names, Summarize, Went};

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
    /// The options of the last `snapshot` command: what `diff` compares in (its mode), and
    /// an action's `"diff": true` (its mode, `expand` and `verbose`).
    view: SnapshotOptions,
    /// Dialogs and input state of the page for actions (`crate::act`).
    act: ActState,
    /// Its console messages and network requests, when the session collects them.
    devtools: Option<DevtoolsLog>,
}

impl PageState {
    /// What an action needs of this page.
    fn act_target(&mut self) -> ActTarget<'_> {
        ActTarget {
            page: &self.page,
            kept: &self.kept,
            uids: &mut self.uids,
            last: &mut self.last,
            state: &mut self.act,
            view: self.view.clone(),
        }
    }

    /// The state of a page the session just opened or attached; with `collect_devtools`, its
    /// console messages and network requests are recorded from now on.
    async fn new(page: Page, collect_devtools: bool) -> Result<Self> {
        let devtools = match collect_devtools {
            true => Some(DevtoolsLog::start(&page).await?),
            false => None,
        };
        Ok(PageState {
            act: ActState::new(&page),
            page,
            kept: Kept::default(),
            uids: UidTable::new(),
            last: None,
            view: SnapshotOptions::default(),
            devtools,
        })
    }

    /// The page's record of console messages and network requests, or how to turn it on.
    fn devtools(&self) -> Result<&DevtoolsLog> {
        self.devtools
            .as_ref()
            .ok_or_else(|| Error::invalid_argument(NOT_COLLECTING))
    }
}

/// A browser session: pages, their uid tables and previous snapshots.
#[derive(Debug)]
pub struct Session {
    browser: Browser,
    pages: Vec<PageState>,
    current: Option<usize>,
    load_timeout: Duration,
    wait_until: WaitUntil,
    collect_devtools: bool,
    allow_evaluate: bool,
    files: AllowedFolders,
    /// Open pages in a browser context of the session's own.
    isolated: bool,
    /// That context, once the session's first page made it.
    context: Option<String>,
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
    /// What ends the wait of [`Session::open`]: the page's `load` (the default), or its
    /// `DOMContentLoaded` for a reader of the HTML that need not wait for images and frames.
    pub wait_until: WaitUntil,
    /// Record each page's console messages and network requests (for `console_messages`,
    /// `network_requests`, …) from when the session opens or attaches it. Off by default: it
    /// enables Chromium's `Runtime`, `Log` and `Network` domains on every page, which costs
    /// the browser work on every console call and request (see [`crate::devtools`]).
    pub collect_devtools: bool,
    /// Allow `evaluate`, which runs any JavaScript the caller sends in the page's main world.
    /// Off by default: it gives whoever sends commands full script power over the page.
    pub allow_evaluate: bool,
    /// The folders whose files commands may read (`upload`) and write (a screenshot's `path`,
    /// [`Session::write_file`]); default: the current directory and the temporary folder.
    pub files: AllowedFolders,
    /// Open the session's pages in a browser context of its own (cookies, storage and cache
    /// shared with no other session), disposed of — pages and all — when the session shuts
    /// down. Off: pages open in the browser's default context.
    pub isolated: bool,
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
            wait_until: options.wait_until,
            collect_devtools: options.collect_devtools,
            allow_evaluate: options.allow_evaluate,
            files: options.files,
            isolated: options.isolated,
            context: None,
        };
        if let Some(target) = &options.target {
            let page = session.browser.attach_page(target).await?;
            let state = PageState::new(page, session.collect_devtools).await?;
            session.pages.push(state);
            session.current = Some(0);
        }
        Ok(session)
    }

    /// The browser of this session.
    pub fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Closes the session: pages it opened stay only if the browser was connected to (and the
    /// session was not [`SessionOptions::isolated`]); a launched browser is closed with its
    /// profile.
    pub async fn shutdown(self) -> Result<()> {
        if let Some(context) = &self.context {
            // Its pages go with it; a browser that is gone has nothing left to dispose of.
            let disposed = self.browser.dispose_context(context).await;
            if let Err(e) = disposed.as_ref() {
                if e.code() != ErrorCode::BrowserClosed {
                    let _ = self.browser.close().await;
                    return disposed;
                }
            }
        }
        self.browser.close().await
    }

    /// Opens a tab with the browser's default viewport, in the session's own context when it
    /// is isolated (made on its first tab).
    async fn open_tab(&mut self) -> Result<Page> {
        if self.isolated && self.context.is_none() {
            self.context = Some(self.browser.new_context().await?);
        }
        let viewport = self.browser.default_viewport();
        self.browser
            .new_page_in(self.context.as_deref(), viewport)
            .await
    }

    /// Executes one command line of the `run` protocol and returns its response line
    /// (`{"ok":true,"result":…}` or `{"ok":false,"error":{…}}`), never failing.
    pub async fn execute_line(&mut self, line: &str) -> String {
        let outcome = match Command::from_line(line) {
            Ok(command) => self.execute(command).await,
            Err(e) => Err(e),
        };
        response_line(outcome)
    }

    /// Executes one command given as JSON (`{"cmd": …, …}`) and returns its result as JSON:
    /// what a front end that speaks JSON calls.
    pub async fn execute_json(&mut self, command: &Value) -> Result<Value> {
        let command = Command::from_json(command)?;
        Ok(self.execute(command).await?.to_json())
    }

    /// Executes one command.
    pub async fn execute(&mut self, command: Command) -> Result<Response> {
        Ok(match command {
            Command::Open(c) => Response::Opened(self.open(&c.url).await?),
            Command::Snapshot(options) => Response::Snapshot(self.snapshot(&options).await?),
            Command::Diff(_) => Response::Diff(self.diff().await?),
            Command::Back(_) => Response::Navigation(self.back().await?),
            Command::Forward(_) => Response::Navigation(self.forward().await?),
            Command::Reload(_) => Response::Navigation(self.reload().await?),
            Command::Pages(_) => Response::Pages(self.pages().await?),
            Command::SelectPage(c) => Response::PageSelected(self.select_page(c.index).await?),
            Command::Close(_) => Response::Closed(self.close().await?),
            Command::Click(c) => Response::Clicked(self.click(&c).await?),
            Command::Hover(c) => Response::Hovered(self.hover(&c).await?),
            Command::Fill(c) => Response::Filled(self.fill(&c).await?),
            Command::Select(c) => Response::Selected(self.select(&c).await?),
            Command::Press(c) => Response::Pressed(self.press(&c).await?),
            Command::Scroll(c) => Response::Scrolled(self.scroll(&c).await?),
            Command::Upload(c) => Response::Uploaded(self.upload(&c).await?),
            Command::Dialog(c) => Response::DialogAnswered(self.answer_dialog(&c).await?),
            Command::Extract(options) => Response::Extracted(self.extract(&options).await?),
            Command::Drag(c) => Response::Dragged(self.drag(&c).await?),
            Command::TypeText(c) => Response::Typed(self.type_text(&c).await?),
            Command::WaitFor(c) => Response::Waited(self.wait_for(&c).await?),
            Command::Resize(c) => Response::Resized(self.resize(&c).await?),
            Command::NewPage(c) => Response::PageOpened(self.new_page(&c.url).await?),
            Command::Screenshot(c) => Response::Screenshot(self.screenshot(&c).await?),
            Command::ConsoleMessages(c) => {
                Response::ConsoleMessages(self.console_messages(&c).await?)
            }
            Command::ConsoleMessage(c) => Response::ConsoleMessage(self.console_message(&c).await?),
            Command::NetworkRequests(c) => {
                Response::NetworkRequests(self.network_requests(&c).await?)
            }
            Command::NetworkRequest(c) => Response::NetworkRequest(self.network_request(&c).await?),
            Command::Evaluate(c) => Response::Evaluated(self.evaluate(&c).await?),
        })
    }

    /// The console messages of the current page, a page of the list at a time (see
    /// [`crate::devtools`]).
    pub async fn console_messages(
        &mut self,
        command: &command::ConsoleMessages,
    ) -> Result<ConsoleMessageList> {
        let paging = Paging {
            page_size: command.page_size,
            page_idx: command.page_idx,
        };
        let state = self.current_page_mut()?;
        state
            .devtools()?
            .console_messages(&command.types, paging)
            .await
    }

    /// One console message of the current page, with its arguments and stack trace.
    pub async fn console_message(
        &mut self,
        command: &command::ConsoleMessage,
    ) -> Result<ConsoleMessageDetail> {
        let state = self.current_page_mut()?;
        state.devtools()?.console_message(command.id).await
    }

    /// The network requests of the current page, a page of the list at a time.
    pub async fn network_requests(
        &mut self,
        command: &command::NetworkRequests,
    ) -> Result<NetworkRequestList> {
        let paging = Paging {
            page_size: command.page_size,
            page_idx: command.page_idx,
        };
        let state = self.current_page_mut()?;
        state
            .devtools()?
            .network_requests(&command.resource_types, paging)
            .await
    }

    /// One network request of the current page, with its headers, timing and response body.
    pub async fn network_request(
        &mut self,
        command: &command::NetworkRequest,
    ) -> Result<NetworkRequestDetail> {
        let state = self.current_page_mut()?;
        let devtools = state
            .devtools
            .as_ref()
            .ok_or_else(|| Error::invalid_argument(NOT_COLLECTING))?;
        // Reading the body needs the page: not while a dialog blocks it.
        state
            .act
            .unless_dialog(devtools.network_request(command.id))
            .await
    }

    /// Runs a JavaScript function in the current page's main world, with elements of the latest
    /// snapshot as its arguments; refused unless [`SessionOptions::allow_evaluate`].
    pub async fn evaluate(&mut self, command: &command::Evaluate) -> Result<Evaluated> {
        if !self.allow_evaluate {
            return Err(Error::invalid_argument(
                "evaluate is off in this session: it runs any JavaScript in the page; start the \
                 session with it allowed (`pagesight run --allow-evaluate`, or \
                 `SessionOptions::allow_evaluate`)",
            ));
        }
        let state = self.current_page_mut()?;
        crate::act::evaluate(state.act_target(), command).await
    }

    /// Clicks an element.
    pub async fn click(&mut self, command: &command::Click) -> Result<Clicked> {
        self.act(ActionRequest::click(command)).await
    }

    /// Moves the mouse over an element.
    pub async fn hover(&mut self, command: &command::Hover) -> Result<Hovered> {
        self.act(ActionRequest::hover(command)).await
    }

    /// Types into a field, ticks a checkbox or radio, or chooses an option.
    pub async fn fill(&mut self, command: &command::Fill) -> Result<Filled> {
        text_within_limit("fill", &command.text)?;
        self.act(ActionRequest::fill(command)).await
    }

    /// Chooses options of a select, a listbox or a custom drop-down.
    pub async fn select(&mut self, command: &command::Select) -> Result<Selected> {
        self.act(ActionRequest::select(command)).await
    }

    /// Presses a key or chord.
    pub async fn press(&mut self, command: &command::Press) -> Result<Pressed> {
        self.act(ActionRequest::press(command)?).await
    }

    /// Scrolls the page or an element's scroll container.
    pub async fn scroll(&mut self, command: &command::Scroll) -> Result<Scrolled> {
        self.act(ActionRequest::scroll(command)).await
    }

    /// Sets the files of a file input. Each file must lie inside the session's allowed
    /// folders ([`SessionOptions::files`]); the browser is given its resolved path.
    pub async fn upload(&mut self, command: &command::Upload) -> Result<Uploaded> {
        let files = command
            .files
            .iter()
            .map(|f| {
                let resolved = self.files.check_read(f)?;
                Ok(resolved.to_string_lossy().into_owned())
            })
            .collect::<Result<Vec<_>>>()?;
        let command = command::Upload {
            files,
            ..command.clone()
        };
        self.act(ActionRequest::upload(&command)).await
    }

    /// The folders whose files commands may read and write.
    pub fn allowed_folders(&self) -> &AllowedFolders {
        &self.files
    }

    /// Writes `bytes` to `path`, which must lie inside the session's allowed folders, through
    /// a temporary file in the same folder (never half a file under `path`); returns the
    /// absolute path written. For front ends that save what a command answered (MCP's
    /// `take_snapshot` with `filePath`).
    pub fn write_file(&self, path: &str, bytes: &[u8]) -> Result<String> {
        Ok(self
            .files
            .write(path, bytes)?
            .to_string_lossy()
            .into_owned())
    }

    /// Drags an element with the mouse and drops it on another.
    pub async fn drag(&mut self, command: &command::Drag) -> Result<Dragged> {
        self.act(ActionRequest::drag(command)?).await
    }

    /// Types text into whatever has the keyboard focus, then presses `submitKey` if given.
    pub async fn type_text(&mut self, command: &command::TypeText) -> Result<Typed> {
        text_within_limit("type_text", &command.text)?;
        self.act(ActionRequest::type_text(command)?).await
    }

    /// Waits until one of the texts shows on the current page (in any of its frames), or a
    /// dialog opens; `TIMEOUT` when none shows in time.
    pub async fn wait_for(&mut self, command: &command::WaitFor) -> Result<Waited> {
        let timeout = Duration::from_millis(command.timeout_ms());
        let state = self.current_page_mut()?;
        state
            .act
            .wait_for_text(&state.page, &command.text, timeout)
            .await
    }

    /// Sets the size of the current page's viewport (CSS px) and reads it back from the page.
    pub async fn resize(&mut self, command: &command::Resize) -> Result<Resized> {
        let (width, height) = (command.width, command.height);
        for (name, side) in [("width", width), ("height", height)] {
            if !(command::VIEWPORT_MIN..=command::VIEWPORT_MAX).contains(&side) {
                return Err(Error::invalid_argument(format!(
                    "the viewport's {name} must be {} to {} CSS px, not {side}",
                    command::VIEWPORT_MIN,
                    command::VIEWPORT_MAX
                )));
            }
        }
        let device_scale_factor = self.browser.default_viewport().device_scale_factor;
        let state = self.current_page_mut()?;
        let resize = state.page.set_viewport(Viewport {
            width,
            height,
            device_scale_factor,
        });
        state.act.unless_dialog(resize).await?;
        let read = state
            .act
            .page_value(&state.page, "[innerWidth,innerHeight,devicePixelRatio]")
            .await?;
        let number = |i: usize| read.get(i).and_then(Value::as_f64).unwrap_or(0.0);
        Ok(Resized {
            width,
            height,
            inner: Size {
                width: number(0),
                height: number(1),
            },
            device_pixel_ratio: number(2),
        })
    }

    /// Opens a new tab, navigates it as [`Session::open`] does and makes it the current page.
    /// When the navigation fails the tab is closed again and the current page stays current.
    pub async fn new_page(&mut self, url: &str) -> Result<PageOpened> {
        let url = normalize_url(url)?;
        let page = self.open_tab().await?;
        let target_id = page.target_id().to_string();
        self.pages
            .push(PageState::new(page, self.collect_devtools).await?);
        let index = self.pages.len() - 1;
        let before = self.current.replace(index);
        let opened = match self.navigate(index, url).await {
            Ok(mut opened) => {
                opened.summary = summary::opened(&opened);
                opened
            }
            Err(e) => {
                let state = self.pages.remove(index);
                self.current = before;
                let _ = state.page.close().await;
                return Err(e);
            }
        };
        let listed = self.browser.pages().await?;
        let Some(position) = listed.iter().position(|p| p.target_id == target_id) else {
            return Err(Error::new(
                ErrorCode::BrowserClosed,
                format!(
                    "the new page {target_id} closed right after it was opened; list the pages with {{\"cmd\":\"pages\"}}"
                ),
            ));
        };
        Ok(PageOpened {
            target_id,
            index: position,
            opened,
        })
    }

    /// Accepts or dismisses the open JavaScript dialog.
    pub async fn answer_dialog(&mut self, command: &AnswerDialog) -> Result<DialogAnswered> {
        let state = self.current_page_mut()?;
        let done = crate::act::answer(state.act_target(), command).await?;
        summarized(state, None, done)
    }

    /// Runs an action on the current page (see [`crate::act`]).
    async fn act<T: ActionResult + Summarize>(&mut self, request: ActionRequest<'_>) -> Result<T> {
        let state = self.current_page_mut()?;
        // The element as the snapshot the agent read named it, before the action may remove it.
        let target = request.uid().map(|u| {
            let element = state.last.as_ref().and_then(|s| Element::of(s, u));
            (u.to_string(), element)
        });
        // On the heap: an action's future is large, and debug builds copy it on the stack at
        // every level it is awaited through.
        let done = Box::pin(crate::act::execute(state.act_target(), request)).await?;
        summarized(state, target, done)
    }

    /// Navigates the current page (opening one if there is none) to a URL or a local file, and
    /// waits for it to load.
    pub async fn open(&mut self, url: &str) -> Result<Opened> {
        let mut opened = self.navigate_current(url).await?;
        opened.summary = summary::opened(&opened);
        Ok(opened)
    }

    /// [`Session::open`] without its summary.
    async fn navigate_current(&mut self, url: &str) -> Result<Opened> {
        let url = normalize_url(url)?;
        let index = match self.current {
            Some(i) => i,
            None => {
                let page = self.open_tab().await?;
                let state = PageState::new(page, self.collect_devtools).await?;
                self.pages.push(state);
                let i = self.pages.len() - 1;
                self.current = Some(i);
                i
            }
        };
        self.navigate(index, url).await
    }

    /// Navigates the session's page `index` to `url` (already normalised) and waits for its
    /// load.
    async fn navigate(&mut self, index: usize, url: String) -> Result<Opened> {
        let state = &mut self.pages[index];
        let navigated = state
            .act
            .navigation(
                state
                    .page
                    .navigate_until(&url, self.load_timeout, self.wait_until),
            )
            .await;
        let navigated = match navigated {
            Err(e) if e.message().contains(HTTP_ERROR_PAGE) => {
                // The server answered with an error status and nothing to show: a page with
                // that status (Chromium's error page), not a failed navigation.
                let status = state
                    .page
                    .error_status(&url, self.load_timeout, state.devtools.is_some())
                    .await?;
                let said =
                    status.map_or("an HTTP error status".to_string(), |s| format!("HTTP {s}"));
                return Ok(Opened {
                    summary: String::new(),
                    final_url: Some(url.clone()),
                    url,
                    status,
                    title: None,
                    loaded: true,
                    warning: Some(format!(
                        "the server answered with {said} and an empty body; the page shows \
                         Chromium's error page"
                    )),
                    dialog: None,
                    note: None,
                });
            }
            other => other?,
        };
        Ok(match navigated {
            Navigated::Done(outcome) => {
                let arrived = Arrival::read(state).await;
                Opened {
                    summary: String::new(),
                    url,
                    final_url: arrived.url,
                    status: arrived.status,
                    title: arrived.title,
                    loaded: !outcome.timed_out,
                    warning: load_warning(&outcome, self.load_timeout),
                    dialog: None,
                    note: None,
                }
            }
            Navigated::Dialog(d) => Opened {
                summary: String::new(),
                url,
                final_url: None,
                status: None,
                title: None,
                loaded: false,
                warning: None,
                dialog: Some(d),
                note: Some(DIALOG_WHILE_LOADING.into()),
            },
        })
    }

    /// Takes a snapshot of the current page: with `uid`, of that element's subtree only; with
    /// `max_chars`, cut to that many characters.
    pub async fn snapshot(&mut self, options: &SnapshotOptions) -> Result<SnapshotOutput> {
        let state = self.current_page_mut()?;
        if let Some(uid) = &options.uid {
            // A uid this page never issued, or one an earlier snapshot found gone, is answered
            // before the page is captured.
            state.uids.resolve(uid)?;
        }
        let taken = take_snapshot_after(
            &state.page,
            &state.kept,
            &mut state.uids,
            options,
            &mut state.last,
        );
        let snapshot = state.act.unless_dialog(taken).await?;
        // The view an action's changes compare in: this snapshot's, of the whole page when it
        // was of one element.
        state.view = SnapshotOptions {
            uid: None,
            ..options.clone()
        };
        if let (Some(uid), Shown::UidNotShown) = (&options.uid, snapshot.shown) {
            // The element is gone from the page since the uid was issued: the new snapshot
            // found it stale.
            state.uids.resolve(uid)?;
        }
        snapshot
            .shown
            .check(options.uid.as_deref(), options.mode, options.max_chars)?;
        Ok(SnapshotOutput::of(snapshot, options))
    }

    /// The page's main content (or the whole visible page) as markdown and text, with the uids
    /// of the blocks it was taken from (the page's own uids: an agent can act on them).
    pub async fn extract(&mut self, options: &ExtractOptions) -> Result<Extraction> {
        let state = self.current_page_mut()?;
        let work = crate::extract::extract_page(&state.page, &state.kept, &mut state.uids, options);
        state.act.unless_dialog(work).await
    }

    /// Takes a picture of the viewport, the whole page or one element; with `annotate`, takes a
    /// snapshot first (as `snapshot` would, in the mode of the last one) and draws a box and a
    /// uid label on every interactive element it prints that the picture shows.
    pub async fn screenshot(
        &mut self,
        command: &command::Screenshot,
    ) -> Result<crate::response::Screenshot> {
        use crate::screenshot::{self as shot, Area};
        if command.uid.is_some() && command.full_page {
            return Err(Error::invalid_argument(
                "\"uid\" and \"fullPage\" cannot be combined: a screenshot is of one element or of the whole page",
            ));
        }
        // Refused before the picture is taken: a path outside the allowed folders is the
        // caller's mistake, not a reason to make the browser work.
        if let Some(path) = &command.path {
            self.files.check(path)?;
        }
        let files = self.files.clone();
        let state = self.current_page_mut()?;
        let area = match &command.uid {
            Some(uid) => Area::Clip(crate::act::element_box(state.act_target(), uid).await?),
            None if command.full_page => Area::FullPage,
            None => Area::Viewport,
        };
        let mode = state.view.mode;
        if command.annotate {
            let options = SnapshotOptions {
                mode,
                expand: if command.full_page {
                    Expand::All
                } else {
                    Expand::Viewport
                },
                ..SnapshotOptions::default()
            };
            let taken = take_snapshot_after(
                &state.page,
                &state.kept,
                &mut state.uids,
                &options,
                &mut state.last,
            );
            state.act.unless_dialog(taken).await?;
        }
        let format = if command.annotate {
            ImageFormat::Png
        } else {
            command.format
        };
        let taken = shot::capture(&state.page, area, format, command.quality);
        let picture = state.act.unless_dialog(taken).await?;
        let mut labelled_uids = None;
        let (bytes, base64) = match (&state.last, command.annotate) {
            (Some(snapshot), true) => {
                let labels = shot::labelled(
                    &snapshot.model,
                    &snapshot.analysis,
                    &snapshot.uids,
                    mode,
                    &picture.placement,
                    (picture.width, picture.height),
                    !command.full_page,
                );
                let marks: Vec<_> = labels.iter().map(|l| l.mark.clone()).collect();
                let png = crate::render::annotate::annotate_png(&picture.bytes, &marks)?;
                labelled_uids = Some(labels.into_iter().map(|l| l.uid).collect::<Vec<_>>());
                (png, None)
            }
            _ => (picture.bytes, Some(picture.base64)),
        };
        let (data, path) =
            match &command.path {
                Some(path) => (
                    None,
                    Some(files.write(path, &bytes)?.to_string_lossy().into_owned()),
                ),
                None => (
                    Some(base64.unwrap_or_else(|| {
                        base64::engine::general_purpose::STANDARD.encode(&bytes)
                    })),
                    None,
                ),
            };
        Ok(crate::response::Screenshot {
            format,
            width: picture.width,
            height: picture.height,
            data,
            path,
            annotated: labelled_uids.as_ref().map(Vec::len),
            uids: labelled_uids,
        })
    }

    /// Takes a new snapshot and returns what changed since the previous one of this page, in the
    /// mode of the last `snapshot` (see [`crate::render::diff`]). The new snapshot becomes the
    /// previous one.
    pub async fn diff(&mut self) -> Result<String> {
        let state = self.current_page_mut()?;
        let mode = state.view.mode;
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

    /// Goes back one entry in the page's history and waits for the document.
    pub async fn back(&mut self) -> Result<Navigation> {
        let went = self.history(-1).await?;
        Ok(with_summary(Went::Back, went))
    }

    /// Goes forward one entry in the page's history and waits for the document.
    pub async fn forward(&mut self) -> Result<Navigation> {
        let went = self.history(1).await?;
        Ok(with_summary(Went::Forward, went))
    }

    async fn history(&mut self, delta: i64) -> Result<Navigation> {
        let timeout = self.load_timeout;
        let state = self.current_page_mut()?;
        let navigated = state
            .act
            .navigation(go_in_history(&state.page, delta, timeout))
            .await?;
        Ok(match navigated {
            Navigated::Done(v) => v,
            Navigated::Dialog(d) => interrupted_navigation(d),
        })
    }

    /// Reloads the page and waits for the new document.
    pub async fn reload(&mut self) -> Result<Navigation> {
        let timeout = self.load_timeout;
        let state = self.current_page_mut()?;
        let reloaded = async {
            let loaded = state.page.reload(timeout).await?;
            Ok(Navigation {
                summary: String::new(),
                url: None,
                loaded,
                dialog: None,
                note: None,
            })
        };
        let went = match state.act.navigation(reloaded).await? {
            Navigated::Done(v) => v,
            Navigated::Dialog(d) => interrupted_navigation(d),
        };
        Ok(with_summary(Went::Reload, went))
    }

    /// The browser's pages, with the one commands act on marked `current`.
    pub async fn pages(&mut self) -> Result<Vec<PageInfo>> {
        let targets = self.browser.pages().await?;
        let current = self
            .current
            .map(|i| self.pages[i].page.target_id().to_string());
        let dialogs: Vec<(String, Dialog)> = self
            .pages
            .iter_mut()
            .filter_map(|p| {
                let d = p.act.open_dialog()?;
                Some((p.page.target_id().to_string(), d))
            })
            .collect();
        Ok(targets
            .into_iter()
            .enumerate()
            .map(|(index, p)| PageInfo {
                index,
                current: current.as_deref() == Some(p.target_id.as_str()),
                dialog: dialogs
                    .iter()
                    .find(|(t, _)| *t == p.target_id)
                    .map(|(_, d)| d.clone()),
                target_id: p.target_id,
                url: p.url,
                title: p.title,
            })
            .collect())
    }

    /// Makes the page at `index` of [`Session::pages`] the current one, attaching to it if
    /// the session did not open it.
    pub async fn select_page(&mut self, index: usize) -> Result<PageSelected> {
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
                let state = PageState::new(page, self.collect_devtools).await?;
                self.pages.push(state);
                self.pages.len() - 1
            }
        };
        self.current = Some(i);
        Ok(PageSelected {
            index,
            target_id: info.target_id.clone(),
            url: info.url.clone(),
        })
    }

    /// Closes the current page; the last page of the session becomes the current one.
    pub async fn close(&mut self) -> Result<Closed> {
        let Some(i) = self.current else {
            return Err(Error::invalid_argument(
                "no page is open; open one with {\"cmd\":\"open\",\"url\":…}",
            ));
        };
        let state = self.pages.remove(i);
        // The page is the session's no more, whether or not Chromium manages to close it.
        self.current = self.pages.len().checked_sub(1);
        let target = state.page.target_id().to_string();
        state.page.close().await?;
        Ok(Closed { closed: target })
    }

    /// The CDP target id of the page commands act on, if one is open.
    pub fn current_target(&self) -> Option<&str> {
        self.current_page().map(Page::target_id)
    }

    /// Makes the page with this CDP target id (as [`Session::pages`] lists it) the current one,
    /// attaching to it if the session did not open it. Unlike [`Session::select_page`], it needs
    /// no listing when the session already has the page, so a front end that serves several
    /// clients can switch pages before every command at no cost.
    pub async fn select_target(&mut self, target_id: &str) -> Result<()> {
        if let Some(i) = self
            .pages
            .iter()
            .position(|p| p.page.target_id() == target_id)
        {
            self.current = Some(i);
            return Ok(());
        }
        let listed = self.browser.pages().await?;
        if !listed.iter().any(|p| p.target_id == target_id) {
            return Err(Error::new(
                ErrorCode::BrowserClosed,
                format!(
                    "the page {target_id} is gone (closed, or its tab crashed); list the pages \
                     and choose another"
                ),
            ));
        }
        let page = self.browser.attach_page(target_id).await?;
        self.pages
            .push(PageState::new(page, self.collect_devtools).await?);
        self.current = Some(self.pages.len() - 1);
        Ok(())
    }

    /// The page commands act on, if one is open.
    pub fn current_page(&self) -> Option<&Page> {
        self.current.map(|i| &self.pages[i].page)
    }

    /// The uid table of every page of the session, in the order they were opened: what a
    /// long-running host watches to see that the tables stay bounded.
    pub fn uid_tables(&self) -> impl Iterator<Item = &UidTable> {
        self.pages.iter().map(|p| &p.uids)
    }

    /// What the current page's snapshots keep for the next one, if a page is open.
    pub fn current_kept(&self) -> Option<&Kept> {
        self.current.map(|i| &self.pages[i].kept)
    }

    /// The current page's last snapshot (the one its uids resolve against), if it has one: to
    /// render the same snapshot again in another format (`snapshot::render_snapshot`)
    /// without asking the browser.
    pub fn last_snapshot(&self) -> Option<&Snapshot> {
        self.current.and_then(|i| self.pages[i].last.as_ref())
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

/// How long creating or closing a tab may take.
const TAB_TIMEOUT: Duration = Duration::from_secs(10);

/// Opens `url` in a tab of its own, for a front end that gives each page a session of its own
/// (the C library, the Python package): the tab is created over `connection` (the browser's),
/// a session is attached to it on the browser `attach` gives (a shared handle, or a connection
/// of its own to the same browser), the tab's viewport is set to `start.viewport` and `url`
/// loaded. A tab that could not be set up is closed again.
pub async fn open_in_new_tab(
    connection: &crate::transport::Connection,
    start: SessionOptions,
    url: &str,
    attach: impl std::future::Future<Output = Result<Browser>>,
) -> Result<Session> {
    use crate::cdp::target;
    let created = connection
        .send_with_timeout(
            None,
            &target::CreateTargetParams::new("about:blank".to_owned()),
            TAB_TIMEOUT,
        )
        .await?;
    let target_id = created.target_id;
    let viewport = start.viewport;
    let start = SessionOptions {
        target: Some(target_id.clone()),
        ..start
    };
    let opened = async {
        let mut session = Session::with_browser(attach.await?, start).await?;
        let loaded = async {
            if let Some(page) = session.current_page() {
                page.set_viewport(viewport).await?;
            }
            session.open(url).await
        }
        .await;
        match loaded {
            Ok(_) => Ok(session),
            Err(e) => {
                let _ = session.shutdown().await;
                Err(e)
            }
        }
    }
    .await;
    if opened.is_err() {
        let _ = connection
            .send_with_timeout(None, &target::CloseTargetParams { target_id }, TAB_TIMEOUT)
            .await;
    }
    opened
}

/// Where a navigation arrived: the document's URL, title and HTTP status.
#[derive(Debug, Default)]
struct Arrival {
    url: Option<String>,
    title: Option<String>,
    status: Option<u16>,
}

impl Arrival {
    /// Read in the page's isolated world: CDP reports a response's status only to a client
    /// that enabled the `Network` domain before the navigation, with an event for every
    /// request of the page; the Navigation Timing entry has the document's own (and says 200
    /// for a `file:` one, which has none). A page that
    /// cannot be read (a dialog blocks it, it navigated again) has no arrival to report: the
    /// navigation itself succeeded.
    async fn read(state: &mut PageState) -> Arrival {
        const READ: &str = "(() => { const n = performance.getEntriesByType('navigation')[0]; \
             return [location.href, document.title, \
             (location.protocol.startsWith('http') && n && n.responseStatus) || 0]; })()";
        let Ok(read) = state.act.page_value(&state.page, READ).await else {
            return Arrival::default();
        };
        let text = |i: usize| read.get(i).and_then(Value::as_str).map(str::to_owned);
        Arrival {
            url: text(0),
            title: text(1),
            status: read
                .get(2)
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok())
                .filter(|&s| s > 0),
        }
    }
}

/// Moves `delta` entries in the page's history and waits for the load.
async fn go_in_history(page: &Page, delta: i64, timeout: Duration) -> Result<Navigation> {
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
    Ok(Navigation {
        summary: String::new(),
        url: Some(url),
        loaded,
        dialog: None,
        note: None,
    })
}

/// The result of a history move or reload the loaded document interrupted with a dialog.
fn interrupted_navigation(dialog: Dialog) -> Navigation {
    Navigation {
        summary: String::new(),
        url: None,
        loaded: false,
        dialog: Some(dialog),
        note: Some(DIALOG_WHILE_LOADING.into()),
    }
}

/// A navigation's result with its summary.
fn with_summary(went: Went, mut result: Navigation) -> Navigation {
    result.summary = summary::navigated(went, &result);
    result
}

/// An action's typed result with its summary: its element named as `target` says (the action's
/// uid and what the snapshot before it said of it), any other by the page's last snapshot.
fn summarized<T: ActionResult + Summarize>(
    state: &mut PageState,
    target: Option<(String, Option<Element>)>,
    done: crate::act::Done,
) -> Result<T> {
    let mut typed: T = typed_result(done.fields, done.snapshot, done.changes)?;
    let names = Names {
        target,
        last: state.last.as_ref(),
    };
    let summary = typed.summarize(&names);
    typed.aftermath().summary = summary;
    Ok(typed)
}

/// Refuses a text longer than any field needs before anything is typed.
fn text_within_limit(command: &str, text: &str) -> Result<()> {
    let length = text.chars().count();
    if length > command::MAX_TEXT_CHARS {
        return Err(Error::invalid_argument(format!(
            "the text of {command} is {length} characters long; it takes at most {} (a longer \
             text is more likely a mistake than a value a field holds)",
            command::MAX_TEXT_CHARS
        )));
    }
    Ok(())
}

/// The JSON response line for a command's outcome.
pub fn response_line(outcome: Result<Response>) -> String {
    let value = match outcome {
        Ok(result) => json!({ "ok": true, "result": result.to_json() }),
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

/// Why a page may not be as expected after its load, if it may not.
fn load_warning(outcome: &LoadOutcome, timeout: Duration) -> Option<String> {
    if outcome.kept_navigating {
        Some(
            "the page kept navigating itself from one document to the next and none finished \
             loading; a snapshot shows it as it is now, and may find it navigating again"
                .into(),
        )
    } else if outcome.timed_out {
        Some(format!(
            "the page did not finish loading within {} s; a snapshot shows it as it is now",
            timeout.as_secs()
        ))
    } else {
        None
    }
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
    url::Url::from_file_path(&absolute)
        .map(String::from)
        .map_err(|()| Error::invalid_argument(format!("{s} cannot be written as a file:// URL")))
}
