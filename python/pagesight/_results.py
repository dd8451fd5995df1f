"""The typed results of pagesight's commands, generated from the engine's JSON Schema of its
results (docs/protocol.schema.json) by python/scripts/generate_results.py: do not edit by hand.

Each class is a frozen dataclass whose fields are the result's wire fields in snake_case; what
each field means is its docstring here and the protocol's section of its command
(docs/protocol.md).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, List, Literal, Optional, TypeVar, Union

T = TypeVar("T")


def _optional(value: Any, convert: Callable[[Any], T]) -> Optional[T]:
    return None if value is None else convert(value)


class Result:
    """A command's result: its fields are attributes; `repr` leaves out those that are None."""

    def __repr__(self) -> str:
        shown = (
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)  # type: ignore[arg-type]
            if getattr(self, f.name) is not None
        )
        return f"{type(self).__name__}({', '.join(shown)})"

@dataclass(frozen=True, repr=False)
class Clicked(Result):
    """`click`."""

    clicked: str
    """The uid clicked."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    at: Optional[Point] = None
    """Where (viewport CSS px)."""
    button: Optional[Literal["left", "right", "middle"]] = None
    """The button pressed."""
    changed: Optional[bool] = None
    """A native select: whether `change` fired."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    count: Optional[int] = None
    """How many clicks."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    option: Optional[str] = None
    """A custom drop-down, or an `<option>` clicked: the option chosen."""
    options: Optional[List[SelectOption]] = None
    """A native select: the options selected now."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    url: Optional[str] = None
    """Where that navigation went."""
    value: Any = None
    """The value the control holds now (a password reads `********`; a native select's value, or what a custom drop-down shows)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Clicked:
        return cls(
            clicked=data["clicked"],
            summary=data.get("summary", ""),
            at=_optional(data.get("at"), Point._from_json),
            button=data.get("button"),
            changed=data.get("changed"),
            changes=data.get("changes"),
            count=data.get("count"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            option=data.get("option"),
            options=_optional(data.get("options"), lambda v: [SelectOption._from_json(i) for i in v]),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            url=data.get("url"),
            value=data.get("value"),
        )


@dataclass(frozen=True, repr=False)
class Closed(Result):
    """`close`."""

    closed: str
    """The closed page's target id."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Closed:
        return cls(
            closed=data["closed"],
        )


@dataclass(frozen=True, repr=False)
class ConsoleMessageDetail(Result):
    """`console_message`: one message in full."""

    args: List[Any]
    """Each argument of the `console.*` call: a string, number or boolean as itself, an object or array as the preview the console shows (property values as text), anything else as its description."""
    id: int
    """The message's id on this page (what `console_message` takes)."""
    source: str
    """`console-api` (a `console.*` call), `exception` (uncaught), or what of the browser logged it (`network`, `violation`, `javascript`, `deprecation`, `intervention`, …)."""
    stack_trace: List[StackFrame]
    """Where it was logged or thrown, innermost call first (empty when Chromium gave none)."""
    text: str
    """The message as the console shows it: the arguments joined by spaces."""
    type: str
    """`log`, `debug`, `info`, `error`, `warn`, `dir`, `table`, `trace`, `assert`, `count`, `timeEnd`, `verbose`, … (an uncaught exception is an `error`)."""
    column: Optional[int] = None
    """Its column there (from 1)."""
    line: Optional[int] = None
    """Its line there (from 1)."""
    timestamp: Optional[float] = None
    """When, in milliseconds since the epoch."""
    url: Optional[str] = None
    """The script or resource it came from."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> ConsoleMessageDetail:
        return cls(
            args=data["args"],
            id=data["id"],
            source=data["source"],
            stack_trace=[StackFrame._from_json(i) for i in data["stackTrace"]],
            text=data["text"],
            type=data["type"],
            column=data.get("column"),
            line=data.get("line"),
            timestamp=data.get("timestamp"),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class ConsoleMessageList(Result):
    """`console_messages`: one page of the list."""

    dropped: int
    """How many older messages were dropped to keep the newest 1000."""
    messages: List[ConsoleMessageSummary]
    """The messages of this page of the list, oldest first."""
    page_idx: int
    """The page of the list returned."""
    pages: int
    """How many pages of `pageSize` those make."""
    total: int
    """How many messages (of the requested types) the page has kept."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> ConsoleMessageList:
        return cls(
            dropped=data["dropped"],
            messages=[ConsoleMessageSummary._from_json(i) for i in data["messages"]],
            page_idx=data["pageIdx"],
            pages=data["pages"],
            total=data["total"],
        )


@dataclass(frozen=True, repr=False)
class ConsoleMessageSummary(Result):
    """One console message as `console_messages` lists it."""

    id: int
    """The message's id on this page (what `console_message` takes)."""
    source: str
    """`console-api` (a `console.*` call), `exception` (uncaught), or what of the browser logged it (`network`, `violation`, `javascript`, `deprecation`, `intervention`, …)."""
    text: str
    """The message as the console shows it: the arguments joined by spaces."""
    type: str
    """`log`, `debug`, `info`, `error`, `warn`, `dir`, `table`, `trace`, `assert`, `count`, `timeEnd`, `verbose`, … (an uncaught exception is an `error`)."""
    column: Optional[int] = None
    """Its column there (from 1)."""
    line: Optional[int] = None
    """Its line there (from 1)."""
    url: Optional[str] = None
    """The script or resource it came from."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> ConsoleMessageSummary:
        return cls(
            id=data["id"],
            source=data["source"],
            text=data["text"],
            type=data["type"],
            column=data.get("column"),
            line=data.get("line"),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class Dialog(Result):
    """A JavaScript dialog waiting for an answer."""

    message: str
    """The text the page shows in it."""
    type: str
    """`alert`, `confirm`, `prompt` or `beforeunload`."""
    default_prompt: Optional[str] = None
    """A prompt's default text."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Dialog:
        return cls(
            message=data["message"],
            type=data["type"],
            default_prompt=data.get("defaultPrompt"),
        )


@dataclass(frozen=True, repr=False)
class DialogAnswered(Result):
    """`dialog`."""

    accepted: bool
    """Whether it was accepted (OK) or dismissed (Cancel)."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """The dialog answered (`null` if it had closed meanwhile)."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    next: Optional[Dialog] = None
    """Another dialog that opened right after."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    prompt_text: Optional[str] = None
    """The text typed into a prompt."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    url: Optional[str] = None
    """Where that navigation went."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> DialogAnswered:
        return cls(
            accepted=data["accepted"],
            summary=data.get("summary", ""),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            next=_optional(data.get("next"), Dialog._from_json),
            note=data.get("note"),
            prompt_text=data.get("promptText"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class Dragged(Result):
    """`drag`."""

    dragged: str
    """The uid dragged."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    from_: Optional[Point] = None
    """Where the mouse was pressed (viewport CSS px)."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    native: Optional[bool] = None
    """Whether the page started an HTML5 drag (`dragstart`), which was then dropped with drag events; `false`: the page followed the mouse alone."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    onto: Optional[str] = None
    """The uid it was dropped on."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    to: Optional[Point] = None
    """Where it was released (viewport CSS px)."""
    url: Optional[str] = None
    """Where that navigation went."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Dragged:
        return cls(
            dragged=data["dragged"],
            summary=data.get("summary", ""),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            from_=_optional(data.get("from"), Point._from_json),
            loaded=data.get("loaded"),
            native=data.get("native"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            onto=data.get("onto"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            to=_optional(data.get("to"), Point._from_json),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class ErrorBody(Result):
    """A failure inside an otherwise successful command (the snapshot after an action)."""

    code: str
    """The error code (`STALE_UID`, …)."""
    message: str
    """What happened and what to do."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> ErrorBody:
        return cls(
            code=data["code"],
            message=data["message"],
        )


@dataclass(frozen=True, repr=False)
class Evaluated(Result):
    """`evaluate`."""

    value: Any
    """What the function returned (awaited when it is a promise), as JSON; `null` for `undefined`, and when a dialog interrupted it."""
    dialog: Optional[Dialog] = None
    """A dialog the function opened; it waits for `{"cmd":"dialog",…}` and the function's result is lost."""
    note: Optional[str] = None
    """What to do about that dialog."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Evaluated:
        return cls(
            value=data["value"],
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            note=data.get("note"),
        )


@dataclass(frozen=True, repr=False)
class Extraction(Result):
    """A page's content, read for a person or a model: the result of `extract`."""

    blocks: List[str]
    """The uids of the elements the blocks were taken from, in reading order."""
    markdown: str
    """The content as markdown, headed by the title."""
    text: str
    """The same blocks without markup, paragraphs separated by blank lines (no title)."""
    byline: Optional[str] = None
    """Who wrote it, when the page says."""
    lang: Optional[str] = None
    """The page's language (`lang` of the top document)."""
    links: Optional[List[Link]] = None
    """With `links`: every link of the page (not only of its main content), absolute, each URL once, in document order."""
    published: Optional[str] = None
    """When it was published, as the page writes it (usually ISO 8601)."""
    title: Optional[str] = None
    """The article's title (its main heading, else the page's title)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Extraction:
        return cls(
            blocks=data["blocks"],
            markdown=data["markdown"],
            text=data["text"],
            byline=data.get("byline"),
            lang=data.get("lang"),
            links=_optional(data.get("links"), lambda v: [Link._from_json(i) for i in v]),
            published=data.get("published"),
            title=data.get("title"),
        )


@dataclass(frozen=True, repr=False)
class Filled(Result):
    """`fill`."""

    filled: str
    """The uid filled."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    changed: Optional[bool] = None
    """A native select: whether `change` fired."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    checked: Optional[bool] = None
    """For a checkbox or radio: whether it is checked now."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    option: Optional[str] = None
    """A custom drop-down, or an `<option>` clicked: the option chosen."""
    options: Optional[List[SelectOption]] = None
    """A native select: the options selected now."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    url: Optional[str] = None
    """Where that navigation went."""
    value: Any = None
    """The value the control holds now (a password reads `********`; a native select's value, or what a custom drop-down shows)."""
    warning: Optional[str] = None
    """The value read back differs from what was asked."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Filled:
        return cls(
            filled=data["filled"],
            summary=data.get("summary", ""),
            changed=data.get("changed"),
            changes=data.get("changes"),
            checked=data.get("checked"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            option=data.get("option"),
            options=_optional(data.get("options"), lambda v: [SelectOption._from_json(i) for i in v]),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            url=data.get("url"),
            value=data.get("value"),
            warning=data.get("warning"),
        )


@dataclass(frozen=True, repr=False)
class Focused(Result):
    """The element that has the keyboard focus."""

    id: Optional[str] = None
    """Its `id` attribute (empty when it has none)."""
    tag: Optional[str] = None
    """Its tag name."""
    uid: Optional[str] = None
    """Its uid, when the last snapshot gave it one."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Focused:
        return cls(
            id=data.get("id"),
            tag=data.get("tag"),
            uid=data.get("uid"),
        )


@dataclass(frozen=True, repr=False)
class Hovered(Result):
    """`hover`."""

    hovered: str
    """The uid hovered."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    at: Optional[Point] = None
    """Where the mouse is now (viewport CSS px)."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    url: Optional[str] = None
    """Where that navigation went."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Hovered:
        return cls(
            hovered=data["hovered"],
            summary=data.get("summary", ""),
            at=_optional(data.get("at"), Point._from_json),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class Link(Result):
    """One link of the page."""

    text: str
    """What the link says: its accessible name, else its text (at most 200 characters)."""
    url: str
    """The absolute URL, without its `#fragment`."""
    uid: Optional[str] = None
    """The uid of the anchor (the first one, when several link to the same URL)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Link:
        return cls(
            text=data["text"],
            url=data["url"],
            uid=data.get("uid"),
        )


@dataclass(frozen=True, repr=False)
class Navigation(Result):
    """`back`, `forward` and `reload`."""

    loaded: bool
    """Whether the document came (and loaded) before the timeout."""
    summary: str = ""
    """What happened, in a sentence or two for an agent to read."""
    dialog: Optional[Dialog] = None
    """A dialog the loading document opened."""
    note: Optional[str] = None
    """What to do about that dialog."""
    url: Optional[str] = None
    """The history entry's URL (`back`, `forward`)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Navigation:
        return cls(
            loaded=data["loaded"],
            summary=data.get("summary", ""),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            note=data.get("note"),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class NetworkRequestDetail(Result):
    """`network_request`: one request in full."""

    id: int
    """The request's id on this page (what `network_request` takes)."""
    method: str
    """`GET`, `POST`, …"""
    request_headers: Any
    """The request's headers (as sent, when Chromium reported them)."""
    resource_type: str
    """`document`, `stylesheet`, `image`, `media`, `font`, `script`, `xhr`, `fetch`, `websocket`, `preflight`, `other`, …"""
    state: str
    """`pending` (no end yet), `finished`, `failed` or `redirected`."""
    timing: Timing
    """When it happened and how long it took."""
    url: str
    """The URL requested."""
    body: Optional[str] = None
    """The response body, or its first 100 000 bytes (`bodyTruncated`); base64 when `bodyBase64` (a binary body)."""
    body_base64: Optional[bool] = None
    """The body is base64 (Chromium sends binary bodies so)."""
    body_note: Optional[str] = None
    """Why there is no body, or what was cut."""
    body_truncated: Optional[bool] = None
    """The body was longer and was cut."""
    canceled: Optional[bool] = None
    """Whether the request was cancelled (a failure the page or the browser caused)."""
    failure: Optional[str] = None
    """Why the request failed (`net::ERR_…`), when it did."""
    mime_type: Optional[str] = None
    """The response's MIME type."""
    post_data: Optional[str] = None
    """The request's body (a form or a `fetch` body), cut at 10 000 bytes."""
    redirected_to: Optional[int] = None
    """For a redirect: the id of the request it led to."""
    response_headers: Any = None
    """The response's headers."""
    size: Optional[float] = None
    """Bytes received over the network for it (headers and body), once it finished."""
    status: Optional[int] = None
    """The HTTP status, once a response came."""
    status_text: Optional[str] = None
    """The response's status text."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> NetworkRequestDetail:
        return cls(
            id=data["id"],
            method=data["method"],
            request_headers=data["requestHeaders"],
            resource_type=data["resourceType"],
            state=data["state"],
            timing=Timing._from_json(data["timing"]),
            url=data["url"],
            body=data.get("body"),
            body_base64=data.get("bodyBase64"),
            body_note=data.get("bodyNote"),
            body_truncated=data.get("bodyTruncated"),
            canceled=data.get("canceled"),
            failure=data.get("failure"),
            mime_type=data.get("mimeType"),
            post_data=data.get("postData"),
            redirected_to=data.get("redirectedTo"),
            response_headers=data.get("responseHeaders"),
            size=data.get("size"),
            status=data.get("status"),
            status_text=data.get("statusText"),
        )


@dataclass(frozen=True, repr=False)
class NetworkRequestList(Result):
    """`network_requests`: one page of the list."""

    dropped: int
    """How many older requests were dropped to keep the newest 1000."""
    page_idx: int
    """The page of the list returned."""
    pages: int
    """How many pages of `pageSize` those make."""
    requests: List[NetworkRequestSummary]
    """The requests of this page of the list, oldest first."""
    total: int
    """How many requests (of the requested resource types) the page has kept."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> NetworkRequestList:
        return cls(
            dropped=data["dropped"],
            page_idx=data["pageIdx"],
            pages=data["pages"],
            requests=[NetworkRequestSummary._from_json(i) for i in data["requests"]],
            total=data["total"],
        )


@dataclass(frozen=True, repr=False)
class NetworkRequestSummary(Result):
    """One request as `network_requests` lists it."""

    id: int
    """The request's id on this page (what `network_request` takes)."""
    method: str
    """`GET`, `POST`, …"""
    resource_type: str
    """`document`, `stylesheet`, `image`, `media`, `font`, `script`, `xhr`, `fetch`, `websocket`, `preflight`, `other`, …"""
    state: str
    """`pending` (no end yet), `finished`, `failed` or `redirected`."""
    url: str
    """The URL requested."""
    failure: Optional[str] = None
    """Why the request failed (`net::ERR_…`), when it did."""
    status: Optional[int] = None
    """The HTTP status, once a response came."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> NetworkRequestSummary:
        return cls(
            id=data["id"],
            method=data["method"],
            resource_type=data["resourceType"],
            state=data["state"],
            url=data["url"],
            failure=data.get("failure"),
            status=data.get("status"),
        )


@dataclass(frozen=True, repr=False)
class Opened(Result):
    """`open`."""

    loaded: bool
    """Whether the page's `load` came before the timeout."""
    url: str
    """The URL navigated to (a file path becomes its `file://` URL)."""
    summary: str = ""
    """What happened, in a sentence or two for an agent to read."""
    dialog: Optional[Dialog] = None
    """A dialog the loading document opened."""
    final_url: Optional[str] = None
    """The URL of the document the page shows, after redirects; absent when it could not be read (a dialog blocks the page)."""
    note: Optional[str] = None
    """What to do about that dialog."""
    status: Optional[int] = None
    """The HTTP status of that document's response (a 404 page is a page with status 404); absent for documents not loaded over HTTP (`file:`, `data:`, `about:`)."""
    title: Optional[str] = None
    """The document's title; absent when it could not be read."""
    warning: Optional[str] = None
    """Why the page may not be as expected (it kept navigating, or did not load in time)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Opened:
        return cls(
            loaded=data["loaded"],
            url=data["url"],
            summary=data.get("summary", ""),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            final_url=data.get("finalUrl"),
            note=data.get("note"),
            status=data.get("status"),
            title=data.get("title"),
            warning=data.get("warning"),
        )


@dataclass(frozen=True, repr=False)
class PageInfo(Result):
    """One page of `pages`."""

    current: bool
    """Whether commands act on this page."""
    index: int
    """What `select_page` takes."""
    target_id: str
    """Chromium's id of the page (`--target` attaches to it)."""
    title: str
    """The page's title."""
    url: str
    """The page's URL."""
    dialog: Optional[Dialog] = None
    """The dialog open on the page, or `null`."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> PageInfo:
        return cls(
            current=data["current"],
            index=data["index"],
            target_id=data["targetId"],
            title=data["title"],
            url=data["url"],
            dialog=_optional(data.get("dialog"), Dialog._from_json),
        )


@dataclass(frozen=True, repr=False)
class PageOpened(Result):
    """`new_page`."""

    index: int
    """Its `index` in the `pages` list (what `select_page` takes)."""
    loaded: bool
    """Whether the page's `load` came before the timeout."""
    target_id: str
    """Chromium's id of the new page."""
    url: str
    """The URL navigated to (a file path becomes its `file://` URL)."""
    summary: str = ""
    """What happened, in a sentence or two for an agent to read."""
    dialog: Optional[Dialog] = None
    """A dialog the loading document opened."""
    final_url: Optional[str] = None
    """The URL of the document the page shows, after redirects; absent when it could not be read (a dialog blocks the page)."""
    note: Optional[str] = None
    """What to do about that dialog."""
    status: Optional[int] = None
    """The HTTP status of that document's response (a 404 page is a page with status 404); absent for documents not loaded over HTTP (`file:`, `data:`, `about:`)."""
    title: Optional[str] = None
    """The document's title; absent when it could not be read."""
    warning: Optional[str] = None
    """Why the page may not be as expected (it kept navigating, or did not load in time)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> PageOpened:
        return cls(
            index=data["index"],
            loaded=data["loaded"],
            target_id=data["targetId"],
            url=data["url"],
            summary=data.get("summary", ""),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            final_url=data.get("finalUrl"),
            note=data.get("note"),
            status=data.get("status"),
            title=data.get("title"),
            warning=data.get("warning"),
        )


@dataclass(frozen=True, repr=False)
class PageSelected(Result):
    """`select_page`."""

    index: int
    """The index given."""
    target_id: str
    """Chromium's id of the page."""
    url: str
    """The page's URL."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> PageSelected:
        return cls(
            index=data["index"],
            target_id=data["targetId"],
            url=data["url"],
        )


@dataclass(frozen=True, repr=False)
class Point(Result):
    """A point in the viewport, CSS px."""

    x: float
    """From the viewport's left edge."""
    y: float
    """From the viewport's top edge."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Point:
        return cls(
            x=data["x"],
            y=data["y"],
        )


@dataclass(frozen=True, repr=False)
class Pressed(Result):
    """`press`."""

    pressed: str
    """The key or chord pressed."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    focus: Optional[Focused] = None
    """What has the keyboard focus afterwards (`null`: the body)."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    uid: Optional[str] = None
    """The element focused first."""
    url: Optional[str] = None
    """Where that navigation went."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Pressed:
        return cls(
            pressed=data["pressed"],
            summary=data.get("summary", ""),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            focus=_optional(data.get("focus"), Focused._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            uid=data.get("uid"),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class Resized(Result):
    """`resize`."""

    device_pixel_ratio: float
    """The device pixel ratio."""
    height: int
    """The height asked for."""
    inner: Size
    """The page's `innerWidth` and `innerHeight` afterwards, read back from the page."""
    width: int
    """The width asked for."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Resized:
        return cls(
            device_pixel_ratio=data["devicePixelRatio"],
            height=data["height"],
            inner=Size._from_json(data["inner"]),
            width=data["width"],
        )


@dataclass(frozen=True, repr=False)
class Screenshot(Result):
    """`screenshot`: the image, as base64 or written to a file."""

    format: Literal["png", "jpeg", "webp"]
    """The image's encoding (`png` for every annotated screenshot)."""
    height: int
    """The image's height, px."""
    width: int
    """The image's width, px."""
    annotated: Optional[int] = None
    """With `annotate`: how many elements were labelled."""
    data: Optional[str] = None
    """The image, base64; absent when it was written to `path`."""
    path: Optional[str] = None
    """The file the image was written to."""
    uids: Optional[List[str]] = None
    """With `annotate`: the uids labelled, in the order they were drawn (the colours cycle in this order). Every one is a uid of the snapshot the screenshot took."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Screenshot:
        return cls(
            format=data["format"],
            height=data["height"],
            width=data["width"],
            annotated=data.get("annotated"),
            data=data.get("data"),
            path=data.get("path"),
            uids=data.get("uids"),
        )


@dataclass(frozen=True, repr=False)
class Scrolled(Result):
    """`scroll`."""

    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    after: Optional[Point] = None
    """The scroll position after (CSS px)."""
    at: Optional[Point] = None
    """Where the wheel turned."""
    at_end: Optional[bool] = None
    """Whether it can go no further that way."""
    before: Optional[Point] = None
    """The scroll position before (CSS px)."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    direction: Optional[Literal["down", "up", "left", "right"]] = None
    """Which way."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    method: Optional[str] = None
    """`wheel` or `script`."""
    moved: Optional[float] = None
    """How far it really moved in `direction` (CSS px)."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    pixels: Optional[float] = None
    """How far was asked (CSS px)."""
    scrolled: Optional[str] = None
    """What moved: `"page"`, a uid, or a short description of a container with no uid."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    uid: Optional[str] = None
    """The uid the command named."""
    url: Optional[str] = None
    """Where that navigation went."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Scrolled:
        return cls(
            summary=data.get("summary", ""),
            after=_optional(data.get("after"), Point._from_json),
            at=_optional(data.get("at"), Point._from_json),
            at_end=data.get("atEnd"),
            before=_optional(data.get("before"), Point._from_json),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            direction=data.get("direction"),
            loaded=data.get("loaded"),
            method=data.get("method"),
            moved=data.get("moved"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            pixels=data.get("pixels"),
            scrolled=data.get("scrolled"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            uid=data.get("uid"),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class SelectOption(Result):
    """An option of a native `<select>`."""

    text: str
    """The option's text."""
    value: str
    """The option's value."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> SelectOption:
        return cls(
            text=data["text"],
            value=data["value"],
        )


@dataclass(frozen=True, repr=False)
class Selected(Result):
    """`select`."""

    selected: str
    """The uid of the select or list."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    changed: Optional[bool] = None
    """A native select: whether `change` fired."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    option: Optional[str] = None
    """A custom drop-down, or an `<option>` clicked: the option chosen."""
    options: Optional[List[SelectOption]] = None
    """A native select: the options selected now."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    url: Optional[str] = None
    """Where that navigation went."""
    value: Any = None
    """The value the control holds now (a password reads `********`; a native select's value, or what a custom drop-down shows)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Selected:
        return cls(
            selected=data["selected"],
            summary=data.get("summary", ""),
            changed=data.get("changed"),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            option=data.get("option"),
            options=_optional(data.get("options"), lambda v: [SelectOption._from_json(i) for i in v]),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            url=data.get("url"),
            value=data.get("value"),
        )


@dataclass(frozen=True, repr=False)
class Size(Result):
    """A width and a height, CSS px."""

    height: float
    """The height."""
    width: float
    """The width."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Size:
        return cls(
            height=data["height"],
            width=data["width"],
        )


@dataclass(frozen=True, repr=False)
class StackFrame(Result):
    """One call frame of a message's stack trace."""

    column: int
    """The column (from 1)."""
    function: str
    """The function's name (empty for top-level code)."""
    line: int
    """The line (from 1)."""
    url: str
    """The script's URL."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> StackFrame:
        return cls(
            column=data["column"],
            function=data["function"],
            line=data["line"],
            url=data["url"],
        )


@dataclass(frozen=True, repr=False)
class Timing(Result):
    """When a request happened and how long it took."""

    started_at: float
    """When it was sent, in milliseconds since the epoch."""
    duration_ms: Optional[float] = None
    """From sending to its end (finished, failed or redirected), in milliseconds; absent while it is pending."""
    resource: Any = None
    """Chromium's breakdown of the response's timing (`Network.ResourceTiming`: DNS, connect, TLS, send, headers, in milliseconds from `requestTime`), when the response had one."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Timing:
        return cls(
            started_at=data["startedAt"],
            duration_ms=data.get("durationMs"),
            resource=data.get("resource"),
        )


@dataclass(frozen=True, repr=False)
class Typed(Result):
    """`type_text`."""

    typed: str
    """The text typed."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    focus: Optional[Focused] = None
    """With a `submitKey`: what has the keyboard focus afterwards (`null`: the body)."""
    into: Optional[Focused] = None
    """The element that had the keyboard focus and took the text (`null`: it is inside a frame whose document cannot be looked into from the page)."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    submit_key: Optional[str] = None
    """The key or chord pressed after typing."""
    url: Optional[str] = None
    """Where that navigation went."""
    value: Optional[str] = None
    """The value of that field after typing (a password reads `********`), for an `<input>` or a `<textarea>`."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Typed:
        return cls(
            typed=data["typed"],
            summary=data.get("summary", ""),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            focus=_optional(data.get("focus"), Focused._from_json),
            into=_optional(data.get("into"), Focused._from_json),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            submit_key=data.get("submitKey"),
            url=data.get("url"),
            value=data.get("value"),
        )


@dataclass(frozen=True, repr=False)
class Uploaded(Result):
    """`upload`."""

    uploaded: str
    """The uid given."""
    summary: str = ""
    """What was done, to which element, and what followed, in a sentence or two for an agent to read (a password is never in it)."""
    accept: Optional[str] = None
    """The input's `accept`."""
    changes: Optional[str] = None
    """With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last snapshot's text (`""`: no change), or `null` when no snapshot could be taken."""
    dialog: Optional[Dialog] = None
    """A dialog opened and waits for `{"cmd":"dialog",…}`."""
    files: Optional[List[str]] = None
    """The names of the files the input holds now."""
    input: Optional[str] = None
    """The file input that took the files, when the uid was another element (a button, a label): its uid, or `null` when it has none."""
    loaded: Optional[bool] = None
    """Whether that navigation's document loaded."""
    navigated: Optional[bool] = None
    """The action started a navigation of the page."""
    note: Optional[str] = None
    """What to do next, when something blocks the page."""
    settled: Optional[bool] = None
    """`false` when the DOM was still changing when the wait for it to settle ended."""
    snapshot: Optional[Union[str, Dict[str, Any]]] = None
    """With `"snapshot": true`: the snapshot after the action, or `null` when none could be taken (a dialog blocks the page; `snapshotError` or `note` says why)."""
    snapshot_error: Optional[ErrorBody] = None
    """Why the snapshot after the action failed."""
    url: Optional[str] = None
    """Where that navigation went."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Uploaded:
        return cls(
            uploaded=data["uploaded"],
            summary=data.get("summary", ""),
            accept=data.get("accept"),
            changes=data.get("changes"),
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            files=data.get("files"),
            input=data.get("input"),
            loaded=data.get("loaded"),
            navigated=data.get("navigated"),
            note=data.get("note"),
            settled=data.get("settled"),
            snapshot=data.get("snapshot"),
            snapshot_error=_optional(data.get("snapshotError"), ErrorBody._from_json),
            url=data.get("url"),
        )


@dataclass(frozen=True, repr=False)
class Waited(Result):
    """`wait_for`."""

    waited: int
    """How long the wait took, in ms."""
    dialog: Optional[Dialog] = None
    """A dialog opened meanwhile and waits for `{"cmd":"dialog",…}`; the wait ended there."""
    found: Optional[str] = None
    """The text that appeared (the first of the list, when several did)."""

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Waited:
        return cls(
            waited=data["waited"],
            dialog=_optional(data.get("dialog"), Dialog._from_json),
            found=data.get("found"),
        )


__all__ = ["Result", "Clicked", "Closed", "ConsoleMessageDetail", "ConsoleMessageList", "ConsoleMessageSummary", "Dialog", "DialogAnswered", "Dragged", "ErrorBody", "Evaluated", "Extraction", "Filled", "Focused", "Hovered", "Link", "Navigation", "NetworkRequestDetail", "NetworkRequestList", "NetworkRequestSummary", "Opened", "PageInfo", "PageOpened", "PageSelected", "Point", "Pressed", "Resized", "Screenshot", "Scrolled", "SelectOption", "Selected", "Size", "StackFrame", "Timing", "Typed", "Uploaded", "Waited"]
