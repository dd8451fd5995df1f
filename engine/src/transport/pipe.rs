//! `--remote-debugging-pipe` framing: JSON messages terminated by a NUL byte.
//!
//! Why a pipe at all: it opens no TCP port (nothing else on the machine can drive the browser)
//! and it dies with the process, so a killed browser is noticed as EOF at once.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Bytes;

use super::Shared;
use crate::error::{Error, ErrorCode};

const READ_BUFFER: usize = 256 * 1024;
const WRITE_BATCH: usize = 64;

fn pipe_closed(detail: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::BrowserClosed,
        format!(
            "the browser closed its pipe ({detail}); it exited or was killed — launch it again"
        ),
    )
}

/// Reads NUL-terminated frames until EOF and dispatches each one.
pub(super) async fn read_frames<R: AsyncRead + Unpin>(reader: R, shared: Arc<Shared>) -> Error {
    let mut reader = BufReader::with_capacity(READ_BUFFER, reader);
    let mut expected = 0usize;
    loop {
        let mut frame = Vec::with_capacity(expected.clamp(256, 1 << 20));
        match reader.read_until(0, &mut frame).await {
            Ok(0) => return pipe_closed("end of stream"),
            Ok(_) => {
                if frame.last() != Some(&0) {
                    // EOF in the middle of a message: the browser died while writing.
                    shared.note_malformed("a message cut off by the end of the stream");
                    return pipe_closed("end of stream inside a message");
                }
                frame.pop();
                if frame.is_empty() {
                    continue;
                }
                expected = frame.len();
                shared.dispatch(Bytes::from(frame));
            }
            Err(e) => return pipe_closed(e),
        }
    }
}

/// Writes queued requests, NUL-terminated, flushing once per batch.
pub(super) async fn write_frames<W: AsyncWrite + Unpin>(
    writer: W,
    mut requests: mpsc::UnboundedReceiver<Vec<u8>>,
) -> Error {
    let mut writer = BufWriter::with_capacity(64 * 1024, writer);
    let mut batch = Vec::with_capacity(WRITE_BATCH);
    loop {
        if requests.recv_many(&mut batch, WRITE_BATCH).await == 0 {
            let _ = writer.shutdown().await;
            return Error::new(
                ErrorCode::BrowserClosed,
                "every handle to the browser connection was dropped",
            );
        }
        for request in batch.drain(..) {
            if let Err(e) = writer.write_all(&request).await {
                return pipe_closed(e);
            }
            if let Err(e) = writer.write_all(&[0]).await {
                return pipe_closed(e);
            }
        }
        if let Err(e) = writer.flush().await {
            return pipe_closed(e);
        }
    }
}
