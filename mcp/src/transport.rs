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
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
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
