//! Round-trip latency and throughput of the transport, over the pipe and over a WebSocket.
//!
//! `cargo run --release -p pagesight --example transport_latency [-- ROUNDS TOTAL]`
//!
//! For each transport: the median (and p90 / p99) of ROUNDS sequential `Browser.getVersion`
//! round trips (default 1000, after 100 warm-up calls), then commands per second with 64 commands
//! in flight (TOTAL commands in all, default 20000).

use std::time::{Duration, Instant};

use pagesight::browser::{Browser, LaunchOptions, LaunchTransport};
use pagesight::cdp::browser::GetVersionParams;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> pagesight::Result<()> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000)
        .max(1);
    let total: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000)
        .max(1);
    for transport in [LaunchTransport::Pipe, LaunchTransport::WebSocket] {
        let browser = Browser::launch(LaunchOptions {
            transport,
            ..LaunchOptions::default()
        })
        .await?;
        let result = measure(&browser, rounds, total).await;
        browser.close().await?;
        let (median, p90, p99, per_second) = result?;
        println!(
            "{transport:?}: getVersion round trip median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs \
             ({rounds} sequential); {per_second:.0} commands/s with 64 in flight ({total} commands)",
            micros(median),
            micros(p90),
            micros(p99),
        );
    }
    Ok(())
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

async fn measure(
    browser: &Browser,
    rounds: usize,
    total: usize,
) -> pagesight::Result<(Duration, Duration, Duration, f64)> {
    let connection = browser.connection().clone();
    for _ in 0..100 {
        connection.send(None, &GetVersionParams {}).await?;
    }
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        connection.send(None, &GetVersionParams {}).await?;
        times.push(started.elapsed());
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    let (median, p90, p99) = (at(0.5), at(0.9), at(0.99));

    const IN_FLIGHT: usize = 64;
    let started = Instant::now();
    let mut workers = Vec::with_capacity(IN_FLIGHT);
    for worker in 0..IN_FLIGHT {
        let connection = connection.clone();
        let count = total / IN_FLIGHT + usize::from(worker < total % IN_FLIGHT);
        workers.push(tokio::spawn(async move {
            for _ in 0..count {
                connection.send(None, &GetVersionParams {}).await?;
            }
            Ok::<_, pagesight::Error>(())
        }));
    }
    for worker in workers {
        worker
            .await
            .map_err(|e| pagesight::Error::protocol(format!("a worker panicked: {e}")))??;
    }
    let per_second = total as f64 / started.elapsed().as_secs_f64();
    Ok((median, p90, p99, per_second))
}
