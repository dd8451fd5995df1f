//! The soak: eight tabs over one connection for half an hour on pages that never stop
//! changing, with memory, descriptors and uid tables sampled every minute
//! ([`pagesight_benches::soak`] says what each tab does and what the verdict checks).
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- soak [--minutes 30]
//!     [--tabs 8] [--chrome PATH]
//! ```
//!
//! Prints one line per sample as it is taken, then the totals and the verdict; exits with 1
//! when the verdict fails.

use pagesight_benches::soak::{soak, SoakOptions};

use crate::shared::{count, Chrome};

/// Options of `soak`.
#[derive(clap::Args)]
pub struct Args {
    /// How long the tabs loop, in minutes (samples every minute, the first five a warm-up).
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = count)]
    minutes: usize,
    /// Tabs, each its own session over the one connection.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = count)]
    tabs: usize,
    #[command(flatten)]
    chrome: Chrome,
}

pub async fn run(args: Args) -> Result<(), String> {
    let mut options = SoakOptions::minutes(args.minutes as u64);
    options.tabs = args.tabs;
    options.executable = args.chrome.path.clone();
    let report = soak(options).await?;
    print!("{}", report.table());
    let problems = report.problems();
    if problems.is_empty() {
        println!(
            "verdict: held (heap and descriptors flat, uid tables bounded, no panic, no hang)"
        );
        Ok(())
    } else {
        Err(format!("verdict: failed\n{}", problems.join("\n")))
    }
}
