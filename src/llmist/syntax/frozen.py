"""Fast construction of the frozen records made for every chunk or every call.

A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__``, which
costs more than the parser's own work on a small chunk, and a fifth of the loop's work on a call
(figures in ``benchmarks/RESULTS.md``). :func:`fast_constructor` builds a plain slotted "twin"
with the identical slot layout, fills it, and retags it with ``__class__``. The result is an
ordinary, frozen instance of the public class (equal, hashable, immutable).

A builder takes the arguments of the class's own ``__init__``, positions, keywords and defaults,
and is typed with them, so a call site reads and type-checks as a construction of the class
(``build_result(gadget_name=..., ...)``); the first version took every field by position, and
results and messages, built with keywords, stayed off it. The parser's events use it, and so do
the three records of every call's result (the result, its message, its event). Everything else
in llmist is built by calling its class. It lives in the syntax layer, which every other layer
may import and which imports nothing of ours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any, ParamSpec, TypeVar, cast

from llmist.syntax.events import ArgsPartialEvent, GadgetCallEvent, ParsedCall, TextEvent

__all__ = ["block_call_event", "fast_constructor", "partial_event", "text_event"]

T = TypeVar("T")
P = ParamSpec("P")


def fast_constructor(cls: Callable[P, T]) -> Callable[P, T]:
    """A function that makes a ``cls`` from the arguments ``cls(...)`` takes, without its
    frozen ``__init__``.

    ``cls`` must be a frozen dataclass with ``slots=True``, no ``__post_init__`` and no field
    with a ``default_factory`` or ``init=False``; its base may be another such dataclass (a
    ``Message``). The function checks no types, as ``__init__`` does not.
    """
    if not isinstance(cls, type):
        raise TypeError(f"fast_constructor needs a class, got {cls!r}")
    params, names, defaults = _signature(cls)
    base = cls.__mro__[1]
    if base is not object and getattr(base, "__slots__", None) is None:
        raise TypeError(f"fast_constructor needs a slotted dataclass base, got {cls.__name__}({base.__name__})")
    # The twin shares the class's base, so the two layouts match (CPython checks this on the
    # retag). It sets fields and starts as a plain object does, whatever the base's frozen
    # methods: setting and deleting share one slot of the type, so both must be the plain ones.
    twin = type(
        f"_{cls.__name__}Twin",
        (base,),
        {
            "__slots__": cls.__dict__["__slots__"],
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
            "__init__": object.__init__,
        },
    )
    fill = "".join(f"    __record__.{name} = {name}\n" for name in names)
    # __twin__() rather than object.__new__: calling the class skips __new__'s argument parsing.
    # Dunder names, as dataclasses uses, so that no field's name can shadow them.
    source = (
        f"def build({', '.join(params)}):\n    __record__ = __twin__()\n{fill}"
        "    __record__.__class__ = __cls__\n    return __record__\n"
    )
    namespace: dict[str, Any] = {"__twin__": twin, "__cls__": cls, **defaults}
    exec(source, namespace)  # the same technique dataclasses uses to write __init__
    build = cast("Callable[P, T]", namespace["build"])
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    return build


def _signature(cls: type) -> tuple[list[str], list[str], dict[str, Any]]:
    """The parameters of ``cls.__init__`` as source (positional ones, then keyword-only ones
    after ``*``), every field's name, and the defaults the parameters name."""
    all_fields = fields(cls)
    frozen = getattr(getattr(cls, "__dataclass_params__", None), "frozen", False)
    if (
        not frozen
        or "__slots__" not in cls.__dict__
        or hasattr(cls, "__post_init__")
        or any(f.default_factory is not MISSING or not f.init or f.name.startswith("__") for f in all_fields)
    ):
        raise TypeError(
            f"fast_constructor needs a frozen slotted dataclass without __post_init__, and fields without "
            f"default_factory, init=False or a dunder name, got {cls.__name__}"
        )
    defaults: dict[str, Any] = {}
    positional: list[str] = []
    keyword_only: list[str] = []
    for f in all_fields:
        param = f.name
        if f.default is not MISSING:
            defaults[f"_default_{f.name}"] = f.default
            param = f"{f.name}=_default_{f.name}"
        (keyword_only if f.kw_only else positional).append(param)
    params = positional + (["*", *keyword_only] if keyword_only else [])
    return params, [f.name for f in all_fields], defaults


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
