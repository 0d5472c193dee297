"""What the parsers emit: one small frozen dataclass per event, each tagged with ``type``.

A parser turns model text into a stream of these:

- ``TextEvent``: prose outside any call.
- ``ArgsPartialEvent``: a block-format argument value growing while its block streams.
- ``GadgetCallEvent``: a complete call (``ParsedCall``), ready to validate and run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from llmist.syntax._rope import PendingValue

__all__ = ["ArgsPartialEvent", "GadgetCallEvent", "ParsedCall", "SyntaxEvent", "TextEvent"]


@dataclass(frozen=True, slots=True)
class ParsedCall:
    """One gadget call as the model wrote it, before validation against a schema."""

    gadget_name: str
    """Name from the header (block) or the first header token (emoji)."""
    invocation_id: str
    """Explicit id from the header, else ``gadget_<n>`` (numbered per agent run: :class:`~llmist.syntax.CallIds`)."""
    parameters_raw: str
    """Block: the body as written, from the line after the header to the end marker (stripped with
    ``typescript_compat``). Emoji: the body. Native: the JSON arguments."""
    parameters: dict[str, Any] | None
    """Block and native: the parsed parameters; ``None`` when ``parse_error`` is set. Emoji: ``None``."""
    parse_error: str | None
    """What was wrong with the parameters, or ``None``."""
    dependencies: tuple[str, ...]
    """Invocation ids this call waits for: de-duplicated, in header order."""
    syntax: Literal["block", "emoji", "native"] = "block"
    """Which call syntax produced the call (``native``: a provider's tool-calling API, the
    parameters decoded from its JSON arguments, which ``parameters_raw`` holds as written)."""
    raw_args: str | None = None
    """Emoji: header text after the tool name, stripped (``""`` if none)."""
    body: str | None = None
    """Emoji: the text between the header and the end marker."""
    repairs: tuple[str, ...] = ()
    """What the parser tolerated to read this call, in the order met: ``marker_spelling`` (a
    marker with a wrong count of ``!``), ``fused_argument`` (``!!!ARG:a 5``), ``code_fence`` (a
    fence around the arguments) and ``missing_end`` (no end marker). Empty for a call written as
    the format says. The agent loop counts each as a repair (``AgentResult.repairs``)."""


@dataclass(frozen=True, slots=True)
class TextEvent:
    """Text the model wrote outside any call."""

    type: ClassVar[str] = "text"
    content: str


@dataclass(frozen=True, slots=True)
class GadgetCallEvent:
    """A complete gadget call."""

    type: ClassVar[str] = "gadget_call"
    call: ParsedCall


@dataclass(frozen=True, slots=True)
class ArgsPartialEvent:
    """A block-format argument value as it streams (raw text, not yet coerced)."""

    type: ClassVar[str] = "gadget_args_partial"
    invocation_id: str
    """Id of the call being streamed; the same id its ``GadgetCallEvent`` will carry."""
    gadget_name: str
    field_path: str
    """The argument's pointer, e.g. ``content`` or ``items/0/name``."""
    value: str
    """The whole value so far (never ends in a partial marker while incomplete).

    Joined on first read: the parser never copies a value nobody reads. The event holds the
    value's unchanging pieces, so it reads the same in any thread at any time."""
    delta: str
    """What ``value`` gained since the previous partial of this field."""
    is_field_complete: bool
    """True once a following marker (or the block's end) proved the value final."""


# ``value`` becomes a read-only view of its own slot: a ``PendingValue`` the parser stored
# there reads as its text. The slot itself never changes, and the dataclass stays a plain frozen
# dataclass (``fields``, ``asdict``, ``replace``, ``==``, ``hash``, ``repr`` and pickling all
# read the attribute).
_value_slot: Any = ArgsPartialEvent.__dict__["value"]


def _read_value(event: ArgsPartialEvent) -> str:
    value = _value_slot.__get__(event)
    return value.text() if isinstance(value, PendingValue) else value


setattr(ArgsPartialEvent, "value", property(_read_value, _value_slot.__set__))  # noqa: B010 (mypy rejects a class attribute over a slot)

SyntaxEvent: TypeAlias = TextEvent | GadgetCallEvent | ArgsPartialEvent
"""Any event a call parser emits."""
