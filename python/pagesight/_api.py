"""The asyncio API: `launch()` and `connect()` give a `Browser`; `Browser.open()` gives a `Page`;
each method of a page is one command of the engine's protocol (docs/protocol.md) and answers
with its typed result (`pagesight._results`) or raises the exception of its error code.

What every call promises: the engine runs on the extension's own threads without the GIL, so
awaiting a command never blocks the event loop; commands on one page run one at a time in the
order they were awaited, and different pages run at the same time; cancelling the task that
awaits a command cancels the command (the page stays usable: take a new snapshot if it was an
action, since part of it may have happened).
"""

from __future__ import annotations

import json
import os
from types import TracebackType
from typing import (
    Any,
    Awaitable,
    Dict,
    Generator,
    List,
    Literal,
    Optional,
    Sequence,
    Type,
    Union,
)

from . import _native
from ._errors import reraise
from ._results import (
    Clicked,
    DialogAnswered,
    Dragged,
    Evaluated,
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

Mode = Literal["a11y", "dom"]
Format = Literal["text", "json"]
Expand = Union[None, float, Literal["all"]]
"""How far beyond the viewport a snapshot shows elements: None (the viewport), CSS px, or
`"all"` (the whole page)."""
Button = Literal["left", "right", "middle"]
Direction = Literal["down", "up", "left", "right"]
PathLike = Union[str, "os.PathLike[str]"]


def _fields(**fields: Any) -> Dict[str, Any]:
    """A command's fields without those left out (None), which take the engine's defaults."""
    return {k: v for k, v in fields.items() if v is not None}


def _one_or_many(value: Union[PathLike, Sequence[PathLike]]) -> List[Any]:
    if isinstance(value, (str, os.PathLike)):
        return [value]
    return list(value)


class Page:
    """One tab, with its own uids and previous snapshot. Made by `Browser.open`."""

    def __init__(self, native: _native.Page, browser: Browser) -> None:
        self._native = native
        self.browser = browser
        """The browser the page is in."""

    @property
    def target_id(self) -> str:
        """Chromium's id of the tab."""
        return self._native.target_id

    async def execute(self, cmd: str, **fields: Any) -> Any:
        """Runs any command of the protocol by its name and wire fields
        (`await page.execute("console_messages", pageSize=20)`), answering with its result as
        plain JSON values: for commands that have no method here."""
        try:
            return await self._native.execute({**fields, "cmd": cmd})
        except _native.EngineError as e:
            reraise(e)

    async def _command(self, cmd: str, fields: Dict[str, Any]) -> Any:
        fields["cmd"] = cmd
        try:
            return await self._native.execute(fields)
        except _native.EngineError as e:
            reraise(e)

    # Navigation.

    async def open(self, url: str) -> Opened:
        """Navigates this page to a URL or a local file and waits for its `load`."""
        return Opened._from_json(await self._command("open", {"url": url}))

    async def back(self) -> Navigation:
        """Goes back one entry in the page's history."""
        return Navigation._from_json(await self._command("back", {}))

    async def forward(self) -> Navigation:
        """Goes forward one entry in the page's history."""
        return Navigation._from_json(await self._command("forward", {}))

    async def reload(self) -> Navigation:
        """Reloads the page and waits for the new document."""
        return Navigation._from_json(await self._command("reload", {}))

    # Perception.

    async def snapshot(
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
        """Takes a snapshot: `mode` `"a11y"` (the accessibility tree) or `"dom"` (an indexed
        list); `expand` how far beyond the viewport; `uid` one element's subtree only;
        `max_chars` a budget for the text. With `tree` (the default) the same snapshot's JSON
        document comes along for `.nodes` and `.uid_of()`; `tree=False` skips rendering it."""
        options = _fields(
            mode=mode, format=format, expand=expand, verbose=verbose, uid=uid, maxChars=max_chars
        )
        try:
            output, document = await self._native.snapshot(options, tree)
        except _native.EngineError as e:
            reraise(e)
        return Snapshot(output, document, mode, format)

    async def diff(self) -> str:
        """Takes a snapshot and answers how its text differs from the previous one's."""
        return str(await self._command("diff", {}))

    async def extract(self, *, all: bool = False) -> Extraction:
        """The page's main content (with `all`, the whole visible page) as markdown and as
        text, with the uids of the elements it came from."""
        return Extraction._from_json(await self._command("extract", {"all": all}))

    async def screenshot(
        self,
        *,
        format: Literal["png", "jpeg", "webp"] = "png",
        quality: Optional[int] = None,
        uid: Optional[str] = None,
        full_page: bool = False,
        annotate: bool = False,
        path: Optional[PathLike] = None,
    ) -> Screenshot:
        """A picture of the viewport, the whole page or one element, as base64 `data` or
        written to `path`; with `annotate`, every interactive element boxed with its uid."""
        fields = _fields(
            format=format,
            quality=quality,
            uid=uid,
            fullPage=full_page,
            annotate=annotate,
            path=path,
        )
        return Screenshot._from_json(await self._command("screenshot", fields))

    async def evaluate(self, function: str, *args: str) -> Any:
        """Runs a JavaScript function in the page (`"() => document.title"`), with the elements
        of these uids as its arguments, and answers what it returned. The browser must be
        launched with `allow_evaluate=True`."""
        result = Evaluated._from_json(
            await self._command("evaluate", {"function": function, "args": list(args)})
        )
        return result.value

    # Actions. Each takes `snapshot=True` (the result's `snapshot` is the page after it) and
    # `diff=True` (the result's `changes` is how the snapshot's text changed).

    async def click(
        self,
        uid: str,
        *,
        button: Button = "left",
        count: int = 1,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Clicked:
        """Clicks the element (`count=2`: a double click) at a visible, uncovered point."""
        fields = _fields(uid=uid, button=button, count=count, snapshot=snapshot, diff=diff)
        return Clicked._from_json(await self._command("click", fields))

    async def hover(self, uid: str, *, snapshot: bool = False, diff: bool = False) -> Hovered:
        """Moves the mouse over the element."""
        fields = _fields(uid=uid, snapshot=snapshot, diff=diff)
        return Hovered._from_json(await self._command("hover", fields))

    async def fill(
        self, uid: str, text: str, *, snapshot: bool = False, diff: bool = False
    ) -> Filled:
        """Types `text` into a field (replacing its value), ticks or unticks a checkbox or radio
        (`"true"` / `"false"`), or chooses the option of a select with this text or value."""
        fields = _fields(uid=uid, text=text, snapshot=snapshot, diff=diff)
        return Filled._from_json(await self._command("fill", fields))

    async def select(
        self,
        uid: str,
        option: Union[str, Sequence[str]],
        *,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Selected:
        """Chooses an option (or several, for a multiple select) of a `<select>`, a listbox or
        a custom drop-down, by its text or value."""
        options = [option] if isinstance(option, str) else list(option)
        fields = _fields(uid=uid, option=options, snapshot=snapshot, diff=diff)
        return Selected._from_json(await self._command("select", fields))

    async def press(
        self,
        key: str,
        *,
        uid: Optional[str] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Pressed:
        """Presses a key or chord (`"Enter"`, `"Control+A"`), on the element `uid` (focused
        first) or on whatever has the focus."""
        fields = _fields(key=key, uid=uid, snapshot=snapshot, diff=diff)
        return Pressed._from_json(await self._command("press", fields))

    async def scroll(
        self,
        uid: Optional[str] = None,
        *,
        direction: Direction = "down",
        pixels: Optional[float] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Scrolled:
        """Scrolls the page, or the scroll container of the element `uid`, with the mouse
        wheel: `pixels` CSS px (default: most of the view) in `direction`."""
        fields = _fields(
            uid=uid, direction=direction, pixels=pixels, snapshot=snapshot, diff=diff
        )
        return Scrolled._from_json(await self._command("scroll", fields))

    async def upload(
        self,
        uid: str,
        files: Union[PathLike, Sequence[PathLike]],
        *,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Uploaded:
        """Sets the files of a file input (or of the input a button or label opens). The files
        must lie in the folders the browser allows (the current directory, the temporary folder,
        and `allow_dirs` of `launch`)."""
        fields = _fields(uid=uid, files=_one_or_many(files), snapshot=snapshot, diff=diff)
        return Uploaded._from_json(await self._command("upload", fields))

    async def drag(
        self, from_uid: str, to_uid: str, *, snapshot: bool = False, diff: bool = False
    ) -> Dragged:
        """Drags one element with the mouse and drops it on another."""
        fields = _fields(fromUid=from_uid, toUid=to_uid, snapshot=snapshot, diff=diff)
        return Dragged._from_json(await self._command("drag", fields))

    async def type_text(
        self,
        text: str,
        *,
        submit_key: Optional[str] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> Typed:
        """Types text into whatever has the keyboard focus, then presses `submit_key` if given."""
        fields = _fields(text=text, submitKey=submit_key, snapshot=snapshot, diff=diff)
        return Typed._from_json(await self._command("type_text", fields))

    async def dialog(
        self,
        accept: bool,
        *,
        text: Optional[str] = None,
        snapshot: bool = False,
        diff: bool = False,
    ) -> DialogAnswered:
        """Answers the open `alert`, `confirm`, `prompt` or `beforeunload` dialog: OK
        (`accept=True`) or Cancel, typing `text` into a prompt."""
        fields = _fields(accept=accept, text=text, snapshot=snapshot, diff=diff)
        return DialogAnswered._from_json(await self._command("dialog", fields))

    async def wait_for(
        self, text: Union[str, Sequence[str]], *, timeout: Optional[float] = None
    ) -> Waited:
        """Waits until one of the texts appears on the page, at most `timeout` seconds (default
        5, at most 60); raises `pagesight.TimeoutError` when none did."""
        texts = [text] if isinstance(text, str) else list(text)
        ms = None if timeout is None else max(1, round(timeout * 1000))
        return Waited._from_json(await self._command("wait_for", _fields(text=texts, timeout=ms)))

    async def resize(self, width: int, height: int) -> Resized:
        """Sets the size of the page's viewport, CSS px."""
        return Resized._from_json(
            await self._command("resize", {"width": width, "height": height})
        )

    async def close(self) -> None:
        """Closes the tab. Closing twice does nothing; later commands raise
        `InvalidArgumentError`."""
        try:
            await self._native.close()
        except _native.EngineError as e:
            reraise(e)
        if self in self.browser.pages:
            self.browser.pages.remove(self)

    def __repr__(self) -> str:
        return f"Page(target_id={self.target_id!r})"


class Browser:
    """A launched or connected Chromium. `async with` closes it (a launched one with its
    profile; a connected one is only disconnected from)."""

    def __init__(self, native: _native.Browser) -> None:
        self._native = native
        self.pages: List[Page] = []
        """The pages opened from it and not closed."""

    @property
    def pid(self) -> Optional[int]:
        """The process id of a launched browser; None for a connected one."""
        return self._native.pid

    @property
    def endpoint(self) -> Optional[str]:
        """The DevTools WebSocket address: a connected browser's, or a launched one's with
        `debugging_port=True`; None otherwise (it listens on no port)."""
        return self._native.endpoint

    async def open(self, url: str) -> Page:
        """Opens a new tab, loads `url` (a URL or the path of a local file) and waits for its
        `load`."""
        try:
            page = Page(await self._native.open(os.fspath(url)), self)
        except _native.EngineError as e:
            reraise(e)
        self.pages.append(page)
        return page

    async def close(self) -> None:
        """Closes the pages opened from it, then the browser. Closing twice does nothing."""
        for page in list(self.pages):
            try:
                await page.close()
            except Exception:  # noqa: BLE001 - the browser closes whatever a tab did
                pass
        self.pages.clear()
        await self._native.close()

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        where = f"pid={self.pid}" if self.pid is not None else f"endpoint={self.endpoint!r}"
        return f"Browser({where}, pages={len(self.pages)})"


class BrowserStart(Awaitable[Browser]):
    """What `launch()` and `connect()` return: await it for the `Browser`, or use it with
    `async with`, which closes the browser at the end of the block."""

    def __init__(self, start: Awaitable[_native.Browser]) -> None:
        self._start = start
        self._browser: Optional[Browser] = None

    async def _browser_started(self) -> Browser:
        try:
            self._browser = Browser(await self._start)
        except _native.EngineError as e:
            reraise(e)
        return self._browser

    def __await__(self) -> Generator[Any, None, Browser]:
        return self._browser_started().__await__()

    async def __aenter__(self) -> Browser:
        return await self._browser_started()

    async def __aexit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        if self._browser is not None:
            await self._browser.close()


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
) -> BrowserStart:
    """Launches a headless Chromium (`executable`, else the `CHROME` variable, else `PATH`) with
    a fresh temporary profile, driven over a pipe: it opens no TCP port unless
    `debugging_port=True`. `width`/`height`: the viewport of its pages; `load_timeout`
    (seconds, default 30): how long opening a page waits for `load`; `allow_dirs`: folders
    whose files `upload` and `screenshot(path=)` may use besides the current directory and the
    temporary folder; `allow_evaluate`: allow `Page.evaluate`; `collect_devtools`: record console
    messages and network requests (`Page.execute("console_messages")`); `args`: more Chromium
    flags."""
    start = _native.launch(
        executable=None if executable is None else os.fspath(executable),
        width=width,
        height=height,
        device_scale_factor=device_scale_factor,
        load_timeout=load_timeout,
        launch_timeout=launch_timeout,
        debugging_port=debugging_port,
        allow_dirs=[os.fspath(d) for d in allow_dirs],
        allow_evaluate=allow_evaluate,
        collect_devtools=collect_devtools,
        args=list(args),
    )
    return BrowserStart(start)


def connect(
    endpoint: str,
    *,
    load_timeout: Optional[float] = None,
    allow_evaluate: bool = False,
    collect_devtools: bool = False,
) -> BrowserStart:
    """Connects to a running browser: `ws://host:port/devtools/browser/<id>`, or
    `http://host:port` (its `/json/version` names the WebSocket). Closing it only disconnects."""
    start = _native.connect(
        endpoint,
        load_timeout=load_timeout,
        allow_evaluate=allow_evaluate,
        collect_devtools=collect_devtools,
    )
    return BrowserStart(start)


def render_capture(
    capture: Union[PathLike, bytes],
    mode: Mode = "a11y",
    *,
    format: Format = "text",
    expand: Expand = None,
    verbose: bool = False,
    max_chars: Optional[int] = None,
    tree: bool = True,
) -> Snapshot:
    """Renders a saved capture (a file `pagesight capture` wrote, or its bytes) offline, without
    a browser, as `Page.snapshot` would have: the same options, a fresh uid table. Synchronous:
    it releases the GIL while it renders (run it in a thread to keep an event loop free)."""
    if isinstance(capture, bytes):
        data = capture
    else:
        with open(capture, "rb") as f:
            data = f.read()
    options = _fields(mode=mode, format=format, expand=expand, verbose=verbose, maxChars=max_chars)
    try:
        output, document = _native.render_capture(data, options, tree)
    except _native.EngineError as e:
        reraise(e)
    parsed: Union[str, Dict[str, Any]] = json.loads(output) if format == "json" else output
    return Snapshot(parsed, document, mode, format)
