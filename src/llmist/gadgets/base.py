"""``Gadget``: the class every tool is (class-based, decorated function, or ``create_gadget``)."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, ValidationError

from llmist._callables import accepts_positional
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.errors import GadgetError
from llmist.gadgets.media import GadgetMedia

__all__ = [
    "DEFAULT_MAX_PARAMETER_CHARS",
    "ApprovalRule",
    "Gadget",
    "GadgetExample",
    "GadgetResult",
    "Invocation",
    "NoParams",
]

DEFAULT_MAX_PARAMETER_CHARS = 1 << 20
"""Default of :attr:`Gadget.max_parameter_chars`: 1 MiB of text, more than any model writes in
one answer today, so only a runaway or hostile stream meets it."""

ApprovalRule: TypeAlias = "bool | Callable[[dict[str, Any]], bool | str | None]"
"""Whether a call needs a person's approval: always (``True``), never (``False``), or a function
of the call's validated parameters returning ``True``/``False``, or the reason as text."""

# Dots between words too: the functions of many APIs are named so (``us_economy.gdp_by_state_year``),
# and a model writes a function's name as the task gives it. Native tool APIs take no dots: the
# name is sent there as ``execution.names.native_name`` gives it.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-]+)*").fullmatch


@dataclass(frozen=True, slots=True)
class GadgetResult:
    """What ``execute`` may return instead of a plain ``str``: to report a cost, or to return
    media (images, sounds, files) beside the text."""

    result: str
    """The text the model sees."""
    cost: float = 0.0
    """USD; added to costs reported through the context."""
    media: Sequence[GadgetMedia] = ()
    """Media returned with the text: kept on the call's result, shown to a model that sees
    images in the next turn, else named with its type and size (see :class:`GadgetMedia`)."""

    def __post_init__(self) -> None:
        media = tuple(self.media)
        for item in media:
            if not isinstance(item, GadgetMedia):
                raise TypeError(
                    f"GadgetResult.media takes GadgetMedia items (GadgetMedia.from_path(...), "
                    f"GadgetMedia.from_bytes(...)), got {type(item).__name__}"
                )
        object.__setattr__(self, "media", media)


@dataclass(frozen=True, slots=True)
class GadgetExample:
    """An example call, shown to the model in the active call syntax."""

    params: Mapping[str, Any]
    """Parameters of the example call (as the model would write them)."""
    output: str | None = None
    """What the gadget returns for it."""
    comment: str | None = None
    """What the example demonstrates."""


class NoParams(BaseModel):
    """Parameters of a gadget that takes none."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


@dataclass(frozen=True, slots=True)
class Invocation:
    """How to call a gadget's ``execute``: resolved once per gadget, reused on every call."""

    call: Callable[[BaseModel, ExecutionContext], Any]
    is_async: bool


class Gadget:
    """Base class of every gadget.

    Subclass it and set ``description`` and ``Params`` (a Pydantic model), then implement
    ``execute(self, params, ctx)`` returning ``str`` or :class:`GadgetResult`, as a plain or
    an ``async`` method. Sync ones run in a worker thread, so they never block the event loop.
    """

    name: str = "Gadget"
    """Name the model calls it by. Defaults to the class name."""
    description: str = ""
    """What the gadget does, for the model. Required."""
    Params: type[BaseModel] = NoParams
    """The parameter schema."""
    timeout_s: float | None = None
    """Seconds before the call is cancelled; ``None`` means the executor's default."""
    cancel_grace_s: float | None = None
    """An async gadget cancelled (past its timeout, or when the run ends) gets this many seconds
    to stop before the call ends without it and it is left running; ``None``: the executor's
    default (1 s)."""
    examples: Sequence[GadgetExample] = ()
    """Example calls rendered into the prompt."""
    max_concurrent: int | None = None
    """At most this many calls of this gadget run at once (``None``: no limit)."""
    exclusive: bool = False
    """Run alone: after every call started before it, and before any call started after it."""
    run_inline: bool = False
    """Opt-in, for a sync ``execute`` that returns in microseconds (pure arithmetic, a dict
    lookup): call it directly on the event loop's thread instead of in a worker thread. It then
    blocks the loop while it runs and its timeout cannot interrupt it, so never set this on a
    gadget that does I/O, sleeps or computes for long. Ignored for ``async`` gadgets."""
    max_retries: int | None = None
    """How many ``ModelRetry`` this gadget may raise per run; ``None``: the executor's default."""
    max_parameter_chars: int = DEFAULT_MAX_PARAMETER_CHARS
    """Longest a call's parameters may be, in characters (a block's body; an emoji call's header
    arguments and body). A longer call is an error the model sees, naming this limit."""
    ends_run: bool = False
    """Whether a call of this gadget ends the run (it raises :class:`TaskCompletionSignal`): the
    system prompt and the loop's notes then tell the model to end the task by calling it, where
    they would tell it to answer in plain text. Qwen2.5-Coder-0.5B, told both "call finish" (the
    task) and "answer in plain text" (the prompt), answered in plain text (benchmarks/RESULTS.md)."""
    requires_approval: ApprovalRule = False
    """Whether a person must approve a call before it runs: ``True``, or (in a class, as a
    method) a function of the call's validated parameters that returns ``True``/``False`` or the
    reason as text. What asks (``Agent(approvals="defer")``, ``llmist agent``, ``llmist web``)
    reads it through :func:`~llmist.gadgets.approval_reason`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    def execute(self, params: Any, ctx: ExecutionContext) -> str | GadgetResult | Awaitable[str | GadgetResult]:
        """Run the gadget with validated ``params``; return the result text (or a :class:`GadgetResult`)."""
        raise NotImplementedError(f"Gadget {self.name!r} does not implement execute(self, params, ctx)")

    def invocation(self) -> Invocation:
        """How to call :meth:`execute` (sync or async, with or without ``ctx``), resolved once."""
        cached: Invocation | None = self.__dict__.get("_llmist_invocation")
        if cached is None:
            cached = self._resolve_invocation()
            self.__dict__["_llmist_invocation"] = cached
        return cached

    def _resolve_invocation(self) -> Invocation:
        method = self.execute
        is_async = inspect.iscoroutinefunction(method)
        defined = getattr(method, "__func__", None)  # ``execute`` as the class defines it
        takes_ctx = _takes_ctx(defined) if defined is not None else accepts_positional(method, 2)
        if takes_ctx:
            return Invocation(method, is_async)
        single: Callable[[BaseModel], Any] = method  # type: ignore[assignment]
        return Invocation(lambda params, ctx: single(params), is_async)

    def __repr__(self) -> str:
        return f"<Gadget {self.name}>"


@functools.lru_cache(maxsize=256)
def _takes_ctx(execute: Callable[..., Any]) -> bool:
    """Whether a class's ``execute(self, params, ctx)`` takes ``ctx``: read once per class, not
    once per instance (an agent's output viewer is a new instance for every agent)."""
    return accepts_positional(execute, 3)


_CHECKED_ATTRIBUTES = frozenset({"name", "description", "Params", "timeout_s", "examples", "execute"})
"""Every attribute :func:`_check` reads: an instance that sets none of them itself passes or fails
with its class (``as_gadget`` checks a class once)."""


def _check(g: Gadget) -> None:
    kind = type(g).__name__
    if not isinstance(g.name, str) or not _NAME(g.name):
        raise GadgetError(
            f"Gadget name {g.name!r} ({kind}) must start with a letter and use only letters, digits, '_', '-' "
            "and '.' between them"
        )
    if not isinstance(g.description, str) or not g.description.strip():
        raise GadgetError(f"Gadget {g.name!r} needs a description: set `description = '...'` or write a docstring")
    if not (isinstance(g.Params, type) and issubclass(g.Params, BaseModel)):
        raise GadgetError(f"Gadget {g.name!r}: Params must be a Pydantic BaseModel subclass, got {g.Params!r}")
    if g.timeout_s is not None and g.timeout_s <= 0:
        raise GadgetError(f"Gadget {g.name!r}: timeout_s must be positive, got {g.timeout_s}")
    _check_examples(g)
    g.invocation()


def _check_examples(g: Gadget) -> None:
    """An example is shown to the model as a correct call: one that does not validate would teach
    it a wrong one, so it is refused when the gadget is defined, naming the field and the reason."""
    for index, example in enumerate(g.examples, 1):
        try:
            g.Params.model_validate(example.params)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or '(parameters)'}: {error['msg']}"
                for error in exc.errors()
            )
            raise GadgetError(
                f"Gadget {g.name!r}: example {index} does not validate against its parameters: {problems}"
            ) from None
