"""`pagesight.crawl` against a real Chromium and a loopback HTTP server of generated pages: one
result per URL, the statuses, the extraction, following links within bounds, leaving the loop
early (no Chromium left behind), and bad arguments."""

from __future__ import annotations

import asyncio
import functools
import http.server
import os
import threading
import time
from pathlib import Path
from typing import Any, Iterator, List, Set

import pytest
from conftest import run

import pagesight
from pagesight import sync

PAGES = 10
"""Pages 0..9; each links to the next two (wrapping round) and to a missing page."""


def _page(i: int) -> str:
    links = "".join(
        f'<li><a href="page{(i + step) % PAGES}.html">Page {(i + step) % PAGES}</a></li>'
        for step in (1, 2)
    )
    return f"""<!doctype html>
<html><head><title>Page {i}</title></head>
<body><main>
<h1>Page number {i}</h1>
<p>This is the text of page {i}, which the crawl reads.</p>
<ul>{links}<li><a href="missing.html">A page that is not there</a></li></ul>
</main></body></html>
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (ending in `/`) of a loopback server of the generated pages."""
    folder = tmp_path_factory.mktemp("site")
    for i in range(PAGES):
        (folder / f"page{i}.html").write_text(_page(i), encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _chromium_children() -> Set[int]:
    """The Chromium processes that are children of this process."""
    found = set()
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its parenthesis.
        comm = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == me and "chrom" in comm.lower():
            found.add(int(entry.name))
    return found


def _wait_gone(before: Set[int], limit: float = 15.0) -> Set[int]:
    """The Chromium children not in `before` still there after up to `limit` seconds."""
    deadline = time.monotonic() + limit
    while True:
        left = _chromium_children() - before
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def test_every_url_gets_one_result_with_its_status(site: str) -> None:
    urls = [f"{site}page{i}.html" for i in range(PAGES)] + [f"{site}missing.html"]

    async def body() -> List[pagesight.CrawlResult]:
        return [page async for page in pagesight.crawl(urls, concurrency=4)]

    results = run(body())
    assert sorted(r.url for r in results) == sorted(urls)
    for r in results:
        assert isinstance(r, pagesight.CrawlResult)
        assert r.ok and r.error is None, r
        assert r.final_url == r.url
        assert r.attempts == 1 and r.browser == "launched"
        assert r.timings.total >= r.timings.navigation
        assert r.markdown is None and r.links is None and r.depth is None
        if r.url.endswith("missing.html"):
            assert r.status == 404
        else:
            assert r.status == 200
            assert r.title == f"Page {r.url.split('page')[-1].split('.')[0]}"
    assert "status=200" in repr(results[0]) and "markdown" not in repr(results[0])


def test_extract_markdown_gives_the_text(site: str) -> None:
    async def body() -> List[pagesight.CrawlResult]:
        crawl = pagesight.crawl(
            [f"{site}page3.html"], extract="markdown", snapshot="a11y", links=True
        )
        async with crawl:
            pages = [page async for page in crawl]
        assert crawl.summary == pagesight.CrawlSummary(
            pages=1, failed=0, failures={}, retried=0, stopped=False
        )
        return pages

    (page,) = run(body())
    assert page.markdown is not None
    assert page.markdown.startswith("# Page number 3")
    assert "This is the text of page 3, which the crawl reads." in page.markdown
    assert page.text is None
    assert page.snapshot is not None and 'heading "Page number 3"' in page.snapshot
    assert page.links is not None
    assert [link.url for link in page.links] == [
        f"{site}page4.html",
        f"{site}page5.html",
        f"{site}missing.html",
    ]
    assert all(isinstance(link, pagesight.Link) and link.uid for link in page.links)


def test_following_links_within_depth_and_max_pages(site: str) -> None:
    async def follow(**options: Any) -> List[pagesight.CrawlResult]:
        return [page async for page in pagesight.crawl(f"{site}page0.html", **options)]

    # Depth 1: the seed, its two pages and the missing one, each once.
    one = run(follow(follow="same-origin", depth=1))
    assert {(r.url, r.depth, r.status) for r in one} == {
        (f"{site}page0.html", 0, 200),
        (f"{site}page1.html", 1, 200),
        (f"{site}page2.html", 1, 200),
        (f"{site}missing.html", 1, 404),
    }
    assert len(one) == 4
    # Depth 2 adds pages 3 and 4.
    two = run(follow(follow="same-origin", depth=2, extract="text"))
    assert sorted(r.url for r in two) == sorted(
        [f"{site}page{i}.html" for i in range(5)] + [f"{site}missing.html"]
    )
    assert all(r.text is not None for r in two if r.status == 200)
    # Deep enough for all: every page once, the links not asked for not given.
    everything = run(follow(follow="same-origin", depth=20))
    assert sorted(r.url for r in everything) == sorted(
        [f"{site}page{i}.html" for i in range(PAGES)] + [f"{site}missing.html"]
    )
    assert all(r.links is None for r in everything)
    # At most five pages in all, the seed first.
    capped = run(follow(follow="same-origin", depth=20, max_pages=5, concurrency=1))
    assert len(capped) == 5
    assert capped[0].url == f"{site}page0.html" and capped[0].depth == 0
    assert len({r.url for r in capped}) == 5
    # A prefix that admits nothing else.
    only = run(follow(follow=f"{site}nothing-here/", depth=5))
    assert [r.url for r in only] == [f"{site}page0.html"]


def test_breaking_out_leaves_no_browser(site: str) -> None:
    before = _chromium_children()

    async def body() -> None:
        seen = 0
        async for page in pagesight.crawl(
            f"{site}page0.html", follow="same-origin", depth=20, concurrency=2
        ):
            assert page.ok
            seen += 1
            assert _chromium_children() - before, "the crawl runs on a browser of its own"
            break
        assert seen == 1
        # Left behind by the loop: closed on the loop, in the background.
        for _ in range(150):
            if not _chromium_children() - before:
                break
            await asyncio.sleep(0.1)

    run(body())
    assert not _wait_gone(before)


def test_aclose_and_cancel_end_the_crawl(site: str) -> None:
    before = _chromium_children()
    urls = [f"{site}page{i}.html" for i in range(PAGES)]

    async def closed() -> None:
        crawl = pagesight.crawl(urls, concurrency=2)
        first = await crawl.__anext__()
        assert first.ok
        await crawl.aclose()
        # Closed and waited for: the browser is gone already.
        assert not _chromium_children() - before
        assert crawl.summary is not None and crawl.summary.pages < PAGES + 1
        with pytest.raises(StopAsyncIteration):
            await crawl.__anext__()
        await crawl.aclose()  # twice: nothing

    async def cancelled() -> None:
        crawl = pagesight.crawl(urls, concurrency=1)

        async def read_all() -> None:
            async for _ in crawl:
                pass

        task = asyncio.create_task(read_all())
        while crawl.progress().done == 0:
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert crawl.summary is not None and crawl.summary.pages < PAGES
        assert not _chromium_children() - before

    run(closed())
    run(cancelled())


def test_stop_lets_the_pages_in_flight_finish(site: str) -> None:
    async def body() -> List[pagesight.CrawlResult]:
        crawl = pagesight.crawl(
            [f"{site}page{i}.html" for i in range(PAGES)], concurrency=2, retries=0
        )
        pages = []
        async for page in crawl:
            pages.append(page)
            crawl.stop()
        assert crawl.summary is not None and crawl.summary.stopped
        return pages

    pages = run(body())
    assert 1 <= len(pages) < PAGES
    assert all(page.ok for page in pages)


def test_abort_cuts_the_pages_in_flight_short(site: str) -> None:
    async def body() -> List[pagesight.CrawlResult]:
        crawl = pagesight.crawl(
            [f"{site}page{i}.html" for i in range(PAGES)], concurrency=3, retries=0
        )
        pages = []
        async for page in crawl:
            pages.append(page)
            crawl.abort()
        assert crawl.summary is not None and crawl.summary.stopped
        assert crawl.progress().in_flight == 0
        return pages

    pages = run(body())
    assert 1 <= len(pages) < PAGES
    # Each page in flight still came out: done, or cut short.
    for page in pages:
        assert page.ok or (page.error is not None and page.error.code == "CANCELLED"), page


def test_a_page_that_cannot_be_opened_is_a_result(site: str) -> None:
    async def body() -> List[pagesight.CrawlResult]:
        return [
            page
            async for page in pagesight.crawl(
                ["http://127.0.0.1:9/", "not a url at all"], retries=0, page_timeout=10
            )
        ]

    results = {r.url: r for r in run(body())}
    assert set(results) == {"http://127.0.0.1:9/", "not a url at all"}
    refused = results["http://127.0.0.1:9/"]
    assert not refused.ok and refused.error is not None
    assert refused.error.code == "NAVIGATION_FAILED" and refused.status is None
    assert results["not a url at all"].error is not None


def test_a_local_file_is_named_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here.html").write_text(_page(3), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    given = ["here.html", tmp_path / "here.html"]
    results = list(sync.crawl(given[:1], extract="text"))
    assert [r.url for r in results] == ["here.html"]
    (page,) = results
    assert page.ok and page.final_url == (tmp_path / "here.html").as_uri(), page
    assert page.text is not None and "the text of page 3" in page.text
    # The same file given as a path object is the same page: crawled once.
    results = list(sync.crawl(given))
    assert [r.url for r in results] == ["here.html"]


def test_the_sync_crawl(site: str) -> None:
    before = _chromium_children()
    urls = [f"{site}page{i}.html" for i in range(3)]
    with sync.crawl(urls, extract="text") as pages:
        results = list(pages)
    assert sorted(r.url for r in results) == sorted(urls)
    assert all(r.text and "which the crawl reads" in r.text for r in results)
    assert pages.summary is not None and pages.summary.pages == 3
    assert not _wait_gone(before, 0)
    # Leaving a plain loop early: the crawl ends when the iterator is let go.
    for page in sync.crawl(f"{site}page0.html", follow="same-origin", depth=20):
        assert page.ok
        assert _chromium_children() - before
        break
    assert not _wait_gone(before)


@pytest.mark.parametrize(
    "options, named",
    [
        ({"extract": "html"}, "extract"),
        ({"snapshot": "pixels"}, "snapshot"),
        ({"follow": "everything"}, "follow"),
        ({"concurrency": 0}, "concurrency"),
        ({"depth": 2}, "follow="),
        ({"follow": "same-origin", "depth": -1}, "depth"),
        ({"max_pages": -3}, "max_pages"),
        ({"retries": -1}, "retries"),
        ({"page_timeout": 0}, "page_timeout"),
        ({"page_timeout": float("nan")}, "page_timeout"),
        ({"browsers": [""]}, "browser"),
        ({"wait_until": "networkidle"}, "wait_until"),
    ],
)
def test_bad_arguments_raise_invalid_argument(options: Any, named: str) -> None:
    with pytest.raises(pagesight.InvalidArgumentError, match=named) as raised:
        pagesight.crawl(["https://example.com/"], **options)
    assert raised.value.code == "INVALID_ARGUMENT"
    with pytest.raises(pagesight.InvalidArgumentError):
        sync.crawl(["https://example.com/"], **options)


def test_no_url_raises_invalid_argument() -> None:
    with pytest.raises(pagesight.InvalidArgumentError, match="no URL"):
        pagesight.crawl([])
    with pytest.raises(pagesight.InvalidArgumentError, match="no URL"):
        pagesight.crawl(["  "])


def test_an_unreachable_browser_raises_at_the_first_step() -> None:
    async def body() -> None:
        crawl = pagesight.crawl("https://example.com/", browsers=["http://127.0.0.1:9"])
        with pytest.raises(pagesight.Error):
            await crawl.__anext__()
        with pytest.raises(StopAsyncIteration):
            await crawl.__anext__()

    run(body())
