//! `mcp-task`: one agent's task, scripted, run through MCP against several servers on the same
//! headless Chromium: what it costs an agent in time, in calls and in characters to read.
//!
//! A snapshot bench times one call; an agent pays for a whole task: every call's round trip,
//! and every character each answer puts into its context, including the snapshot a server
//! attaches to an action's answer. So the task is run as an agent runs it: open Bootstrap's
//! checkout example, take a snapshot, fill six fields, choose a country, tick a checkbox,
//! submit, read the result, finding each element's id in the server's own answers by role and
//! name ([`script`]), with each server's own tools. chrome-devtools-mcp is asked for its
//! snapshot after every action (`includeSnapshot: true`), Playwright MCP gives one by itself,
//! and pagesight's server answers an action with what changed. A second variant fills the form
//! with one form tool where the server has one (`fill_form`, `browser_fill_form`).
//!
//! Each server is a child process spoken to over stdio by the MCP SDK's client, one server at a
//! time, started once for all its runs; the start is timed apart. After each run the bench
//! reads the page itself, over its own CDP connection and untimed, to check the task was done.

pub mod report;
pub mod script;

use std::borrow::Cow;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use pagesight::browser::{LaunchOptions, LaunchTransport};
use pagesight::cdp::{browser as cdp_browser, runtime, target};
use pagesight_benches::docs_site::server::{DocsServer, Site};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use report::{CallRecord, Report, RunRecord, ServerRecord, Variant};
use script::Field;

/// Where Debian installs Bootstrap's checkout example; the bench serves it over loopback.
const CHECKOUT_PATH: &str = "/usr/share/doc/libjs-bootstrap5/examples/checkout/index.html";

/// The servers run when none is given, by preset name.
const DEFAULT_SERVERS: [&str; 3] = ["pagesight", "chrome-devtools-mcp", "playwright-mcp"];

/// Options of `mcp-task`.
#[derive(clap::Args)]
pub struct Args {
    /// A server: `NAME=COMMAND ARGS...` (split at whitespace; `{browserUrl}` in it becomes the
    /// browser's DevTools HTTP endpoint, `{wsEndpoint}` its WebSocket), or the name of a preset:
    /// `pagesight`, `chrome-devtools-mcp`, `playwright-mcp`. Repeatable. Default: the three
    /// presets.
    #[arg(long = "server", value_name = "NAME=COMMAND ARGS...")]
    servers: Vec<String>,
    /// Timed runs of the task per server and variant.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = crate::shared::count)]
    runs: usize,
    /// Untimed runs first, per server and variant.
    #[arg(long, value_name = "N", default_value_t = 1)]
    warmup: usize,
    /// The checkout page's URL; default: Debian's example, served by the bench on loopback.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Timeout of one tool call, seconds.
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    call_timeout: f64,
    /// Only the variant that fills field by field (no `fill_form`).
    #[arg(long)]
    no_fill_form: bool,
    /// Write the results, every run's every call, as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write each server's calls and answers of its last run of each variant into this folder
    /// (`NAME-VARIANT.md`): what the agent read.
    #[arg(long, value_name = "DIR")]
    transcripts: Option<PathBuf>,
    /// Where the Node-based peers are installed (`setup.sh` of the shared peers harness);
    /// default: `PEERS_DIR`, else `~/.cache/pagesight-peers`.
    #[arg(long, value_name = "DIR")]
    peers_dir: Option<PathBuf>,
    #[command(flatten)]
    chrome: crate::shared::Chrome,
}

/// A server to run: its row name and command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
}

/// Where the browser listens, for the servers' command lines.
#[derive(Debug, Clone)]
pub struct Endpoints {
    /// `http://127.0.0.1:PORT`.
    pub http: String,
    /// `ws://127.0.0.1:PORT/devtools/browser/ID`.
    pub websocket: String,
}

impl ServerSpec {
    /// A `--server` value: `NAME=COMMAND ARGS...` or a preset's name.
    pub fn parse(
        value: &str,
        endpoints: &Endpoints,
        peers: &std::path::Path,
    ) -> Result<ServerSpec, String> {
        let (name, words) = match value.split_once('=') {
            Some((name, command)) => (
                name.trim().to_string(),
                command
                    .split_whitespace()
                    .map(|w| {
                        w.replace("{browserUrl}", &endpoints.http)
                            .replace("{wsEndpoint}", &endpoints.websocket)
                    })
                    .collect::<Vec<_>>(),
            ),
            None => (
                value.trim().to_string(),
                preset(value.trim(), endpoints, peers)?,
            ),
        };
        let mut words = words.into_iter();
        let program = words
            .next()
            .ok_or(format!("--server {value:?} has no command after the `=`"))?;
        if name.is_empty() {
            return Err(format!("--server {value:?} has no name before the `=`"));
        }
        Ok(ServerSpec {
            name,
            program,
            args: words.collect(),
        })
    }
}

/// The command line of a preset server.
fn preset(
    name: &str,
    endpoints: &Endpoints,
    peers: &std::path::Path,
) -> Result<Vec<String>, String> {
    let node = peers.join("node22/node_modules/node/bin/node");
    let bin = |tool: &str| peers.join("npm/node_modules/.bin").join(tool);
    let path = |p: PathBuf| p.to_string_lossy().into_owned();
    let http = endpoints.http.clone();
    Ok(match name {
        "pagesight" => vec![
            path(pagesight_benches::target_dir().join("release/pagesight")),
            "mcp".into(),
            "--browserUrl".into(),
            http,
        ],
        "chrome-devtools-mcp" => vec![
            path(node),
            path(bin("chrome-devtools-mcp")),
            "--browserUrl".into(),
            http,
            "--no-usage-statistics".into(),
            "--no-performance-crux".into(),
        ],
        "playwright-mcp" => vec![
            path(node),
            path(bin("playwright-mcp")),
            "--cdp-endpoint".into(),
            http,
            "--output-dir".into(),
            path(std::env::temp_dir().join("pagesight-mcp-task-playwright")),
        ],
        _ => {
            return Err(format!(
                "no preset server {name:?}: give `NAME=COMMAND ARGS...`, or one of \
                 pagesight, chrome-devtools-mcp, playwright-mcp"
            ))
        }
    })
}

/// The folder the peers harness installs the Node servers into.
fn peers_dir(given: Option<&PathBuf>) -> PathBuf {
    if let Some(dir) = given {
        return dir.clone();
    }
    match std::env::var_os("PEERS_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/pagesight-peers"),
    }
}

/// How a server's tools are called: chrome-devtools-mcp's names and parameters (pagesight's
/// server has the same), or Playwright MCP's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// `include_snapshot`: ask for a snapshot in each action's answer (chrome-devtools-mcp; its
    /// default answer is a line of text). pagesight's default answer already carries what
    /// changed, so it is not asked.
    DevTools {
        include_snapshot: bool,
    },
    Playwright,
}

/// A started server.
struct Server {
    client: RunningService<RoleClient, ()>,
    dialect: Dialect,
    has_fill_form: bool,
    /// Whether pages are opened with `new_page` (else `navigate_page` on the default page).
    has_new_page: bool,
    call_timeout: Duration,
}

/// One run of the task: the calls made so far and every answer's text, for finding ids.
struct Run<'a> {
    server: &'a Server,
    calls: Vec<CallRecord>,
    answers: Vec<String>,
    /// The page chrome-devtools-mcp's dialect addresses (`pageId`).
    page_id: Option<u64>,
}

/// The text of all of an answer's content items, and how many items it had.
fn answer_text(result: &CallToolResult) -> (String, usize) {
    let text = result
        .content
        .iter()
        .filter_map(|item| match item {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    (text, result.content.len())
}

impl Server {
    async fn call(&self, tool: &str, arguments: Value) -> Result<CallToolResult, String> {
        let arguments: JsonObject = match arguments {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        let params =
            CallToolRequestParams::new(Cow::Owned(tool.to_string())).with_arguments(arguments);
        match tokio::time::timeout(self.call_timeout, self.client.call_tool(params)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(format!("{tool}: {e}")),
            Err(_) => Err(format!(
                "{tool}: no answer within {:.0} s",
                self.call_timeout.as_secs_f64()
            )),
        }
    }
}

impl Run<'_> {
    /// Calls `tool`, timed, and keeps the record and the answer.
    async fn call(&mut self, step: &str, tool: &str, arguments: Value) -> Result<String, String> {
        let start = Instant::now();
        let result = self.server.call(tool, arguments.clone()).await;
        let elapsed = start.elapsed();
        let result = result?;
        let (text, items) = answer_text(&result);
        let is_error = result.is_error == Some(true);
        self.calls.push(CallRecord {
            step: step.to_string(),
            tool: tool.to_string(),
            arguments,
            ms: elapsed.as_secs_f64() * 1000.0,
            chars: text.chars().count(),
            items,
            is_error,
            text: text.clone(),
        });
        if is_error {
            return Err(format!("{tool} answered with an error: {}", clip(&text)));
        }
        self.answers.push(text.clone());
        Ok(text)
    }

    /// The id of an element, from the newest answer that names it.
    fn id_of(&self, field: &Field) -> Result<String, String> {
        script::find_newest(&self.answers, field.role, field.name).ok_or(format!(
            "no {} named {:?} in the answers so far",
            field.role, field.name
        ))
    }

    /// `args` with `pageId`, for the DevTools dialect.
    fn with_page(&self, mut args: Value) -> Value {
        if let (Some(id), Value::Object(map)) = (self.page_id, &mut args) {
            map.insert("pageId".into(), id.into());
        }
        args
    }

    /// `args` with `includeSnapshot: true` where the server is asked for it.
    fn with_snapshot(&self, mut args: Value) -> Value {
        if let (
            Dialect::DevTools {
                include_snapshot: true,
            },
            Value::Object(map),
        ) = (self.server.dialect, &mut args)
        {
            map.insert("includeSnapshot".into(), true.into());
        }
        args
    }

    async fn open(&mut self, url: &str) -> Result<(), String> {
        match self.server.dialect {
            Dialect::DevTools { .. } if self.server.has_new_page => {
                let text = self.call("open", "new_page", json!({ "url": url })).await?;
                let id = script::selected_page_id(&text).ok_or(format!(
                    "new_page's answer names no selected page: {}",
                    clip(&text)
                ))?;
                self.page_id = Some(id);
            }
            // No `new_page`: the page the server acts on by default, `pageId` left out.
            Dialect::DevTools { .. } => {
                let args = json!({ "type": "url", "url": url });
                self.call("open", "navigate_page", args).await?;
            }
            Dialect::Playwright => {
                self.call("open", "browser_navigate", json!({ "url": url }))
                    .await?;
            }
        }
        Ok(())
    }

    async fn snapshot(&mut self, step: &str) -> Result<(), String> {
        match self.server.dialect {
            Dialect::DevTools { .. } => {
                let args = self.with_page(json!({}));
                self.call(step, "take_snapshot", args).await?;
            }
            Dialect::Playwright => {
                self.call(step, "browser_snapshot", json!({})).await?;
            }
        }
        Ok(())
    }

    async fn fill(&mut self, field: &Field) -> Result<(), String> {
        let id = self.id_of(field)?;
        let step = format!("fill {}", field.name);
        match self.server.dialect {
            Dialect::DevTools { .. } => {
                let args =
                    self.with_snapshot(self.with_page(json!({ "uid": id, "value": field.value })));
                self.call(&step, "fill", args).await?;
            }
            Dialect::Playwright => {
                let args = json!({ "element": field.name, "target": id, "text": field.value });
                self.call(&step, "browser_type", args).await?;
            }
        }
        Ok(())
    }

    async fn select(&mut self, field: &Field) -> Result<(), String> {
        let id = self.id_of(field)?;
        let step = format!("choose {}", field.name);
        match self.server.dialect {
            Dialect::DevTools { .. } => {
                let args =
                    self.with_snapshot(self.with_page(json!({ "uid": id, "value": field.value })));
                self.call(&step, "fill", args).await?;
            }
            Dialect::Playwright => {
                let args = json!({ "element": field.name, "target": id, "values": [field.value] });
                self.call(&step, "browser_select_option", args).await?;
            }
        }
        Ok(())
    }

    async fn click(&mut self, step: &str, field: &Field) -> Result<(), String> {
        let id = self.id_of(field)?;
        match self.server.dialect {
            Dialect::DevTools { .. } => {
                let args = self.with_snapshot(self.with_page(json!({ "uid": id })));
                self.call(step, "click", args).await?;
            }
            Dialect::Playwright => {
                let args = json!({ "element": field.name, "target": id });
                self.call(step, "browser_click", args).await?;
            }
        }
        Ok(())
    }

    /// The six text fields, the country and the checkbox in one form tool call.
    async fn fill_form(&mut self) -> Result<(), String> {
        let fields: Vec<Field> = script::TEXT_FIELDS
            .iter()
            .chain([&script::COUNTRY, &script::CHECKBOX])
            .copied()
            .collect();
        match self.server.dialect {
            Dialect::DevTools { .. } => {
                let mut elements = Vec::new();
                for field in &fields {
                    elements.push(json!({ "uid": self.id_of(field)?, "value": field.value }));
                }
                let args = self.with_snapshot(self.with_page(json!({ "elements": elements })));
                self.call("fill_form (8 fields)", "fill_form", args).await?;
            }
            Dialect::Playwright => {
                let mut entries = Vec::new();
                for field in &fields {
                    entries.push(json!({
                        "target": self.id_of(field)?,
                        "name": field.name,
                        "type": field.role,
                        "value": field.value,
                    }));
                }
                let args = json!({ "fields": entries });
                self.call("fill_form (8 fields)", "browser_fill_form", args)
                    .await?;
            }
        }
        Ok(())
    }

    /// The task, step by step.
    async fn task(&mut self, url: &str, variant: Variant) -> Result<(), String> {
        self.open(url).await?;
        self.snapshot("snapshot").await?;
        match variant {
            Variant::EachField => {
                for field in &script::TEXT_FIELDS {
                    self.fill(field).await?;
                }
                self.select(&script::COUNTRY).await?;
                self.click("tick the checkbox", &script::CHECKBOX).await?;
            }
            Variant::FillForm => self.fill_form().await?,
        }
        self.click("submit", &script::SUBMIT).await?;
        self.snapshot("read the result").await
    }

    /// Whether an answer from the submit on says what the page answered the submit with:
    /// what the agent reads to know how its task went.
    fn result_read(&self) -> bool {
        let submit = self.calls.iter().position(|c| c.step == "submit");
        submit.is_some_and(|at| {
            self.calls[at..]
                .iter()
                .any(|c| c.text.contains(script::RESULT_TEXT))
        })
    }

    /// Leaves the browser as the run found it; untimed, and not counted.
    async fn close(&mut self) -> Result<(), String> {
        match (self.server.dialect, self.page_id) {
            (Dialect::DevTools { .. }, Some(id)) => {
                self.server
                    .call("close_page", json!({ "pageId": id }))
                    .await?;
            }
            (Dialect::DevTools { .. }, None) => {
                let args = json!({ "type": "url", "url": "about:blank" });
                self.server.call("navigate_page", args).await?;
            }
            (Dialect::Playwright, _) => {
                self.server
                    .call("browser_navigate", json!({ "url": "about:blank" }))
                    .await?;
            }
        }
        Ok(())
    }
}

/// At most a few hundred characters of `text`, for messages.
fn clip(text: &str) -> String {
    let clipped: String = text.chars().take(300).collect();
    if clipped.len() < text.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

/// Starts a server and reads its tools.
async fn start_server(
    spec: &ServerSpec,
    call_timeout: Duration,
    log_dir: &std::path::Path,
) -> Result<(Server, String, String), String> {
    let mut command = tokio::process::Command::new(&spec.program);
    command.args(&spec.args);
    // The Node peers find the Node they were installed with first on the PATH; neither phones
    // home.
    if let Some(dir) = std::path::Path::new(&spec.program).parent() {
        if spec.program.ends_with("/node") {
            let path = std::env::var("PATH").unwrap_or_default();
            command.env("PATH", format!("{}:{path}", dir.display()));
        }
    }
    command.env("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1");
    command.env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    let log = log_dir.join(format!("{}.stderr.log", spec.name));
    let stderr = std::fs::File::create(&log)
        .map(Stdio::from)
        .unwrap_or_else(|_| Stdio::null());
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", spec.program))?;
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .map_err(|_| {
            format!(
                "no answer to initialize within 60 s (see {})",
                log.display()
            )
        })?
        .map_err(|e| format!("initialize failed: {e} (see {})", log.display()))?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    let has = |name: &str| tools.iter().any(|t| t.name == name);
    let (name, version) = client
        .peer_info()
        .and_then(|info| info.server_info.clone())
        .map(|i| (i.name, i.version))
        .unwrap_or_default();
    let dialect = if has("browser_navigate") {
        Dialect::Playwright
    } else if has("take_snapshot")
        && (has("new_page") || has("navigate_page"))
        && has("fill")
        && has("click")
    {
        Dialect::DevTools {
            include_snapshot: name == "chrome_devtools",
        }
    } else {
        return Err(format!(
            "{} has neither chrome-devtools-mcp's tools (new_page or navigate_page, \
             take_snapshot, fill, click) nor Playwright MCP's (browser_navigate, ...)",
            spec.name
        ));
    };
    let has_fill_form = match dialect {
        Dialect::DevTools { .. } => has("fill_form"),
        Dialect::Playwright => has("browser_fill_form"),
    };
    Ok((
        Server {
            client,
            dialect,
            has_fill_form,
            has_new_page: has("new_page"),
            call_timeout,
        },
        name,
        version,
    ))
}

/// Reads the state of the task's page over the bench's own connection: the values of
/// [`script::CHECK_EXPRESSION`]. The page is the one target at `url`.
async fn page_state(browser: &pagesight::Browser, url: &str) -> Result<Value, String> {
    let connection = browser.connection();
    let targets = connection
        .send(None, &target::GetTargetsParams::default())
        .await
        .map_err(|e| format!("listing the pages: {e}"))?;
    let page = targets
        .target_infos
        .iter()
        .rev()
        .find(|t| t.type_ == "page" && t.url.starts_with(url))
        .ok_or(format!("no page at {url} after the task"))?;
    let mut attach = target::AttachToTargetParams::new(page.target_id.clone());
    attach.flatten = Some(true);
    let attached = connection
        .send(None, &attach)
        .await
        .map_err(|e| format!("attaching to the page: {e}"))?;
    let session = pagesight::transport::SessionId::from(attached.session_id.clone());
    let mut evaluate = runtime::EvaluateParams::new(script::CHECK_EXPRESSION.to_string());
    evaluate.return_by_value = Some(true);
    let state = connection.send(Some(&session), &evaluate).await;
    let detach = target::DetachFromTargetParams {
        session_id: Some(attached.session_id),
        target_id: None,
    };
    let _ = connection.send(None, &detach).await;
    let state = state.map_err(|e| format!("reading the page: {e}"))?;
    state
        .result
        .value
        .ok_or("the page's state came back empty".to_string())
}

/// Runs every variant of the task `warmup + runs` times on one server.
async fn run_server(
    spec: &ServerSpec,
    args: &Args,
    url: &str,
    browser: &pagesight::Browser,
    log_dir: &std::path::Path,
) -> ServerRecord {
    let mut record = ServerRecord::new(spec);
    let call_timeout = Duration::from_secs_f64(args.call_timeout.max(1.0));
    let start = Instant::now();
    let started = start_server(spec, call_timeout, log_dir).await;
    record.start_ms = start.elapsed().as_secs_f64() * 1000.0;
    let (server, name, version) = match started {
        Ok(started) => started,
        Err(e) => {
            eprintln!("mcp-task: {}: {e}", spec.name);
            record.error = Some(e);
            return record;
        }
    };
    record.server_name = name;
    record.server_version = version;
    eprintln!(
        "mcp-task: {} ({} {}) started in {:.0} ms",
        spec.name, record.server_name, record.server_version, record.start_ms
    );
    let mut variants = vec![Variant::EachField];
    if server.has_fill_form && !args.no_fill_form {
        variants.push(Variant::FillForm);
    }
    for variant in &variants {
        record.variants.push((*variant, Vec::new()));
    }
    // Rounds interleave the variants, so a slow spell of the machine falls on both.
    for round in 0..args.warmup + args.runs {
        for (slot, variant) in variants.iter().enumerate() {
            let mut run = Run {
                server: &server,
                calls: Vec::new(),
                answers: Vec::new(),
                page_id: None,
            };
            let outcome = run.task(url, *variant).await;
            let mut problems = match &outcome {
                Ok(()) => match page_state(browser, url).await {
                    Ok(state) => script::check_page_state(&state),
                    Err(e) => vec![e],
                },
                Err(e) => vec![e.clone()],
            };
            if let Err(e) = run.close().await {
                problems.push(format!("closing the page: {e}"));
            }
            let warm_up = round < args.warmup;
            let result_read = run.result_read();
            let mut run_record = RunRecord::new(run.calls, outcome.is_ok(), problems, warm_up);
            run_record.result_read = result_read;
            eprintln!(
                "mcp-task: {} {} run {}{}: {} calls, {:.0} ms, {} chars{}",
                spec.name,
                variant.name(),
                round + 1,
                if warm_up { " (warm-up)" } else { "" },
                run_record.calls.len(),
                run_record.total_ms,
                run_record.total_chars,
                if run_record.problems.is_empty() {
                    String::new()
                } else {
                    format!("; {}", run_record.problems.join("; "))
                }
            );
            if let Some((_, runs)) = record.variants.get_mut(slot) {
                runs.push(run_record);
            }
        }
    }
    if let Err(e) = server.client.cancel().await {
        eprintln!("mcp-task: {}: stopping the server: {e}", spec.name);
    }
    record
}

/// Sizes the browser's first window to 1280x800, as the other benches' pages are.
async fn size_window(browser: &pagesight::Browser) -> Result<(), String> {
    let pages = browser.pages().await.map_err(|e| e.to_string())?;
    let first = pages.first().ok_or("the browser has no page")?;
    let window = browser
        .connection()
        .send(
            None,
            &cdp_browser::GetWindowForTargetParams {
                target_id: Some(first.target_id.clone()),
            },
        )
        .await
        .map_err(|e| e.to_string())?;
    let bounds = cdp_browser::Bounds {
        width: Some(1280),
        height: Some(800),
        ..Default::default()
    };
    browser
        .connection()
        .send(
            None,
            &cdp_browser::SetWindowBoundsParams {
                window_id: window.window_id,
                bounds,
            },
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// `ws://HOST:PORT/...` → `http://HOST:PORT`.
pub fn http_endpoint(websocket: &str) -> Option<String> {
    let rest = websocket.strip_prefix("ws://")?;
    let host = rest.split('/').next()?;
    Some(format!("http://{host}"))
}

pub async fn run(args: Args) -> Result<(), String> {
    let server = match &args.url {
        Some(_) => None,
        None => Some(
            DocsServer::start(Site::debian(), 0)
                .await
                .map_err(|e| format!("cannot serve the checkout page on loopback: {e}"))?,
        ),
    };
    let url = match (&args.url, &server) {
        (Some(url), _) => url.clone(),
        (None, Some(server)) => {
            if !std::path::Path::new(CHECKOUT_PATH).is_file() {
                return Err(format!(
                    "{CHECKOUT_PATH} is missing: apt-get install -y libjs-bootstrap5-doc \
                     libjs-bootstrap5"
                ));
            }
            server.url(CHECKOUT_PATH)
        }
        (None, None) => return Err("no page to run the task on".into()),
    };
    let options = LaunchOptions {
        executable: args.chrome.path.clone(),
        transport: LaunchTransport::WebSocket,
        ..LaunchOptions::default()
    };
    let log_dir = pagesight_benches::target_dir().join("mcp-task");
    std::fs::create_dir_all(&log_dir)
        .map_err(|e| format!("cannot create {}: {e}", log_dir.display()))?;
    let report = pagesight_benches::with_browser(options, async |browser| {
        let websocket = browser
            .websocket_url()
            .ok_or("the browser has no DevTools WebSocket")?
            .to_string();
        let endpoints = Endpoints {
            http: http_endpoint(&websocket)
                .ok_or(format!("unexpected DevTools address {websocket}"))?,
            websocket,
        };
        size_window(browser)
            .await
            .map_err(|e| format!("cannot size the browser's window: {e}"))?;
        let peers = peers_dir(args.peers_dir.as_ref());
        let given: Vec<String> = if args.servers.is_empty() {
            DEFAULT_SERVERS.iter().map(|s| s.to_string()).collect()
        } else {
            args.servers.clone()
        };
        let specs = given
            .iter()
            .map(|value| ServerSpec::parse(value, &endpoints, &peers))
            .collect::<Result<Vec<_>, _>>()?;
        let chromium = browser
            .version()
            .await
            .map(|v| v.product)
            .unwrap_or_default();
        let mut report = Report::new(&url, chromium, args.runs, args.warmup);
        for spec in &specs {
            let record = run_server(spec, &args, &url, browser, &log_dir).await;
            report.servers.push(record);
        }
        report.finish();
        Ok(report)
    })
    .await?;
    print!("{}", report.markdown());
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report.to_json())
            .map_err(|e| format!("cannot write the JSON: {e}"))?;
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("mcp-task: wrote {}", path.display());
    }
    if let Some(dir) = &args.transcripts {
        report.write_transcripts(dir)?;
        eprintln!("mcp-task: transcripts in {}", dir.display());
    }
    drop(server);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoints() -> Endpoints {
        Endpoints {
            http: "http://127.0.0.1:9222".into(),
            websocket: "ws://127.0.0.1:9222/devtools/browser/x".into(),
        }
    }

    #[test]
    fn a_server_is_a_named_command_or_a_preset() {
        let peers = std::path::Path::new("/peers");
        let spec = ServerSpec::parse("me=./srv mcp --at {browserUrl}", &endpoints(), peers);
        assert_eq!(
            spec,
            Ok(ServerSpec {
                name: "me".into(),
                program: "./srv".into(),
                args: vec!["mcp".into(), "--at".into(), "http://127.0.0.1:9222".into()],
            })
        );
        let spec = ServerSpec::parse("playwright-mcp", &endpoints(), peers);
        let spec = spec.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.program, "/peers/node22/node_modules/node/bin/node");
        assert!(spec.args.contains(&"--cdp-endpoint".to_string()));
        assert!(ServerSpec::parse("nobody", &endpoints(), peers).is_err());
        assert!(ServerSpec::parse("x=", &endpoints(), peers).is_err());
        assert!(ServerSpec::parse("=cmd", &endpoints(), peers).is_err());
    }

    #[test]
    fn the_http_endpoint_is_the_websocket_host() {
        assert_eq!(
            http_endpoint("ws://127.0.0.1:41234/devtools/browser/abc"),
            Some("http://127.0.0.1:41234".into())
        );
        assert_eq!(http_endpoint("http://x"), None);
    }
}
