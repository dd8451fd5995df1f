"""Cancellation, and pages used at the same time from one event loop."""

from __future__ import annotations

import asyncio
import time

import pytest
from conftest import ACTIONS, run, text_of

import pagesight


def test_cancelling_an_awaiting_task_cancels_the_command(browser: pagesight.Browser) -> None:
    async def body() -> None:
        page = await browser.open(str(ACTIONS / "settle.html"))
        waiting = asyncio.ensure_future(page.wait_for("This text never appears", timeout=30))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert time.monotonic() - started < 1
        # The command let go of the page: the next one runs at once, on a page still whole.
        started = time.monotonic()
        snap = await asyncio.wait_for(page.snapshot(), timeout=5)
        assert time.monotonic() - started < 5
        await page.click(snap.uid_of(role="button", name="Load results"))
        assert (await page.wait_for("Found 3 results")).found == "Found 3 results"
        # A task cancelled by a timeout of asyncio's is the same.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(page.wait_for("Never", timeout=30), timeout=0.2)
        assert "Load results" in (await page.snapshot()).text
        await page.close()

    run(body())


def test_two_pages_run_at_the_same_time(browser: pagesight.Browser) -> None:
    async def body() -> None:
        waiting, working = await asyncio.gather(
            browser.open(str(ACTIONS / "settle.html")), browser.open(str(ACTIONS / "clicks.html"))
        )
        done: dict = {}

        async def wait() -> None:
            with pytest.raises(pagesight.TimeoutError):
                await waiting.wait_for("This text never appears", timeout=5)
            done["wait"] = time.monotonic()

        async def work() -> None:
            for _ in range(3):
                snap = await working.snapshot()
                await working.click(snap.uid_of(role="button", name="Increment"))
            done["work"] = time.monotonic()

        started = time.monotonic()
        await asyncio.gather(wait(), work())
        # The clicks on one page were done while the other page's command still waited.
        assert done["work"] < done["wait"], (done["work"] - started, done["wait"] - started)
        assert await text_of(working, "#count") == "3"
        # Commands on one page run one after the other, in the order they were awaited.
        first, second = await asyncio.gather(working.snapshot(), working.snapshot())
        assert second.number == first.number + 1
        await asyncio.gather(waiting.close(), working.close())

    run(body())
