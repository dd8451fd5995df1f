"""An agent's loop in miniature, with both APIs: the page's text for a model to read, an action
on a uid from it, and what changed. Type-checked by the tests (`mypy --strict`).

    python3 python/examples/agent.py fixtures/pages/actions/forms.html
"""

from __future__ import annotations

import asyncio
import sys

import pagesight
from pagesight import sync


async def fill_the_name(url: str) -> str:
    async with pagesight.launch() as browser:
        page = await browser.open(url)
        snap = await page.snapshot(mode="a11y")
        print(snap.text)
        field: str = snap.uid_of(role="textbox", name="Name")
        try:
            filled: pagesight.Filled = await page.fill(field, "Ada Lovelace", diff=True)
        except pagesight.StaleUidError:
            return "the field went away; take a new snapshot"
        except pagesight.Error as e:
            return f"{e.code} (retryable: {e.retryable}): {e.message}"
        print(filled.summary, filled.changes or "")
        extraction: pagesight.Extraction = await page.extract()
        return extraction.markdown


def count_clicks(url: str) -> int:
    with sync.launch(width=1024, height=768) as browser:
        page = browser.open(url)
        snap = page.snapshot()
        buttons = [n for n in snap.nodes if n.role == "button" and n.interactive]
        clicked: pagesight.Clicked = page.click(buttons[0].uid)
        at = clicked.at
        return 0 if at is None else int(at.x)


def offline(path: str) -> list[str]:
    snapshot = pagesight.render_capture(path, "dom")
    return [node.uid for node in snapshot.nodes if node.uid]


if __name__ == "__main__":
    print(asyncio.run(fill_the_name(sys.argv[1])))
