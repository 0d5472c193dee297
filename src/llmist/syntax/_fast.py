"""Fast construction of the parser's events, which it makes on almost every feed.

A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__``, which
costs more than the parser's own work on a small chunk (figures in ``benchmarks/RESULTS.md``).
:func:`fast_constructor` builds a plain slotted "twin" with the identical slot layout, fills
it, and retags it with ``__class__``. The result is an ordinary, frozen instance of the public
class (equal, hashable, immutable). Only the syntax events use it; everything else in llmist
(results, requests, messages, chunks) is built with its keywords.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar, cast

from llmist.syntax.events import ArgsPartialEvent, GadgetCallEvent, ParsedCall, TextEvent

__all__ = ["block_call_event", "fast_constructor", "partial_event", "text_event"]

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A function ``build(*values)`` that makes a ``cls`` from every field's value, in field order.

    ``cls`` must be a frozen dataclass with ``slots=True`` and no ``__post_init__``. The
    function takes no defaults and checks nothing: it is for internal hot paths, where the
    caller annotates it with the exact signature.
    """
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    if getattr(cls, "__slots__", None) != names or hasattr(cls, "__post_init__"):
        raise TypeError(f"fast_constructor needs a slotted dataclass without __post_init__, got {cls.__name__}")
    twin = type(f"_{cls.__name__}Twin", (), {"__slots__": names})
    params = ", ".join(names)
    fill = "".join(f"    o.{name} = {name}\n" for name in names)
    # twin() rather than object.__new__(twin): calling the class skips __new__'s argument parsing.
    source = f"def build({params}):\n    o = twin()\n{fill}    o.__class__ = cls\n    return o\n"
    namespace: dict[str, Any] = {"twin": twin, "cls": cls}
    exec(source, namespace)  # the same technique dataclasses uses to write __init__
    build = cast("Callable[..., T]", namespace["build"])
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    return build


text_event: Callable[[str], TextEvent] = fast_constructor(TextEvent)
"""``TextEvent(content)``."""

partial_event: Callable[[str, str, str, Any, str, bool], ArgsPartialEvent] = fast_constructor(ArgsPartialEvent)
"""``ArgsPartialEvent(invocation_id, gadget_name, field_path, value, delta, is_field_complete)``;
``value`` may be a ``PendingValue``, turned into the text on first read."""

_parsed_call = fast_constructor(ParsedCall)
_call_event: Callable[[ParsedCall], GadgetCallEvent] = fast_constructor(GadgetCallEvent)


def block_call_event(
    name: str,
    invocation_id: str,
    raw: str,
    parameters: dict[str, object] | None,
    error: str | None,
    dependencies: tuple[str, ...],
    repairs: tuple[str, ...] = (),
) -> GadgetCallEvent:
    """``GadgetCallEvent(ParsedCall(...))`` of a block-format call."""
    return _call_event(
        _parsed_call(name, invocation_id, raw, parameters, error, dependencies, "block", None, None, repairs)
    )
