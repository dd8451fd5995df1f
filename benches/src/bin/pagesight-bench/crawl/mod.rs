//! `crawl`: pages per minute and CPU per page of `pagesight crawl` against Crawl4AI, the same
//! corpus crawled by both through the same kind of Chromium, and the markdown of both scored
//! on the extraction bench's pages.
//!
//! The corpus is served over loopback by the bench itself ([`DocsServer`]): the extraction
//! bench's saved article pages (decompressed, as `text/html`) and a few hundred pages of
//! Python's documentation (evenly spaced over its sorted files). For each run, concurrency and
//! tool, a fresh headless Chromium is launched with a DevTools port and a fresh temporary
//! profile (removed afterwards), the crawler is started as a child process pointed at that
//! port, and when it exits the browser is closed. Timed: the crawler's whole life (start-up,
//! connection, crawl, exit). CPU: the crawler's (and its children's) from `wait4`, and
//! Chromium's process group from `/proc` before and after. The tools take turns, so neither
//! always runs first on a warmer or quieter machine.

mod measure;
mod score;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pagesight::browser::{Browser, LaunchOptions, LaunchTransport};
use pagesight_benches::docs_site::server::{DocsServer, Site};
use serde_json::{json, Value};

use score::{Lines, Score};

/// Where Debian's `python3.11-doc` installs the HTML.
const PYTHON_DOCS: &str = "/usr/share/doc/python3.11/html";
/// Where the Python documentation's `_static` links point (Debian's shared JavaScript).
const SHARED_JAVASCRIPT: &str = "/usr/share/javascript";

/// Chromium's host resolver rule that fails every name but the corpus server's at once.
const LOOPBACK_ONLY: &str = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1";

/// The crawlers compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// `pagesight crawl` as it runs by default: each page in a browser context of its own.
    Pagesight,
    /// `pagesight crawl --shared-context`: every page in the browser's default context, as
    /// Crawl4AI opens them when given a CDP URL.
    PagesightShared,
    /// `pagesight crawl --shared-context` reading nothing: every page loaded as
    /// pagesight-shared loads it, and only its status and title written. What Chromium's own
    /// loading of the corpus costs: the floor under any crawler of the same browser.
    LoadOnly,
    Crawl4ai,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Pagesight => "pagesight",
            Tool::PagesightShared => "pagesight-shared",
            Tool::LoadOnly => "load-only",
            Tool::Crawl4ai => "crawl4ai",
        }
    }
}

/// Options of `crawl`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The extraction bench's folder: `pages/<key>.html.gz`, `ground-truth.json`, `score.py`.
    #[arg(long, value_name = "DIR")]
    extract_bench: PathBuf,
    /// The Python documentation's HTML folder.
    #[arg(long, value_name = "DIR", default_value = PYTHON_DOCS)]
    python_docs: PathBuf,
    /// How many pages of the Python documentation to add to the corpus.
    #[arg(long, value_name = "N", default_value_t = 300)]
    corpus_python: usize,
    /// The concurrencies, comma-separated.
    #[arg(
        long,
        value_name = "N,N,...",
        value_delimiter = ',',
        default_value = "1,4,8"
    )]
    concurrency: Vec<usize>,
    /// Runs of each tool at each concurrency.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::shared::count)]
    runs: usize,
    /// The tools, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "pagesight,pagesight-shared,crawl4ai"
    )]
    tools: Vec<Tool>,
    /// The `pagesight` command line program; default: `pagesight` beside this binary.
    #[arg(long, value_name = "PATH")]
    pagesight: Option<PathBuf>,
    /// The Python of an environment where `crawl4ai` is installed.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    crawl4ai_python: PathBuf,
    /// The Crawl4AI driver; default: `benches/crawl4ai_crawl.py` of this workspace.
    #[arg(long, value_name = "PATH")]
    crawl4ai_driver: Option<PathBuf>,
    /// Crawl4AI's pruning filter: `lxml` (the one 0.9 recommends) or `bs4`.
    #[arg(long, value_name = "lxml|bs4", default_value = "lxml")]
    crawl4ai_filter: String,
    /// The Python that runs the scorer.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    python: PathBuf,
    /// Let the browser resolve host names as it normally does. Default: every host but the
    /// loopback corpus server fails to resolve at once, for both tools: the saved pages name
    /// scripts, fonts and images on hosts a loopback bench cannot reach, and how long a failed
    /// lookup takes is the machine's resolver, not the crawler.
    #[arg(long)]
    real_dns: bool,
    /// What `pagesight crawl` reads a page after (`--wait-until`): `domcontentloaded` (its
    /// default) or `load`.
    #[arg(long, value_name = "EVENT", default_value = "domcontentloaded")]
    wait_until: String,
    /// Seconds one page may take, for both tools.
    #[arg(long, value_name = "S", default_value_t = 30)]
    page_timeout: u64,
    /// Seconds one crawl may take before it is killed.
    #[arg(long, value_name = "S", default_value_t = 3600)]
    run_timeout: u64,
    /// Where the URL list, each crawl's JSON lines, logs and predictions go; default:
    /// `<target>/crawl-bench`.
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// Write every run's figures as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    #[command(flatten)]
    chrome: crate::shared::Chrome,
}

/// The corpus: the URLs to crawl and, for the bench's pages, their keys.
struct Corpus {
    urls: Vec<String>,
    /// Bench key -> URL.
    keys: BTreeMap<String, String>,
    python_pages: usize,
}

/// The figures of one crawl.
struct RunFigures {
    tool: Tool,
    concurrency: usize,
    run: usize,
    lines: Lines,
    finished: measure::Finished,
    chromium_cpu: Duration,
    load: Option<f64>,
    score: Option<Score>,
}

impl RunFigures {
    fn pages_per_minute(&self) -> f64 {
        self.lines.ok as f64 / self.finished.wall.as_secs_f64().max(1e-9) * 60.0
    }

    fn pages(&self) -> usize {
        self.lines.ok + self.lines.failed
    }

    fn per_page_ms(&self, d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0 / self.pages().max(1) as f64
    }

    fn to_json(&self) -> Value {
        let timings: serde_json::Map<String, Value> = self
            .lines
            .timings
            .iter()
            .map(|(k, v)| (k.clone(), json!(v / self.lines.timed.max(1) as f64)))
            .collect();
        json!({
            "tool": self.tool.name(),
            "concurrency": self.concurrency,
            "run": self.run,
            "pages": self.pages(),
            "ok": self.lines.ok,
            "failed": self.lines.failed,
            "failures": self.lines.failures,
            "wallSeconds": self.finished.wall.as_secs_f64(),
            "exit": self.finished.status,
            "pagesPerMinute": self.pages_per_minute(),
            "crawlerCpuSeconds": self.finished.cpu.as_secs_f64(),
            "chromiumCpuSeconds": self.chromium_cpu.as_secs_f64(),
            "cpuPerPageMs": self.per_page_ms(self.finished.cpu + self.chromium_cpu),
            "crawlerCpuPerPageMs": self.per_page_ms(self.finished.cpu),
            "chromiumCpuPerPageMs": self.per_page_ms(self.chromium_cpu),
            "meanTimingsMs": timings,
            "load1": self.load,
            "score": self.score,
        })
    }
}

pub async fn run(args: Args) -> Result<(), String> {
    let work = args
        .work_dir
        .clone()
        .unwrap_or_else(|| pagesight_benches::target_dir().join("crawl-bench"));
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let pages = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let site = Site::new(
        vec![
            ("/extract-bench/".into(), pages.path().to_path_buf()),
            ("/python/".into(), args.python_docs.clone()),
        ],
        vec![
            pages.path().to_path_buf(),
            args.python_docs.clone(),
            PathBuf::from(SHARED_JAVASCRIPT),
        ],
    );
    let server = DocsServer::start(site, 0)
        .await
        .map_err(|e| format!("cannot serve the corpus on loopback: {e}"))?;
    let corpus = corpus(&args, pages.path(), &server)?;
    let url_file = work.join("urls.txt");
    std::fs::write(&url_file, corpus.urls.join("\n") + "\n")
        .map_err(|e| format!("{}: {e}", url_file.display()))?;
    println!(
        "corpus: {} URLs ({} extraction-bench pages, {} Python documentation pages) on {}",
        corpus.urls.len(),
        corpus.keys.len(),
        corpus.python_pages,
        server.url("/")
    );
    pagesight::browser::exit_on_signals_with_cleanup()
        .map_err(|e| format!("cannot install the signal handlers: {e}"))?;

    let mut figures = Vec::new();
    let mut chromium = String::new();
    for run in 1..=args.runs {
        for (i, &concurrency) in args.concurrency.iter().enumerate() {
            // The tools take turns at going first.
            let mut tools = args.tools.clone();
            if (i + run) % 2 == 0 {
                tools.reverse();
            }
            for tool in tools {
                let (f, version) =
                    crawl_once(&args, &corpus, &url_file, &work, tool, concurrency, run).await?;
                chromium = version;
                println!(
                    "{:<10} c={concurrency} run {run}: {} ok, {} failed, {:.1} s, {:.0} pages/min, \
                     CPU/page {:.0} ms (crawler {:.0} + Chromium {:.0}){}",
                    tool.name(),
                    f.lines.ok,
                    f.lines.failed,
                    f.finished.wall.as_secs_f64(),
                    f.pages_per_minute(),
                    f.per_page_ms(f.finished.cpu + f.chromium_cpu),
                    f.per_page_ms(f.finished.cpu),
                    f.per_page_ms(f.chromium_cpu),
                    f.score.map(|s| format!(", F1 {:.3}", s.f1)).unwrap_or_default(),
                );
                figures.push(f);
            }
        }
    }
    print!("{}", table(&figures));
    if let Some(path) = &args.json {
        let report = json!({
            "chromium": chromium,
            "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
            "corpus": {
                "urls": corpus.urls.len(),
                "extractBench": corpus.keys.len(),
                "python": corpus.python_pages,
            },
            "runs": figures.iter().map(RunFigures::to_json).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("figures: {}", path.display());
    }
    Ok(())
}

/// Decompresses the bench's pages into `pages` and lists the corpus's URLs.
fn corpus(args: &Args, pages: &Path, server: &DocsServer) -> Result<Corpus, String> {
    let dir = args.extract_bench.join("pages");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut keys = BTreeMap::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(key) = name.strip_suffix(".html.gz") else {
            continue;
        };
        let bytes =
            std::fs::read(entry.path()).map_err(|e| format!("{}: {e}", entry.path().display()))?;
        let html = pagesight_benches::gunzip(&bytes).map_err(|e| format!("{name}: {e}"))?;
        let file = pages.join(format!("{key}.html"));
        std::fs::write(&file, html).map_err(|e| format!("{}: {e}", file.display()))?;
        keys.insert(
            key.to_string(),
            server.url(&format!("/extract-bench/{key}.html")),
        );
    }
    if keys.is_empty() {
        return Err(format!("no pages/<key>.html.gz in {}", dir.display()));
    }
    let mut python = Vec::new();
    html_files(&args.python_docs, &args.python_docs, &mut python);
    python.sort();
    if python.is_empty() && args.corpus_python > 0 {
        return Err(format!(
            "no HTML under {} (apt-get install -y python3.11-doc)",
            args.python_docs.display()
        ));
    }
    let n = args.corpus_python.min(python.len());
    let chosen: Vec<String> = (0..n)
        .map(|i| server.url(&format!("/python/{}", python[i * python.len() / n])))
        .collect();
    let mut urls: Vec<String> = keys.values().cloned().collect();
    urls.extend(chosen);
    Ok(Corpus {
        urls,
        keys,
        python_pages: n,
    })
}

/// The `.html` files under `dir`, relative to `root`, skipping folders starting with `_`.
fn html_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('_') {
                html_files(root, &path, out);
            }
        } else if name.ends_with(".html") {
            if let Ok(relative) = path.strip_prefix(root) {
                out.push(relative.to_string_lossy().into_owned());
            }
        }
    }
}

/// One crawl by one tool on a fresh Chromium; also gives the Chromium's version.
async fn crawl_once(
    args: &Args,
    corpus: &Corpus,
    url_file: &Path,
    work: &Path,
    tool: Tool,
    concurrency: usize,
    run: usize,
) -> Result<(RunFigures, String), String> {
    let mut options = LaunchOptions {
        executable: args.chrome.path.clone(),
        transport: LaunchTransport::WebSocket,
        ..LaunchOptions::default()
    };
    if !args.real_dns {
        options
            .args
            .push(format!("--host-resolver-rules={LOOPBACK_ONLY}"));
    }
    let browser = Browser::launch(options)
        .await
        .map_err(|e| format!("cannot launch Chromium: {e}"))?;
    let result = crawl_on(
        args,
        corpus,
        url_file,
        work,
        tool,
        concurrency,
        run,
        &browser,
    )
    .await;
    let closed = browser.close().await;
    let figures = result?;
    closed.map_err(|e| format!("closing Chromium: {e}"))?;
    Ok(figures)
}

#[allow(clippy::too_many_arguments)]
async fn crawl_on(
    args: &Args,
    corpus: &Corpus,
    url_file: &Path,
    work: &Path,
    tool: Tool,
    concurrency: usize,
    run: usize,
    browser: &Browser,
) -> Result<(RunFigures, String), String> {
    let version = browser
        .version()
        .await
        .map(|v| v.product)
        .unwrap_or_default();
    let websocket = browser
        .websocket_url()
        .ok_or("the browser has no DevTools WebSocket")?;
    let endpoint = crate::mcp_task::http_endpoint(websocket)
        .ok_or(format!("unexpected DevTools address {websocket}"))?;
    let pid = browser
        .pid()
        .ok_or("the launched browser has no process id")?;
    let stem = format!("{}-c{concurrency}-r{run}", tool.name());
    let out = work.join(format!("{stem}.jsonl"));
    let log = work.join(format!("{stem}.log"));
    let _ = std::fs::remove_file(&out);
    let url_arg = url_file.to_string_lossy().into_owned();
    let out_arg = out.to_string_lossy().into_owned();
    let (program, argv): (PathBuf, Vec<String>) = match tool {
        Tool::Pagesight | Tool::PagesightShared | Tool::LoadOnly => (
            args.pagesight.clone().unwrap_or_else(pagesight_beside_this),
            [
                "crawl".into(),
                url_arg,
                "--out".into(),
                out_arg,
                "--browser".into(),
                endpoint.clone(),
                "--concurrency".into(),
                concurrency.to_string(),
                "--page-timeout".into(),
                args.page_timeout.to_string(),
                "--wait-until".into(),
                args.wait_until.clone(),
                "--quiet".into(),
            ]
            .into_iter()
            .chain(
                (tool != Tool::LoadOnly)
                    .then(|| ["--extract".into(), "markdown".into()])
                    .into_iter()
                    .flatten(),
            )
            .chain((tool != Tool::Pagesight).then(|| "--shared-context".into()))
            .collect(),
        ),
        Tool::Crawl4ai => (
            args.crawl4ai_python.clone(),
            vec![
                args.crawl4ai_driver
                    .clone()
                    .unwrap_or_else(|| {
                        pagesight_benches::workspace_dir().join("benches/crawl4ai_crawl.py")
                    })
                    .to_string_lossy()
                    .into_owned(),
                url_arg,
                "--cdp-url".into(),
                endpoint.clone(),
                "--concurrency".into(),
                concurrency.to_string(),
                "--out".into(),
                out_arg,
                "--page-timeout".into(),
                args.page_timeout.to_string(),
                "--filter".into(),
                args.crawl4ai_filter.clone(),
            ],
        ),
    };
    // Chromium's start-up is over before the crawl is measured.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let load = measure::load_average();
    let before = measure::group_cpu(pid);
    let finished = measure::run_child(
        &program,
        &argv,
        &[("CRAWL4AI_NO_CLOUD_NOTICE", "1")],
        &log,
        Duration::from_secs(args.run_timeout),
    )
    .await?;
    let chromium_cpu = measure::group_cpu(pid).saturating_sub(before);
    if !finished.success {
        eprintln!(
            "warning: {stem}: {} ({} has its output)",
            finished.status,
            log.display()
        );
    }
    let lines = score::read_lines(&out, &corpus.urls).unwrap_or_else(|e| {
        eprintln!("warning: {stem}: {e}");
        score::read_lines(Path::new("/dev/null"), &corpus.urls).unwrap_or_default()
    });
    // Nothing was read to score when only the pages were loaded.
    let score = match tool {
        Tool::LoadOnly => None,
        _ => match score::score(
            &args.python,
            &args.extract_bench,
            &corpus.keys,
            &lines.markdown,
            &work.join(format!("{stem}-predictions.json")),
        ) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("warning: {stem}: scoring: {e}");
                None
            }
        },
    };
    Ok((
        RunFigures {
            tool,
            concurrency,
            run,
            lines,
            finished,
            chromium_cpu,
            load,
            score,
        },
        version,
    ))
}

/// `pagesight` in the folder of this binary (both are built into the same target folder).
fn pagesight_beside_this() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("pagesight")))
        .unwrap_or_else(|| PathBuf::from("pagesight"))
}

/// The figures as a markdown table, with pagesight's mean timings per page.
fn table(figures: &[RunFigures]) -> String {
    let mut s = String::from(
        "\n| tool | concurrency | run | pages ok | failed | wall s | pages/min | CPU/page ms \
         (crawler + Chromium) | F1 | load |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n",
    );
    for f in figures {
        s += &format!(
            "| {} | {} | {} | {} | {} | {:.1} | {:.0} | {:.0} ({:.0} + {:.0}) | {} | {} |\n",
            f.tool.name(),
            f.concurrency,
            f.run,
            f.lines.ok,
            f.lines.failed,
            f.finished.wall.as_secs_f64(),
            f.pages_per_minute(),
            f.per_page_ms(f.finished.cpu + f.chromium_cpu),
            f.per_page_ms(f.finished.cpu),
            f.per_page_ms(f.chromium_cpu),
            f.score
                .map(|s| format!("{:.3}", s.f1))
                .unwrap_or("-".into()),
            f.load.map(|l| format!("{l:.2}")).unwrap_or("-".into()),
        );
    }
    let timed: Vec<&RunFigures> = figures.iter().filter(|f| f.lines.timed > 0).collect();
    if !timed.is_empty() {
        s += "\npagesight's timings, mean ms per page (and the share of wall x concurrency they fill):\n\n\
              | concurrency | run | navigation | perception | context and rest | total | total / (wall x c / pages) |\n\
              |---:|---:|---:|---:|---:|---:|---:|\n";
        for f in timed {
            let mean =
                |k: &str| f.lines.timings.get(k).copied().unwrap_or(0.0) / f.lines.timed as f64;
            let slot = f.finished.wall.as_secs_f64() * 1000.0 * f.concurrency as f64
                / f.pages().max(1) as f64;
            s += &format!(
                "| {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0}% |\n",
                f.concurrency,
                f.run,
                mean("navigation"),
                mean("perception"),
                mean("total") - mean("navigation") - mean("perception"),
                mean("total"),
                100.0 * mean("total") / slot.max(1e-9)
            );
        }
    }
    s
}
