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

from mypy_extensions import mypyc_attr
from pydantic import BaseModel

from llmist.errors import LlmistError
from llmist.syntax.schema import JsonSchema, Schema, json_schema
from llmist.syntax.writing import block_escape_char, unescape_block_value

__all__ = [
    "MAX_PARAMETER_DEPTH",
    "BlockParseError",
    "Schema",
    "arguments_span",
    "assemble_params",
    "coercion_agrees",
    "nesting_error",
    "parse_block_body",
    "parse_block_params",
    "parse_block_span",
    "stripped_span",
    "unfenced_span",
]

_TypeHint: TypeAlias = Literal["string", "number", "integer", "boolean", "unknown"]

_NUMBER: Final = re.compile(r"-?[0-9]+(?:\.[0-9]+)?").fullmatch
_NUMBER_START: Final = frozenset("-0123456789")
_INF: Final = float("inf")


# An ordinary Python class even in the compiled wheel: it derives from llmist.errors, which is not compiled.
@mypyc_attr(native_class=False)
class BlockParseError(LlmistError, ValueError):
    """The parameters of a block cannot be assembled (duplicate pointer, bad array index)."""


def parse_block_params(content: str, *, arg_prefix: str = "!!!ARG:", schema: Schema | None = None) -> dict[str, Any]:
    """Assemble the ``!!!ARG:`` lines of ``content`` into a dict.

    Raises :class:`BlockParseError` with ``Duplicate pointer: <p>``,
    ``Array index gap: expected <n>, got <m>`` or ``Invalid array index: <seg>`` (a negative
    or non-numeric index), and for what the spec's grammar has no place for: an empty name or
    segment, a value and nested values at one pointer (``Pointer conflict: ...``), or a pointer
    deeper than :data:`MAX_PARAMETER_DEPTH`.
    """
    hints = _schema_hints(schema) if schema is not None else None
    return parse_block_span(content, 0, len(content), arg_prefix, hints, block_escape_char(arg_prefix))


def parse_block_body(body: str, *, arg_prefix: str = "!!!ARG:", schema: Schema | None = None) -> dict[str, Any]:
    """The parameters of a block's body read as the parser reads them: the arguments found by
    :func:`arguments_span` (a markdown fence around them dropped), then assembled as
    :func:`parse_block_params` does."""
    a, b, _ = arguments_span(body, 0, len(body), arg_prefix)
    hints = _schema_hints(schema) if schema is not None else None
    return parse_block_span(body, a, b, arg_prefix, hints, block_escape_char(arg_prefix))


def arguments_span(
    s: str, a: int, b: int, arg_prefix: str, *, typescript_compat: bool = False
) -> tuple[int, int, bool]:
    """Where the arguments of the block body ``s[a:b]`` lie, and whether a fence was dropped.

    Every value, the last one included, loses exactly one trailing newline (the one before the
    next marker) and keeps any other whitespace, so the body's end is kept as written. Models
    sometimes wrap the arguments in a markdown fence: an opening ```` ``` ````, ```` ```json ````,
    ```` ```yaml ```` or ```` ```toml ```` line before the first argument is dropped, and so is a
    closing ```` ``` ```` line at the end when it closes nothing inside the last value (a value
    that is itself a fenced code block keeps its closing line).

    ``typescript_compat`` cuts as the TypeScript original does: the body is stripped, so the
    last value loses all its trailing whitespace, and a closing fence at the end always goes.
    """
    start, stop = stripped_span(s, a, b)
    if typescript_compat:
        if s.startswith("```", start, stop) or s.endswith("```", start, stop):
            return (*unfenced_span(s, start, stop), True)
        return start, stop, False
    fenced = False
    if s.startswith("```", start, stop):
        opened = _after_opening_fence(s, start, stop)
        fenced, start = opened != start, opened
    closing = stop - start >= 4 and s.endswith("```", start, stop) and s[stop - 4] == "\n"
    if closing and _closes_nothing(s, start, stop, arg_prefix):
        return start, stop - 3, True  # the value rule then drops the newline before the fence
    return start, b, fenced


def _after_opening_fence(s: str, a: int, b: int) -> int:
    """Where the arguments start after the fence line opening ``s[a:b]`` (``a`` if none)."""
    options = [a + 7] if s[a + 3 : a + 7].lower() in _FENCE_LANGUAGES else []
    options.append(a + 3)
    for k in options:
        last_newline = -1
        while k < b and s[k].isspace():
            if s[k] == "\n":
                last_newline = k
            k += 1
        if last_newline >= 0:
            return last_newline + 1
    return a


def _closes_nothing(s: str, a: int, b: int, arg_prefix: str) -> bool:
    """The fence line ending ``s[a:b]`` closes no fence opened inside the last value: fence
    lines in that value, the last one included, are odd in number."""
    value_start = s.rfind(arg_prefix, a, b)
    value_start = a if value_start < 0 else s.find("\n", value_start, b) + 1
    fences = s.count("\n```", value_start, b) + s.startswith("```", value_start, b)
    return fences % 2 == 1


def parse_block_span(
    s: str, a: int, b: int, arg_prefix: str, hints: _SchemaHints | None = None, escape: str | None = None
) -> dict[str, Any]:
    """:func:`parse_block_params` of ``s[a:b]``, slicing each value straight out of ``s``
    (``escape``: the character of escaped value lines, :func:`~llmist.syntax.writing.block_escape_char`;
    ``None`` reads backslashes as written)."""
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
            _put(result, seen, s[begin:stop].strip(), "", hints, escape)
        else:
            end = stop - 1 if stop > newline + 1 and s[stop - 1] == "\n" else stop
            _put(result, seen, s[begin:newline].strip(), s[newline + 1 : end], hints, escape)
    return result


def assemble_params(arguments: list[tuple[str, str]], escape: str | None = None) -> dict[str, Any]:
    """:func:`parse_block_params` of arguments already cut out of a block: ``(pointer, value)``
    pairs in order, each pointer stripped and each value without the newline before the next
    argument (the streaming parser tracks them as they arrive, so it need not scan the body again)."""
    result: dict[str, Any] = {}
    seen: set[str] = set()
    for pointer, value in arguments:
        _put(result, seen, pointer, value, None, escape)
    return result


def _put(
    result: dict[str, Any], seen: set[str], pointer: str, text: str, hints: _SchemaHints | None, escape: str | None
) -> None:
    """Coerce one argument's value (multi-line values never are; escaped lines are read first)
    and set it at its pointer in ``result``."""
    if not pointer:
        raise BlockParseError("Empty pointer: an argument needs a parameter name after the argument marker")
    if pointer in seen:
        raise BlockParseError(f"Duplicate pointer: {pointer}")
    segments = pointer.split("/") if "/" in pointer else None
    if segments is not None:
        _check_segments(pointer, segments)
    if escape is not None:
        text = unescape_block_value(text, escape)
    value = _coerce(text, "unknown" if hints is None else hints.hint(pointer))
    seen.add(pointer)
    if segments is not None:
        _set_nested(result, segments, value)
    elif pointer in result:  # not seen, so an earlier nested pointer made it a container
        raise BlockParseError(_holds_nested(pointer))
    else:
        result[pointer] = value


MAX_PARAMETER_DEPTH: Final = 32
"""How deeply one call's parameters may nest: segments of a pointer, or levels of a value
decoded from JSON. Deeper data is refused with :func:`nesting_error`'s message, not left to
exhaust the interpreter's recursion limit further on."""


def nesting_error(path: list[str]) -> str:
    """The error for parameters nested deeper than :data:`MAX_PARAMETER_DEPTH` along ``path``."""
    shown = "/".join(path[:4]) + ("/..." if len(path) > 4 else "")
    return f"Parameters nested too deep: {shown} reaches level {len(path)}; the limit is {MAX_PARAMETER_DEPTH} levels"


def _check_segments(pointer: str, segments: list[str]) -> None:
    """Refuse a pointer that is too deep, has an empty segment or a negative array index."""
    if len(segments) > MAX_PARAMETER_DEPTH:
        raise BlockParseError(nesting_error(segments))
    if "" in segments:
        raise BlockParseError(f"Empty segment in pointer: {pointer} (write names between the slashes)")
    if "-" in pointer:
        # An index is a non-negative integer: "-1" is a bad index, never an object key (the
        # first segment names a parameter of the call, so any name goes there).
        for segment in segments[1:]:
            if segment[0] == "-" and segment[1:].isdigit() and segment.isascii():
                raise BlockParseError(f"Invalid array index: {segment}")


def _holds_nested(path: str) -> str:
    return f"Pointer conflict: {path} already holds nested values ({path}/...), so it cannot also be set to a value"


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
        a = _after_opening_fence(s, a, b)
    if b - a >= 3 and s.endswith("```", a, b):
        b -= 3
        if b > a and s[b - 1] == "\n":
            b -= 1
    return stripped_span(s, a, b)


def _coerce(value: str, hint: _TypeHint) -> Any:
    if hint == "string" or ("\n" in value and hint == "unknown"):
        return value
    trimmed = value.strip()
    if "\n" in trimmed:  # multi-line text is never a number or a bool, whatever the schema says
        return value
    if hint == "boolean":
        return True if trimmed == "true" else False if trimmed == "false" else value
    if hint == "number" or hint == "integer":
        return _parse_number(trimmed, value)
    if trimmed == "true":
        return True
    if trimmed == "false":
        return False
    if trimmed.isdigit() and trimmed.isascii():  # the common number, without the regex
        return int_or_text(trimmed, value)
    if trimmed and trimmed[0] in _NUMBER_START and _NUMBER(trimmed):
        return _finite_or_text(trimmed, value) if "." in trimmed else int_or_text(trimmed, value)
    return value


def int_or_text(digits: str, original: str) -> int | str:
    """``int(digits)``, or ``original`` when Python refuses to read that many digits
    (``sys.get_int_max_str_digits()``, 4,300 by default): a model's number is never a crash."""
    try:
        return int(digits)
    except ValueError:
        return original


def _finite_or_text(number: str, original: str) -> float | str:
    """``float(number)``, or ``original`` when it is too large to be finite."""
    value = float(number)
    return original if value in (_INF, -_INF) else value


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
    """Set ``value`` at ``segments`` (checked by :func:`_check_segments`), building containers
    on the way: an index segment makes its parent a list, any other an object."""
    current: Any = root
    last = len(segments) - 1
    for depth, segment in enumerate(segments):
        if type(current) is list:
            key: Any = _list_slot(current, segments, depth)
        elif depth and _is_index(segment):
            parent = "/".join(segments[:depth])
            raise BlockParseError(
                f"Pointer conflict: {'/'.join(segments)} uses {segment} as an array index, but {parent} is an object"
            )
        else:
            key = segment
        if depth == last:
            if type(current) is list and key == len(current):
                current.append(value)
            elif (type(current) is list and key < len(current)) or (type(current) is dict and key in current):
                raise BlockParseError(_holds_nested("/".join(segments)))
            else:
                current[key] = value
            return
        current = _child(current, key, segments, depth)


def _list_slot(current: list[Any], segments: list[str], depth: int) -> int:
    """The index ``segments[depth]`` names in ``current``: the next one at most."""
    segment = segments[depth]
    if not _is_index(segment):
        raise BlockParseError(f"Invalid array index: {segment}")
    index = int_or_text(segment, segment) if len(segment) < _SHOWN_DIGITS else segment
    if isinstance(index, str) or index > len(current):
        shown = segment if len(segment) < _SHOWN_DIGITS else f"{segment[:12]}…({len(segment)} digits)"
        raise BlockParseError(f"Array index gap: expected {len(current)}, got {shown}")
    return index


_SHOWN_DIGITS: Final = 20
"""An array index of this many digits or more is past any list: refused without reading it."""


def _child(current: Any, key: Any, segments: list[str], depth: int) -> Any:
    """The container at ``current[key]``, made (a list or an object, as the next segment says) if new."""
    if type(current) is list:
        if key == len(current):
            current.append([] if _is_index(segments[depth + 1]) else {})
        child = current[key]
    else:
        child = current.get(key)
        if child is None:
            child = current[key] = [] if _is_index(segments[depth + 1]) else {}
    if type(child) is not dict and type(child) is not list:
        path = "/".join(segments[: depth + 1])
        raise BlockParseError(f"Pointer conflict: {'/'.join(segments)} goes inside {path}, which already holds a value")
    return child


class _SchemaHints:
    """Answers "what type does the schema expect at this pointer?" for one JSON schema."""

    __slots__ = ("_cache", "_schema")

    def __init__(self, schema: JsonSchema) -> None:
        self._schema = schema
        self._cache: dict[str, _TypeHint] = {}

    def hint(self, pointer: str) -> _TypeHint:
        cached = self._cache.get(pointer)
        if cached is None:
            cached = self._cache[pointer] = self._lookup(pointer.split("/"))
        return cached

    def _lookup(self, segments: list[str]) -> _TypeHint:
        schema = self._schema
        node: Mapping[str, Any] | None = schema.resolve(schema.root)
        for segment in segments:
            if node is None:
                return "unknown"
            node = schema.child(node, segment)
        return _leaf_type(schema, node) if node is not None else "unknown"


def _leaf_type(schema: JsonSchema, node: Mapping[str, Any]) -> _TypeHint:
    kind = schema.kind(node)
    if kind in ("string", "number", "integer", "boolean"):
        return kind  # type: ignore[return-value]
    if not kind and "enum" in node:
        values = node["enum"]
        if values and all(isinstance(v, str) for v in values):
            return "string"
    if not kind and isinstance(node.get("const"), str):
        return "string"
    return "unknown"


_MODEL_HINTS: dict[type[BaseModel], _SchemaHints] = {}
"""Hints per model class. A plain dict, not ``lru_cache``: the compiled build type-checks this
module without pydantic installed, where ``type[BaseModel]`` is not known to be hashable."""


def _schema_hints(schema: Schema) -> _SchemaHints:
    if isinstance(schema, type):
        # Looked up before ``issubclass``, a Python-level call through pydantic's metaclass (as
        # in ``json_schema``): this runs for every block call.
        hints = _MODEL_HINTS.get(schema)
        if hints is not None:
            return hints
        if issubclass(schema, BaseModel):
            if len(_MODEL_HINTS) >= 256:
                _MODEL_HINTS.clear()
            hints = _MODEL_HINTS[schema] = _SchemaHints(json_schema(schema))
            return hints
    return _SchemaHints(json_schema(schema))


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
