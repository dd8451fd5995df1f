//! The MCP server: one browser [`Session`] shared by every client, tools that are thin
//! adapters over its typed commands, and pages addressed by a stable id.
//!
//! Why pages are addressed this way: chrome-devtools-mcp keeps one "selected page" for the whole
//! server, so two agents sharing it act on each other's pages. Here every client connection has
//! its own selected page, every page-scoped tool takes an optional `pageId`, and the session is
//! switched to that page for the one call, under the lock that serialises calls: a call can
//! never land on a page another client selected.
//!
//! Page ids are small numbers given in the order the server first sees each tab, and never
//! reused, so an id an agent read in `list_pages` keeps naming the same tab.

use std::sync::{Arc, Mutex as StdMutex};

use rmcp::handler::server::common::schema_for_empty_input;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, Implementation, JsonObject, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};
use serde_json::Value;
use tokio::sync::{Mutex, MutexGuard};

use pagesight::analysis::Expand;
use pagesight::command::{self, ActionSnapshotOptions, AfterAction};
use pagesight::extract::ExtractOptions;
use pagesight::render::budget::DEFAULT_MAX_CHARS;
use pagesight::render::{Format, Mode};
use pagesight::{Error, Session, SessionOptions, SnapshotOptions};

use crate::options::BrowserOptions;

use crate::answer::{self, tri};
use crate::args;
use crate::schema::input;

/// What all clients share: the session and the page ids.
pub(crate) struct Shared {
    options: BrowserOptions,
    /// Started by the first tool that needs the browser: an agent host starts its servers
    /// when it starts, and most conversations never use most of them.
    session: Option<Session>,
    /// Set once the server has shut the session down.
    closed: bool,
    /// Target ids in the order the server first saw them; a page's id is its place here + 1.
    ids: Vec<String>,
}

impl Shared {
    pub(crate) fn new(options: BrowserOptions) -> Shared {
        Shared {
            options,
            session: None,
            closed: false,
            ids: Vec::new(),
        }
    }

    /// The session, launching or connecting to the browser the first time.
    async fn session(&mut self) -> Result<&mut Session, Error> {
        if self.closed {
            return Err(Error::new(
                pagesight::ErrorCode::BrowserClosed,
                "the server is shutting down its browser",
            ));
        }
        let session = match self.session.take() {
            Some(session) => session,
            None => {
                let browser = self.options.start().await?;
                let options = SessionOptions {
                    viewport: self.options.viewport(),
                    // chrome-devtools-mcp's console and network tools list from the start.
                    collect_devtools: true,
                    allow_evaluate: self.options.allow_evaluate,
                    files: self.options.allowed_folders()?,
                    ..SessionOptions::default()
                };
                Session::with_browser(browser, options).await?
            }
        };
        Ok(self.session.insert(session))
    }

    /// Takes the session out, to shut it down; later calls are refused.
    pub(crate) fn close(&mut self) -> Option<Session> {
        self.closed = true;
        self.session.take()
    }

    fn id_of(&mut self, target: &str) -> u32 {
        let i = match self.ids.iter().position(|t| t == target) {
            Some(i) => i,
            None => {
                self.ids.push(target.to_string());
                self.ids.len() - 1
            }
        };
        u32::try_from(i + 1).unwrap_or(u32::MAX)
    }

    fn target_of(&self, id: u32) -> Result<String, Error> {
        usize::try_from(id)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.ids.get(i))
            .cloned()
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "there is no page {id}; list_pages shows the pages and their ids"
                ))
            })
    }
}

/// One client connection's view of the shared server.
#[derive(Clone)]
pub struct PagesightServer {
    shared: Arc<Mutex<Shared>>,
    /// The page this client selected (a target id).
    selected: Arc<StdMutex<Option<String>>>,
    tool_router: ToolRouter<PagesightServer>,
}

/// The lock on the shared state, switched to the page a call addresses.
struct OnPage<'a> {
    shared: MutexGuard<'a, Shared>,
}

impl OnPage<'_> {
    fn session(&mut self) -> Result<&mut Session, Error> {
        // `on_page` started the session.
        self.shared
            .session
            .as_mut()
            .ok_or_else(Error::browser_closed)
    }
}

/// The snapshot every tool takes: the accessibility view of the whole page, as text.
/// The whole page, within the engine's default budget: an ordinary page is printed whole, a
/// long one around the viewport with markers naming what was left out and how to get it.
fn snapshot_options() -> SnapshotOptions {
    SnapshotOptions {
        mode: Mode::A11y,
        format: Format::Text,
        expand: Expand::All,
        verbose: false,
        uid: None,
        max_chars: Some(DEFAULT_MAX_CHARS),
    }
}

/// The last line of a paged list.
fn paging_line(total: usize, page_idx: usize, pages: usize, dropped: u64) -> String {
    let mut line = format!("{total} in all; page {} of {}", page_idx + 1, pages.max(1));
    if dropped > 0 {
        line.push_str(&format!("; {dropped} older ones were dropped"));
    }
    line
}

fn value(arguments: JsonObject) -> Value {
    Value::Object(arguments)
}

impl PagesightServer {
    pub(crate) fn new(shared: Arc<Mutex<Shared>>) -> PagesightServer {
        PagesightServer {
            shared,
            selected: Arc::new(StdMutex::new(None)),
            tool_router: Self::tool_router(),
        }
    }

    fn selected(&self) -> Option<String> {
        self.selected
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn select(&self, target: Option<String>) {
        *self.selected.lock().unwrap_or_else(|p| p.into_inner()) = target;
    }

    /// Locks the shared state with the session switched to the page the call addresses: `id`,
    /// else this client's selected page, else the browser's first page (a new blank one when it
    /// has none).
    async fn on_page(&self, id: Option<u32>) -> Result<OnPage<'_>, Error> {
        let mut shared = self.shared.lock().await;
        let target = match id {
            Some(id) => Some(shared.target_of(id)?),
            None => self.selected(),
        };
        let session = shared.session().await?;
        match target {
            Some(target) => session.select_target(&target).await?,
            None if session.current_target().is_none() => {
                if session.pages().await?.is_empty() {
                    session.open("about:blank").await?;
                } else {
                    session.select_page(0).await?;
                }
            }
            None => {}
        }
        if id.is_none() {
            self.select(session.current_target().map(str::to_string));
        }
        Ok(OnPage { shared })
    }

    /// The pages as list_pages shows them: `ID: URL "TITLE"`, this client's marked
    /// `[selected]` (the form chrome-devtools-mcp's clients read), and as JSON.
    async fn listing(&self, shared: &mut Shared) -> Result<(String, Value), Error> {
        let pages = shared.session().await?.pages().await?;
        let selected = self.selected();
        let mut lines = Vec::new();
        let mut listed = Vec::new();
        for p in &pages {
            let id = shared.id_of(&p.target_id);
            let is_selected = selected.as_deref() == Some(p.target_id.as_str());
            let dialog = match &p.dialog {
                Some(d) => format!(" (a {} dialog is open: {:?})", d.kind, d.message),
                None => String::new(),
            };
            let mark = if is_selected { " [selected]" } else { "" };
            lines.push(format!("{id}: {} {:?}{dialog}{mark}", p.url, p.title));
            listed.push(serde_json::json!({
                "pageId": id, "url": p.url, "title": p.title,
                "selected": is_selected, "dialog": p.dialog,
            }));
        }
        Ok((lines.join("\n"), serde_json::json!({ "pages": listed })))
    }

    /// The text of an action's answer: its sentence, then what changed on the page or the
    /// whole new snapshot.
    fn action_answer<T: serde::Serialize>(result: Result<T, Error>) -> CallToolResult {
        let typed = match result {
            Ok(typed) => typed,
            Err(e) => return answer::error(&e),
        };
        let json = serde_json::to_value(&typed).unwrap_or(Value::Null);
        let mut text = match json.get("summary").and_then(Value::as_str) {
            Some(s) => s.to_string(),
            None => json.to_string(),
        };
        if let Some(changes) = json
            .get("changes")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
        {
            text.push_str("\nChanges since the last snapshot:\n");
            text.push_str(changes);
        }
        if let Some(snapshot) = json.get("snapshot").and_then(snapshot_text) {
            text.push_str("\n\n");
            text.push_str(snapshot);
        }
        answer::success(text, &typed)
    }

    /// After an action: the whole new snapshot when asked for, else what changed since the
    /// last one.
    fn then(include_snapshot: bool) -> AfterAction {
        let whole = snapshot_options();
        AfterAction {
            snapshot: include_snapshot,
            options: ActionSnapshotOptions {
                mode: whole.mode,
                format: whole.format,
                expand: whole.expand,
                verbose: whole.verbose,
                max_chars: whole.max_chars,
            },
            diff: !include_snapshot,
        }
    }
}

/// The text of a snapshot in an action's result: a string, or with a budget the object whose
/// `text` it is.
fn snapshot_text(snapshot: &Value) -> Option<&str> {
    snapshot
        .as_str()
        .or_else(|| snapshot.get("text").and_then(Value::as_str))
}

#[tool_router]
impl PagesightServer {
    #[tool(
        description = "Text snapshot of the page's accessibility tree; each element has a uid. \
                       The whole page when it fits the budget, else the part in view and how to get the rest.",
        input_schema = input::<args::TakeSnapshot>()
    )]
    async fn take_snapshot(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::TakeSnapshot = tri!(args::parse("take_snapshot", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let options = SnapshotOptions {
            verbose: a.verbose,
            uid: a.uid,
            max_chars: Some(a.max_chars.unwrap_or(DEFAULT_MAX_CHARS)),
            ..snapshot_options()
        };
        let session = tri!(page.session());
        if let Some(path) = &a.file_path {
            // Refused before the snapshot is taken, like a screenshot's path.
            tri!(session.allowed_folders().check(path));
        }
        let snapshot = tri!(session.snapshot(&options).await);
        if let Some(path) = a.file_path {
            let written = tri!(session.write_file(&path, snapshot.text.as_bytes()));
            return Ok(answer::text(format!(
                "Saved the snapshot ({} characters) to {written}.",
                snapshot.text.chars().count()
            )));
        }
        Ok(answer::text(snapshot.text))
    }

    #[tool(
        description = "Screenshot of the viewport, the full page or one element; with annotate, \
                       every interactive element boxed and labelled with its snapshot uid.",
        input_schema = input::<args::TakeScreenshot>()
    )]
    async fn take_screenshot(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::TakeScreenshot = tri!(args::parse("take_screenshot", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let quality = match a.quality {
            Some(q) if (0.0..=100.0).contains(&q) => Some(q.round() as u8),
            Some(q) => {
                return Ok(answer::error(&Error::invalid_argument(format!(
                    "take_screenshot: quality must be from 0 to 100, not {q}"
                ))))
            }
            None => None,
        };
        let command = command::Screenshot {
            format: a.format,
            quality,
            uid: a.uid,
            full_page: a.full_page,
            annotate: a.annotate,
            path: a.file_path,
        };
        let shot = tri!(tri!(page.session()).screenshot(&command).await);
        let mut said = format!(
            "A {}x{} {} screenshot",
            shot.width,
            shot.height,
            shot.format.name()
        );
        if let Some(uids) = &shot.uids {
            said.push_str(&format!(
                ", {} element(s) labelled: {}",
                uids.len(),
                uids.join(" ")
            ));
        }
        let mut result = match &shot.path {
            Some(path) => answer::text(format!("{said}, saved to {path}.")),
            None => answer::text(format!("{said}.")),
        };
        if let Some(data) = &shot.data {
            let mime = format!("image/{}", shot.format.name());
            result
                .content
                .push(rmcp::model::ContentBlock::image(data.clone(), mime));
        }
        Ok(result)
    }

    #[tool(
        description = "Click an element (a trusted click at a visible point; an element covered by another is refused, naming what covers it).",
        input_schema = input::<args::Click>()
    )]
    async fn click(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::Click = tri!(args::parse("click", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Click {
            uid: a.uid,
            button: command::MouseButton::Left,
            count: if a.dbl_click { 2 } else { 1 },
            then: Self::then(a.include_snapshot),
        };
        Ok(Self::action_answer(
            tri!(page.session()).click(&command).await,
        ))
    }

    #[tool(description = "Move the mouse over an element.", input_schema = input::<args::Hover>())]
    async fn hover(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::Hover = tri!(args::parse("hover", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Hover {
            uid: a.uid,
            then: Self::then(a.include_snapshot),
        };
        Ok(Self::action_answer(
            tri!(page.session()).hover(&command).await,
        ))
    }

    #[tool(
        description = "Type into a field, choose an option of a select, or tick a checkbox (\"true\"/\"false\").",
        input_schema = input::<args::Fill>()
    )]
    async fn fill(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::Fill = tri!(args::parse("fill", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Fill {
            uid: a.uid,
            text: a.value,
            then: Self::then(a.include_snapshot),
        };
        Ok(Self::action_answer(
            tri!(page.session()).fill(&command).await,
        ))
    }

    #[tool(
        description = "Fill several fields at once, in order (as fill does each).",
        input_schema = input::<args::FillForm>()
    )]
    async fn fill_form(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::FillForm = tri!(args::parse("fill_form", value(arguments)));
        if a.elements.is_empty() {
            return Ok(answer::error(&Error::invalid_argument(
                "fill_form: elements is empty; give [{\"uid\":…,\"value\":…}, …]",
            )));
        }
        let mut page = tri!(self.on_page(a.page_id).await);
        let session = tri!(page.session());
        let last = a.elements.len() - 1;
        let mut sentences = Vec::new();
        let mut results = Vec::new();
        for (i, field) in a.elements.into_iter().enumerate() {
            let command = command::Fill {
                uid: field.uid,
                text: field.value,
                then: Self::then(i == last && a.include_snapshot),
            };
            match session.fill(&command).await {
                Ok(done) => {
                    let json = serde_json::to_value(&done).unwrap_or(Value::Null);
                    sentences.push(
                        json.get("summary")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                            .unwrap_or_else(|| json.to_string()),
                    );
                    results.push(json);
                }
                Err(e) => {
                    let done = if sentences.is_empty() {
                        String::new()
                    } else {
                        format!(" after filling {} field(s): {}", i, sentences.join(" "))
                    };
                    return Ok(answer::error(&Error::new(
                        e.code(),
                        format!(
                            "field {} ({}) failed{done}: {}",
                            i + 1,
                            command.uid,
                            e.message()
                        ),
                    )));
                }
            }
        }
        let mut text = sentences.join("\n");
        if let Some(snapshot) = results
            .last()
            .and_then(|r| r.get("snapshot"))
            .and_then(snapshot_text)
        {
            text.push_str("\n\n");
            text.push_str(snapshot);
        }
        Ok(answer::success(
            text,
            &serde_json::json!({ "filled": results }),
        ))
    }

    #[tool(
        description = "Press a key or chord (\"Enter\", \"Control+A\") on the focused element, or on uid.",
        input_schema = input::<args::PressKey>()
    )]
    async fn press_key(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::PressKey = tri!(args::parse("press_key", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Press {
            key: a.key,
            uid: a.uid,
            then: Self::then(a.include_snapshot),
        };
        Ok(Self::action_answer(
            tri!(page.session()).press(&command).await,
        ))
    }

    #[tool(
        description = "Set the files of a file input.",
        input_schema = input::<args::UploadFile>()
    )]
    async fn upload_file(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::UploadFile = tri!(args::parse("upload_file", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Upload {
            uid: a.uid,
            files: a.file_paths,
            then: Self::then(a.include_snapshot),
        };
        Ok(Self::action_answer(
            tri!(page.session()).upload(&command).await,
        ))
    }

    #[tool(
        description = "Accept or dismiss the open alert, confirm, prompt or beforeunload dialog. (Dialogs never block other tools: they fail at once naming the dialog.)",
        input_schema = input::<args::HandleDialog>()
    )]
    async fn handle_dialog(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::HandleDialog = tri!(args::parse("handle_dialog", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::AnswerDialog {
            accept: a.action == args::DialogAction::Accept,
            text: a.prompt_text,
            then: AfterAction::default(),
        };
        Ok(Self::action_answer(
            tri!(page.session()).answer_dialog(&command).await,
        ))
    }

    #[tool(
        description = "Scroll the page, or the container of uid.",
        input_schema = input::<args::Scroll>()
    )]
    async fn scroll(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::Scroll = tri!(args::parse("scroll", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Scroll {
            uid: a.uid,
            direction: a.direction,
            pixels: a.pixels,
            then: AfterAction::default(),
        };
        Ok(Self::action_answer(
            tri!(page.session()).scroll(&command).await,
        ))
    }

    #[tool(
        description = "Go to a URL, or back, forward, or reload; waits for the load.",
        input_schema = input::<args::NavigatePage>()
    )]
    async fn navigate_page(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::NavigatePage = tri!(args::parse("navigate_page", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let session = tri!(page.session());
        Ok(match a.kind {
            args::NavigationType::Url => {
                let Some(url) = a.url else {
                    return Ok(answer::error(&Error::invalid_argument(
                        "navigate_page: type url needs a url",
                    )));
                };
                Self::action_answer(session.open(&url).await)
            }
            args::NavigationType::Back => Self::action_answer(session.back().await),
            args::NavigationType::Forward => Self::action_answer(session.forward().await),
            args::NavigationType::Reload => Self::action_answer(session.reload().await),
        })
    }

    #[tool(
        description = "Drag an element onto another (mouse and HTML5 drag and drop).",
        input_schema = input::<args::Drag>()
    )]
    async fn drag(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::Drag = tri!(args::parse("drag", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Drag {
            from_uid: a.from_uid,
            to_uid: a.to_uid,
            then: Self::then(a.include_snapshot),
        };
        Ok(Self::action_answer(
            tri!(page.session()).drag(&command).await,
        ))
    }

    #[tool(
        description = "Type text into the focused field, then optionally press submitKey.",
        input_schema = input::<args::TypeText>()
    )]
    async fn type_text(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::TypeText = tri!(args::parse("type_text", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::TypeText {
            text: a.text,
            submit_key: a.submit_key,
            then: Self::then(false),
        };
        Ok(Self::action_answer(
            tri!(page.session()).type_text(&command).await,
        ))
    }

    #[tool(
        description = "Wait until any of the texts shows on the page.",
        input_schema = input::<args::WaitFor>()
    )]
    async fn wait_for(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::WaitFor = tri!(args::parse("wait_for", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::WaitFor {
            text: a.text,
            timeout: a
                .timeout
                .and_then(|t| u64::try_from(t).ok())
                .filter(|t| *t > 0)
                .map(|t| t.min(command::WAIT_FOR_MAX_MS)),
        };
        Ok(Self::action_answer(
            tri!(page.session()).wait_for(&command).await,
        ))
    }

    #[tool(description = "Set the page's viewport size.", input_schema = input::<args::ResizePage>())]
    async fn resize_page(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::ResizePage = tri!(args::parse("resize_page", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let command = command::Resize {
            width: a.width,
            height: a.height,
        };
        Ok(Self::action_answer(
            tri!(page.session()).resize(&command).await,
        ))
    }

    #[tool(
        description = "Open a new tab, load a URL, and select it for this client.",
        input_schema = input::<args::NewPage>()
    )]
    async fn new_page(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::NewPage = tri!(args::parse("new_page", value(arguments)));
        let mut shared = self.shared.lock().await;
        let session = tri!(shared.session().await);
        let opened = tri!(session.new_page(&a.url).await);
        let target = opened.target_id.clone();
        self.select(Some(target.clone()));
        let id = shared.id_of(&target);
        // As chrome-devtools-mcp answers: the pages, the new one selected.
        let (pages, _) = tri!(self.listing(&mut shared).await);
        let text = format!(
            "Page {id} is open and selected. {}\n{pages}",
            opened.opened.summary
        );
        Ok(answer::success(text, &opened))
    }

    #[tool(
        description = "Run a JavaScript function in the page (main world) and answer its JSON value; args are uids passed as elements. Off unless the server runs with --allowEvaluate.",
        input_schema = input::<args::OnPage<command::Evaluate>>()
    )]
    async fn evaluate_script(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::OnPage<command::Evaluate> =
            tri!(args::parse("evaluate_script", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let done = tri!(tri!(page.session()).evaluate(&a.command).await);
        let text = match &done.value {
            Value::Null if done.dialog.is_some() => {
                serde_json::to_string(&done).unwrap_or_default()
            }
            v => serde_json::to_string_pretty(v).unwrap_or_default(),
        };
        Ok(answer::success(text, &done))
    }

    #[tool(
        description = "Console messages of the page (paged; filter by types).",
        input_schema = input::<args::OnPage<command::ConsoleMessages>>()
    )]
    async fn list_console_messages(
        &self,
        arguments: JsonObject,
    ) -> Result<CallToolResult, ErrorData> {
        let a: args::OnPage<command::ConsoleMessages> =
            tri!(args::parse("list_console_messages", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let list = tri!(tri!(page.session()).console_messages(&a.command).await);
        let mut lines: Vec<String> = list
            .messages
            .iter()
            .map(|m| {
                let at = match (&m.url, m.line) {
                    (Some(url), Some(line)) => format!(" ({url}:{line})"),
                    (Some(url), None) => format!(" ({url})"),
                    _ => String::new(),
                };
                format!("msgid={} [{}] {}{at}", m.id, m.kind, m.text)
            })
            .collect();
        lines.push(paging_line(
            list.total,
            list.page_idx,
            list.pages,
            list.dropped,
        ));
        Ok(answer::success(lines.join("\n"), &list))
    }

    #[tool(
        description = "One console message with its arguments and stack trace.",
        input_schema = input::<args::OnPage<command::ConsoleMessage>>()
    )]
    async fn get_console_message(
        &self,
        arguments: JsonObject,
    ) -> Result<CallToolResult, ErrorData> {
        let a: args::OnPage<command::ConsoleMessage> =
            tri!(args::parse("get_console_message", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let message = tri!(tri!(page.session()).console_message(&a.command).await);
        Ok(answer::success(
            serde_json::to_string_pretty(&message).unwrap_or_default(),
            &message,
        ))
    }

    #[tool(
        description = "Network requests of the page (paged; filter by resourceTypes).",
        input_schema = input::<args::OnPage<command::NetworkRequests>>()
    )]
    async fn list_network_requests(
        &self,
        arguments: JsonObject,
    ) -> Result<CallToolResult, ErrorData> {
        let a: args::OnPage<command::NetworkRequests> =
            tri!(args::parse("list_network_requests", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let list = tri!(tri!(page.session()).network_requests(&a.command).await);
        let mut lines: Vec<String> = list
            .requests
            .iter()
            .map(|r| {
                let outcome = match (&r.status, &r.failure) {
                    (_, Some(failure)) => format!("failed: {failure}"),
                    (Some(status), None) => status.to_string(),
                    (None, None) => r.state.clone(),
                };
                format!(
                    "reqid={} {} {} [{}] {outcome}",
                    r.id, r.method, r.url, r.resource_type
                )
            })
            .collect();
        lines.push(paging_line(
            list.total,
            list.page_idx,
            list.pages,
            list.dropped,
        ));
        Ok(answer::success(lines.join("\n"), &list))
    }

    #[tool(
        description = "One network request with headers, timing and response body.",
        input_schema = input::<args::OnPage<command::NetworkRequest>>()
    )]
    async fn get_network_request(
        &self,
        arguments: JsonObject,
    ) -> Result<CallToolResult, ErrorData> {
        let a: args::OnPage<command::NetworkRequest> =
            tri!(args::parse("get_network_request", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let request = tri!(tri!(page.session()).network_request(&a.command).await);
        Ok(answer::success(
            serde_json::to_string_pretty(&request).unwrap_or_default(),
            &request,
        ))
    }

    #[tool(description = "List the browser's pages with their ids.", input_schema = schema_for_empty_input())]
    async fn list_pages(&self) -> Result<CallToolResult, ErrorData> {
        let mut shared = self.shared.lock().await;
        let (text, listed) = tri!(self.listing(&mut shared).await);
        Ok(answer::success(text, &listed))
    }

    #[tool(
        description = "Make a page the one this client's tools act on by default.",
        input_schema = input::<args::SelectPage>()
    )]
    async fn select_page(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::SelectPage = tri!(args::parse("select_page", value(arguments)));
        let mut page = tri!(self.on_page(Some(a.page_id)).await);
        let target = tri!(page.session()).current_target().map(str::to_string);
        self.select(target);
        Ok(answer::text(format!("Page {} is selected.", a.page_id)))
    }

    #[tool(description = "Close a page.", input_schema = input::<args::ClosePage>())]
    async fn close_page(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::ClosePage = tri!(args::parse("close_page", value(arguments)));
        let mut page = tri!(self.on_page(Some(a.page_id)).await);
        let session = tri!(page.session());
        let closed = tri!(session.close().await);
        if self.selected().as_deref() == Some(closed.closed.as_str()) {
            self.select(session.current_target().map(str::to_string));
        }
        Ok(answer::success(
            format!("Closed page {}.", a.page_id),
            &closed,
        ))
    }

    #[tool(
        description = "The page's main content as markdown (with all: the whole visible page).",
        input_schema = input::<args::ExtractMarkdown>()
    )]
    async fn extract_markdown(&self, arguments: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a: args::ExtractMarkdown = tri!(args::parse("extract_markdown", value(arguments)));
        let mut page = tri!(self.on_page(a.page_id).await);
        let extraction = tri!(
            tri!(page.session())
                .extract(&ExtractOptions {
                    all: a.all,
                    ..Default::default()
                })
                .await
        );
        Ok(answer::success(extraction.markdown.clone(), &extraction))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for PagesightServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pagesight", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Take a snapshot, then act on elements by their uid. Actions answer with what \
                 changed on the page.",
            )
    }
}
