"""Launch, open and snapshot: the text, the same snapshot as nodes, modes, formats, budgets."""

from __future__ import annotations

from conftest import ACTIONS, PAGES

import pagesight


def test_a_snapshot_is_the_engines_text_with_its_nodes(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        snap = await page.snapshot()
        assert snap.text.startswith('uid=1_0 RootWebArea "Action forms"'), snap.text
        assert (snap.mode, snap.format) == ("a11y", "text")
        root = snap.root
        assert root is not None and root.role == "RootWebArea" and root.name == "Action forms"
        uid = snap.uid_of(role="textbox", name="Name")
        # The uid is the one the text prints on the field's line, with its value.
        line = next(ln for ln in snap.text.splitlines() if f"uid={uid} " in ln)
        assert 'textbox "Name" value="old value"' in line
        node = next(n for n in snap.nodes if n.uid == uid)
        assert node.value == "old value" and node.interactive and node.visible
        assert node.bounds is not None and node.bounds.width > 0
        assert node.click_point is not None
        assert {n.uid for n in snap.nodes if n.uid} == set(
            w[4:] for ln in snap.text.splitlines() for w in ln.split() if w.startswith("uid=")
        )
        document = snap.json()
        assert document["title"] == "Action forms" and document["snapshot"] == snap.number == 1
        assert "Snapshot(mode='a11y'" in repr(snap) and "uid=" in repr(node)
        try:
            snap.uid_of(role="button", name="No such button")
        except LookupError as e:
            assert "No such button" in str(e)
        else:
            raise AssertionError("uid_of found a button that is not there")

    on_page(ACTIONS / "forms.html", body)


def test_dom_mode_json_format_budget_and_text_only(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        first = await page.snapshot()
        dom = await page.snapshot("dom")
        assert dom.mode == "dom" and "<input" in dom.text and "[" in dom.text
        assert dom.nodes and dom.nodes[0].role == "RootWebArea"
        as_json = await page.snapshot(format="json")
        assert as_json.json()["root"]["role"] == "RootWebArea"
        assert as_json.nodes[0].name == "Forms: values set by script"
        budgeted = await page.snapshot(max_chars=400)
        assert len(budgeted.text) <= 400
        assert budgeted.budget is not None and budgeted.budget["truncated"] is True
        text_only = await page.snapshot(tree=False)
        assert text_only.text.startswith("uid=1_0 RootWebArea")
        try:
            text_only.json()
        except ValueError as e:
            assert "tree=False" in str(e)
        else:
            raise AssertionError("a text-only snapshot had a tree")
        # The uids stay the same across snapshots of the page.
        again = await page.snapshot()
        assert again.number > dom.number
        assert again.uid_of(role="textbox") == first.uid_of(role="textbox")
        assert again.uid_of(role="textbox") in dom.text

    on_page(PAGES / "forms.html", body)


def test_diff_extract_screenshot_and_navigation(on_page, tmp_path) -> None:
    async def body(page: pagesight.Page) -> None:
        await page.snapshot()
        assert "no changes" in await page.diff()
        extraction = await page.extract()
        assert isinstance(extraction, pagesight.Extraction)
        # The engine's tests hold the whole markdown (served over HTTP); here, that it came.
        expected = (PAGES.parent / "extract" / "lists.html.md").read_text(encoding="utf-8")
        assert extraction.markdown.splitlines()[0] == expected.splitlines()[0]
        assert "3. Third step, with a paragraph." in extraction.markdown
        assert extraction.blocks and extraction.title
        shot = await page.screenshot()
        assert isinstance(shot, pagesight.Screenshot) and shot.width == 1280
        assert shot.data is not None and shot.data.startswith("iVBORw0KGgo")  # PNG, base64
        written = await page.screenshot(format="jpeg", path=tmp_path / "page.jpg")
        assert written.path is not None and (tmp_path / "page.jpg").read_bytes()[:2] == b"\xff\xd8"
        opened = await page.open(str(ACTIONS / "clicks.html"))
        assert isinstance(opened, pagesight.Opened) and opened.loaded
        assert opened.url.endswith("/clicks.html") and opened.summary
        back = await page.back()
        assert back.url is not None and back.url.endswith("/lists.html")
        forward = await page.forward()
        assert forward.url is not None and forward.url.endswith("/clicks.html")
        assert (await page.reload()).loaded
        resized = await page.resize(800, 600)
        assert resized.inner.width == 800

    on_page(PAGES.parent / "extract" / "lists.html", body)


def test_execute_runs_any_command_by_name(on_page) -> None:
    async def body(page: pagesight.Page) -> None:
        pages = await page.execute("pages")
        assert any(p["current"] for p in pages)
        text = await page.execute("snapshot", mode="dom")
        assert isinstance(text, str) and "<button" in text

    on_page(ACTIONS / "clicks.html", body)
