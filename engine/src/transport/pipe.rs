//! `--remote-debugging-pipe` framing: JSON messages terminated by a NUL byte.
//!
//! Why a pipe at all: it opens no TCP port (nothing else on the machine can drive the browser)
//! and it dies with the process, so a killed browser is noticed as EOF at once.

use std::sync::Arc;

use memchr::memchr;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Bytes;

use super::{message_too_large, Shared, MAX_MESSAGE_BYTES};
use crate::error::{Error, ErrorCode};

/// The read buffer's first capacity and what it grows by; a frame at least this large that
/// starts at the buffer's front is handed over in it rather than copied out.
const READ_BUFFER: usize = 256 * 1024;
/// The least room a read is given: a Linux pipe's capacity, more than one read brings by default.
const MIN_READ: usize = 64 * 1024;
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
pub(super) async fn read_frames<R: AsyncRead + Unpin>(mut reader: R, shared: Arc<Shared>) -> Error {
    let mut frames = FrameBuffer::new();
    loop {
        while let Some(frame) = frames.next_frame() {
            if !frame.is_empty() {
                shared.dispatch(frame);
            }
        }
        match reader.read_buf(frames.spare()).await {
            Ok(0) if frames.holds_partial_frame() => {
                // EOF in the middle of a message: the browser died while writing.
                shared.note_malformed("a message cut off by the end of the stream");
                return pipe_closed("end of stream inside a message");
            }
            Ok(0) => return pipe_closed("end of stream"),
            Ok(_) if frames.partial_len() > MAX_MESSAGE_BYTES => {
                shared.note_malformed("a message past the size limit");
                return message_too_large(frames.partial_len());
            }
            Ok(_) => {}
            Err(e) => return pipe_closed(e),
        }
    }
}

/// The bytes read from the pipe and not yet dispatched.
///
/// Why not a `BufReader`: its chunks are copied into each frame, and a frame of megabytes (a
/// DOM snapshot, an accessibility tree) grew by doubling, copied again at each step. Here reads
/// go straight into the buffer a frame will be dispatched in: a frame that starts at the front
/// of the buffer and is large is handed over whole, the buffer itself becoming its `Bytes`, so
/// its bytes are copied from the pipe once. A small frame is copied out and the buffer reused,
/// so a small message does not hold a large allocation alive while it waits to be read.
pub(crate) struct FrameBuffer {
    buffer: Vec<u8>,
    /// Where the first byte not yet dispatched is.
    start: usize,
    /// From `start` up to here there is no NUL.
    scanned: usize,
    /// The largest frame handed over so far: a new buffer starts with room for it and then
    /// some (see [`FrameBuffer::room_for`]), so that the next such frame is read without the
    /// buffer growing (a snapshot's large replies come again, about as large, with every
    /// snapshot).
    expected: usize,
}

impl FrameBuffer {
    pub(crate) fn new() -> FrameBuffer {
        FrameBuffer {
            buffer: Vec::with_capacity(READ_BUFFER),
            start: 0,
            scanned: 0,
            expected: READ_BUFFER,
        }
    }

    /// The next whole frame read (without its NUL), if there is one.
    pub(crate) fn next_frame(&mut self) -> Option<Bytes> {
        let unscanned = self.buffer.get(self.scanned..)?;
        let Some(offset) = memchr(0, unscanned) else {
            self.scanned = self.buffer.len();
            return None;
        };
        let end = self.scanned + offset;
        let frame = if self.start == 0 && end >= READ_BUFFER {
            self.expected = self.expected.max(end);
            let mut next = Vec::with_capacity(FrameBuffer::room_for(self.expected));
            next.extend_from_slice(self.buffer.get(end + 1..)?);
            let mut frame = std::mem::replace(&mut self.buffer, next);
            frame.truncate(end);
            // The room left is given back where it lies (the C allocator shrinks a block in
            // place), so a frame waiting to be read holds no more memory than its bytes.
            frame.shrink_to_fit();
            self.start = 0;
            Bytes::from(frame)
        } else {
            let frame = Bytes::copy_from_slice(self.buffer.get(self.start..end)?);
            self.start = end + 1;
            frame
        };
        self.scanned = self.start;
        Some(frame)
    }

    /// The capacity a buffer starts with to read a frame of `len` bytes without growing. A
    /// read is given [`MIN_READ`] bytes of room at least and may bring as many past the frame's
    /// end, so room for exactly the frame made the buffer grow (by doubling, a copy of all it
    /// held) just before its end: on a long page, a copy of each large reply. The frame may also
    /// come a little larger (the page changed a little).
    fn room_for(len: usize) -> usize {
        len.saturating_add(len / 16).saturating_add(2 * MIN_READ)
    }

    /// How many bytes of a frame whose end has not been read yet are held.
    fn partial_len(&self) -> usize {
        self.buffer.len() - self.start
    }

    /// Whether bytes of a frame whose end has not been read yet are held.
    pub(crate) fn holds_partial_frame(&self) -> bool {
        self.start < self.buffer.len()
    }

    /// The buffer, with the partial frame moved to its front (so that, should it turn out
    /// large, it can be handed over whole) and room at its end for the next read.
    pub(crate) fn spare(&mut self) -> &mut Vec<u8> {
        if self.start > 0 {
            // What is moved arrived in the last read, after the frame it ended.
            self.buffer.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buffer.capacity() - self.buffer.len() < MIN_READ {
            self.buffer.reserve(READ_BUFFER);
        }
        &mut self.buffer
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` as pipe reads of at most [`MIN_READ`] bytes would bring them, handing over
    /// the frames read. Returns the frames and how many times the buffer grew.
    fn feed(buffer: &mut FrameBuffer, bytes: &[u8]) -> (Vec<Bytes>, usize) {
        let (mut frames, mut grew, mut fed) = (Vec::new(), 0, 0);
        while fed < bytes.len() {
            let before = buffer.buffer.capacity();
            let spare = buffer.spare();
            if spare.capacity() != before {
                grew += 1;
            }
            let n = (spare.capacity() - spare.len())
                .min(MIN_READ)
                .min(bytes.len() - fed);
            spare.extend_from_slice(&bytes[fed..fed + n]);
            fed += n;
            while let Some(frame) = buffer.next_frame() {
                frames.push(frame);
            }
        }
        (frames, grew)
    }

    #[test]
    fn a_large_frame_that_comes_again_is_read_without_the_buffer_growing() {
        let mut buffer = FrameBuffer::new();
        let mut large = vec![b'x'; 3_000_000];
        large.push(0);
        let small = b"{\"id\":1}\0";
        let (frames, grew) = feed(&mut buffer, &large);
        assert_eq!(frames.len(), 1);
        assert!(grew > 0, "the first large frame has to grow the buffer");
        for round in 0..3 {
            // A small reply between them, then the large one again, a little larger the last time.
            let (frames, _) = feed(&mut buffer, small);
            assert_eq!(frames.len(), 1);
            let mut again = vec![b'y'; 3_000_000 + round * 1000];
            again.push(0);
            let (frames, grew) = feed(&mut buffer, &again);
            assert_eq!(grew, 0, "round {round}: the buffer grew");
            assert_eq!(frames.len(), 1);
            assert_eq!(frames[0].len(), again.len() - 1);
            assert!(frames[0].iter().all(|&b| b == b'y'));
        }
    }
}
