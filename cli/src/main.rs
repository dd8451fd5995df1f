//! The `pagesight` command line: one snapshot, a page's main content, a JSON-lines session, a
//! capture to a file, or a health check. Every subcommand is a thin front end over the engine's
//! command API.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;
mod crawl;

#[derive(Parser, Debug)]
#[command(
    name = "pagesight",
    version,
    about = "Eyes and hands for LLM browser agents on a live Chromium page"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Load a page (URL or file path) and print one snapshot.
    Snapshot(commands::SnapshotArgs),
    /// Load a page (URL or file path) and print its main content as markdown, text or JSON.
    Extract(commands::ExtractArgs),
    /// A session: JSON-lines commands on stdin (or FILE), one JSON-line response each.
    Run {
        /// Read commands from this file instead of stdin.
        file: Option<PathBuf>,
        #[command(flatten)]
        browser: commands::BrowserArgs,
        #[command(flatten)]
        devtools: commands::DevtoolsArgs,
        #[command(flatten)]
        files: commands::FileArgs,
    },
    /// Save everything a snapshot needs to FILE (gzip JSON); render it later with
    /// `snapshot --from-capture FILE`.
    Capture {
        /// URL or file path of the page.
        page: String,
        /// Where to write the capture (inside the current directory, the temporary folder or
        /// an --allow-dir folder).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        #[arg(long, value_parser = commands::parse_viewport, default_value = "1280x800")]
        viewport: (u32, u32),
        #[command(flatten)]
        browser: commands::BrowserArgs,
        #[command(flatten)]
        files: commands::FileArgs,
    },
    /// Crawl many pages (a file of URLs, following links if asked) into JSON lines, one per
    /// page, on one browser or a fleet.
    Crawl(crawl::CrawlArgs),
    /// Find and launch Chromium; report its version and anything pagesight needs that it lacks.
    Doctor,
    /// Serve the browser to agents over MCP: stdio, or streamable HTTP with `--http`.
    Mcp(commands::McpArgs),
}

fn main() -> ExitCode {
    pagesight::keep_freed_memory();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("pagesight: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // As a task of the runtime, not on this thread: see `pagesight::block_on_task`.
    let result = pagesight::block_on_task(&runtime, async move {
        match cli.command {
            Cmd::Snapshot(args) => commands::snapshot(args).await,
            Cmd::Extract(args) => commands::extract(args).await,
            Cmd::Run {
                file,
                browser,
                devtools,
                files,
            } => commands::run(file, browser, devtools, files).await,
            Cmd::Capture {
                page,
                output,
                viewport,
                browser,
                files,
            } => commands::capture(page, output, viewport, browser, files).await,
            Cmd::Crawl(args) => crawl::crawl(args).await,
            Cmd::Doctor => commands::doctor().await,
            Cmd::Mcp(args) => commands::mcp(args).await,
        }
    })
    .and_then(|result| result);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let text = e.to_string();
            eprintln!("pagesight: {}", text.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
