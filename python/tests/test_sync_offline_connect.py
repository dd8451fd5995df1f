"""The synchronous API, the offline render, connecting to a running browser, and the package's
own checks: its stubs under mypy, its result classes fresh from the protocol's schema."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ACTIONS, CAPTURES, GOLDEN, ROOT, run

import pagesight
from pagesight import sync


def test_the_sync_api() -> None:
    with sync.launch(allow_evaluate=True) as browser:
        assert browser.pid is not None and browser.endpoint is None
        page = browser.open(str(ACTIONS / "clicks.html"))
        snap = page.snapshot()
        clicked = page.click(snap.uid_of(role="button", name="Increment"))
        assert isinstance(clicked, pagesight.Clicked)
        assert page.evaluate("() => document.querySelector('#count').textContent") == "1"
        with pytest.raises(pagesight.UnknownUidError):
            page.click("9_999")
        form = browser.open(str(ACTIONS / "forms.html"))
        name = form.snapshot().uid_of(role="textbox", name="Name")
        assert form.fill(name, "Ada").value == "Ada"
        assert len(browser.pages) == 2
        pid = browser.pid
    # The browser and its profile are gone with the block.
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    browser.close()  # twice: nothing


def test_offline_render_is_the_golden_text() -> None:
    capture = CAPTURES / "checkout.json.gz"
    snap = pagesight.render_capture(capture)
    assert snap.text == (GOLDEN / "checkout.a11y.txt").read_text(encoding="utf-8")
    assert snap.uid_of(role="heading", name="Checkout form") == "1_29"
    dom = pagesight.render_capture(capture.read_bytes(), "dom")
    assert dom.text == (GOLDEN / "checkout.dom.txt").read_text(encoding="utf-8")
    as_json = pagesight.render_capture(capture, format="json")
    assert as_json.json()["root"]["role"] == "RootWebArea"
    assert pagesight.render_capture(capture, tree=False).text == snap.text


def test_connect_by_websocket_and_by_http() -> None:
    async def body() -> None:
        async with pagesight.launch(debugging_port=True) as launched:
            endpoint = launched.endpoint
            assert endpoint is not None and endpoint.startswith("ws://127.0.0.1:")
            http = "http://" + endpoint.split("/")[2]
            for address in (endpoint, http):
                async with pagesight.connect(address) as connected:
                    assert connected.pid is None and connected.endpoint == endpoint
                    page = await connected.open(str(ACTIONS / "clicks.html"))
                    snap = await page.snapshot()
                    await page.click(snap.uid_of(role="button", name="Increment"))
                    assert "Clicks: " in (await page.snapshot()).text
            # Disconnecting left the launched browser running.
            page = await launched.open(str(ACTIONS / "clicks.html"))
            assert (await page.snapshot()).text

    run(body())


def test_the_stubs_type_check_an_example(tmp_path: Path) -> None:
    examples = [str(ROOT / "python" / "examples" / name) for name in ("agent.py", "crawl.py")]
    # The examples against the installed package, then the installed package itself (its
    # Python half against the native half's stub); from a folder holding neither source.
    for target in (examples, ["-p", "pagesight"]):
        checked = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *target],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_example_runs() -> None:
    example = ROOT / "python" / "examples" / "agent.py"
    ran = subprocess.run(
        [sys.executable, str(example), str(ACTIONS / "forms.html")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert 'Filled textbox "Name"' in ran.stdout


def test_the_crawl_example_runs() -> None:
    example = ROOT / "python" / "examples" / "crawl.py"
    pages = [ROOT / "fixtures" / "pages" / name for name in ("forms.html", "links-list.html")]
    ran = subprocess.run(
        [sys.executable, str(example), *map(str, pages)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert "2 pages, 0 failed" in ran.stdout
    assert "'Forms: values set by script'" in ran.stdout


def test_the_result_classes_are_fresh_from_the_schema() -> None:
    generator = ROOT / "python" / "scripts" / "generate_results.py"
    checked = subprocess.run(
        [sys.executable, str(generator), "--check"], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_ending_right_after_an_await_exits_cleanly() -> None:
    # The last awaitable's hand-over to the event loop may still be under way when the program
    # ends; the package lets it finish before the interpreter finalizes (a thread that asked
    # for the GIL then used to abort the process). Racy by nature: tried a few times.
    script = (
        "import asyncio, pagesight, sys\n"
        "async def main():\n"
        "    async with pagesight.launch() as browser:\n"
        "        page = await browser.open(sys.argv[1])\n"
        "        await page.snapshot(tree=False)\n"
        "    async for _ in pagesight.crawl(sys.argv[1]):\n"
        "        pass\n"
        "asyncio.run(main())\n"
    )
    for _ in range(6):
        ran = subprocess.run(
            [sys.executable, "-c", script, str(ACTIONS / "clicks.html")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, (ran.returncode, ran.stderr)
