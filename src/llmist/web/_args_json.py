"""A call's arguments as the JSON text AG-UI's ``TOOL_CALL_ARGS`` deltas spell out, field by field.

AG-UI streams a tool call's arguments as fragments of one JSON object. llmist's parser streams
them as values of named fields (``ArgsPartialEvent``). :class:`ArgsJson` writes the object as the
fields arrive: a top-level field the gadget's schema types as a string is opened at its first
partial and grows with each delta (so a client shows a file's content while the model writes
it); every other field (numbers, booleans, nested pointers such as ``items/0/name``, a call
that arrived whole) is written once, with its parsed value, when the call is complete. Keys
may therefore come out of order; the object is the same. Once :meth:`finish` has run, the
fragments concatenate to one valid JSON object whose values are the call's parameters.

In the rare case where a streamed field's final value differs from what streamed (the parser
normalised a line ending, say), :meth:`finish` writes the field again with its final value:
JSON readers (``JSON.parse``, Python's ``json``) keep the last of two equal keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from llmist.gadgets import Gadget
from llmist.syntax import ArgsPartialEvent

__all__ = ["ArgsJson", "string_fields"]


def string_fields(gadget: Gadget | None) -> frozenset[str]:
    """The top-level fields of ``gadget``'s parameters that are strings (``str`` or ``str | None``)."""
    if gadget is None:
        return frozenset()
    properties: Mapping[str, Any] = gadget.Params.model_json_schema().get("properties", {})
    return frozenset(name for name, schema in properties.items() if _is_string(schema))


def _is_string(schema: Mapping[str, Any]) -> bool:
    if schema.get("type") == "string":
        return True
    options = schema.get("anyOf")
    if not isinstance(options, list):
        return False
    kinds = {o.get("type") for o in options if isinstance(o, dict)}
    return "string" in kinds and kinds <= {"string", "null"}


def _quoted_inner(text: str) -> str:
    """``text`` escaped for the inside of a JSON string (ASCII only, so no fragment can split a
    character that needs several bytes)."""
    return json.dumps(text)[1:-1]


class ArgsJson:
    """The JSON fragments of one call's arguments (see the module docstring)."""

    def __init__(self, streamed: frozenset[str]) -> None:
        self._streamed = streamed
        """Fields written as they stream (the gadget's top-level string fields)."""
        self._written: dict[str, list[str]] = {}
        """The streamed fields and their deltas."""
        self._open: str | None = None
        """The field whose string is still open."""
        self._started = False

    def partial(self, event: ArgsPartialEvent) -> str:
        """The fragment ``event`` adds ("" when its field is written at the end)."""
        path = event.field_path
        if path not in self._streamed:
            return ""
        parts: list[str] = []
        if path != self._open:
            if path in self._written:  # a field the model went back to: its final value wins at the end
                return ""
            parts.append(self._close())
            parts.append(self._key(path) + '"')
            self._open = path
            self._written[path] = []
        self._written[path].append(event.delta)
        parts.append(_quoted_inner(event.delta))
        if event.is_field_complete:
            parts.append('"')
            self._open = None
        return "".join(parts)

    def finish(self, parameters: Mapping[str, Any]) -> str:
        """The closing fragment: the fields not streamed, with their parsed values, and ``}``."""
        parts = [self._close()]
        for key, value in parameters.items():
            streamed = self._written.get(key)
            if streamed is None or value != "".join(streamed):
                parts.append(self._key(key) + json.dumps(value, default=str))
        parts.append("}" if self._started else "{}")
        return "".join(parts)

    def _key(self, key: str) -> str:
        lead = "," if self._started else "{"
        self._started = True
        return lead + json.dumps(key) + ":"

    def _close(self) -> str:
        if self._open is None:
            return ""
        self._open = None
        return '"'
