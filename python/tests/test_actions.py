"""Every action on the fixture pages (fixtures/pages/actions/README.md says what each shows),
with its effect read back in the page."""

from __future__ import annotations

import asyncio

from conftest import ACTIONS, text_of

import pagesight


def test_click_double_click_right_click(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        clicked = await page.click(snap.uid_of(role="button", name="Increment"))
        assert isinstance(clicked, pagesight.Clicked) and clicked.at is not None
        assert "Increment" in clicked.summary
        assert await text_of(page, "#count") == "1"
        await page.click(snap.uid_of(name="Double-click me"), count=2)
        assert await text_of(page, "#dbl-count") == "1"
        await page.click(snap.uid_of(name="Right-click me"), button="right")
        assert await text_of(page, "#ctx-count") == "1"
        # An action may bring the snapshot after it, and the change of the page's text.
        after = await page.click(snap.uid_of(role="button", name="Increment"), diff=True)
        assert after.changes is not None and "2" in after.changes

    on_page(ACTIONS / "clicks.html", body)


def test_hover(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        hovered = await page.hover(snap.uid_of(name="Account (JS)"), snapshot=True)
        assert isinstance(hovered, pagesight.Hovered)
        assert await text_of(page, "#hovered") != "none"
        assert isinstance(hovered.snapshot, str) and "uid=" in hovered.snapshot

    on_page(ACTIONS / "hover-menu.html", body)


def test_fill_select_press_and_type_text(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        filled = await page.fill(snap.uid_of(role="textbox", name="Name"), "Ada Lovelace")
        assert filled.value == "Ada Lovelace"
        assert await page.evaluate("() => document.querySelector('#name').value") == (
            "Ada Lovelace"
        )
        await page.fill(snap.uid_of(role="checkbox", name="I agree"), "true")
        assert await page.evaluate("() => document.querySelector('#agree').checked") is True
        color = snap.find(role="combobox")[0]
        assert color.value == "Red"
        selected = await page.select(color.uid, "Green")
        assert isinstance(selected, pagesight.Selected)
        assert await text_of(page, "#color-echo") == "changed:g"
        pressed = await page.press("Shift+A", uid=snap.uid_of(role="textbox", name="first"))
        assert isinstance(pressed, pagesight.Pressed)
        assert "A" in await text_of(page, "#keys")
        await page.click(snap.uid_of(role="textbox", name="Search"))
        typed = await page.type_text("hello", submit_key="Enter")
        assert typed.typed == "hello" and typed.submit_key == "Enter"
        assert await text_of(page, "#submitted") == "yes:hello"

    on_page(ACTIONS / "forms.html", body)


def test_scroll_the_page_and_a_container(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        scrolled = await page.scroll(pixels=300)
        assert scrolled.moved is not None and scrolled.moved > 0
        assert await page.evaluate("() => window.scrollY") > 0
        await page.scroll(direction="up", pixels=1000)
        snap = await page.snapshot()
        box = next(n for n in snap.nodes if n.scroll and "Item 0" in [c.name for c in n.children])
        await page.scroll(box.uid, pixels=100)
        assert await page.evaluate("() => document.querySelector('#box').scrollTop") > 0

    on_page(ACTIONS / "scroll.html", body)


def test_upload(on_page, tmp_path) -> None:
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n")

    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        uploaded = await page.upload(snap.uid_of(role="button", name="Choose Files"), photo)
        assert uploaded.files == ["photo.png"]
        assert "photo.png" in await text_of(page, "#photo-names")

    on_page(ACTIONS / "upload.html", body)


def test_drag(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        dragged = await page.drag(
            snap.uid_of(role="button", name="Card A"), snap.uid_of(role="region", name="Done")
        )
        assert isinstance(dragged, pagesight.Dragged) and dragged.native is True
        assert await text_of(page, "#dropped") == "card into done"

    on_page(ACTIONS / "drag.html", body)


def test_dialogs_are_answered(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        clicked = await page.click(snap.uid_of(role="button", name="Confirm"))
        assert clicked.dialog is not None and clicked.dialog.type == "confirm"
        assert clicked.dialog.message == "Delete everything?"
        answered = await page.dialog(True)
        assert isinstance(answered, pagesight.DialogAnswered) and answered.accepted
        assert await text_of(page, "#confirm-result") == "true"
        await page.click(snap.uid_of(role="button", name="Prompt"))
        await page.dialog(True, text="Ada")
        assert await text_of(page, "#prompt-result") == "Ada"

    on_page(ACTIONS / "dialogs.html", body)


def test_wait_for(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        await page.click(snap.uid_of(role="button", name="Load results"))
        waited = await page.wait_for(["Found 3 results", "Nothing found"], timeout=5)
        assert waited.found == "Found 3 results" and waited.waited > 0

    on_page(ACTIONS / "settle.html", body)


def test_the_event_loop_runs_while_a_command_waits(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        try:
            await page.wait_for("Found 3 results", timeout=0.5)
        except pagesight.TimeoutError:
            pass
        ticker.cancel()
        # Half a second of waiting in the engine: the loop ticked all along.
        assert ticks >= 20, ticks

    on_page(ACTIONS / "settle.html", body)
