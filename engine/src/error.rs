//! The one error type of the engine, with the stable codes of the contract in `docs/protocol.md`.
//!
//! Every failure a user can cause or meet is an [`Error`] with an [`ErrorCode`] that front ends
//! print verbatim (`{"code": "STALE_UID", ...}`) and a message that says what to do next.

use std::ffi::CStr;
use std::fmt;

/// Declares the codes once: their variants, wire names and whether they are retryable.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, retryable = $retry:literal;)*) => {
        /// Stable error codes (`docs/protocol.md`, "Errors"). New codes may be added.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The wire spelling, e.g. `"STALE_UID"`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }

            /// The wire spelling as a C string, for the C ABI.
            pub fn as_c_str(self) -> &'static CStr {
                match self {
                    $(ErrorCode::$variant => c_str(concat!($name, "\0")),)*
                }
            }

            /// Whether the same call may succeed if simply tried again later.
            pub fn retryable(self) -> bool {
                match self {
                    $(ErrorCode::$variant => $retry,)*
                }
            }
        }
    };
}

/// A NUL-terminated literal as a `CStr` (the macro above writes only such literals).
fn c_str(bytes_with_nul: &'static str) -> &'static CStr {
    CStr::from_bytes_with_nul(bytes_with_nul.as_bytes()).unwrap_or(c"UNKNOWN")
}

error_codes! {
    /// An action needs a snapshot of the page first.
    NoSnapshot = "NO_SNAPSHOT", retryable = false;
    /// No snapshot of this page ever gave that uid.
    UnknownUid = "UNKNOWN_UID", retryable = false;
    /// The uid's element is gone (or its document was replaced).
    StaleUid = "STALE_UID", retryable = false;
    /// The page changed document while the command ran.
    PageNavigating = "PAGE_NAVIGATING", retryable = true;
    /// The element is hidden, disabled, zero-size or of a kind the action does not apply to.
    NotInteractable = "NOT_INTERACTABLE", retryable = false;
    /// Something covers the element (or a dialog covers the page).
    Occluded = "OCCLUDED", retryable = true;
    /// Chromium did not answer in time.
    Timeout = "TIMEOUT", retryable = true;
    /// The browser connection is closed.
    BrowserClosed = "BROWSER_CLOSED", retryable = false;
    /// The navigation failed (no such host, refused, …).
    NavigationFailed = "NAVIGATION_FAILED", retryable = false;
    /// The command or one of its fields is not valid.
    InvalidArgument = "INVALID_ARGUMENT", retryable = false;
    /// Chromium answered with an error or with something unexpected.
    ProtocolError = "PROTOCOL_ERROR", retryable = false;
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An engine error: a stable code plus a message for a person (or a model) that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What happened and what to do about it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the same call may succeed if simply tried again later.
    pub fn retryable(&self) -> bool {
        self.code.retryable()
    }

    /// An `INVALID_ARGUMENT` error.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidArgument, message)
    }

    /// A `PROTOCOL_ERROR`.
    pub fn protocol(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::ProtocolError, message)
    }

    /// The `BROWSER_CLOSED` error.
    pub fn browser_closed() -> Self {
        Error::new(
            ErrorCode::BrowserClosed,
            "the browser connection is closed; launch or connect to a browser again",
        )
    }

    /// A `TIMEOUT` waiting for `what`.
    pub fn timeout(what: impl fmt::Display) -> Self {
        Error::new(ErrorCode::Timeout, format!("timed out waiting for {what}"))
    }
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
