"""A crawl in miniature, with both APIs: pages (URLs or local files) read into markdown, one
result per page as each is done, and the crawl ended early once enough was read. Type-checked
by the tests (`mypy --strict`).

    python3 python/examples/crawl.py fixtures/pages/forms.html fixtures/pages/links-list.html
"""

from __future__ import annotations

import asyncio
import sys
from typing import Dict, List

import pagesight
from pagesight import sync


async def read_pages(urls: List[str], enough: int) -> Dict[str, str]:
    """The markdown of up to `enough` pages; the crawl is ended when the loop is left."""
    read: Dict[str, str] = {}
    async with pagesight.crawl(urls, extract="markdown", concurrency=2) as pages:
        async for page in pages:
            if page.error is not None:
                print(f"{page.url}: {page.error.code}: {page.error.message}", file=sys.stderr)
                continue
            read[page.url] = page.markdown or ""
            print(f"{page.url} {page.status} {page.title!r} in {page.timings.total} ms")
            if len(read) >= enough:
                break
    summary = pages.summary
    if summary is not None:
        print(f"{summary.pages} pages, {summary.failed} failed")
    return read


def titles(urls: List[str]) -> List[str]:
    """The same without asyncio: each page's title."""
    found: List[str] = []
    for page in sync.crawl(urls):
        found.append(page.title or page.url)
    return found


def main() -> None:
    urls = sys.argv[1:] or ["https://example.com/"]
    read = asyncio.run(read_pages(urls, enough=len(urls)))
    for url, markdown in read.items():
        print(f"--- {url}\n{markdown[:200]}")
    print(titles(urls))


if __name__ == "__main__":
    main()
