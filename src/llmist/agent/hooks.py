"""Hooks: three kinds of callbacks into the agent loop, as the original library has them.

- **Observers** watch (read-only). They may be sync or async; an observer that raises is
  logged under ``llmist.agent.hooks`` and never breaks the run.
- **Interceptors** transform values on their way (sync, on the hot path): a raw model chunk,
  a text chunk, a gadget's parameters, a gadget's result, the final message. A chunk
  interceptor returning ``None`` suppresses the chunk.
- **Controllers** decide (sync or async): before a model call (proceed, or skip it with a
  synthetic response), after a model error (recover with a fallback response, or rethrow),
  before a gadget (proceed, run it with replaced parameters, skip it with a synthetic result,
  or defer it for a person's approval), after a gadget (replace its result before it is
  recorded, streamed or sent: redaction), and when a dependency failed (skip, execute anyway,
  or use a fallback result).

Several :class:`Hooks` compose with :func:`merge_hooks`: observers all run in order,
interceptors chain in order, and the first controller that does not proceed decides.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, TypeVar

from llmist.agent.records import GuardrailRecord, PendingCall, RepairEvent
from llmist.execution import DependencySkipDecision, DependencySkipInfo, GadgetExecutionResult, GadgetSkip
from llmist.providers.base import Message, Usage
from llmist.syntax import ArgsPartialEvent

__all__ = [
    "ChunkContext",
    "CompactionContext",
    "Controllers",
    "DeferGadget",
    "GadgetAction",
    "GadgetContext",
    "Hooks",
    "Interceptors",
    "IterationContext",
    "LLMCallAction",
    "LLMCallContext",
    "LLMCompleteContext",
    "LLMErrorAction",
    "LLMErrorContext",
    "MessagesAction",
    "Observers",
    "Proceed",
    "Recover",
    "RepairEvent",
    "ReplaceMessages",
    "ReplaceParameters",
    "ReplaceResult",
    "ResultAction",
    "Rethrow",
    "SkipGadget",
    "SkipLLMCall",
    "merge_hooks",
]

logger = logging.getLogger("llmist.agent.hooks")

T = TypeVar("T")


# --- contexts handed to hooks ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LLMCallContext:
    """A model call about to start."""

    iteration: int
    """1-based iteration (model call) number of the run."""
    model: str
    """Model name as the provider knows it."""
    messages: Sequence[Message]
    """The conversation sent to the model."""
    provider: str = ""
    """The provider's id (``"openai"``...): with fallback models, the one asked now."""


@dataclass(frozen=True, slots=True)
class LLMCompleteContext:
    """A model call that finished."""

    iteration: int
    model: str
    text: str
    """The full response text (after interceptors)."""
    usage: Usage
    finish_reason: str | None
    cost: float
    """Cost of this call in USD (0 when the model's price is unknown)."""
    synthetic: bool = False
    """True when a controller supplied the response instead of the model."""
    provider: str = ""
    """Provider id (``"openai"``, ``"mock"``...)."""


@dataclass(frozen=True, slots=True)
class LLMErrorContext:
    """A model call that raised."""

    iteration: int
    model: str
    error: BaseException


@dataclass(frozen=True, slots=True)
class ChunkContext:
    """Where a streamed chunk belongs."""

    iteration: int


@dataclass(frozen=True, slots=True)
class GadgetContext:
    """A gadget call about to run."""

    iteration: int
    gadget_name: str
    invocation_id: str
    parameters: dict[str, Any]
    dependencies: tuple[str, ...] = ()
    """Invocation ids this call waited for."""


@dataclass(frozen=True, slots=True)
class IterationContext:
    """One iteration of the loop has finished (its calls done, results appended)."""

    iteration: int
    usage: Usage
    """Token usage of the run so far."""
    llm_cost: float
    gadget_cost: float
    elapsed_s: float
    """Seconds since the run started."""
    gadget_calls: int
    """Calls made in this iteration."""
    messages: Sequence[Message] = ()
    """The conversation so far, this iteration's response and results included (a live view:
    copy it to keep it)."""
    pending: tuple[PendingCall, ...] = ()
    """This iteration's calls that wait for a person's decision (and those that wait for them):
    the run ends ``"awaiting_approval"`` after it, and a session keeps them with ``messages``."""


@dataclass(frozen=True, slots=True)
class CompactionContext:
    """The conversation was compacted before a model call."""

    iteration: int
    """The iteration whose model call comes next."""
    strategy: str
    """Name of the strategy that compacted (``"sliding_window"``, ``"summarize"``...)."""
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    turns_dropped: int
    """Whole turns (a response with its results) removed or replaced by a summary."""
    usage: Usage = field(default_factory=Usage)
    """Tokens the compaction itself used (a summarising model call), else zero."""
    cost: float = 0.0
    """USD the compaction cost (added to the run's model cost)."""


# --- controller actions ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Proceed:
    """Controller action: go on as normal."""


@dataclass(frozen=True, slots=True)
class SkipLLMCall:
    """Controller action: do not call the model; use ``response`` as its answer."""

    response: str


@dataclass(frozen=True, slots=True)
class Rethrow:
    """Controller action after a model error: let the error end the run."""


@dataclass(frozen=True, slots=True)
class Recover:
    """Controller action after a model error: use ``response`` as the model's answer."""

    response: str


@dataclass(frozen=True, slots=True)
class SkipGadget:
    """Controller action: do not run the gadget; ``result`` goes back to the model instead."""

    result: str


@dataclass(frozen=True, slots=True)
class ReplaceParameters:
    """Controller action before a gadget call: run it with ``parameters`` instead of the model's
    (a person edited them before approving). They are validated again: invalid ones fail the
    call with the validation error, as the model's own would."""

    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DeferGadget:
    """Controller action before a gadget call: do not run it now; it waits for a person's
    decision, and the run ends ``"awaiting_approval"`` once the response's other calls are done
    (what ``Agent(approvals="defer")`` returns for a call that needs approval). The calls that
    depend on it wait too."""

    reason: str
    """Why the call waits, for the person who decides."""


@dataclass(frozen=True, slots=True)
class ReplaceMessages:
    """Controller action before a model call: send ``messages`` instead of the conversation
    (which becomes them), e.g. a compacted one. ``usage`` and ``cost`` of making them (a
    summarising model call) join the run's totals."""

    messages: Sequence[Message]
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0


@dataclass(frozen=True, slots=True)
class ReplaceResult:
    """Controller action after a gadget call: the call's result becomes ``result`` and its
    error ``error`` (a redaction), before it is recorded, streamed and sent to the model."""

    result: str | None
    error: str | None = None


LLMCallAction: TypeAlias = Proceed | SkipLLMCall
LLMErrorAction: TypeAlias = Rethrow | Recover
GadgetAction: TypeAlias = Proceed | SkipGadget | ReplaceParameters | DeferGadget
MessagesAction: TypeAlias = Proceed | ReplaceMessages
ResultAction: TypeAlias = Proceed | ReplaceResult

_MaybeAwaitable: TypeAlias = T | Awaitable[T]


# --- the three kinds ---------------------------------------------------------------------


@dataclass(slots=True)
class Observers:
    """Read-only callbacks (sync or async). Errors are logged, never raised."""

    on_llm_call_start: Callable[[LLMCallContext], Any] | None = None
    on_llm_call_complete: Callable[[LLMCompleteContext], Any] | None = None
    on_llm_call_error: Callable[[LLMErrorContext], Any] | None = None
    on_stream_chunk: Callable[[str, ChunkContext], Any] | None = None
    """Each raw text chunk from the model (after raw-chunk interceptors)."""
    on_args_partial: Callable[[ArgsPartialEvent], Any] | None = None
    on_gadget_start: Callable[[GadgetContext], Any] | None = None
    on_gadget_complete: Callable[[GadgetExecutionResult], Any] | None = None
    on_gadget_skipped: Callable[[GadgetSkip], Any] | None = None
    on_iteration: Callable[[IterationContext], Any] | None = None
    on_compaction: Callable[[CompactionContext], Any] | None = None
    """The conversation was compacted (see :doc:`compaction`)."""
    on_repair: Callable[[RepairEvent], Any] | None = None
    """The loop repaired a model's mistake (see :mod:`llmist.agent.repairs`)."""
    on_guardrail: Callable[[GuardrailRecord], Any] | None = None
    """A guardrail checked something (see :mod:`llmist.agent.guardrails`)."""


@dataclass(slots=True)
class Interceptors:
    """Synchronous transformers applied in order; see each field."""

    intercept_raw_chunk: Callable[[str, ChunkContext], str | None] | None = None
    """Model text before parsing; ``None`` drops the chunk."""
    intercept_text_chunk: Callable[[str, ChunkContext], str | None] | None = None
    """Prose outside calls before it is emitted; ``None`` drops it."""
    intercept_gadget_parameters: Callable[[dict[str, Any], GadgetContext], dict[str, Any]] | None = None
    """Parameters of a call before validation and execution."""
    intercept_gadget_result: Callable[[GadgetExecutionResult], GadgetExecutionResult] | None = None
    """A finished call's result before it is emitted and sent to the model."""
    intercept_final_message: Callable[[str], str] | None = None
    """The run's final output text."""


@dataclass(slots=True)
class Controllers:
    """Decision points (sync or async). Returning ``None`` means proceed."""

    transform_messages: Callable[[LLMCallContext], _MaybeAwaitable[MessagesAction | None]] | None = None
    """Before each model call (before ``before_llm_call``): return :class:`ReplaceMessages` to
    change the conversation (compaction uses it)."""
    before_llm_call: Callable[[LLMCallContext], _MaybeAwaitable[LLMCallAction | None]] | None = None
    after_llm_error: Callable[[LLMErrorContext], _MaybeAwaitable[LLMErrorAction | None]] | None = None
    before_gadget: Callable[[GadgetContext], _MaybeAwaitable[GadgetAction | None]] | None = None
    after_gadget: Callable[[GadgetExecutionResult], _MaybeAwaitable[ResultAction | None]] | None = None
    """A call finished (or was skipped): ``ReplaceResult`` changes what is recorded, streamed and
    sent to the model (before the ``intercept_gadget_result`` interceptor)."""
    on_dependency_skipped: Callable[[DependencySkipInfo], _MaybeAwaitable[DependencySkipDecision | None]] | None = None
    """Return ``DependencySkipDecision("skip" | "execute_anyway" | "use_fallback", fallback_result)``."""


@dataclass(slots=True)
class Hooks:
    """A set of hooks: observers, interceptors and controllers (all optional)."""

    observers: Observers = field(default_factory=Observers)
    interceptors: Interceptors = field(default_factory=Interceptors)
    controllers: Controllers = field(default_factory=Controllers)


def merge_hooks(*hook_sets: Hooks | None) -> Hooks:
    """Combine hook sets in order into one: observers all run, interceptors chain, and the
    first controller that returns something other than proceed decides."""
    sets = [h for h in hook_sets if h is not None]
    if len(sets) == 1:
        return sets[0]
    merged = Hooks()
    for name in Observers.__slots__:
        fns = [f for h in sets if (f := getattr(h.observers, name)) is not None]
        setattr(merged.observers, name, _fan_out(fns) if len(fns) > 1 else (fns[0] if fns else None))
    for name in Interceptors.__slots__:
        fns = [f for h in sets if (f := getattr(h.interceptors, name)) is not None]
        setattr(merged.interceptors, name, _chain(fns, name) if len(fns) > 1 else (fns[0] if fns else None))
    for name in Controllers.__slots__:
        fns = [f for h in sets if (f := getattr(h.controllers, name)) is not None]
        setattr(merged.controllers, name, _first_decision(fns) if len(fns) > 1 else (fns[0] if fns else None))
    return merged


def _fan_out(fns: list[Callable[..., Any]]) -> Callable[..., Any]:
    async def observe_all(*args: Any) -> None:
        for fn in fns:
            await call_observer(fn, *args)

    return observe_all


def _chain(fns: list[Callable[..., Any]], name: str) -> Callable[..., Any]:
    with_ctx = name in ("intercept_raw_chunk", "intercept_text_chunk", "intercept_gadget_parameters")

    def chained(value: Any, *ctx: Any) -> Any:
        for fn in fns:
            value = fn(value, *ctx) if with_ctx else fn(value)
            if value is None:
                return None
        return value

    return chained


def _first_decision(fns: list[Callable[..., Any]]) -> Callable[..., Any]:
    async def decide(ctx: Any) -> Any:
        for fn in fns:
            action = fn(ctx)
            if inspect.isawaitable(action):
                action = await action
            if action is not None and not isinstance(action, Proceed) and not _is_default_dependency_action(action):
                return action
        return None

    return decide


def _is_default_dependency_action(action: object) -> bool:
    return getattr(action, "action", None) == "skip"


async def call_observer(fn: Callable[..., Any], *args: Any) -> None:
    """Run one observer; log and swallow anything it raises."""
    try:
        out = fn(*args)
        if inspect.isawaitable(out):
            await out
    except Exception:
        logger.exception("observer %s raised; the run goes on", getattr(fn, "__qualname__", fn))


async def call_controller(fn: Callable[..., Any], ctx: Any) -> Any:
    """Run one controller (sync or async) and return its action (``None`` = proceed)."""
    action = fn(ctx)
    if inspect.isawaitable(action):
        action = await action
    return None if isinstance(action, Proceed) else action
