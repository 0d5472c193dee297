"""What running a call produces: ``GadgetExecutionResult`` and the ``GadgetSkip`` record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from llmist.gadgets.media import GadgetMedia
from llmist.syntax import ParsedCall
from llmist.syntax.frozen import fast_constructor

__all__ = ["GadgetDeferral", "GadgetExecutionResult", "GadgetSkip", "ResultStatus"]

ResultStatus: TypeAlias = Literal["success", "error", "timeout", "skipped", "cancelled", "deferred"]
"""How a call ended. ``"deferred"``: it did not run and waits (for a person's approval, say);
the calls that depend on it wait too. Anything else but ``"success"`` counts as a failed
dependency."""


@dataclass(frozen=True, slots=True)
class GadgetSkip:
    """A call not run because a call it depends on failed.

    One record serves everywhere a skip shows: the ``on_dependency_skipped`` hook's argument
    (``DependencySkipInfo``), a skipped result's ``skip``, and the agent's stream event
    (``GadgetSkippedEvent``, type ``"gadget_skipped"``).
    """

    type: ClassVar[str] = "gadget_skipped"
    gadget_name: str
    invocation_id: str
    parameters: dict[str, Any]
    """The call's parameters as parsed (not validated: the call never ran)."""
    failed_dependency: str
    """Invocation id of the dependency that failed."""
    failed_dependency_error: str
    """That dependency's error."""
    call: ParsedCall | None = field(default=None, compare=False, repr=False)
    """The skipped call itself (its dependencies, raw text...), set by the scheduler."""


@dataclass(frozen=True, slots=True)
class GadgetDeferral:
    """Why a call was deferred (not run now): a ``before_gadget`` hook deferred it, or it depends
    on a call that was deferred."""

    reason: str
    """For a person: why the call waits."""
    call: ParsedCall = field(compare=False, repr=False)
    """The call as the model wrote it (what runs once it no longer waits)."""
    waits_for: str | None = None
    """Set when the call was deferred only because it depends on this deferred call."""


@dataclass(frozen=True, slots=True)
class GadgetExecutionResult:
    """The outcome of one call, in the order calls finish."""

    gadget_name: str
    invocation_id: str
    parameters: dict[str, Any]
    """Validated parameters (defaults applied); the raw ones when validation failed."""
    result: str | None
    """What the model sees on success (already output-limited), else ``None``."""
    error: str | None
    """What went wrong, written for the model; ``None`` on success."""
    execution_time_ms: float
    cost: float = 0.0
    """USD: ``ctx.report_cost`` + ``ctx.llm`` completions + a returned ``GadgetResult.cost``."""
    breaks_loop: bool = False
    """The gadget raised ``TaskCompletionSignal``: the agent loop should end."""
    status: ResultStatus = "success"
    skip: GadgetSkip | None = None
    """Set when the call was skipped because a dependency failed."""
    human_input_question: str | None = None
    """The question of a ``HumanInputRequired`` (answered or not)."""
    model_retry: bool = False
    """The gadget raised ``ModelRetry``: ``error`` holds its message for the model."""
    media: tuple[GadgetMedia, ...] = ()
    """Images, sounds or files the gadget returned beside ``result`` (``GadgetResult.media``)."""
    deferral: GadgetDeferral | None = None
    """Set when the call was deferred (status ``"deferred"``): why, and the call itself."""
    finished_after_cancel: bool = False
    """The call finished after the run was cancelled (a tripwire, a cancel), within its grace
    period: ``result``, ``error`` and ``status`` say what it really did (a sync gadget's thread
    cannot be stopped, and a write it made happened); the model never read it."""

    @property
    def ok(self) -> bool:
        """True when the call succeeded (a fallback result counts as success)."""
        return self.status == "success"

    @property
    def text(self) -> str:
        """The text to feed back to the model: the result, or the error."""
        if self.result is not None:
            return self.result
        return f"Error: {self.error}" if self.error else ""


build_result = fast_constructor(GadgetExecutionResult)
"""``GadgetExecutionResult(...)`` without its frozen ``__init__``: how the executor makes the
result of every call (``llmist.syntax.frozen``)."""


RUN_CANCELLED = "Cancelled: the run was cancelled"
"""The error of a call that the run's cancellation ended."""


def call_result(call: ParsedCall, result: str | None, error: str | None, status: ResultStatus) -> GadgetExecutionResult:
    """The result of ``call`` decided without running its gadget (an error, a cancellation, a
    fallback): its parameters as parsed, no time, no cost."""
    return build_result(
        gadget_name=call.gadget_name,
        invocation_id=call.invocation_id,
        parameters=dict(call.parameters or {}),
        result=result,
        error=error,
        execution_time_ms=0.0,
        status=status,
    )
