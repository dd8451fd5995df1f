"""pagesight: eyes and hands for LLM browser agents on a live headless Chromium.

    import asyncio, pagesight

    async def main() -> None:
        async with pagesight.launch() as browser:
            page = await browser.open("https://example.com")
            snap = await page.snapshot()
            print(snap.text)
            await page.click(snap.uid_of(role="link", name="More information..."))

    asyncio.run(main())

The asyncio API is this module (`launch`, `connect`, `Browser`, `Page`, and `crawl` for many
pages at once); `pagesight.sync` is the same API without `await`. `render_capture` renders a saved capture offline. Results are
typed (`pagesight.Clicked`, ...); failures raise `pagesight.Error` subclasses named after the
engine's codes. The protocol behind every call: docs/protocol.md.
"""

from ._api import Browser, BrowserStart, Page, connect, launch, render_capture
from ._crawl import (
    Crawl,
    CrawlFailure,
    CrawlProgress,
    CrawlResult,
    CrawlSummary,
    CrawlTimings,
    crawl,
)
from ._errors import (
    BrowserClosedError,
    Error,
    InvalidArgumentError,
    NavigationFailedError,
    NoSnapshotError,
    NotInteractableError,
    OccludedError,
    PageNavigatingError,
    ProtocolError,
    StaleUidError,
    TimeoutError,
    UnknownUidError,
)
from ._native import __version__
from ._results import *  # noqa: F401,F403 - the typed results, listed in their __all__
from ._results import __all__ as _result_names
from ._snapshot import Box, Node, Snapshot

__all__ = [
    "Browser",
    "BrowserStart",
    "Page",
    "connect",
    "launch",
    "render_capture",
    "crawl",
    "Crawl",
    "CrawlResult",
    "CrawlTimings",
    "CrawlFailure",
    "CrawlProgress",
    "CrawlSummary",
    "Snapshot",
    "Node",
    "Box",
    "Error",
    "NoSnapshotError",
    "UnknownUidError",
    "StaleUidError",
    "PageNavigatingError",
    "NotInteractableError",
    "OccludedError",
    "TimeoutError",
    "BrowserClosedError",
    "NavigationFailedError",
    "InvalidArgumentError",
    "ProtocolError",
    "__version__",
    *_result_names,
]
