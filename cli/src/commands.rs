//! The subcommands: argument types and the glue from the command line to the engine.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use pagesight::browser::{exit_on_signals_with_cleanup, Viewport};
use pagesight::extract::ExtractOptions;
use pagesight::line_reader::LineReader;
use pagesight::live::capture_everything;
use pagesight::session::{normalize_url, response_line, Session, SessionOptions};
use pagesight::snapshot::{render_capture, SnapshotOptions};
use pagesight::{AllowedFolders, Error, Result};

/// Where the browser comes from (default: launch a headless Chromium of our own).
#[derive(Args, Debug, Clone, Default)]
pub struct BrowserArgs {
    /// Connect to a running browser (`ws://…` or `http://host:port`) instead of launching one.
    #[arg(long = "browser", value_name = "ENDPOINT")]
    pub browser: Option<String>,
    /// Attach to this existing page target instead of opening a new page.
    #[arg(long = "target", value_name = "TARGET_ID", requires = "browser")]
    pub target: Option<String>,
}

/// What a `run` session may do beyond perceiving and acting.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct DevtoolsArgs {
    /// Record each page's console messages and network requests, for the console_messages,
    /// console_message, network_requests and network_request commands (costs the browser
    /// work on every console call and request, so it is off by default).
    #[arg(long)]
    pub collect_devtools: bool,
    /// Allow the evaluate command, which runs any JavaScript sent to it in the page.
    #[arg(long)]
    pub allow_evaluate: bool,
}

/// Which folders commands may read and write files in.
#[derive(Args, Debug, Clone, Default)]
pub struct FileArgs {
    /// One more folder whose files commands may read (upload) and write (a screenshot's path,
    /// a capture), besides the current directory and the temporary folder (repeatable).
    #[arg(long = "allow-dir", value_name = "DIR")]
    pub allow_dir: Vec<PathBuf>,
}

impl FileArgs {
    fn allowed_folders(&self) -> Result<AllowedFolders> {
        AllowedFolders::with_defaults(&self.allow_dir)
    }
}

#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// URL or file path of the page (not needed with --from-capture, nor with --target: the
    /// attached page is snapshotted as it is).
    #[arg(required_unless_present_any = ["from_capture", "target"])]
    page: Option<String>,
    /// a11y (the accessibility view) or dom (the indexed interactive list).
    #[arg(long, default_value = "a11y", value_parser = ["a11y", "dom"])]
    mode: String,
    /// text or json.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Viewport size as WIDTHxHEIGHT in CSS px.
    #[arg(long, value_parser = parse_viewport, default_value = "1280x800")]
    viewport: (u32, u32),
    /// Also show what lies this many px beyond the viewport, or `all` for the whole page.
    #[arg(long, default_value = "0")]
    expand: String,
    /// a11y mode: print the full accessibility tree.
    #[arg(long)]
    verbose: bool,
    /// Print only this element's subtree, as the whole page prints it (a uid of the page's
    /// first snapshot, `1_…`).
    #[arg(long)]
    uid: Option<String>,
    /// Print at most this many characters: the most useful lines, with a line for each part
    /// left out.
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
    /// Render a capture saved by `pagesight capture` instead of loading a page (no browser).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["page", "browser", "target"])]
    from_capture: Option<PathBuf>,
    #[command(flatten)]
    browser: BrowserArgs,
}

/// Parses `WIDTHxHEIGHT`.
pub fn parse_viewport(text: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("viewport must look like 1280x800, not {text:?}");
    let (w, h) = text.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err(format!(
            "viewport sides must be 1 to 16384 px, not {text:?}"
        ));
    }
    Ok((w, h))
}

fn snapshot_options(args: &SnapshotArgs) -> Result<SnapshotOptions> {
    Ok(SnapshotOptions {
        mode: SnapshotOptions::parse_mode(&args.mode)?,
        format: SnapshotOptions::parse_format(&args.format)?,
        expand: SnapshotOptions::parse_expand(&args.expand)?,
        verbose: args.verbose,
        uid: args.uid.clone(),
        max_chars: args.max_chars,
    })
}

fn session_options(browser: &BrowserArgs, viewport: (u32, u32)) -> SessionOptions {
    SessionOptions {
        browser: browser.browser.clone(),
        target: browser.target.clone(),
        viewport: Viewport {
            width: viewport.0,
            height: viewport.1,
            device_scale_factor: 1.0,
        },
        load_timeout: None,
        ..SessionOptions::default()
    }
}

fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .and_then(|_| out.flush())
        .map_err(|e| Error::invalid_argument(format!("cannot write to standard output: {e}")))
}

/// Opens `page` in the session (unless attached to an existing target without a page argument),
/// warning on stderr when it did not finish loading.
async fn open_in(session: &mut Session, page: Option<&str>, attached: bool) -> Result<()> {
    let Some(page) = page else {
        if attached {
            return Ok(());
        }
        return Err(Error::invalid_argument("give a URL or a file path to load"));
    };
    let opened = session.open(page).await?;
    if let Some(warning) = opened.warning {
        eprintln!("pagesight: {warning}");
    }
    Ok(())
}

pub async fn snapshot(args: SnapshotArgs) -> Result<()> {
    let options = snapshot_options(&args)?;
    if let Some(file) = &args.from_capture {
        let bytes = pagesight::capture::read_file(file)?;
        return print(&render_capture(&bytes, &options)?);
    }
    exit_on_signals_with_cleanup()?;
    // Check a file path before starting a browser, so a typo fails fast.
    if let Some(page) = &args.page {
        normalize_url(page)?;
    }
    let mut session = Session::start(session_options(&args.browser, args.viewport)).await?;
    let result = async {
        open_in(
            &mut session,
            args.page.as_deref(),
            args.browser.target.is_some(),
        )
        .await?;
        if options.uid.is_some() {
            // The page's first snapshot issues the uids (`1_…`) a subtree is named by.
            session.snapshot(&SnapshotOptions::default()).await?;
        }
        Ok(session.snapshot(&options).await?.text)
    }
    .await;
    let closed = session.shutdown().await;
    print(&result?)?;
    closed
}

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// URL or file path of the page (not needed with --target: the attached page is read as it
    /// is).
    #[arg(required_unless_present = "target")]
    page: Option<String>,
    /// markdown, text (the same blocks without markup) or json (title, byline, published, lang,
    /// markdown, blocks).
    #[arg(long, default_value = "markdown", value_parser = ["markdown", "text", "json"])]
    format: String,
    /// The whole visible page instead of its main content.
    #[arg(long)]
    all: bool,
    /// Also list every link of the page (URL, text, uid) in the JSON output.
    #[arg(long)]
    links: bool,
    /// Viewport size as WIDTHxHEIGHT in CSS px.
    #[arg(long, value_parser = parse_viewport, default_value = "1280x800")]
    viewport: (u32, u32),
    #[command(flatten)]
    browser: BrowserArgs,
}

pub async fn extract(args: ExtractArgs) -> Result<()> {
    exit_on_signals_with_cleanup()?;
    if let Some(page) = &args.page {
        normalize_url(page)?;
    }
    let options = ExtractOptions {
        all: args.all,
        links: args.links,
    };
    let mut session = Session::start(session_options(&args.browser, args.viewport)).await?;
    let result = async {
        open_in(
            &mut session,
            args.page.as_deref(),
            args.browser.target.is_some(),
        )
        .await?;
        session.extract(&options).await
    }
    .await;
    let closed = session.shutdown().await;
    let extraction = result?;
    let out = match args.format.as_str() {
        "text" => extraction.text,
        "json" => {
            /// The JSON output: the extraction in reading order, without the plain text.
            #[derive(serde::Serialize)]
            struct Json<'a> {
                title: &'a Option<String>,
                byline: &'a Option<String>,
                published: &'a Option<String>,
                lang: &'a Option<String>,
                markdown: &'a str,
                blocks: &'a [String],
                #[serde(skip_serializing_if = "<[_]>::is_empty")]
                links: &'a [pagesight::extract::Link],
            }
            serde_json::to_string_pretty(&Json {
                title: &extraction.title,
                byline: &extraction.byline,
                published: &extraction.published,
                lang: &extraction.lang,
                markdown: &extraction.markdown,
                blocks: &extraction.blocks,
                links: &extraction.links,
            })
            .map_err(|e| Error::invalid_argument(format!("cannot write JSON: {e}")))?
        }
        _ => extraction.markdown,
    };
    print(&out)?;
    closed
}

pub async fn run(
    file: Option<PathBuf>,
    browser: BrowserArgs,
    devtools: DevtoolsArgs,
    files: FileArgs,
) -> Result<()> {
    exit_on_signals_with_cleanup()?;
    let allowed = files.allowed_folders()?;
    let input: Box<dyn BufRead + Send> = match &file {
        Some(path) => Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(
            |e| Error::invalid_argument(format!("cannot read {}: {e}", path.display())),
        )?)),
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    let options = SessionOptions {
        collect_devtools: devtools.collect_devtools,
        allow_evaluate: devtools.allow_evaluate,
        files: allowed,
        ..session_options(&browser, (1280, 800))
    };
    let mut session = Session::start(options).await?;
    let mut lines = LineReader::new(input);
    let result = loop {
        // Reading stdin blocks the thread: the runtime is told so, and hands this worker's other
        // tasks (the connection's reader among them) to the other worker meanwhile, so events
        // are still handled while the agent thinks.
        let line = match tokio::task::block_in_place(|| lines.next_line()) {
            Ok(None) => break Ok(()),
            Ok(Some(line)) => line,
            Err(e) => {
                break Err(Error::invalid_argument(format!(
                    "cannot read the commands: {e}"
                )))
            }
        };
        // A line that cannot be text (not UTF-8, too long) is answered like any malformed
        // command, and the session goes on.
        let response = match line.into_text() {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => session.execute_line(&line).await,
            Err(e) => response_line(Err(e)),
        };
        if let Err(e) = print(&response) {
            break Err(e);
        }
    };
    let closed = session.shutdown().await;
    result.and(closed)
}

pub async fn capture(
    page: String,
    output: PathBuf,
    viewport: (u32, u32),
    browser: BrowserArgs,
    files: FileArgs,
) -> Result<()> {
    exit_on_signals_with_cleanup()?;
    normalize_url(&page)?;
    let allowed = files.allowed_folders()?;
    let output = output.to_string_lossy().into_owned();
    // Checked before the browser starts, so a path outside the allowed folders fails fast.
    allowed.check(&output)?;
    let mut session = Session::start(session_options(&browser, viewport)).await?;
    let result = async {
        open_in(&mut session, Some(&page), false).await?;
        let page = session
            .current_page()
            .ok_or_else(|| Error::invalid_argument("no page is open"))?;
        let capture = capture_everything(page).await?;
        allowed.write_with(&output, |file| {
            let mut out = std::io::BufWriter::new(file);
            capture.to_writer(&mut out)?;
            out.flush().map_err(|e| pagesight::files::write_failed(&e))
        })?;
        Ok(())
    }
    .await;
    let closed = session.shutdown().await;
    result.and(closed)
}

pub async fn doctor() -> Result<()> {
    let report = pagesight::doctor::doctor(Default::default()).await?;
    print(&report.to_string())?;
    if report.ok() {
        Ok(())
    } else {
        Err(Error::invalid_argument(
            "the browser lacks something pagesight uses (see above); install a current Chromium",
        ))
    }
}

/// `pagesight mcp`.
#[derive(clap::Args, Debug)]
pub struct McpArgs {
    /// Serve streamable HTTP at http://ADDRESS/mcp instead of stdio: a PORT (on 127.0.0.1) or
    /// HOST:PORT.
    #[arg(long, value_name = "[HOST:]PORT")]
    pub http: Option<String>,
    /// The address to listen on with `--http` (default 127.0.0.1). Anything but a loopback
    /// address lets other machines drive the browser.
    #[arg(long, requires = "http")]
    pub host: Option<std::net::IpAddr>,
    #[command(flatten)]
    pub browser: pagesight_mcp::BrowserOptions,
}

/// Where `--http` and `--host` say to listen. A host other than loopback must be given with
/// `--host`, so that exposing the browser to the network is never an accident.
pub fn http_address(http: &str, host: Option<std::net::IpAddr>) -> Result<std::net::SocketAddr> {
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};
    let given: SocketAddr = match http.trim().parse::<u16>() {
        Ok(port) => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
        Err(_) => http.trim().parse().map_err(|_| {
            Error::invalid_argument(format!(
                "--http takes a PORT or HOST:PORT (127.0.0.1:8931), not {http:?}"
            ))
        })?,
    };
    match host {
        Some(host) => Ok(SocketAddr::new(host, given.port())),
        None if given.ip().is_loopback() => Ok(given),
        None => Err(Error::invalid_argument(format!(
            "--http {http} would let other machines drive the browser; say --host {} as well \
             if that is meant",
            given.ip()
        ))),
    }
}

pub async fn mcp(args: McpArgs) -> Result<()> {
    match &args.http {
        None => {
            exit_on_signals_with_cleanup()?;
            pagesight_mcp::serve_stdio(&args.browser).await
        }
        Some(http) => {
            let address = http_address(http, args.host)?;
            pagesight_mcp::serve_http(&args.browser, address, |bound| {
                eprintln!("pagesight: serving MCP at http://{bound}/mcp");
            })
            .await
        }
    }
}
