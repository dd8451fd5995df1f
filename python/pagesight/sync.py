"""The synchronous API: the asyncio API run on an event loop of each browser's own, for scripts
and notebooks-free code that does not use asyncio.

    from pagesight.sync import launch

    with launch() as browser:
        page = browser.open("fixtures/pages/forms.html")
        snap = page.snapshot()
        page.fill(snap.uid_of(role="textbox", name="Full name"), "Ada Lovelace")

Every method is the asyncio method of the same name (same arguments, same results, same
exceptions), awaited; the GIL is released while the engine works, so other Python threads run.
A browser and its pages are used from one thread, and not from inside a running event loop (use
the asyncio API there). `crawl` is a plain iterator of `pagesight.CrawlResult`.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import (
    Any,
    Coroutine,
    Iterable,
    Iterator,
    List,
    Literal,
    Optional,
    Sequence,
    Type,
    TypeVar,
    Union,
)

from . import _api, _crawl
from ._api import Button, Direction, Expand, Format, Mode, PathLike
from ._crawl import (
    CrawlProgress,
    CrawlResult,
    CrawlSummary,
    ExtractFormat,
    Follow,
)
from ._results import (
    Clicked,
    DialogAnswered,
    Dragged,
    Extraction,
    Filled,
    Hovered,
    Navigation,
    Opened,
    Pressed,
    Resized,
    Screenshot,
    Scrolled,
    Selected,
    Typed,
    Uploaded,
    Waited,
)
from ._snapshot import Snapshot

T = TypeVar("T")

__all__ = ["Browser", "Page", "Crawl", "launch", "connect", "crawl"]


class _Loop:
    """The event loop a synchronous browser and its pages run their calls on."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def run(self, call: Coroutine[Any, Any, T]) -> T:
        if self.loop.is_closed():
            call.close()
            raise RuntimeError("this browser was closed; launch or connect again")
        return self.loop.run_until_complete(call)

    def close(self) -> None:
        if not self.loop.is_closed():
            self.loop.close()


class Page:
    """One tab; the methods of `pagesight.Page`, without `await`."""

    def __init__(self, page: _api.Page, loop: _Loop) -> None:
        self.page = page
        """The asyncio page this one drives."""
        self._loop = loop

    @property
    def target_id(self) -> str:
        return self.page.target_id

    def execute(self, cmd: str, **fields: Any) -> Any:
        return self._loop.run(self.page.execute(cmd, **fields))

    def open(self, url: str) -> Opened:
        return self._loop.run(self.page.open(url))

    def back(self) -> Navigation:
        return self._loop.run(self.page.back())

    def forward(self) -> Navigation:
        return self._loop.run(self.page.forward())

    def reload(self) -> Navigation:
        return self._loop.run(self.page.reload())

    def snapshot(
        self,
        mode: Mode = "a11y",
        *,
        format: Format = "text",
        expand: Expand = None,
        verbose: bool = False,
        uid: Optional[str] = None,
        max_chars: Optional[int] = None,
        tree: bool = True,
    ) -> Snapshot:
        return self._loop.run(
            self.page.snapshot(
                mode,
                format=format,
                expand=expand,
                verbose=verbose,
                uid=uid,
                max_chars=max_chars,
                tree=tree,
            )
        )

    def diff(self) -> str:
        return self._loop.run(self.page.diff())

    def extract(self, *, all: bool = False) -> Extraction:
        return self._loop.run(self.page.extract(all=all))

    def screenshot(
        self,
        *,
        format: Literal["png", "jpeg", "webp"] = "png",
        quality: Optional[int] = None,
        uid: Optional[str] = None,
        full_page: bool = False,
        annotate: bool = False,
        path: Optional[PathLike] = None,
    ) -> Screenshot:
        return self._loop.run(
            self.page.screenshot(
                format=format,
                quality=quality,
                uid=uid,
                full_page=full_page,
                annotate=annotate,
                path=path,
            )
        )

    def evaluate(self, function: str, *args: str) -> Any:
        return self._loop.run(self.page.evaluate(function, *args))

    def click(
        self,
        uid: str,
        *,
        button: Button = "left",
        count: int = 1,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Clicked:
        return self._loop.run(
            self.page.click(uid, button=button, count=count, snapshot=snapshot, diff=diff)
        )

    def hover(self, uid: str, *, snapshot: bool = False, diff: bool = False) -> Hovered:
        return self._loop.run(self.page.hover(uid, snapshot=snapshot, diff=diff))

    def fill(self, uid: str, text: str, *, snapshot: bool = False, diff: bool = False) -> Filled:
        return self._loop.run(self.page.fill(uid, text, snapshot=snapshot, diff=diff))

    def select(
        self,
        uid: str,
        option: Union[str, Sequence[str]],
        *,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Selected:
        return self._loop.run(self.page.select(uid, option, snapshot=snapshot, diff=diff))

    def press(
        self,
        key: str,
        *,
        uid: Optional[str] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Pressed:
        return self._loop.run(self.page.press(key, uid=uid, snapshot=snapshot, diff=diff))

    def scroll(
        self,
        uid: Optional[str] = None,
        *,
        direction: Direction = "down",
        pixels: Optional[float] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Scrolled:
        return self._loop.run(
            self.page.scroll(
                uid, direction=direction, pixels=pixels, snapshot=snapshot, diff=diff
            )
        )

    def upload(
        self,
        uid: str,
        files: Union[PathLike, Sequence[PathLike]],
        *,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Uploaded:
        return self._loop.run(self.page.upload(uid, files, snapshot=snapshot, diff=diff))

    def drag(
        self, from_uid: str, to_uid: str, *, snapshot: bool = False, diff: bool = False
    ) -> Dragged:
        return self._loop.run(self.page.drag(from_uid, to_uid, snapshot=snapshot, diff=diff))

    def type_text(
        self,
        text: str,
        *,
        submit_key: Optional[str] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Typed:
        return self._loop.run(
            self.page.type_text(text, submit_key=submit_key, snapshot=snapshot, diff=diff)
        )

    def dialog(
        self,
        accept: bool,
        *,
        text: Optional[str] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> DialogAnswered:
        return self._loop.run(self.page.dialog(accept, text=text, snapshot=snapshot, diff=diff))

    def wait_for(
        self, text: Union[str, Sequence[str]], *, timeout: Optional[float] = None
    ) -> Waited:
        return self._loop.run(self.page.wait_for(text, timeout=timeout))

    def resize(self, width: int, height: int) -> Resized:
        return self._loop.run(self.page.resize(width, height))

    def close(self) -> None:
        self._loop.run(self.page.close())

    def __repr__(self) -> str:
        return f"sync.Page(target_id={self.target_id!r})"


class Browser:
    """A launched or connected Chromium; `with` closes it."""

    def __init__(self, browser: _api.Browser, loop: _Loop) -> None:
        self.browser = browser
        """The asyncio browser this one drives."""
        self._loop = loop
        self.pages: List[Page] = []

    @property
    def pid(self) -> Optional[int]:
        return self.browser.pid

    @property
    def endpoint(self) -> Optional[str]:
        return self.browser.endpoint

    def open(self, url: str) -> Page:
        page = Page(self._loop.run(self.browser.open(url)), self._loop)
        self.pages.append(page)
        return page

    def close(self) -> None:
        """Closes the pages and the browser, then the event loop. Closing twice does nothing."""
        if self._loop.loop.is_closed():
            return
        try:
            self._loop.run(self.browser.close())
        finally:
            self.pages.clear()
            self._loop.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"sync.{self.browser!r}"


def launch(
    *,
    executable: Optional[PathLike] = None,
    width: int = 1280,
    height: int = 800,
    device_scale_factor: float = 1.0,
    load_timeout: Optional[float] = None,
    launch_timeout: Optional[float] = None,
    debugging_port: bool = False,
    allow_dirs: Sequence[PathLike] = (),
    allow_evaluate: bool = False,
    collect_devtools: bool = False,
    args: Sequence[str] = (),
) -> Browser:
    """`pagesight.launch`, without `await`: the same options."""
    loop = _Loop()
    try:
        start = loop.run(
            _launch(
                executable=executable,
                width=width,
                height=height,
                device_scale_factor=device_scale_factor,
                load_timeout=load_timeout,
                launch_timeout=launch_timeout,
                debugging_port=debugging_port,
                allow_dirs=allow_dirs,
                allow_evaluate=allow_evaluate,
                collect_devtools=collect_devtools,
                args=args,
            )
        )
    except BaseException:
        loop.close()
        raise
    return Browser(start, loop)


async def _launch(**options: Any) -> _api.Browser:
    # `_native.launch` needs the running loop, so the call itself is made inside it.
    return await _api.launch(**options)


def connect(
    endpoint: str,
    *,
    load_timeout: Optional[float] = None,
    allow_evaluate: bool = False,
    collect_devtools: bool = False,
) -> Browser:
    """`pagesight.connect`, without `await`: the same options."""
    loop = _Loop()
    try:
        browser = loop.run(
            _connect(
                endpoint,
                load_timeout=load_timeout,
                allow_evaluate=allow_evaluate,
                collect_devtools=collect_devtools,
            )
        )
    except BaseException:
        loop.close()
        raise
    return Browser(browser, loop)


async def _connect(endpoint: str, **options: Any) -> _api.Browser:
    return await _api.connect(endpoint, **options)


class Crawl(Iterator[CrawlResult]):
    """`pagesight.Crawl` as a plain iterator, on an event loop of its own. Leaving the loop
    early (`break`, an exception) ends the crawl as soon as the iterator is let go: the pages in
    flight are cut short and the launched browser closed; `with` (or `close()`) does it at a
    known point. `stop()` and `abort()` may be called from another thread."""

    def __init__(self, crawl: _crawl.Crawl) -> None:
        self.crawl = crawl
        """The asyncio crawl this one drives."""
        self._loop = _Loop()

    def __iter__(self) -> Crawl:
        return self

    def __next__(self) -> CrawlResult:
        if self._loop.loop.is_closed():
            raise StopIteration
        try:
            return self._loop.run(self._next())
        except StopAsyncIteration:
            self.close()
            raise StopIteration from None
        except BaseException:
            self.close()
            raise

    async def _next(self) -> CrawlResult:
        return await self.crawl.__anext__()

    def stop(self) -> None:
        self.crawl.stop()

    def abort(self) -> None:
        self.crawl.abort()

    def progress(self) -> CrawlProgress:
        return self.crawl.progress()

    @property
    def summary(self) -> Optional[CrawlSummary]:
        return self.crawl.summary

    def close(self) -> None:
        """Ends the crawl (the pages in flight cut short, the launched browser closed), then
        the event loop. Closing twice does nothing."""
        if self._loop.loop.is_closed():
            return
        try:
            self._loop.run(self.crawl.aclose())
        finally:
            self._loop.close()

    def __enter__(self) -> Crawl:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing to tell at collection
            pass

    def __repr__(self) -> str:
        return f"sync.{self.crawl!r}"


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
    wait_until: _crawl.WaitUntil = "domcontentloaded",
    retries: int = 2,
    shared_context: bool = False,
) -> Crawl:
    """`pagesight.crawl`, as a plain iterator: the same options, the same results."""
    return Crawl(
        _crawl.crawl(
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
