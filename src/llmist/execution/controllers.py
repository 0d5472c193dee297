"""Hook points the agent layer plugs into: parameter interception, approval, dependency skips.

Each callback may be sync or async and may return ``None`` for the default decision.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from llmist.execution.results import GadgetSkip
from llmist.gadgets import Gadget
from llmist.syntax import ParsedCall

__all__ = [
    "BeforeGadget",
    "BeforeGadgetDecision",
    "DependencySkipDecision",
    "DependencySkipInfo",
    "GadgetCallInfo",
    "OnDependencySkipped",
    "ParameterInterceptor",
]


@dataclass(frozen=True, slots=True)
class GadgetCallInfo:
    """A validated call about to run (what ``before_gadget`` and interceptors see)."""

    gadget: Gadget
    call: ParsedCall
    parameters: dict[str, Any]

    @property
    def gadget_name(self) -> str:
        """Name of the gadget."""
        return self.gadget.name

    @property
    def invocation_id(self) -> str:
        """Id of the call."""
        return self.call.invocation_id


@dataclass(frozen=True, slots=True)
class BeforeGadgetDecision:
    """What ``before_gadget`` decides: run the call (with the model's parameters or with
    replacements), skip it with a synthetic result, or defer it (it does not run now and its
    result is ``"deferred"``; the calls that depend on it are deferred too)."""

    action: Literal["proceed", "skip", "defer"] = "proceed"
    result: str | None = None
    """For ``skip``: the text the model sees instead of the gadget's output. For ``defer``: why
    the call waits, for a person."""
    parameters: dict[str, Any] | None = None
    """For ``proceed``: run with these parameters instead of the model's (a person edited them
    before approving). They are validated again; invalid ones fail the call with the error."""


DependencySkipInfo: TypeAlias = GadgetSkip
"""A call whose dependency failed, as ``on_dependency_skipped`` sees it (the one skip record)."""


@dataclass(frozen=True, slots=True)
class DependencySkipDecision:
    """What ``on_dependency_skipped`` decides."""

    action: Literal["skip", "execute_anyway", "use_fallback"] = "skip"
    fallback_result: str | None = None
    """For ``use_fallback``: the result the call gets (it counts as a success)."""


ParameterInterceptor: TypeAlias = Callable[..., dict[str, Any] | Awaitable[dict[str, Any]]]
"""``(gadget_name, raw_parameters) -> parameters``, or ``(gadget_name, raw_parameters, call)`` to
also get the :class:`~llmist.syntax.ParsedCall` (its invocation id): runs after coercion, before
validation, sync or async."""
BeforeGadget: TypeAlias = Callable[
    [GadgetCallInfo], "Awaitable[BeforeGadgetDecision | None] | BeforeGadgetDecision | None"
]
"""Called before each validated call runs (approvals): proceed or skip."""
OnDependencySkipped: TypeAlias = Callable[
    [DependencySkipInfo], "Awaitable[DependencySkipDecision | None] | DependencySkipDecision | None"
]
"""Called when a call's dependency failed: skip (default), execute anyway, or use a fallback."""
