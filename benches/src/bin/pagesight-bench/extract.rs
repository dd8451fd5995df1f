//! The extraction bench: `pagesight extract` on a folder of saved article pages, scored
//! elsewhere against human-checked article bodies.
//!
//! The folder holds `pages/<key>.html.gz` (and a scorer beside them). Each page is
//! decompressed into a temporary folder and opened from a file in a fresh tab of one headless
//! Chromium; the text of its main content is written to the predictions file as
//! `{"<key>": {"articleBody": "..."}}`. For each page the time Chromium took to produce the
//! extraction's capture is printed next to the engine's time (model, analysis, uids and
//! extraction), and beside them, as the baseline, the time of a whole-page capture with the
//! full accessibility tree (what a snapshot with `--expand all` takes, and what an extraction
//! took before it read its roles from the markup), taken before or after the extraction's
//! capture on alternate pages.
//!
//! `--save-captures DIR` also writes each page's capture (gzip JSON), and `--from-captures DIR`
//! extracts from such captures with no browser: the same pure function, for quick turns.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use pagesight::browser::{Browser, LaunchOptions};
use pagesight::capture::{AxScope, Capture};
use pagesight::cdp::emulation::SetScriptExecutionDisabledParams;
use pagesight::extract::{extract, extract_page_timed, ExtractOptions, SNAPSHOT_OPTIONS};
use pagesight::identity::UidTable;
use pagesight::live::{capture_for_view, Kept};
use pagesight::snapshot::analyze_capture;

/// Options of `extract`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bench folder: `pages/<key>.html.gz`, `ground-truth.json`, `score.py`.
    #[arg(value_name = "BENCH_DIR")]
    bench: PathBuf,
    /// Where to write the predictions.
    #[arg(
        long,
        value_name = "PREDICTIONS.json",
        default_value = "extract-predictions.json"
    )]
    out: PathBuf,
    /// Only this page; repeatable.
    #[arg(long, value_name = "KEY")]
    only: Vec<String>,
    /// Also save each page's capture to this folder.
    #[arg(long = "save-captures", value_name = "DIR", conflicts_with = "from")]
    save: Option<PathBuf>,
    /// Extract from captures saved before, with no browser.
    #[arg(long = "from-captures", value_name = "DIR")]
    from: Option<PathBuf>,
    /// The whole visible page instead of the main content.
    #[arg(long)]
    all: bool,
}

/// Runs the bench: live, or from saved captures.
pub fn main(args: Args) -> ExitCode {
    if args.from.is_some() {
        return pagesight_benches::bench_main_blocking("extract", args, offline);
    }
    pagesight_benches::bench_main("extract", args, run)
}

/// The keys of the bench's pages, sorted.
fn keys(args: &Args) -> Result<Vec<String>, String> {
    let dir = args.bench.join("pages");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut keys: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".html.gz"))
                .map(str::to_string)
        })
        .filter(|k| args.only.is_empty() || args.only.contains(k))
        .collect();
    keys.sort();
    if keys.is_empty() {
        return Err(format!(
            "no pages/<key>.html.gz in {}",
            args.bench.display()
        ));
    }
    Ok(keys)
}

fn gunzip(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut out)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(out)
}

fn write_predictions(path: &Path, predictions: &BTreeMap<String, String>) -> Result<(), String> {
    let json: serde_json::Map<String, serde_json::Value> = predictions
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::json!({ "articleBody": v })))
        .collect();
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn run(args: Args) -> Result<(), String> {
    let keys = keys(&args)?;
    let temp = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let options = ExtractOptions {
        all: args.all,
        ..Default::default()
    };
    let args = &args;
    let (predictions, captures, engines, baselines) =
        pagesight_benches::with_browser(LaunchOptions::default(), async |browser: &Browser| {
            let mut predictions = BTreeMap::new();
            let (mut captures, mut engines, mut baselines) = (Vec::new(), Vec::new(), Vec::new());
            println!(
                "{:<66} {:>10} {:>10} {:>14}",
                "page", "chromium", "engine", "with AX tree"
            );
            for (n, key) in keys.iter().enumerate() {
                let html = gunzip(&args.bench.join("pages").join(format!("{key}.html.gz")))?;
                let file = temp.path().join(format!("{key}.html"));
                std::fs::write(&file, html).map_err(|e| format!("{}: {e}", file.display()))?;
                let url = format!("file://{}", file.display());
                let page = browser
                    .new_page()
                    .await
                    .map_err(|e| format!("cannot open a page: {e}"))?;
                let result = async {
                    // The saved pages' scripts cannot reach their sites, and some navigate
                    // away when they fail: the pages are read as saved, as the other
                    // extractors read them.
                    page.send(&SetScriptExecutionDisabledParams { value: true })
                        .await
                        .map_err(|e| format!("{key}: {e}"))?;
                    page.navigate(&url, Duration::from_secs(30))
                        .await
                        .map_err(|e| format!("loading {key}: {e}"))?;
                    let mut table = UidTable::new();
                    let kept = Kept::default();
                    if let Some(dir) = &args.save {
                        let captured = capture_for_view(&page, &kept, AxScope::Full)
                            .await
                            .map_err(|e| format!("{key}: {e}"))?;
                        let capture = captured.into_capture();
                        let path = dir.join(format!("{key}.json.gz"));
                        let f = std::fs::File::create(&path)
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                        capture
                            .to_writer(std::io::BufWriter::new(f))
                            .map_err(|e| format!("{key}: {e}"))?;
                    }
                    let baseline = async {
                        let started = Instant::now();
                        capture_for_view(&page, &Kept::default(), AxScope::Full)
                            .await
                            .map_err(|e| format!("{key}: {e}"))?;
                        Ok::<_, String>(started.elapsed())
                    };
                    let extraction = extract_page_timed(&page, &kept, &mut table, &options);
                    if n % 2 == 0 {
                        let baseline = baseline.await?;
                        let extraction = extraction.await.map_err(|e| format!("{key}: {e}"))?;
                        Ok::<_, String>((extraction, baseline))
                    } else {
                        let extraction = extraction.await.map_err(|e| format!("{key}: {e}"))?;
                        Ok((extraction, baseline.await?))
                    }
                }
                .await;
                if let Err(e) = page.close().await {
                    eprintln!("warning: closing the page of {key}: {e}");
                }
                match result {
                    Ok(((extraction, timing), baseline)) => {
                        println!(
                            "{key:<66} {:>8.1}ms {:>8.1}ms {:>12.1}ms",
                            ms(timing.capture),
                            ms(timing.engine),
                            ms(baseline)
                        );
                        captures.push(timing.capture);
                        engines.push(timing.engine);
                        baselines.push(baseline);
                        predictions.insert(key.clone(), extraction.text);
                    }
                    Err(e) => eprintln!("warning: {e}"),
                }
            }
            Ok((predictions, captures, engines, baselines))
        })
        .await?;
    let total = |v: &[Duration]| v.iter().sum::<Duration>();
    println!(
        "{} pages; per page median: chromium {:.1} ms, engine {:.1} ms; mean: chromium {:.1} ms, \
         engine {:.1} ms",
        predictions.len(),
        ms(median(captures.clone())),
        ms(median(engines.clone())),
        ms(total(&captures)) / captures.len().max(1) as f64,
        ms(total(&engines)) / engines.len().max(1) as f64,
    );
    println!(
        "baseline, a whole-page capture with the full accessibility tree: median {:.1} ms, mean \
         {:.1} ms ({:.1}x the extraction's capture, by the means)",
        ms(median(baselines.clone())),
        ms(total(&baselines)) / baselines.len().max(1) as f64,
        ms(total(&baselines)) / ms(total(&captures)).max(1e-9),
    );
    write_predictions(&args.out, &predictions)?;
    println!("predictions: {}", args.out.display());
    Ok(())
}

/// Extraction from saved captures, no browser.
fn offline(args: Args) -> Result<(), String> {
    let Some(dir) = args.from.clone() else {
        return Err("offline extraction needs --from-captures DIR".to_string());
    };
    let keys = keys(&args)?;
    let options = ExtractOptions {
        all: args.all,
        ..Default::default()
    };
    let mut predictions = BTreeMap::new();
    let mut engines = Vec::new();
    for key in &keys {
        let path = dir.join(format!("{key}.json.gz"));
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("warning: no capture {}", path.display());
            continue;
        };
        let capture = Capture::from_bytes(&bytes).map_err(|e| format!("{key}: {e}"))?;
        let start = Instant::now();
        let target = capture.target_id.clone().unwrap_or_default();
        let mut table = UidTable::new();
        let snapshot = analyze_capture(capture, &mut table, &target, &SNAPSHOT_OPTIONS)
            .map_err(|e| format!("{key}: {e}"))?;
        let extraction = extract(
            &snapshot.model,
            &snapshot.analysis,
            &snapshot.uids,
            &options,
        );
        engines.push(start.elapsed());
        predictions.insert(key.clone(), extraction.text);
    }
    println!(
        "{} pages; engine per page median {:.1} ms",
        predictions.len(),
        ms(median(engines))
    );
    write_predictions(&args.out, &predictions)
}
