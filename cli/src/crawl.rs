//! `pagesight crawl`: the command line over the crawl crate — URLs in, one JSON line per page
//! out, progress on stderr, Ctrl-C handled so nothing is lost.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use pagesight::browser::{kill_launched_browsers, Viewport};
use pagesight::{AllowedFolders, Error, Mode, Result, WaitUntil};
use pagesight_crawl::{
    CrawlOptions, Endpoint, ExtractFormat, Follow, OutputFile, PageRecord, Perception, Progress,
    Summary,
};

/// `pagesight crawl`.
#[derive(Args, Debug)]
pub struct CrawlArgs {
    /// A file of URLs (or local files), one per line (`#` starts a comment); `-` for stdin.
    #[arg(value_name = "FILE|-")]
    input: Option<PathBuf>,
    /// A URL to crawl (repeatable; with or without FILE).
    #[arg(long = "url", value_name = "URL")]
    urls: Vec<String>,
    /// Where the JSON lines go, one per page, each written when its page is done.
    #[arg(long, short = 'o', value_name = "FILE")]
    out: PathBuf,
    /// Skip the pages OUT already has a line for, and append the rest.
    #[arg(long)]
    resume: bool,
    /// Pages in flight at once, across all browsers (default: two per core).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Each page's main content, as markdown or text.
    #[arg(long, value_parser = ["markdown", "text"])]
    extract: Option<String>,
    /// The snapshot an agent reads on opening each page.
    #[arg(long, value_parser = ["a11y", "dom"])]
    snapshot: Option<String>,
    /// Each page's links: absolute, each once, with the uid of the anchor.
    #[arg(long)]
    links: bool,
    /// Write a capture file per page into DIR (render one with `snapshot --from-capture`).
    #[arg(long, value_name = "DIR")]
    capture: Option<PathBuf>,
    /// Follow links: same-site, same-origin, or those starting with a URL prefix.
    #[arg(long, value_name = "same-site|same-origin|PREFIX")]
    follow: Option<String>,
    /// With --follow: how many links away from a seed a page may be.
    #[arg(long, value_name = "D", default_value_t = 3, requires = "follow")]
    depth: u32,
    /// At most this many pages in all.
    #[arg(long, value_name = "N")]
    max_pages: Option<usize>,
    /// With --follow: crawl pages robots.txt disallows.
    #[arg(long)]
    ignore_robots: bool,
    /// A running browser to crawl with (`ws://…` or `http://host:port`), repeatable: pages
    /// are shared among them. Default: launch a headless Chromium.
    #[arg(long = "browser", value_name = "ENDPOINT")]
    browsers: Vec<String>,
    /// A header for every --browser's WebSocket handshake, `Name: value` (repeatable).
    #[arg(long = "browser-header", value_name = "NAME: VALUE")]
    browser_headers: Vec<String>,
    /// A page not done in this many seconds is cut (its load is waited for half of it).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    page_timeout: f64,
    /// What a page is read after: `domcontentloaded` (its HTML parsed) or `load` (its images,
    /// frames and scripts loaded too: slower, for pages that fill in their content then).
    #[arg(long, value_name = "EVENT", value_parser = parse_wait_until, default_value = "domcontentloaded")]
    wait_until: WaitUntil,
    /// How many more times a page that timed out, crashed or lost its browser is tried.
    #[arg(long, value_name = "N", default_value_t = 2)]
    retries: u32,
    /// Open every page in the browser's default context (shared cookies and storage), each
    /// in the tab the browser's last page left: less than half the browser's CPU per page.
    #[arg(long)]
    shared_context: bool,
    /// Viewport of launched browsers' pages, WIDTHxHEIGHT.
    #[arg(long, value_parser = crate::commands::parse_viewport, default_value = "1280x800")]
    viewport: (u32, u32),
    /// No progress on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// One more folder capture files may be written in (repeatable).
    #[arg(long = "allow-dir", value_name = "DIR")]
    allow_dir: Vec<PathBuf>,
}

impl CrawlArgs {
    fn options(&self, seeds: Vec<String>) -> Result<CrawlOptions> {
        let mut options = CrawlOptions::new(seeds);
        if let Some(n) = self.concurrency {
            options.concurrency = n;
        }
        options.perception = Perception {
            extract: self.extract.as_deref().map(|f| match f {
                "text" => ExtractFormat::Text,
                _ => ExtractFormat::Markdown,
            }),
            snapshot: match self.snapshot.as_deref() {
                Some("dom") => Some(Mode::Dom),
                Some(_) => Some(Mode::A11y),
                None => None,
            },
            links: self.links,
            capture_dir: self.capture.clone(),
        };
        options.follow = self
            .follow
            .as_deref()
            .map(Follow::parse)
            .transpose()
            .map_err(Error::invalid_argument)?;
        options.max_depth = self.depth;
        options.max_pages = self.max_pages;
        options.robots = !self.ignore_robots;
        let headers = self
            .browser_headers
            .iter()
            .map(|h| match h.split_once(':') {
                Some((name, value)) if !name.trim().is_empty() => {
                    Ok((name.trim().to_owned(), value.trim().to_owned()))
                }
                _ => Err(Error::invalid_argument(format!(
                    "--browser-header takes `Name: value`, not {h:?}"
                ))),
            })
            .collect::<Result<Vec<_>>>()?;
        if !headers.is_empty() && self.browsers.is_empty() {
            return Err(Error::invalid_argument(
                "--browser-header applies to --browser endpoints; give one",
            ));
        }
        options.browsers = self
            .browsers
            .iter()
            .map(|url| Endpoint::Remote {
                url: url.clone(),
                headers: headers.clone(),
            })
            .collect();
        if !(self.page_timeout.is_finite() && self.page_timeout > 0.0) {
            return Err(Error::invalid_argument(
                "--page-timeout must be a positive number of seconds",
            ));
        }
        options.page_timeout = Duration::from_secs_f64(self.page_timeout.min(86_400.0));
        options.wait_until = self.wait_until;
        options.retries = self.retries;
        options.shared_context = self.shared_context;
        options.viewport = Viewport {
            width: self.viewport.0,
            height: self.viewport.1,
            ..Viewport::default()
        };
        options.files = AllowedFolders::with_defaults(&self.allow_dir)?;
        Ok(options)
    }
}

/// The URLs of FILE (or stdin) and of --url.
fn seeds(args: &CrawlArgs) -> Result<Vec<String>> {
    let mut seeds = Vec::new();
    let mut add = |line: &str| {
        let line = line.trim();
        if !line.is_empty() && !line.starts_with('#') {
            seeds.push(line.to_owned());
        }
    };
    match args.input.as_deref() {
        Some(path) if path.as_os_str() == "-" => {
            for line in std::io::stdin().lock().lines() {
                let line =
                    line.map_err(|e| Error::invalid_argument(format!("cannot read stdin: {e}")))?;
                add(&line);
            }
        }
        Some(path) => {
            let text = std::fs::read(path).map_err(|e| {
                Error::invalid_argument(format!("cannot read {}: {e}", path.display()))
            })?;
            for line in String::from_utf8_lossy(&text).lines() {
                add(line);
            }
        }
        None => {}
    }
    for url in &args.urls {
        add(url);
    }
    Ok(seeds)
}

pub async fn crawl(args: CrawlArgs) -> Result<()> {
    let seeds = seeds(&args)?;
    let mut options = args.options(seeds)?;
    let (mut out, resume) = match args.resume {
        true => OutputFile::resume(&args.out)?,
        false => (OutputFile::create(&args.out)?, Default::default()),
    };
    let resumed = resume.done.len();
    options.resume = resume;
    let mut crawl = pagesight_crawl::start(options).await?;
    let mut progress = ProgressDisplay::new(args.quiet, resumed);
    let mut signals = Signals::install()?;
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    let mut write_error = None;
    loop {
        tokio::select! {
            record = crawl.next() => {
                let Some(record) = record else { break };
                progress.record(&record);
                if let Err(e) = out.write(&record) {
                    // The output cannot take more: stop, and say so once the browsers are
                    // closed.
                    crawl.abort();
                    write_error.get_or_insert(e);
                }
            }
            presses = signals.next() => match presses {
                1 => {
                    progress.note("stopping: no new pages; those in flight finish (Ctrl-C again to cut them short)");
                    crawl.stop();
                }
                2 => {
                    progress.note("cutting the pages in flight short (Ctrl-C again to quit at once)");
                    crawl.abort();
                }
                _ => {
                    kill_launched_browsers();
                    std::process::exit(130);
                }
            },
            _ = ticker.tick() => progress.tick(crawl.progress()),
        }
    }
    let summary = crawl.finish().await;
    progress.finish(&summary);
    match write_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// SIGINT, SIGTERM and SIGHUP, counted.
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
    presses: u32,
}

impl Signals {
    fn install() -> Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        let install = |kind: SignalKind| {
            signal(kind).map_err(|e| {
                Error::invalid_argument(format!("could not install a signal handler: {e}"))
            })
        };
        Ok(Signals {
            interrupt: install(SignalKind::interrupt())?,
            terminate: install(SignalKind::terminate())?,
            hangup: install(SignalKind::hangup())?,
            presses: 0,
        })
    }

    /// How many signals have come, counting this one. SIGTERM and SIGHUP ask for an end
    /// without waiting: they count as two.
    async fn next(&mut self) -> u32 {
        let weight = tokio::select! {
            _ = self.interrupt.recv() => 1,
            _ = self.terminate.recv() => 2,
            _ = self.hangup.recv() => 2,
        };
        self.presses = (self.presses + weight).max(weight);
        self.presses
    }
}

/// Progress on stderr: a bar on a terminal, a line every ten seconds otherwise, nothing with
/// --quiet.
struct ProgressDisplay {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    started: std::time::Instant,
    last_line: std::time::Instant,
    resumed: usize,
    done: usize,
    failed: usize,
}

impl ProgressDisplay {
    fn new(quiet: bool, resumed: usize) -> ProgressDisplay {
        let terminal = !quiet && std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = indicatif::ProgressBar::new(0);
            let style = indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} pages · {msg} · ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        ProgressDisplay {
            bar,
            plain: !quiet && !terminal,
            started: std::time::Instant::now(),
            last_line: std::time::Instant::now(),
            resumed,
            done: 0,
            failed: 0,
        }
    }

    fn record(&mut self, record: &PageRecord) {
        self.done += 1;
        if record.error.is_some() {
            self.failed += 1;
        }
    }

    fn note(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(format!("pagesight: {text}")),
            None => eprintln!("pagesight: {text}"),
        }
    }

    fn rate(&self) -> f64 {
        let minutes = self.started.elapsed().as_secs_f64() / 60.0;
        if minutes > 0.0 {
            self.done as f64 / minutes
        } else {
            0.0
        }
    }

    fn tick(&mut self, p: Progress) {
        let status = format!(
            "{} failed · {} in flight · {:.0}/min",
            p.failed,
            p.in_flight,
            self.rate()
        );
        if let Some(bar) = &self.bar {
            bar.set_length((p.done + p.in_flight + p.queued) as u64);
            bar.set_position(p.done as u64);
            bar.set_message(status);
        } else if self.plain && self.last_line.elapsed() >= Duration::from_secs(10) {
            self.last_line = std::time::Instant::now();
            eprintln!("pagesight: {} done, {} queued, {status}", p.done, p.queued);
        }
    }

    fn finish(&mut self, summary: &Summary) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if !self.plain && self.bar.is_none() && !std::io::stderr().is_terminal() {
            return;
        }
        let mut line = format!(
            "pagesight: {} pages in {:.1} s ({:.0}/min), {} failed",
            self.done,
            self.started.elapsed().as_secs_f64(),
            self.rate(),
            self.failed
        );
        if !summary.failures.is_empty() {
            let by_code: Vec<String> = summary
                .failures
                .iter()
                .map(|(code, n)| format!("{n} {code}"))
                .collect();
            line.push_str(&format!(" ({})", by_code.join(", ")));
        }
        if self.resumed > 0 {
            line.push_str(&format!("; {} were done before (--resume)", self.resumed));
        }
        if summary.stopped {
            line.push_str("; stopped before the end: --resume takes up the rest");
        }
        eprintln!("{line}");
    }
}

fn parse_wait_until(text: &str) -> std::result::Result<WaitUntil, String> {
    text.parse().map_err(|e: Error| e.message().to_owned())
}
