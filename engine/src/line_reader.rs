//! Reading a JSON-lines input (the `run` protocol's commands) one line at a time, with no line
//! able to end the session or take all the memory.
//!
//! `BufRead::lines` is the obvious reader and the wrong one here: it fails the whole stream on the
//! first line that is not UTF-8 (the caller cannot tell it from a broken pipe and stops), and it
//! holds a line whole however long it is, so one line without a newline can grow until the
//! process is killed. This reader hands back each line as text, or says why it cannot: not UTF-8
//! (the line is answered with an error and the next one is read), or longer than a limit (the
//! rest of it is read and dropped up to its newline, never held). Only an error of the input
//! itself ends the reading.

use crate::{Error, Result};
use std::io::{self, BufRead};

/// The longest command line read, in bytes, newline excluded: 16 MiB.
///
/// A command is small (a uid, a URL, a few options); the long ones carry a text to type or fill
/// or a script to evaluate, and those are refused above a million characters (up to 4 MiB of
/// UTF-8, more with JSON escapes of up to six bytes a character). 16 MiB leaves room for all of
/// them while a line can cost the session no more than that much memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// One line of the input, read or refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's text, without its line feed (nor the carriage return before one).
    Text(String),
    /// The line is not UTF-8; the first `valid_up_to` bytes are.
    NotUtf8 {
        /// How many bytes from the line's start are valid UTF-8.
        valid_up_to: usize,
    },
    /// The line is longer than the limit; it was read to its end and dropped.
    TooLong {
        /// The line's length in bytes.
        len: u64,
        /// The limit it passed.
        limit: usize,
    },
}

impl Line {
    /// The line's text, or an `INVALID_ARGUMENT` error saying why the line cannot be a command.
    pub fn into_text(self) -> Result<String> {
        match self {
            Line::Text(text) => Ok(text),
            Line::NotUtf8 { valid_up_to } => Err(Error::invalid_argument(format!(
                "the line is not valid UTF-8 (byte {} is not); a command is one JSON object per \
                 line in UTF-8, like {{\"cmd\":\"snapshot\"}}",
                valid_up_to + 1
            ))),
            Line::TooLong { len, limit } => Err(Error::invalid_argument(format!(
                "the line is {len} bytes long, more than the {limit} bytes ({} MiB) a command \
                 line may have; it was skipped",
                limit >> 20
            ))),
        }
    }
}

/// Reads lines of at most a given length from a `BufRead`.
pub struct LineReader<R> {
    input: R,
    limit: usize,
    line: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of lines of at most [`MAX_LINE_BYTES`].
    pub fn new(input: R) -> Self {
        LineReader::with_limit(input, MAX_LINE_BYTES)
    }

    /// A reader of lines of at most `limit` bytes.
    pub fn with_limit(input: R, limit: usize) -> Self {
        LineReader {
            input,
            limit,
            line: Vec::new(),
        }
    }

    /// The next line; `None` at the end of the input. A last line without a line feed is a
    /// line. An error is one of the input itself: reading further is pointless.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        self.line.clear();
        let mut len: u64 = 0;
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = memchr::memchr(b'\n', available);
            let part = &available[..newline.unwrap_or(available.len())];
            len += part.len() as u64;
            if !too_long {
                if self.line.len() + part.len() > self.limit {
                    too_long = true;
                    // What was held goes back now rather than at the next line.
                    self.line = Vec::new();
                } else {
                    // Grown by doubling but never past the limit, so a line just under it holds
                    // no more than the limit either.
                    let needed = self.line.len() + part.len();
                    if needed > self.line.capacity() {
                        let room = (self.line.capacity() * 2).clamp(needed, self.limit);
                        self.line.reserve_exact(room - self.line.len());
                    }
                    self.line.extend_from_slice(part);
                }
            }
            let used = part.len() + usize::from(newline.is_some());
            self.input.consume(used);
            if newline.is_some() {
                break;
            }
        }
        if too_long {
            return Ok(Some(Line::TooLong {
                len,
                limit: self.limit,
            }));
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        let bytes = std::mem::take(&mut self.line);
        Ok(Some(match String::from_utf8(bytes) {
            Ok(text) => Line::Text(text),
            Err(e) => {
                let valid_up_to = e.utf8_error().valid_up_to();
                // Keep the buffer's room for the next line.
                self.line = e.into_bytes();
                Line::NotUtf8 { valid_up_to }
            }
        }))
    }
}

impl<R: BufRead> Iterator for LineReader<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_line().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use std::io::{BufReader, Read};

    fn lines(input: &[u8], limit: usize, buffer: usize) -> Vec<Line> {
        LineReader::with_limit(BufReader::with_capacity(buffer, input), limit)
            .collect::<io::Result<Vec<_>>>()
            .expect("reading from memory does not fail")
    }

    fn text(s: &str) -> Line {
        Line::Text(s.to_string())
    }

    #[test]
    fn reads_lines_as_bufread_lines_does() {
        for input in [
            &b""[..],
            b"a",
            b"a\n",
            b"a\nb",
            b"a\r\nb\r\n",
            b"\n\n",
            b"{\"cmd\":\"snapshot\"}\n  \n{\"cmd\":\"pages\"}",
        ] {
            let expected: Vec<Line> = input
                .lines()
                .map(|l| Line::Text(l.expect("UTF-8")))
                .collect();
            for buffer in [1, 2, 3, 64] {
                assert_eq!(lines(input, 100, buffer), expected, "{input:?} {buffer}");
            }
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_is_refused_and_the_next_is_read() {
        for buffer in [1, 4, 64] {
            let got = lines(b"one\nab\xffc\ntwo\n\xc3\n", 100, buffer);
            assert_eq!(
                got,
                [
                    text("one"),
                    Line::NotUtf8 { valid_up_to: 2 },
                    text("two"),
                    Line::NotUtf8 { valid_up_to: 0 },
                ],
                "{buffer}"
            );
        }
        let e = Line::NotUtf8 { valid_up_to: 2 }
            .into_text()
            .expect_err("not text");
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.message().contains("UTF-8"), "{}", e.message());
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_to_its_newline() {
        for buffer in [1, 3, 5, 64] {
            let got = lines(b"12345\n123456\nok\n1234567890", 5, buffer);
            assert_eq!(
                got,
                [
                    text("12345"),
                    Line::TooLong { len: 6, limit: 5 },
                    text("ok"),
                    Line::TooLong { len: 10, limit: 5 },
                ],
                "{buffer}"
            );
        }
        let e = Line::TooLong {
            len: 20 << 20,
            limit: MAX_LINE_BYTES,
        }
        .into_text()
        .expect_err("too long");
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.message().contains("16 MiB"), "{}", e.message());
    }

    /// Counts how many bytes are read, to show a long line is streamed, not held.
    struct Zeros {
        left: u64,
    }

    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf
                .len()
                .min(usize::try_from(self.left).unwrap_or(usize::MAX));
            buf[..n].fill(b'x');
            self.left -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn a_line_far_over_the_limit_holds_no_more_than_the_limit() {
        let long = 64u64 << 20;
        let input = BufReader::new(Zeros { left: long }).chain(&b"\n{\"cmd\":\"pages\"}\n"[..]);
        let mut reader = LineReader::with_limit(BufReader::new(input), 1 << 20);
        assert_eq!(
            reader.next_line().expect("read"),
            Some(Line::TooLong {
                len: long,
                limit: 1 << 20
            })
        );
        assert!(
            reader.line.capacity() <= 1 << 20,
            "{}",
            reader.line.capacity()
        );
        assert_eq!(
            reader.next_line().expect("read"),
            Some(text("{\"cmd\":\"pages\"}"))
        );
        assert_eq!(reader.next_line().expect("read"), None);
    }

    #[test]
    fn an_input_error_is_returned() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("broken pipe"))
            }
        }
        let mut reader = LineReader::new(BufReader::new(Broken));
        assert!(reader.next_line().is_err());
    }
}
