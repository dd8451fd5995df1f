//! The one error type of the engine, with the stable codes of the contract in docs/protocol.md.
//!
//! Every failure a user can cause or meet is an [`Error`] with an [`ErrorCode`] that front ends
//! print verbatim (`{"code": "STALE_UID", ...}`) and a message that says what to do next.

use std::fmt;

/// Stable error codes (docs/protocol.md, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    NoSnapshot,
    UnknownUid,
    StaleUid,
    PageNavigating,
    NotInteractable,
    Occluded,
    Timeout,
    BrowserClosed,
    NavigationFailed,
    InvalidArgument,
    ProtocolError,
}

impl ErrorCode {
    /// The wire spelling, e.g. `"STALE_UID"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NoSnapshot => "NO_SNAPSHOT",
            ErrorCode::UnknownUid => "UNKNOWN_UID",
            ErrorCode::StaleUid => "STALE_UID",
            ErrorCode::PageNavigating => "PAGE_NAVIGATING",
            ErrorCode::NotInteractable => "NOT_INTERACTABLE",
            ErrorCode::Occluded => "OCCLUDED",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::BrowserClosed => "BROWSER_CLOSED",
            ErrorCode::NavigationFailed => "NAVIGATION_FAILED",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::ProtocolError => "PROTOCOL_ERROR",
        }
    }

    /// Whether the same call may succeed if simply tried again later.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::PageNavigating | ErrorCode::Timeout | ErrorCode::Occluded
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An engine error: a stable code plus a message for a person (or a model) that says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn retryable(&self) -> bool {
        self.code.retryable()
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidArgument, message)
    }

    pub fn protocol(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::ProtocolError, message)
    }

    pub fn browser_closed() -> Self {
        Error::new(
            ErrorCode::BrowserClosed,
            "the browser connection is closed; launch or connect to a browser again",
        )
    }

    pub fn timeout(what: impl fmt::Display) -> Self {
        Error::new(ErrorCode::Timeout, format!("timed out waiting for {what}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
