//! Serving the tools: over stdio (what agent hosts start), or over streamable HTTP (one server
//! several agents connect to). Either way the browser is closed, and a launched one's
//! temporary profile removed, when the server ends.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use pagesight::Error;

use crate::options::BrowserOptions;
use crate::server::{PagesightServer, Shared};

/// Serves MCP over standard input and output until the client closes them.
pub async fn serve_stdio(options: &BrowserOptions) -> Result<(), Error> {
    // A folder to allow that does not exist is said at once, not at the first tool call.
    options.allowed_folders()?;
    let shared = Arc::new(Mutex::new(Shared::new(options.clone())));
    let server = PagesightServer::new(shared.clone());
    let outcome = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| Error::protocol(format!("the MCP connection failed: {e}"))),
        Err(e) => Err(Error::protocol(format!(
            "the MCP client did not initialise the connection: {e}"
        ))),
    };
    let closed = shut_down(&shared).await;
    outcome.and(closed)
}

/// Serves MCP over streamable HTTP at `http://ADDRESS/mcp` until Ctrl-C or SIGTERM. `ready`
/// is called with the address actually bound (port 0 picks a free one).
pub async fn serve_http(
    options: &BrowserOptions,
    address: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    options.allowed_folders()?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| Error::invalid_argument(format!("cannot listen on {address}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::invalid_argument(format!("cannot listen on {address}: {e}")))?;
    let shared = Arc::new(Mutex::new(Shared::new(options.clone())));
    let stop = CancellationToken::new();
    let factory = {
        let shared = shared.clone();
        move || Ok(PagesightServer::new(shared.clone()))
    };
    let service: StreamableHttpService<PagesightServer, LocalSessionManager> =
        StreamableHttpService::new(
            factory,
            Default::default(),
            with_allowed_hosts(StreamableHttpServerConfig::default(), address)
                .with_cancellation_token(stop.child_token()),
        );
    let router = axum::Router::new().nest_service("/mcp", service);
    ready(bound);
    let signalled = {
        let stop = stop.clone();
        async move {
            wait_for_signal().await;
            stop.cancel();
        }
    };
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            tokio::select! {
                () = signalled => {}
                () = stop.cancelled() => {}
            }
        })
        .await
        .map_err(|e| Error::protocol(format!("the HTTP server failed: {e}")));
    let closed = shut_down(&shared).await;
    served.and(closed)
}

async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

async fn shut_down(shared: &Mutex<Shared>) -> Result<(), Error> {
    let session = shared.lock().await.close();
    match session {
        Some(session) => session.shutdown().await,
        None => Ok(()),
    }
}

/// Which `Host` headers are served. On loopback, only loopback names (the library's default):
/// a web page that rebinds its own host name to 127.0.0.1 cannot reach the server. Bound to
/// one other address, that address too; bound to every address (`0.0.0.0`, `::`), any host,
/// since the names clients reach the machine by cannot be known.
fn with_allowed_hosts(
    config: StreamableHttpServerConfig,
    address: SocketAddr,
) -> StreamableHttpServerConfig {
    let ip = address.ip();
    if ip.is_loopback() {
        config
    } else if ip.is_unspecified() {
        config.disable_allowed_hosts()
    } else {
        let mut hosts = config.allowed_hosts.clone();
        hosts.push(ip.to_string());
        config.with_allowed_hosts(hosts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(address: &str) -> Vec<String> {
        let address = address.parse().expect("a socket address");
        with_allowed_hosts(StreamableHttpServerConfig::default(), address).allowed_hosts
    }

    #[test]
    fn host_headers_served_follow_the_address_bound() {
        let loopback = hosts("127.0.0.1:8931");
        assert!(loopback.iter().any(|h| h == "localhost"), "{loopback:?}");
        assert!(!loopback.iter().any(|h| h == "192.168.1.5"));
        let one = hosts("192.168.1.5:8931");
        assert!(one.iter().any(|h| h == "192.168.1.5"), "{one:?}");
        assert!(one.iter().any(|h| h == "127.0.0.1"), "{one:?}");
        // An empty list is the library's "any host".
        assert!(hosts("0.0.0.0:8931").is_empty());
        assert!(hosts("[::]:8931").is_empty());
    }
}
