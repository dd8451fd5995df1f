"""Snapshots: the text an agent reads, and the same snapshot as a tree of typed nodes.

A `Snapshot` holds the engine's output (`.text`) and, unless taken with `tree=False`, the JSON
document of the same snapshot (docs/protocol.md, "Snapshot JSON"), rendered from it without
asking the browser again, so `.nodes` and `.uid_of()` name exactly the uids of `.text`. The
document is parsed on first use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Union

from ._results import Point


@dataclass(frozen=True)
class Box:
    """A border box, CSS px in the top-level viewport."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, repr=False)
class Node:
    """One node of a snapshot, as its line in the text shows it (docs/protocol.md, "Snapshot
    JSON"): its uid (`""` for a node without one), role, name, what the analysis knows of it, and
    its children."""

    uid: str
    role: str
    name: str
    tag: Optional[str]
    interactive: bool
    visible: bool
    in_viewport: bool
    occluded: bool
    covered_by: Optional[str]
    bounds: Optional[Box]
    click_point: Optional[Point]
    new: bool
    attributes: Dict[str, Any]
    value: Optional[str] = None
    checked: Union[bool, str, None] = None
    scroll: Optional[Dict[str, float]] = None
    backend_node_id: Optional[int] = None
    frame_id: Optional[str] = None
    children: List[Node] = field(default_factory=list)

    @classmethod
    def _from_json(cls, data: Dict[str, Any]) -> Node:
        bounds = data.get("bounds")
        point = data.get("clickPoint")
        return cls(
            uid=data.get("uid", ""),
            role=data.get("role", ""),
            name=data.get("name", ""),
            tag=data.get("tag"),
            interactive=bool(data.get("interactive")),
            visible=bool(data.get("visible")),
            in_viewport=bool(data.get("inViewport")),
            occluded=bool(data.get("occluded")),
            covered_by=data.get("coveredBy"),
            bounds=Box(**bounds) if bounds else None,
            click_point=Point(**point) if point else None,
            new=bool(data.get("new")),
            attributes=data.get("attributes") or {},
            value=data.get("value"),
            checked=data.get("checked"),
            scroll=data.get("scroll"),
            backend_node_id=data.get("backendNodeId"),
            frame_id=data.get("frameId"),
            children=[cls._from_json(c) for c in data.get("children") or []],
        )

    def walk(self) -> Iterator[Node]:
        """This node and its descendants, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self) -> str:
        uid = f"uid={self.uid} " if self.uid else ""
        value = f" value={self.value!r}" if self.value is not None else ""
        return f"Node({uid}{self.role} {self.name!r}{value}, {len(self.children)} children)"


class Snapshot:
    """A snapshot of a page: `.text` as the agent reads it; `.json()`, `.root`, `.nodes` and
    `.uid_of()` for the same snapshot as data."""

    def __init__(
        self,
        output: Union[str, Dict[str, Any]],
        tree: Optional[str],
        mode: str,
        format: str,
    ) -> None:
        self.mode = mode
        """`"a11y"` or `"dom"`."""
        self.format = format
        """`"text"` or `"json"`."""
        self.budget: Optional[Dict[str, Any]] = None
        """With `max_chars`: `{maxChars, truncated, omittedLines, totalLines, totalChars}`."""
        self._document: Optional[Dict[str, Any]] = None
        self._tree = tree
        self._nodes: Optional[List[Node]] = None
        if isinstance(output, str):
            self.text = output
        elif format == "json":
            self._document = output
            self.text = json.dumps(output, ensure_ascii=False, separators=(",", ":"))
        else:
            self.text = str(output.get("text", ""))
            self.budget = {k: v for k, v in output.items() if k != "text"}
        """The snapshot as rendered: the text (or, with `format="json"`, the JSON document as
        text)."""

    def json(self) -> Dict[str, Any]:
        """The JSON document of this snapshot: url, title, snapshot number, viewport, root."""
        if self._document is None:
            if self._tree is None:
                raise ValueError(
                    "this snapshot was taken with tree=False: it has its text only; take it "
                    "again with tree=True (the default) for its nodes"
                )
            self._document = json.loads(self._tree)
            self._tree = None
        return self._document

    @property
    def root(self) -> Optional[Node]:
        """The root node (`RootWebArea`), or None for an empty snapshot."""
        nodes = self.nodes
        return nodes[0] if nodes else None

    @property
    def nodes(self) -> List[Node]:
        """Every node of the snapshot in document order (the root first)."""
        if self._nodes is None:
            root = self.json().get("root")
            self._nodes = list(Node._from_json(root).walk()) if root else []
        return self._nodes

    @property
    def number(self) -> int:
        """Which snapshot of the page this is (1, 2, ...)."""
        return int(self.json().get("snapshot", 0))

    def find(self, role: Optional[str] = None, name: Optional[str] = None) -> List[Node]:
        """The nodes with this role and this name (exactly as printed), in document order; a
        criterion left out matches every node."""
        return [
            n
            for n in self.nodes
            if (role is None or n.role == role) and (name is None or n.name == name)
        ]

    def uid_of(self, role: Optional[str] = None, name: Optional[str] = None) -> str:
        """The uid of the first node (in document order) with this role and name; `LookupError`
        when no node with a uid has them."""
        for node in self.find(role, name):
            if node.uid:
                return node.uid
        wanted = ", ".join(
            f"{k}={v!r}" for k, v in (("role", role), ("name", name)) if v is not None
        )
        raise LookupError(f"no node of this snapshot with a uid has {wanted or 'any role'}")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        first = self.text.split("\n", 1)[0]
        if len(first) > 60:
            first = first[:59] + "…"
        lines = self.text.count("\n") + 1 if self.text else 0
        return f"Snapshot(mode={self.mode!r}, lines={lines}, text={first!r}…)"
