"""What running a call produces: ``GadgetExecutionResult`` and the ``GadgetSkip`` record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from llmist.syntax import ParsedCall
from llmist.syntax._fast import fast_constructor

__all__ = ["GadgetExecutionResult", "GadgetSkip", "ResultStatus"]

ResultStatus: TypeAlias = Literal["success", "error", "timeout", "skipped", "cancelled"]
"""How a call ended. Anything but ``"success"`` counts as a failed dependency."""


@dataclass(frozen=True, slots=True)
class GadgetSkip:
    """Why a call was skipped: one of its dependencies failed (data of ``GadgetSkippedEvent``)."""

    gadget_name: str
    invocation_id: str
    parameters: dict[str, Any]
    failed_dependency: str
    """Invocation id of the dependency that failed."""
    failed_dependency_error: str
    """That dependency's error."""


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


_ResultFields: TypeAlias = tuple[
    str,
    str,
    dict[str, Any],
    str | None,
    str | None,
    float,
    float,
    bool,
    ResultStatus,
    GadgetSkip | None,
    str | None,
    bool,
]
new_result: Callable[[*_ResultFields], GadgetExecutionResult] = fast_constructor(GadgetExecutionResult)
"""``GadgetExecutionResult`` from every field, in order, for hot paths (skips the frozen ``__init__``)."""

RUN_CANCELLED = "Cancelled: the run was cancelled"
"""The error of a call that the run's cancellation ended."""


def call_result(call: ParsedCall, result: str | None, error: str | None, status: ResultStatus) -> GadgetExecutionResult:
    """The result of ``call`` decided without running its gadget (an error, a cancellation, a
    fallback): its parameters as parsed, no time, no cost."""
    name, parameters = call.gadget_name, dict(call.parameters or {})
    return new_result(name, call.invocation_id, parameters, result, error, 0.0, 0.0, False, status, None, None, False)
