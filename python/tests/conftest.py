"""What the tests share: the repository's fixture pages and captures, and one headless Chromium
for the whole run (launched and closed on event loops of their own: the native browser is bound
to no loop, each call to the loop that awaits it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Awaitable, Callable, Coroutine, Iterator, TypeVar

import pytest

import pagesight

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "fixtures" / "pages"
ACTIONS = PAGES / "actions"
CAPTURES = ROOT / "fixtures" / "captures"
GOLDEN = ROOT / "fixtures" / "golden"

T = TypeVar("T")


def run(call: Coroutine[Any, Any, T]) -> T:
    """Runs one test's coroutine on a fresh event loop."""
    return asyncio.run(call)


async def _launch(**options: Any) -> pagesight.Browser:
    return await pagesight.launch(**options)


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pagesight.Browser]:
    """A browser that allows `evaluate` (the tests read what the page saw with it) and files
    in the tests' temporary folders."""
    folder = tmp_path_factory.getbasetemp()
    launched = run(_launch(allow_evaluate=True, allow_dirs=[str(folder)]))
    yield launched
    run(launched.close())


@pytest.fixture
def on_page(browser: pagesight.Browser) -> Callable[..., None]:
    """Runs `body(page)` on a new tab showing `url`, closing the tab afterwards."""

    def with_page(url: Path | str, body: Callable[[pagesight.Page], Awaitable[None]]) -> None:
        async def whole() -> None:
            page = await browser.open(str(url))
            try:
                await body(page)
            finally:
                await page.close()

        run(whole())

    return with_page


async def text_of(page: pagesight.Page, selector: str) -> str:
    """What the page shows in the element `selector`, read in the page."""
    return str(
        await page.evaluate(f"() => document.querySelector({selector!r}).textContent.trim()")
    )
