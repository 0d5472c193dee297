"""What an eval case is: a task, the gadgets it may use, and what a correct run looks like.

A case is graded deterministically (see :mod:`llmist.evals.grader`): its final answer must
contain every string of ``answer``, and each :class:`ExpectedCall` must match a successful call.
``solution`` is the reference run, turn by turn; the ``mock`` model of ``llmist eval`` replays
it, which proves each case solvable and its grader right.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = ["SYNTAXES", "Call", "EvalCase", "EvalSuite", "ExpectedCall", "SyntaxName", "Turn"]

SyntaxName: TypeAlias = Literal["block", "emoji", "native"]
"""A call syntax a case runs in (``native``: the provider's tool-calling API)."""

SYNTAXES: tuple[SyntaxName, ...] = ("block", "emoji", "native")
"""Every syntax, in the order reports list them."""


@dataclass(frozen=True, slots=True)
class Call:
    """One call of a reference solution."""

    gadget: str
    """The gadget's name."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Its parameters (written in the active syntax by the replaying model)."""
    id: str | None = None
    """An explicit invocation id (block syntax)."""
    deps: tuple[str, ...] = ()
    """Invocation ids this call waits for (block syntax)."""


Turn: TypeAlias = "str | tuple[Call, ...] | Callable[[str], str | tuple[Call, ...]]"
"""One model answer of a solution: final prose, calls, or a function of the last message
(for a call that needs something only a result says, such as a stored output's id)."""


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """A call the run must have made successfully."""

    gadget: str
    """The gadget's name."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Parameters the call must have had (compared after validation; strings stripped)."""
    check: Callable[[Mapping[str, Any]], bool] | None = None
    """A further test of the validated parameters."""
    with_dependency: bool = False
    """The call must have waited for another through an invocation id."""


@dataclass(frozen=True, slots=True)
class EvalCase:
    """One task of a suite."""

    name: str
    """Unique within the suite."""
    category: str
    """What the case exercises (``single``, ``coercion``, ``parallel``...)."""
    prompt: str
    """The task given to the agent."""
    gadgets: Callable[[], Sequence[object]] | Sequence[object]
    """The gadgets of the run, or a function making fresh ones (for gadgets with state)."""
    answer: tuple[str, ...] = ()
    """Strings the final answer must contain (case-insensitive; digit group commas ignored)."""
    calls: tuple[ExpectedCall, ...] = ()
    """Calls that must have succeeded."""
    same_response: bool = False
    """All expected calls must come from one model response (calls run in parallel)."""
    stop_reason: str | None = None
    """The stop reason the run must end with (``"task_complete"`` for ``TaskCompletionSignal``)."""
    syntaxes: tuple[SyntaxName, ...] = SYNTAXES
    """The syntaxes the case runs in (dependencies exist only in the block syntax)."""
    max_iterations: int = 6
    """Model calls the run may make."""
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    """Further ``Agent`` options (a small ``context_window`` to make output limiting trigger)."""
    solution: tuple[Turn, ...] = ()
    """The reference run, one entry per model answer."""

    def make_gadgets(self) -> list[object]:
        """The gadgets for one run (fresh ones when :attr:`gadgets` is a factory)."""
        made = self.gadgets() if callable(self.gadgets) else self.gadgets
        return list(made)


@dataclass(frozen=True, slots=True)
class EvalSuite:
    """A named list of cases."""

    name: str
    cases: tuple[EvalCase, ...]

    def __post_init__(self) -> None:
        names = [c.name for c in self.cases]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"suite {self.name!r} has several cases named {dupes}; give each case a unique name")

    def select(self, names: Sequence[str] = (), categories: Sequence[str] = ()) -> EvalSuite:
        """The cases named in ``names`` or of a category in ``categories`` (all when both are empty)."""
        if not names and not categories:
            return self
        unknown = sorted(set(names) - {c.name for c in self.cases})
        if unknown:
            raise ValueError(
                f"no case named {unknown} in suite {self.name!r}; its cases: {[c.name for c in self.cases]}"
            )
        picked = tuple(c for c in self.cases if c.name in names or c.category in categories)
        if not picked:
            known = sorted({c.category for c in self.cases})
            raise ValueError(f"no case of the categories {list(categories)} in suite {self.name!r}; it has {known}")
        return EvalSuite(self.name, picked)
