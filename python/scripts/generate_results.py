"""Writes pagesight/_results.py, the typed result classes, from the engine's JSON Schema of its
results (docs/protocol.schema.json, generated from the engine's serde types and checked fresh by
the engine's tests), so the Python classes have exactly the engine's fields.

    python3 python/scripts/generate_results.py          # rewrite the module
    python3 python/scripts/generate_results.py --check  # fail if it is stale (the tests run this)

Field names are the wire's in snake_case (`snapshotError` -> `snapshot_error`; a Python keyword
gets a trailing underscore: `from_`). A field the schema does not require defaults to None (or to
its schema default); a key the engine adds later is ignored by older classes, as the protocol asks
of clients.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "docs" / "protocol.schema.json"
OUTPUT = ROOT / "python" / "pagesight" / "_results.py"

# The snapshot output inside an action's result: text, or an object (budget, JSON document).
SNAPSHOT_OUTPUT = "Union[str, Dict[str, Any]]"


def snake(name: str) -> str:
    """`snapshotError` -> `snapshot_error`; keywords get a trailing underscore."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return s + "_" if keyword.iskeyword(s) else s


def ref_name(schema: Dict[str, Any]) -> str:
    return str(schema["$ref"]).rsplit("/", 1)[-1]


class Generator:
    def __init__(self, defs: Dict[str, Any]) -> None:
        self.defs = defs

    def is_class(self, name: str) -> bool:
        return "properties" in self.defs[name]

    def literal(self, name: str) -> str:
        values = [v["const"] for v in self.defs[name]["oneOf"]]
        return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"

    def annotate(self, schema: Any) -> Tuple[str, str]:
        """The annotation of a value of this schema, and how to convert its JSON form (a
        format string of `{}`, or "" for a value kept as it is)."""
        if not isinstance(schema, dict):
            return "Any", ""  # `true`: any JSON value
        if "$ref" in schema:
            name = ref_name(schema)
            if name == "SnapshotOutput":
                return SNAPSHOT_OUTPUT, ""
            if self.is_class(name):
                return name, name + "._from_json({})"
            if "oneOf" in self.defs[name]:
                return self.literal(name), ""
            return "Any", ""
        if "anyOf" in schema:
            options = [s for s in schema["anyOf"] if s.get("type") != "null"]
            nullable = len(options) < len(schema["anyOf"])
            if len(options) == 1:
                inner, convert = self.annotate(options[0])
            else:
                inner, convert = "Any", ""
            if nullable:
                return (
                    f"Optional[{inner}]",
                    optional(convert) if convert else "",
                )
            return inner, convert
        kind = schema.get("type")
        nullable = False
        if isinstance(kind, list):
            nullable = "null" in kind
            rest = [k for k in kind if k != "null"]
            kind = rest[0] if len(rest) == 1 else None
        inner, convert = self.plain(kind, schema)
        if nullable:
            if convert:
                return f"Optional[{inner}]", optional(convert)
            return f"Optional[{inner}]", ""
        return inner, convert

    def plain(self, kind: Any, schema: Dict[str, Any]) -> Tuple[str, str]:
        if kind == "string":
            return "str", ""
        if kind == "integer":
            return "int", ""
        if kind == "number":
            return "float", ""
        if kind == "boolean":
            return "bool", ""
        if kind == "array":
            item, convert = self.annotate(schema.get("items", {}))
            if convert:
                return f"List[{item}]", f"[{convert.format('i')} for i in {{}}]"
            return f"List[{item}]", ""
        if kind == "object":
            return "Dict[str, Any]", ""
        return "Any", ""

    def klass(self, name: str) -> str:
        schema = self.defs[name]
        required = set(schema.get("required", []))
        props: Dict[str, Any] = schema["properties"]
        ordered = sorted(props, key=lambda p: (p not in required, p != "summary", p))
        lines = ["@dataclass(frozen=True, repr=False)", f"class {name}(Result):"]
        lines.append(f'    """{doc(schema.get("description", name))}"""')
        lines.append("")
        reads: List[str] = []
        for prop in ordered:
            field = snake(prop)
            annotation, convert = self.annotate(props[prop])
            if prop in required:
                lines.append(f"    {field}: {annotation}")
                value = f"data[{json.dumps(prop)}]"
            elif "default" in props[prop]:
                default = json.dumps(props[prop]["default"])
                lines.append(f"    {field}: {annotation} = {default}")
                value = f"data.get({json.dumps(prop)}, {default})"
            else:
                if not annotation.startswith("Optional[") and annotation != "Any":
                    annotation = f"Optional[{annotation}]"
                lines.append(f"    {field}: {annotation} = None")
                value = f"data.get({json.dumps(prop)})"
                if convert and not convert.startswith("_optional("):
                    convert = optional(convert)
            lines.append(f'    """{doc(props[prop].get("description", ""))}"""')
            reads.append(f"            {field}={convert.format(value) if convert else value},")
        lines += [
            "",
            "    @classmethod",
            f"    def _from_json(cls, data: Dict[str, Any]) -> {name}:",
            "        return cls(",
            *reads,
            "        )",
        ]
        return "\n".join(lines)

    def module(self) -> str:
        classes = [n for n in sorted(self.defs) if self.is_class(n)]
        head = '''"""The typed results of pagesight's commands, generated from the engine's JSON Schema of its
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
        return f"{type(self).__name__}({', '.join(shown)})"'''
        body = "\n\n\n".join(self.klass(n) for n in classes)
        names = ", ".join(json.dumps(n) for n in ["Result", *classes])
        return f"{head}\n\n{body}\n\n\n__all__ = [{names}]\n"


def optional(convert: str) -> str:
    """The conversion of a value that may be None, from that of one that is not."""
    if re.fullmatch(r"\w+\._from_json\(\{\}\)", convert):
        return "_optional({}, " + convert[: -len("({})")] + ")"
    return "_optional({}, lambda v: " + convert.format("v") + ")"


def doc(text: str) -> str:
    return " ".join(text.replace('"""', "'''").replace("\\", "\\\\").split())


def generate() -> str:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return Generator(schema["$defs"]["Result"]["$defs"]).module()


def main() -> int:
    text = generate()
    if sys.argv[1:] == ["--check"]:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is stale: run python3 python/scripts/generate_results.py")
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
