//! `pagesight-bench`: the plain (non-criterion) benches and the recorders of their inputs, one
//! subcommand each. `benches/README.md` says what each measures and how to run it.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- <COMMAND> [OPTIONS]
//! ```
//!
//! One binary rather than one per bench: each binary of a release build is linked with the
//! whole engine optimised across crates (the workspace's release profile), which takes minutes
//! apiece on a small machine.
//!
//! Called by the name of a subcommand (a link named `peer-driver` to this binary, say), it runs
//! that subcommand: `peer-driver ARGS` is `pagesight-bench peer-driver ARGS`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod back_to_back;
mod bare_floor;
mod budget;
mod crawl;
mod extract;
mod live;
mod mcp_task;
mod peak_mem;
mod peer_driver;
mod record_captures;
mod record_hits;
mod record_scale;
mod scale_instructions;
mod soak;
mod subtree;
mod tabs;

#[derive(Parser)]
#[command(
    name = "pagesight-bench",
    version,
    about = "pagesight's live benches, memory and instruction probes, and the recorders of \
             their inputs",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The engine's CPU per snapshot of an unchanged page, snapshots taken back to back.
    BackToBack(back_to_back::Args),
    /// The least CPU any client spends on a snapshot: a bare, blocking client of the pipe.
    BareFloor(bare_floor::Args),
    /// Whole-page text sizes against the default snapshot budget; subtree against whole.
    Budget(budget::Args),
    /// A subtree snapshot with the accessibility nodes of its subtree only, against the same
    /// snapshot cut from the whole page's capture.
    Subtree(subtree::Args),
    /// `pagesight crawl` against Crawl4AI on a loopback corpus: pages per minute, CPU per
    /// page, and the markdown's F1 on the extraction bench's pages.
    Crawl(crawl::Args),
    /// `pagesight extract` on a folder of saved article pages: the predictions to score.
    Extract(extract::Args),
    /// pagesight against the floor Chromium sets, on a real headless Chromium.
    Live(live::Args),
    /// An agent's task (fill and submit a form) through MCP, against several MCP servers.
    McpTask(mcp_task::Args),
    /// Peak heap memory of the offline pipeline on one capture.
    PeakMem(peak_mem::Args),
    /// pagesight as one more row of the peer benchmark (its `--extra-peer` protocol).
    PeerDriver(peer_driver::Args),
    /// Records the captures of the real pages in `fixtures/captures/`.
    RecordCaptures(record_captures::Args),
    /// Records hit-test ground truth for the offline oracle.
    RecordHits(record_hits::Args),
    /// Records the captures of the scale series (generated pages of 1k to 300k DOM nodes).
    RecordScale(record_scale::Args),
    /// Instructions per DOM node of the offline pipeline over the scale series (valgrind).
    ScaleInstructions(scale_instructions::Args),
    /// Eight tabs over one connection for half an hour on pages that never stop changing:
    /// memory, descriptors and uid tables sampled every minute, panics and hangs counted.
    Soak(soak::Args),
    /// Aggregate snapshot throughput of several tabs over one connection.
    Tabs(tabs::Args),
}

/// Options more than one subcommand takes.
pub mod shared {
    use std::path::PathBuf;

    use clap::Args;

    /// The Chromium to launch.
    #[derive(Args, Debug, Clone)]
    pub struct Chrome {
        /// The Chromium (or Chrome) executable; default: the one the engine finds.
        #[arg(long = "chrome", value_name = "PATH")]
        pub path: Option<PathBuf>,
    }

    /// The pages to measure, each a path or a URL.
    #[derive(Args, Debug, Clone)]
    pub struct Pages {
        /// A page to measure, a path or a URL; repeatable. Default: fixtures/pages/forms.html and
        /// long-page.html (for `live`, stdtypes too).
        #[arg(long = "page", value_name = "PATH_OR_URL")]
        pub pages: Vec<String>,
    }

    impl Pages {
        /// The pages given, or the small fixture pages if none was.
        pub fn or_small_fixtures(&self) -> Vec<String> {
            if self.pages.is_empty() {
                pagesight_benches::small_fixture_pages()
            } else {
                self.pages.clone()
            }
        }
    }

    /// How many snapshots to take of each page, one after the other.
    #[derive(Args, Debug, Clone)]
    pub struct Snapshots {
        /// Snapshots of each page, back to back.
        #[arg(long, value_name = "N", default_value_t = 2000, value_parser = count)]
        pub snapshots: usize,
    }

    /// The sizes of the scale series' pages, in DOM nodes.
    #[derive(Args, Debug, Clone)]
    pub struct Sizes {
        /// The sizes, in DOM nodes, comma-separated; default: 1000,10000,100000,300000.
        #[arg(long, value_name = "N,N,...", value_delimiter = ',')]
        pub sizes: Vec<usize>,
    }

    impl Sizes {
        /// The sizes given, or the scale series' own.
        pub fn or_default(&self) -> Vec<usize> {
            if self.sizes.is_empty() {
                pagesight_benches::scale::DEFAULT_SIZES.to_vec()
            } else {
                self.sizes.clone()
            }
        }
    }

    /// A count argument: a positive number.
    pub fn count(value: &str) -> Result<usize, String> {
        value
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or(format!("takes a positive number, not {value:?}"))
    }
}

fn main() -> ExitCode {
    let args = with_subcommand_of_name(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            // The peers harness reads the driver's stdout only: a bad argument is said there too.
            if e.use_stderr() && args.get(1).is_some_and(|a| a == "peer-driver") {
                peer_driver::fatal(e.render().to_string().trim());
                return ExitCode::from(2);
            }
            e.exit()
        }
    };
    match cli.command {
        Command::BackToBack(args) => {
            pagesight_benches::bench_main("back-to-back", args, back_to_back::run)
        }
        Command::BareFloor(args) => {
            pagesight_benches::bench_main_blocking("bare-floor", args, |args| {
                bare_floor::run(&args)
            })
        }
        Command::Budget(args) => pagesight_benches::bench_main("budget", args, budget::run),
        Command::Subtree(args) => pagesight_benches::bench_main("subtree", args, subtree::run),
        Command::Crawl(args) => pagesight_benches::bench_main("crawl", args, crawl::run),
        Command::Extract(args) => extract::main(args),
        Command::Live(args) => pagesight_benches::bench_main("live", args, live::run),
        Command::McpTask(args) => pagesight_benches::bench_main("mcp-task", args, mcp_task::run),
        Command::PeakMem(args) => peak_mem::main(args),
        Command::PeerDriver(args) => peer_driver::main(args),
        Command::RecordCaptures(args) => record_captures::main(args),
        Command::RecordHits(args) => {
            pagesight_benches::bench_main("record-hits", args, record_hits::run)
        }
        Command::RecordScale(args) => {
            pagesight_benches::bench_main("record-scale", args, record_scale::run)
        }
        Command::ScaleInstructions(args) => scale_instructions::main(args),
        Command::Soak(args) => pagesight_benches::bench_main("soak", args, soak::run),
        Command::Tabs(args) => pagesight_benches::bench_main("tabs", args, tabs::run),
    }
}

/// The arguments, with the subcommand put first when this binary is called by its name.
fn with_subcommand_of_name(mut args: Vec<OsString>) -> Vec<OsString> {
    let name = args
        .first()
        .and_then(|a| Path::new(a).file_name())
        .and_then(|n| n.to_str())
        .map(str::to_string);
    if let Some(name) = name {
        if Cli::command().find_subcommand(&name).is_some() {
            args[0] = PathBuf::from("pagesight-bench").into_os_string();
            args.insert(1, name.into());
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_link_named_after_a_subcommand_runs_it() {
        let args = with_subcommand_of_name(vec!["/x/peer-driver".into(), "--reps".into()]);
        assert_eq!(args, ["pagesight-bench", "peer-driver", "--reps"]);
        let args = with_subcommand_of_name(vec!["target/pagesight-bench".into(), "live".into()]);
        assert_eq!(args, ["target/pagesight-bench", "live"]);
    }
}
