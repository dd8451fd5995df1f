"""The exceptions: one class per error code of the engine (docs/protocol.md, "Errors"), all
subclasses of `pagesight.Error`, which carries the code, whether the same call may succeed if
simply tried again, and the engine's message (what happened and what to do next).
"""

from __future__ import annotations

from typing import Dict, NoReturn, Type

from . import _native


class Error(Exception):
    """A failure of pagesight, with the engine's stable `code` (`"STALE_UID"`, ...), its
    `message`, and `retryable`: whether the same call may succeed if tried again later."""

    code: str = ""
    retryable: bool = False

    def __init__(self, message: str, code: str = "", retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.retryable = retryable

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.code else self.message


class NoSnapshotError(Error):
    """An action needs a snapshot of the page first."""

    code = "NO_SNAPSHOT"


class UnknownUidError(Error):
    """No snapshot of this page ever gave that uid."""

    code = "UNKNOWN_UID"


class StaleUidError(Error):
    """The uid's element is gone (or its document was replaced): take a new snapshot."""

    code = "STALE_UID"


class PageNavigatingError(Error):
    """The page changed document while the command ran (retryable)."""

    code = "PAGE_NAVIGATING"


class NotInteractableError(Error):
    """The element is hidden, disabled, zero-size or of a kind the action does not apply to."""

    code = "NOT_INTERACTABLE"


class OccludedError(Error):
    """Something covers the element, or a dialog covers the page (retryable)."""

    code = "OCCLUDED"


class TimeoutError(Error):  # noqa: A001 - named after the engine's code, as the others are
    """Chromium did not answer in time, or a wait ran out (retryable)."""

    code = "TIMEOUT"


class BrowserClosedError(Error):
    """The browser connection is closed."""

    code = "BROWSER_CLOSED"


class NavigationFailedError(Error):
    """The navigation failed (no such host, refused, ...)."""

    code = "NAVIGATION_FAILED"


class InvalidArgumentError(Error):
    """The command or one of its fields is not valid (or the page was closed)."""

    code = "INVALID_ARGUMENT"


class ProtocolError(Error):
    """Chromium answered with an error or with something unexpected."""

    code = "PROTOCOL_ERROR"


ERROR_CLASSES: Dict[str, Type[Error]] = {
    cls.code: cls
    for cls in (
        NoSnapshotError,
        UnknownUidError,
        StaleUidError,
        PageNavigatingError,
        NotInteractableError,
        OccludedError,
        TimeoutError,
        BrowserClosedError,
        NavigationFailedError,
        InvalidArgumentError,
        ProtocolError,
    )
}

for _cls in (Error, *ERROR_CLASSES.values()):
    # Shown as `pagesight.StaleUidError` in tracebacks, where users import it from.
    _cls.__module__ = "pagesight"


def from_engine(error: _native.EngineError) -> Error:
    """The exception of an engine failure: the class of its code (the base class for a code
    newer than this package)."""
    code, message, retryable = error.args
    return ERROR_CLASSES.get(code, Error)(message, code, retryable)


def reraise(error: _native.EngineError) -> NoReturn:
    raise from_engine(error) from None
