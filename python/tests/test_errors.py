"""Failures raise the exception class of their engine code, with its code, retryability and
the engine's message."""

from __future__ import annotations

import pytest
from conftest import ACTIONS, PAGES, run

import pagesight
from pagesight import _native
from pagesight._errors import ERROR_CLASSES


def test_every_engine_code_has_its_class() -> None:
    for code, retryable in _native.error_codes():
        cls = ERROR_CLASSES[code]
        assert issubclass(cls, pagesight.Error) and cls.code == code
        error = cls("message", code, retryable)
        assert (error.code, error.retryable, error.message) == (code, retryable, "message")
        assert str(error) == f"{code}: message"
        assert getattr(pagesight, cls.__name__) is cls
    assert pagesight.StaleUidError.__module__ == "pagesight"


def raises(cls: type, call) -> pagesight.Error:
    """Runs `call` and checks it raised `cls`, which it answers with."""
    async def whole() -> pagesight.Error:
        with pytest.raises(cls) as caught:
            await call()
        return caught.value

    error = run(whole())
    assert isinstance(error, pagesight.Error) and error.code == cls.code
    assert error.message
    return error


async def _page(browser: pagesight.Browser, url) -> pagesight.Page:
    return await browser.open(str(url))


def test_uid_errors(browser: pagesight.Browser) -> None:
    page = run(_page(browser, ACTIONS / "clicks.html"))

    async def click(uid: str) -> None:
        await page.click(uid)

    error = raises(pagesight.NoSnapshotError, lambda: click("1_26"))
    assert not error.retryable and "snapshot" in error.message
    snap = run(page.snapshot())
    error = raises(pagesight.UnknownUidError, lambda: click("7_777"))
    assert "7_777" in error.message
    removable = snap.uid_of(role="button", name="Remove me soon")
    run(page.click(snap.uid_of(role="button", name="Remove the other button")))
    raises(pagesight.StaleUidError, lambda: click(removable))
    error = raises(
        pagesight.NotInteractableError,
        lambda: click(snap.uid_of(role="button", name="Disabled")),
    )
    assert "disabled" in error.message
    run(page.close())


def test_occluded_is_retryable(browser: pagesight.Browser) -> None:
    page = run(_page(browser, PAGES / "overlay-modal.html"))
    snap = run(page.snapshot())
    covered = next(n for n in snap.nodes if n.occluded and n.uid and n.interactive)

    async def click() -> None:
        await page.click(covered.uid)

    error = raises(pagesight.OccludedError, click)
    assert error.retryable
    run(page.close())


def test_timeout_navigation_and_argument_errors(browser: pagesight.Browser) -> None:
    page = run(_page(browser, ACTIONS / "settle.html"))

    async def wait() -> None:
        await page.wait_for("This text never appears", timeout=0.3)

    assert raises(pagesight.TimeoutError, wait).retryable

    async def refused() -> None:
        await page.open("http://127.0.0.1:9/")

    raises(pagesight.NavigationFailedError, refused)

    async def bad_field() -> None:
        await page.click("1_1", count=7)

    error = raises(pagesight.InvalidArgumentError, bad_field)
    assert '"count"' in error.message

    async def unknown_command() -> None:
        await page.execute("fly")

    assert "unknown command" in raises(pagesight.InvalidArgumentError, unknown_command).message

    async def evaluate_off() -> None:
        async with pagesight.launch() as other:
            tab = await other.open(str(ACTIONS / "clicks.html"))
            await tab.evaluate("() => 1")

    raises(pagesight.InvalidArgumentError, evaluate_off)
    run(page.close())

    async def closed_page() -> None:
        await page.snapshot()

    assert "closed" in raises(pagesight.InvalidArgumentError, closed_page).message


def test_a_closed_browser_is_browser_closed() -> None:
    async def body() -> None:
        browser = await pagesight.launch()
        page = await browser.open(str(ACTIONS / "clicks.html"))
        # The browser goes away under the page (the page is not closed first).
        browser.pages.clear()
        await browser.close()
        with pytest.raises(pagesight.BrowserClosedError):
            await page.snapshot()
        with pytest.raises(pagesight.BrowserClosedError):
            await browser.open(str(ACTIONS / "clicks.html"))

    run(body())


def test_offline_errors() -> None:
    with pytest.raises(pagesight.Error):
        pagesight.render_capture(b"not a capture")
    with pytest.raises(pagesight.InvalidArgumentError):
        pagesight.render_capture(PAGES.parent / "captures" / "checkout.json.gz", "pixels")  # type: ignore[arg-type]
