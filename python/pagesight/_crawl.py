"""Crawling: many pages, read on one launched Chromium (or a fleet of running ones), one result
per page as it is done. The crawl is the crate `pagesight-crawl`, the engine of `pagesight
crawl` (docs/crawl.md): a result has the fields of that command's JSON line, in snake_case.

    async for page in pagesight.crawl(urls, extract="markdown"):
        print(page.url, page.status, page.error or len(page.markdown or ""))

Leaving the loop early (`break`, an exception, the task cancelled) ends the crawl: the pages in
flight are cut short and the launched browser closes. `async with pagesight.crawl(...) as
pages:` (or `await pages.aclose()`) waits for that to be done; otherwise it is done in the
background, and at the latest when the event loop shuts down (`asyncio.run` waits for it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import TracebackType
from typing import (
    Any,
    AsyncGenerator,
    AsyncIterator,
    Dict,
    Iterable,
    List,
    Literal,
    Optional,
    Type,
    Union,
)

from . import _native
from ._api import Mode, PathLike
from ._errors import reraise
from ._results import Link, Result

ExtractFormat = Literal["markdown", "text"]
WaitUntil = Literal["domcontentloaded", "load"]
Follow = Union[Literal["same-site", "same-origin"], str]
"""`"same-site"`, `"same-origin"`, or an absolute URL prefix (`"https://example.com/docs/"`)."""


@dataclass(frozen=True, repr=False)
class CrawlTimings(Result):
    """How long the stages of a page took, in milliseconds."""

    navigation: int
    """Opening the page: a tab in its own browser context, the navigation to the document's
    `load` and first rendered frame, and reading where it arrived."""
    perception: int
    """What was asked of the page: extraction, links, snapshot."""
    total: int
    """The whole try, opening and disposing of its browser context included."""
    robots: int = 0
    """Reading the site's robots.txt (the first page of an origin only, when following)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> CrawlTimings:
        return cls(
            navigation=data.get("navigation", 0),
            perception=data.get("perception", 0),
            total=data.get("total", 0),
            robots=data.get("robots", 0),
        )


@dataclass(frozen=True, repr=False)
class CrawlFailure(Result):
    """Why a page has no content."""

    code: str
    """The engine's error code (`"NAVIGATION_FAILED"`, `"TIMEOUT"`, ...) or one of the crawl's
    own: `"ROBOTS_DISALLOWED"`, `"CANCELLED"`, `"INTERNAL_ERROR"`."""
    message: str
    """What happened, for a person."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> CrawlFailure:
        return cls(code=data["code"], message=data["message"])


@dataclass(frozen=True, repr=False)
class CrawlResult(Result):
    """One page of a crawl: the fields of `pagesight crawl`'s JSON line (docs/crawl.md)."""

    url: str
    """The URL as given; for a followed link, absolute and without its fragment."""
    timings: CrawlTimings
    """How long each stage took."""
    attempts: int = 0
    """How many times the page was tried (more than 1 after retries)."""
    final_url: Optional[str] = None
    """Where the page arrived, after redirects."""
    status: Optional[int] = None
    """The HTTP status of the document (a 404 page is a page, with status 404); None for
    documents not loaded over HTTP and for pages that could not be opened."""
    title: Optional[str] = None
    """The document's title."""
    loaded: Optional[bool] = None
    """Whether the page's `load` event came in time."""
    warning: Optional[str] = None
    """Why the page may not be as expected."""
    depth: Optional[int] = None
    """With `follow`: how many links from a seed (seeds are 0)."""
    markdown: Optional[str] = None
    """`extract="markdown"`: the main content as markdown."""
    text: Optional[str] = None
    """`extract="text"`: the main content as plain text."""
    snapshot: Optional[str] = None
    """`snapshot="a11y"|"dom"`: the snapshot an agent reads on opening the page."""
    links: Optional[List[Link]] = None
    """`links=True`: the page's links, absolute, each URL once, with the uid of the anchor."""
    capture: Optional[str] = None
    """The capture file written for the page."""
    browser: Optional[str] = None
    """The endpoint of the last try (`"launched"` for the browser the crawl started)."""
    error: Optional[CrawlFailure] = None
    """Why the page has no content; None when it was crawled."""

    @property
    def ok(self) -> bool:
        """Whether the page was crawled (a 404 is crawled: see `status`)."""
        return self.error is None

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> CrawlResult:
        links = data.get("links")
        error = data.get("error")
        return cls(
            url=data["url"],
            timings=CrawlTimings._from_json(data.get("timings") or {}),
            attempts=data.get("attempts", 0),
            final_url=data.get("finalUrl"),
            status=data.get("status"),
            title=data.get("title"),
            loaded=data.get("loaded"),
            warning=data.get("warning"),
            depth=data.get("depth"),
            markdown=data.get("markdown"),
            text=data.get("text"),
            snapshot=data.get("snapshot"),
            links=None if links is None else [Link._from_json(link) for link in links],
            capture=data.get("capture"),
            browser=data.get("browser"),
            error=None if error is None else CrawlFailure._from_json(error),
        )


@dataclass(frozen=True, repr=False)
class CrawlProgress(Result):
    """Where a crawl is."""

    done: int
    """Results given out."""
    failed: int
    """Of those, results with an error."""
    in_flight: int
    """Pages being tried."""
    queued: int
    """Pages waiting."""


@dataclass(frozen=True, repr=False)
class CrawlSummary(Result):
    """How a crawl went."""

    pages: int
    """Results given out."""
    failed: int
    """Of those, results with an error."""
    failures: Dict[str, int]
    """Failed results by error code."""
    retried: int
    """Tries that were tried again."""
    stopped: bool
    """Whether it was stopped before its pages ran out."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> CrawlSummary:
        return cls(
            pages=data["pages"],
            failed=data["failed"],
            failures=dict(data["failures"]),
            retried=data["retried"],
            stopped=data["stopped"],
        )


class _State:
    """What a crawl and the generator reading it share (the generator does not hold the
    crawl, so that leaving the loop lets both go at once)."""

    def __init__(self) -> None:
        self.summary: Optional[CrawlSummary] = None
        self.started = False


async def _pages(native: _native.Crawl, state: _State) -> AsyncGenerator[CrawlResult, None]:
    """The results, and the crawl ended whichever way the reading ends."""
    try:
        try:
            await native.start()
        except _native.EngineError as e:
            reraise(e)
        state.started = True
        while True:
            try:
                record = await native.next()
            except _native.EngineError as e:
                reraise(e)
            if record is None:
                break
            yield CrawlResult._from_json(record)
    finally:
        # Left early (break, an exception, cancelled, closed): the pages in flight are cut
        # short. At the end of the pages this changes nothing.
        native.abort()
        state.summary = CrawlSummary._from_json(await native.finish())


class Crawl(AsyncIterator[CrawlResult]):
    """A crawl: an async iterator of `CrawlResult`, one per page, in the order pages are done.
    It starts (launches its browser) with the first step of `async for`; `stop()` takes no new
    page, `abort()` cuts those in flight short (each still comes out, with `CANCELLED`);
    `aclose()` ends it at once and waits for its browser to close. Made by `pagesight.crawl`."""

    def __init__(self, native: _native.Crawl) -> None:
        self._native = native
        self._state = _State()
        self._pages = _pages(native, self._state)

    def __aiter__(self) -> Crawl:
        return self

    async def __anext__(self) -> CrawlResult:
        return await self._pages.__anext__()

    def stop(self) -> None:
        """Takes no new page: those in flight finish and come out, then the iteration ends."""
        self._native.stop()

    def abort(self) -> None:
        """Cuts the pages in flight short: each comes out with the error `CANCELLED`."""
        self._native.abort()

    def progress(self) -> CrawlProgress:
        """How far the crawl is (brought up to date about ten times a second)."""
        done, failed, in_flight, queued = self._native.progress()
        return CrawlProgress(done=done, failed=failed, in_flight=in_flight, queued=queued)

    @property
    def summary(self) -> Optional[CrawlSummary]:
        """How the crawl went, once it is over (its pages read, or closed); None before."""
        return self._state.summary

    async def aclose(self) -> None:
        """Ends the crawl: the pages in flight are cut short, the launched browser is closed
        (a connected one is disconnected from). Closing twice does nothing."""
        self._native.abort()
        try:
            await self._pages.aclose()
        except RuntimeError:
            # Another task is reading the next result (which the abort brings soon): wait for
            # the crawl's end here, the reader sees the end after its result.
            self._state.summary = CrawlSummary._from_json(await self._native.finish())
        if self._state.summary is None:
            # Never started: nothing ran, nothing to wait for.
            self._state.summary = CrawlSummary._from_json(await self._native.finish())

    async def __aenter__(self) -> Crawl:
        return self

    async def __aexit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        p = self.progress()
        counts = f"done={p.done}, failed={p.failed}, in_flight={p.in_flight}, queued={p.queued}"
        return f"Crawl({counts})"


def _native_crawl(
    urls: Union[PathLike, Iterable[PathLike]],
    *,
    concurrency: Optional[int],
    extract: Optional[ExtractFormat],
    snapshot: Optional[Mode],
    links: bool,
    follow: Optional[Follow],
    depth: Optional[int],
    max_pages: Optional[int],
    ignore_robots: bool,
    browsers: Optional[Iterable[str]],
    page_timeout: float,
    wait_until: WaitUntil,
    retries: int,
    shared_context: bool,
) -> _native.Crawl:
    seeds = [urls] if isinstance(urls, (str, os.PathLike)) else list(urls)
    try:
        return _native.Crawl(
            [os.fspath(u) for u in seeds],
            concurrency=concurrency,
            extract=extract,
            snapshot=snapshot,
            links=links,
            follow=follow,
            depth=depth,
            max_pages=max_pages,
            ignore_robots=ignore_robots,
            browsers=list(browsers or ()),
            page_timeout=page_timeout,
            wait_until=wait_until,
            retries=retries,
            shared_context=shared_context,
        )
    except _native.EngineError as e:
        reraise(e)


def crawl(
    urls: Union[PathLike, Iterable[PathLike]],
    *,
    concurrency: Optional[int] = None,
    extract: Optional[ExtractFormat] = None,
    snapshot: Optional[Mode] = None,
    links: bool = False,
    follow: Optional[Follow] = None,
    depth: Optional[int] = None,
    max_pages: Optional[int] = None,
    ignore_robots: bool = False,
    browsers: Optional[Iterable[str]] = None,
    page_timeout: float = 30.0,
    wait_until: WaitUntil = "domcontentloaded",
    retries: int = 2,
    shared_context: bool = False,
) -> Crawl:
    """Crawls `urls` (URLs or local files; one or many), each page in a browser context of its
    own, and answers an async iterator of `CrawlResult`, one per page, as pages are done; every
    URL gets exactly one (a page that failed has `error`).

    `concurrency`: pages at once (default two per core); `extract`: each page's main content
    as `"markdown"` or `"text"`; `snapshot`: the `"a11y"` or `"dom"` snapshot an agent reads on
    opening it; `links`: its links; `follow`: also crawl the links of the pages,
    `"same-site"`, `"same-origin"` or those starting with a URL prefix, at most `depth` links
    from a seed (default 3; only with `follow`), honouring robots.txt unless `ignore_robots`; `max_pages`: at most this many
    results in all; `browsers`: running browsers to crawl with (`ws://...` or
    `http://host:port`; default: one launched headless Chromium); `page_timeout`: seconds
    before a page is cut (`TIMEOUT`); `wait_until`: read a page once `"domcontentloaded"` (its
    HTML parsed) or `"load"` (its images, frames and scripts loaded too); `retries`: more tries for a page that timed out, crashed
    or lost its browser; `shared_context`: every page in the browser's default context (its
    cookies) instead. Bad arguments raise `InvalidArgumentError` here, before anything starts.
    """
    return Crawl(
        _native_crawl(
            urls,
            concurrency=concurrency,
            extract=extract,
            snapshot=snapshot,
            links=links,
            follow=follow,
            depth=depth,
            max_pages=max_pages,
            ignore_robots=ignore_robots,
            browsers=browsers,
            page_timeout=page_timeout,
            wait_until=wait_until,
            retries=retries,
            shared_context=shared_context,
        )
    )
