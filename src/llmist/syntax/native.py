"""Native tool calls as parsed calls: the JSON arguments a provider's tool-calling API returns,
read into the same :class:`~llmist.syntax.ParsedCall` the text syntaxes produce, so one
executor validates and runs calls of every syntax.

A call whose arguments are not a JSON object still becomes a call, with ``parse_error``
saying what was wrong: the model is told, and writes the call again.

:class:`ProseParser` stands in for a call parser when calls come through the API: every
piece of the response's text is prose.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from llmist.syntax._base import CallIds, next_auto_id
from llmist.syntax.events import ParsedCall, SyntaxEvent, TextEvent
from llmist.syntax.pointers import int_or_text

__all__ = ["ProseParser", "loads_arguments", "native_call"]


class ProseParser:
    """The parser of a response whose calls come through the provider's API: its text is all
    prose (a ``TextEvent`` per chunk), with the call parsers' ``feed``/``finalize``/``reset``."""

    __slots__ = ()

    def feed(self, chunk: str) -> Sequence[SyntaxEvent]:
        """The chunk as prose."""
        return (TextEvent(chunk),) if chunk else ()

    def finalize(self) -> Sequence[SyntaxEvent]:
        """Nothing is held back, so nothing is left."""
        return ()

    def reset(self) -> None:
        """Nothing to forget."""


def native_call(
    name: str, arguments: str, invocation_id: str = "", *, ids: Callable[[], str] = next_auto_id
) -> ParsedCall:
    """The call ``name(arguments)``, its ``arguments`` a JSON object as the model wrote it.

    Empty arguments stand for ``{}`` (some providers send nothing for a call without
    parameters). ``invocation_id`` is the provider's id of the call; empty, ``ids()`` gives one
    (``gadget_<n>``).
    """
    params, error = _decode(arguments)
    if invocation_id and isinstance(ids, CallIds):
        ids.claim(invocation_id)
    return ParsedCall(
        gadget_name=name.strip(),
        invocation_id=invocation_id or ids(),
        parameters_raw=arguments,
        parameters=params,
        parse_error=error,
        dependencies=(),
        syntax="native",
    )


def loads_arguments(text: str) -> Any:
    """``json.loads(text)``, except that an integer too long for Python to read (past
    ``sys.get_int_max_str_digits()``) stays its digits, a string, as in the text syntaxes."""
    return json.loads(text, parse_int=_int_or_digits)


def _int_or_digits(digits: str) -> int | str:
    return int_or_text(digits, digits)


def _decode(arguments: str) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments as a dict, or ``None`` and what was wrong with them."""
    if not arguments.strip():
        return {}, None
    try:
        value = loads_arguments(arguments)
    except json.JSONDecodeError as exc:
        return None, (
            f"the arguments are not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "expected one JSON object of the parameters"
        )
    if not isinstance(value, dict):
        return None, f"the arguments are a JSON {_json_type(value)}; expected one JSON object of the parameters"
    return value, None


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, (int, float)) else "null"
