"""Block-format parameters: ``!!!ARG:pointer`` lines assembled into nested data.

Each argument is a JSON-pointer-like path (``config/timeout``, ``items/0/name``) on its own
line after the arg prefix, followed by its value (every line up to the next argument).
Numeric segments make arrays, others objects. Single-line values are coerced (``true``,
``false``, ``-?[0-9]+(.[0-9]+)?``); with a schema, coercion follows the type the schema
declares at that path instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, Literal, TypeAlias

from pydantic import BaseModel

__all__ = [
    "BlockParseError",
    "Schema",
    "assemble_params",
    "parse_block_params",
    "parse_block_span",
    "stripped_span",
    "unfenced_span",
]

Schema: TypeAlias = type[BaseModel] | Mapping[str, Any]
"""A Pydantic model class or a JSON-schema dict."""

_TypeHint: TypeAlias = Literal["string", "number", "integer", "boolean", "unknown"]

_NUMBER: Final = re.compile(r"-?[0-9]+(?:\.[0-9]+)?").fullmatch
_NUMBER_START: Final = frozenset("-0123456789")


class BlockParseError(ValueError):
    """The parameters of a block cannot be assembled (duplicate pointer, bad array index)."""


def parse_block_params(
    content: str, *, arg_prefix: str = "!!!ARG:", schema: Schema | None = None
) -> dict[str, Any]:
    """Assemble the ``!!!ARG:`` lines of ``content`` into a dict.

    Raises :class:`BlockParseError` with ``Duplicate pointer: <p>``,
    ``Array index gap: expected <n>, got <m>`` or ``Invalid array index: <seg>``.
    """
    hints = _schema_hints(schema) if schema is not None else None
    return parse_block_span(content, 0, len(content), arg_prefix, hints)


def parse_block_span(
    s: str, a: int, b: int, arg_prefix: str, hints: _SchemaHints | None = None
) -> dict[str, Any]:
    """:func:`parse_block_params` of ``s[a:b]``, slicing each value straight out of ``s``."""
    result: dict[str, Any] = {}
    seen: set[str] = set()
    step = len(arg_prefix)
    # s.find, not a bound `find = s.find`: compiled, the method call is a direct C call.
    at = s.find(arg_prefix, a, b)
    while at >= 0:
        begin = at + step
        at = s.find(arg_prefix, begin, b)
        stop = b if at < 0 else at
        newline = s.find("\n", begin, stop)
        if newline < 0:
            _put(result, seen, s[begin:stop].strip(), "", hints)
        else:
            end = stop - 1 if stop > newline + 1 and s[stop - 1] == "\n" else stop
            _put(result, seen, s[begin:newline].strip(), s[newline + 1 : end], hints)
    return result


def assemble_params(arguments: list[tuple[str, str]]) -> dict[str, Any]:
    """:func:`parse_block_params` of arguments already cut out of a block: ``(pointer, value)``
    pairs in order, each pointer stripped and each value without the newline before the next
    argument (the streaming parser tracks them as they arrive, so it need not scan the body again)."""
    result: dict[str, Any] = {}
    seen: set[str] = set()
    for pointer, value in arguments:
        _put(result, seen, pointer, value, None)
    return result


def _put(result: dict[str, Any], seen: set[str], pointer: str, text: str, hints: _SchemaHints | None) -> None:
    """Coerce one argument's value (multi-line values never are) and set it at its pointer in ``result``."""
    if not pointer:
        return
    value = _coerce(text, "unknown" if hints is None else hints.hint(pointer))
    if pointer in seen:
        raise BlockParseError(f"Duplicate pointer: {pointer}")
    seen.add(pointer)
    if "/" in pointer:
        _set_nested(result, pointer.split("/"), value)
    else:
        result[pointer] = value


def stripped_span(s: str, a: int, b: int) -> tuple[int, int]:
    """Bounds of ``s[a:b].strip()`` inside ``s``, without copying."""
    while a < b and s[a].isspace():
        a += 1
    while b > a and s[b - 1].isspace():
        b -= 1
    return a, b


_FENCE_LANGUAGES: Final = ("json", "yaml", "toml")


def unfenced_span(s: str, a: int, b: int) -> tuple[int, int]:
    """Bounds of the stripped parameters ``s[a:b]`` without a markdown fence around them.

    Models sometimes wrap block parameters in a fence. An opening ```` ``` ````,
    ```` ```json ````, ```` ```yaml ```` or ```` ```toml ```` line (any case) is dropped, and
    a closing ```` ``` ```` at the very end, as the TypeScript original does.
    """
    if s.startswith("```", a, b):
        options = [a + 7] if s[a + 3 : a + 7].lower() in _FENCE_LANGUAGES else []
        options.append(a + 3)
        for k in options:
            last_newline = -1
            while k < b and s[k].isspace():
                if s[k] == "\n":
                    last_newline = k
                k += 1
            if last_newline >= 0:
                a = last_newline + 1
                break
    if b - a >= 3 and s.endswith("```", a, b):
        b -= 3
        if b > a and s[b - 1] == "\n":
            b -= 1
    return stripped_span(s, a, b)


def _coerce(value: str, hint: _TypeHint) -> Any:
    if "\n" in value or hint == "string":
        return value
    trimmed = value.strip()
    if hint == "boolean":
        return True if trimmed == "true" else False if trimmed == "false" else value
    if hint == "number" or hint == "integer":
        return _parse_number(trimmed, value)
    if trimmed == "true":
        return True
    if trimmed == "false":
        return False
    if trimmed.isdigit() and trimmed.isascii():  # the common number, without the regex
        return int(trimmed)
    if trimmed and trimmed[0] in _NUMBER_START and _NUMBER(trimmed):
        return float(trimmed) if "." in trimmed else int(trimmed)
    return value


def _parse_number(trimmed: str, original: str) -> Any:
    """Any finite decimal number a schema's number field can take ("1e3", " 42 ", "-0.5")."""
    if not trimmed or "_" in trimmed:
        return original
    try:
        return int(trimmed)
    except ValueError:
        pass
    try:
        number = float(trimmed)
    except ValueError:
        return original
    if number != number or number in (float("inf"), float("-inf")):
        return original
    return number


def _is_index(segment: str) -> bool:
    """A JSON-pointer array index: ASCII digits only."""
    return segment.isdigit() and segment.isascii()


def _set_nested(root: dict[str, Any], segments: list[str], value: Any) -> None:
    current: Any = root
    last = len(segments) - 1
    for depth, segment in enumerate(segments):
        if type(current) is list:
            if not (segment.isdigit() and segment.isascii()):
                raise BlockParseError(f"Invalid array index: {segment}")
            index = int(segment)
            size = len(current)
            if index > size:
                raise BlockParseError(f"Array index gap: expected {size}, got {index}")
            if depth == last:
                if index == size:
                    current.append(value)
                else:
                    current[index] = value
                return
            if index == size:
                current.append([] if _is_index(segments[depth + 1]) else {})
            child = current[index]
        else:
            if depth == last:
                current[segment] = value
                return
            child = current.get(segment)
            if child is None:
                child = current[segment] = [] if _is_index(segments[depth + 1]) else {}
        if type(child) is not dict and type(child) is not list:
            path = "/".join(segments[: depth + 1])
            raise BlockParseError(
                f"Pointer conflict: {'/'.join(segments)} goes inside {path}, which already holds a value"
            )
        current = child


class _SchemaHints:
    """Answers "what type does the schema expect at this pointer?" for one JSON schema."""

    __slots__ = ("_cache", "_defs", "_root")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._root = schema
        self._defs: Mapping[str, Any] = schema.get("$defs") or schema.get("definitions") or {}
        self._cache: dict[str, _TypeHint] = {}

    def hint(self, pointer: str) -> _TypeHint:
        cached = self._cache.get(pointer)
        if cached is None:
            cached = self._cache[pointer] = self._lookup(pointer.split("/"))
        return cached

    def _lookup(self, segments: list[str]) -> _TypeHint:
        node: Mapping[str, Any] | None = self._resolve(self._root)
        for segment in segments:
            if node is None:
                return "unknown"
            node = self._child(node, segment)
        return _leaf_type(node) if node is not None else "unknown"

    def _child(self, node: Mapping[str, Any], segment: str) -> Mapping[str, Any] | None:
        properties = node.get("properties")
        if isinstance(properties, Mapping) and segment in properties:
            return self._resolve(properties[segment])
        if _is_index(segment):
            items = node.get("items")
            if isinstance(items, Mapping):
                return self._resolve(items)
            prefix = node.get("prefixItems")
            if isinstance(prefix, list) and int(segment) < len(prefix):
                return self._resolve(prefix[int(segment)])
        extra = node.get("additionalProperties")
        if isinstance(extra, Mapping):
            return self._resolve(extra)
        return None

    def _resolve(self, node: Any) -> Mapping[str, Any] | None:
        """Follow ``$ref`` and unwrap ``Optional[X]`` / single-member ``allOf``."""
        for _ in range(32):  # bounded: a self-referencing $ref must not loop forever
            if not isinstance(node, Mapping):
                return None
            ref = node.get("$ref")
            if isinstance(ref, str):
                node = self._defs.get(ref.rsplit("/", 1)[-1])
                continue
            for key in ("anyOf", "oneOf"):
                options = node.get(key)
                if isinstance(options, list):
                    real = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
                    if len(real) != 1:
                        return None
                    node = real[0]
                    break
            else:
                all_of = node.get("allOf")
                if isinstance(all_of, list) and len(all_of) == 1:
                    node = all_of[0]
                    continue
                return node
        return None


def _leaf_type(node: Mapping[str, Any]) -> _TypeHint:
    kind = node.get("type")
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        kind = real[0] if len(real) == 1 else None
    if kind in ("string", "number", "integer", "boolean"):
        return kind  # type: ignore[no-any-return]
    if kind is None and "enum" in node:
        values = node["enum"]
        if values and all(isinstance(v, str) for v in values):
            return "string"
    if kind is None and isinstance(node.get("const"), str):
        return "string"
    return "unknown"


_MODEL_HINTS: dict[type[BaseModel], _SchemaHints] = {}
"""Hints per model class. A plain dict, not ``lru_cache``: the compiled build type-checks this
module without pydantic installed, where ``type[BaseModel]`` is not known to be hashable."""


def _model_hints(model: type[BaseModel]) -> _SchemaHints:
    hints = _MODEL_HINTS.get(model)
    if hints is None:
        if len(_MODEL_HINTS) >= 256:
            _MODEL_HINTS.clear()
        hints = _MODEL_HINTS[model] = _SchemaHints(model.model_json_schema())
    return hints


def _schema_hints(schema: Schema) -> _SchemaHints:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return _model_hints(schema)
    if isinstance(schema, Mapping):
        return _SchemaHints(schema)
    raise TypeError(f"schema must be a Pydantic model class or a JSON-schema dict, got {type(schema).__name__}")


_KEPT_BY: Final[dict[type, tuple[str, ...]]] = {
    str: ("string", "unknown", "boolean"),
    bool: ("boolean", "unknown"),
    int: ("number", "integer", "unknown"),
    float: ("number", "integer", "unknown"),
}
"""For each type schema-less coercion gives a value: the schema types whose coercion gives the same."""


def coercion_agrees(parameters: Mapping[str, Any], schema: Schema) -> bool:
    """Whether parsing with ``schema`` would give these schema-less ``parameters`` unchanged.

    True when every value is a top-level scalar the schema's coercion at that name would have
    produced too (a ``str`` where it wants a string or a boolean, an ``int`` where it wants a
    number...): a parser's schema-less result can then be used as is, without a second parse.
    """
    hints = _schema_hints(schema)
    for name, value in parameters.items():
        kept_by = _KEPT_BY.get(type(value))
        if kept_by is None or hints.hint(name) not in kept_by:
            return False
    return True
