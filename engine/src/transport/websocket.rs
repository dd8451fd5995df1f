//! The DevTools WebSocket (`ws://host:port/devtools/browser/<id>`), for browsers started by
//! someone else or launched with `--remote-debugging-port`.
//!
//! Why the limits are off: tungstenite caps messages at 64 MiB and frames at 16 MiB by default,
//! and an accessibility tree of a large page is bigger than that.

use std::sync::Arc;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{message_too_large, Shared, MAX_MESSAGE_BYTES};
use crate::error::{Error, ErrorCode, Result};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

const WRITE_BATCH: usize = 64;

fn socket_closed(detail: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::BrowserClosed,
        format!(
            "the browser closed the WebSocket ({detail}); it exited or was killed — launch or \
             connect again"
        ),
    )
}

/// `url` with `/` as its path when it has none: `ws://host:port?token=…` (the form hosted
/// browsers such as browserless document) would otherwise be requested as `GET ?token=…`,
/// which an HTTP server answers with 400.
fn with_root_path(url: &str) -> std::borrow::Cow<'_, str> {
    let Some(rest) = url.strip_prefix("ws://") else {
        return url.into();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if rest[end..].starts_with('/') {
        return url.into();
    }
    format!("ws://{}/{}", &rest[..end], &rest[end..]).into()
}

/// Opens the WebSocket, its messages bounded by [`MAX_MESSAGE_BYTES`] (a frame may be as large).
pub(super) async fn open(
    url: &str,
    headers: &[(String, String)],
) -> Result<(SplitStream<Socket>, SplitSink<Socket, Message>)> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
    if url.starts_with("wss://") {
        return Err(Error::invalid_argument(format!(
            "{url} is a TLS (wss://) endpoint, which this build cannot open; reach the browser \
             over ws:// (e.g. through a local TLS-terminating proxy)"
        )));
    }
    if !url.starts_with("ws://") {
        return Err(Error::invalid_argument(format!(
            "expected a ws:// DevTools URL, got {url:?}"
        )));
    }
    let rooted = with_root_path(url);
    let url: &str = &rooted;
    let mut request = url.into_client_request().map_err(|e| {
        Error::invalid_argument(format!("{url} is not a usable WebSocket URL: {e}"))
    })?;
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            Error::invalid_argument(format!("{name:?} is not a valid HTTP header name"))
        })?;
        let value = HeaderValue::from_str(value).map_err(|_| {
            Error::invalid_argument(format!("the value of header {name} is not valid in HTTP"))
        })?;
        request.headers_mut().insert(name, value);
    }
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let (socket, _response) =
        tokio_tungstenite::connect_async_with_config(request, Some(config), true)
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::BrowserClosed,
                    format!(
                    "could not open the DevTools WebSocket {url}: {e}; check that the browser is \
                     running with --remote-debugging-port and that the URL is current"
                ),
                )
            })?;
    let (sink, stream) = socket.split();
    Ok((stream, sink))
}

pub(super) async fn read_frames(mut stream: SplitStream<Socket>, shared: Arc<Shared>) -> Error {
    loop {
        match stream.next().await {
            None => return socket_closed("end of stream"),
            Some(Err(WsError::Capacity(CapacityError::MessageTooLong { size, .. }))) => {
                shared.note_malformed("a message past the size limit");
                return message_too_large(size);
            }
            Some(Err(e)) => return socket_closed(e),
            Some(Ok(Message::Text(text))) => shared.dispatch(Bytes::from(text)),
            Some(Ok(Message::Binary(bytes))) => shared.dispatch(bytes),
            Some(Ok(Message::Close(frame))) => {
                return socket_closed(match frame {
                    Some(frame) => format!("close frame {}: {}", frame.code, frame.reason),
                    None => "close frame".to_owned(),
                })
            }
            Some(Ok(_)) => {} // ping / pong: tungstenite answers pings itself
        }
    }
}

pub(super) async fn write_frames(
    mut sink: SplitSink<Socket, Message>,
    mut requests: mpsc::UnboundedReceiver<Vec<u8>>,
) -> Error {
    let mut batch = Vec::with_capacity(WRITE_BATCH);
    loop {
        if requests.recv_many(&mut batch, WRITE_BATCH).await == 0 {
            let _ = sink.close().await;
            return Error::new(
                ErrorCode::BrowserClosed,
                "every handle to the browser connection was dropped",
            );
        }
        for request in batch.drain(..) {
            // Requests are written by serde_json, so they are UTF-8; a failure here is a bug.
            let text = match Utf8Bytes::try_from(request) {
                Ok(text) => text,
                Err(_) => continue,
            };
            if let Err(e) = sink.feed(Message::Text(text)).await {
                return socket_closed(e);
            }
        }
        if let Err(e) = sink.flush().await {
            return socket_closed(e);
        }
    }
}

#[cfg(test)]
mod path_tests {
    use super::with_root_path;

    #[test]
    fn a_url_without_a_path_is_requested_at_the_root() {
        assert_eq!(
            with_root_path("ws://h:3000?token=t"),
            "ws://h:3000/?token=t"
        );
        assert_eq!(with_root_path("ws://h:3000"), "ws://h:3000/");
        assert_eq!(
            with_root_path("ws://h:1/devtools/browser/x?a=b"),
            "ws://h:1/devtools/browser/x?a=b"
        );
    }
}
