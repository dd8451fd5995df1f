//! Finding the DevTools WebSocket of a running browser.
//!
//! Why a hand-written HTTP GET: the only HTTP the engine ever needs is one small request to the
//! browser's own debugging server (`/json/version`, and `/json/protocol` for the doctor), on
//! localhost, without TLS, chunking or redirects. An HTTP client crate would be far more code
//! than this.

use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::{Error, ErrorCode, Result};

/// A parsed `--browser` endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `ws://host:port/devtools/browser/<id>`.
    WebSocket(String),
    /// `http://host:port` (any path is ignored).
    Http { authority: String },
}

pub(crate) fn parse_endpoint(endpoint: &str) -> Result<Endpoint> {
    let endpoint = endpoint.trim();
    if endpoint.starts_with("ws://") {
        return Ok(Endpoint::WebSocket(endpoint.to_owned()));
    }
    if let Some(rest) = endpoint.strip_prefix("http://") {
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.is_empty() {
            return Err(Error::invalid_argument(format!(
                "the endpoint {endpoint:?} has no host; use http://127.0.0.1:9222 or ws://…"
            )));
        }
        let authority = if authority.contains(':') && !authority.ends_with(']') {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        return Ok(Endpoint::Http { authority });
    }
    Err(Error::invalid_argument(format!(
        "unsupported browser endpoint {endpoint:?}: use ws://host:port/devtools/browser/<id> or \
         http://host:port (https and wss are not supported)"
    )))
}

fn unreachable(authority: &str, detail: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::BrowserClosed,
        format!(
            "could not reach the browser's debugging server at http://{authority} ({detail}); \
             start Chromium with --remote-debugging-port and check host and port"
        ),
    )
}

/// `GET path` on `authority` (`host:port`); the body of a 200 reply.
pub(crate) async fn http_get(authority: &str, path: &str, timeout: Duration) -> Result<Vec<u8>> {
    tokio::time::timeout(timeout, http_get_inner(authority, path))
        .await
        .map_err(|_| {
            unreachable(
                authority,
                format!("no answer within {} ms", timeout.as_millis()),
            )
        })?
}

async fn http_get_inner(authority: &str, path: &str) -> Result<Vec<u8>> {
    let mut stream = TcpStream::connect(authority)
        .await
        .map_err(|e| unreachable(authority, e))?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nAccept: */*\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| unreachable(authority, e))?;

    let mut buf = Vec::with_capacity(4096);
    let header_end = loop {
        if let Some(at) = find(&buf, b"\r\n\r\n") {
            break at;
        }
        if buf.len() > 64 * 1024 {
            return Err(unreachable(authority, "the reply headers are too long"));
        }
        let mut chunk = [0u8; 4096];
        let n = stream
            .read(&mut chunk)
            .await
            .map_err(|e| unreachable(authority, e))?;
        if n == 0 {
            return Err(unreachable(
                authority,
                "the connection closed before a reply",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line.split_whitespace().nth(1).unwrap_or_default();
    if status != "200" {
        return Err(unreachable(
            authority,
            format!("GET {path} answered {status_line:?}"),
        ));
    }
    let content_length = lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())
            .flatten()
    });
    let mut body = buf.split_off(header_end + 4);
    match content_length {
        Some(length) => {
            while body.len() < length {
                let mut chunk = vec![0u8; (length - body.len()).min(256 * 1024)];
                let n = stream
                    .read(&mut chunk)
                    .await
                    .map_err(|e| unreachable(authority, e))?;
                if n == 0 {
                    return Err(unreachable(authority, "the reply was cut short"));
                }
                body.extend_from_slice(&chunk[..n]);
            }
            body.truncate(length);
        }
        None => {
            stream
                .read_to_end(&mut body)
                .await
                .map_err(|e| unreachable(authority, e))?;
        }
    }
    Ok(body)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The browser's WebSocket URL from `http://authority/json/version`.
pub(crate) async fn websocket_url(authority: &str) -> Result<String> {
    #[derive(Deserialize)]
    struct Version {
        #[serde(rename = "webSocketDebuggerUrl")]
        web_socket_debugger_url: Option<String>,
    }
    let body = http_get(authority, "/json/version", Duration::from_secs(10)).await?;
    let version: Version = serde_json::from_slice(&body).map_err(|e| {
        unreachable(
            authority,
            format!("/json/version is not DevTools JSON: {e}"),
        )
    })?;
    version
        .web_socket_debugger_url
        .ok_or_else(|| unreachable(authority, "/json/version has no webSocketDebuggerUrl"))
}

/// `host:port` of a `ws://host:port/…` URL.
pub(crate) fn websocket_authority(url: &str) -> Option<&str> {
    url.strip_prefix("ws://")?.split('/').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(
            parse_endpoint("ws://127.0.0.1:9222/devtools/browser/x").ok(),
            Some(Endpoint::WebSocket(
                "ws://127.0.0.1:9222/devtools/browser/x".into()
            ))
        );
        assert_eq!(
            parse_endpoint("http://127.0.0.1:9222/").ok(),
            Some(Endpoint::Http {
                authority: "127.0.0.1:9222".into()
            })
        );
        assert_eq!(
            parse_endpoint("http://localhost").ok(),
            Some(Endpoint::Http {
                authority: "localhost:80".into()
            })
        );
        for bad in ["https://x:1", "wss://x", "127.0.0.1:9222", "http://", ""] {
            assert_eq!(
                parse_endpoint(bad).map_err(|e| e.code()).err(),
                Some(ErrorCode::InvalidArgument),
                "{bad}"
            );
        }
        assert_eq!(
            websocket_authority("ws://127.0.0.1:5/devtools/browser/a"),
            Some("127.0.0.1:5")
        );
    }
}
