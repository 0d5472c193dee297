"""Guardrails: checks that stop a run on what it must not do.

A guardrail is a function, sync or async, of what it guards. It returns ``None`` to let the run
go on, or a verdict:

- :class:`Tripwire` ``(reason, data)``: the run ends, with ``stop_reason == "guardrail"`` and
  :attr:`AgentResult.tripwire` naming the guardrail, its reason and its data. ``run()`` does not
  raise unless the agent's :class:`Guardrails` say ``raise_on_tripwire=True``
  (then :class:`GuardrailTripped`, carrying the result).
- :class:`Refuse` ``(reason, data)``, from a tool-call guardrail: that call does not run, and the
  model reads the reason as its error; the run goes on.
- :class:`Rewrite` ``(value, note)``: what it guards is replaced (a redacted prompt, parameters,
  result or answer), and the record says so with the note.

Four kinds, by what they guard (each gets one argument, a small record):

============  ======================  ===========================================================
kind          argument                when
============  ======================  ===========================================================
input         :class:`GuardedInput`   on the prompt, before the first model request; with
                                      ``parallel=True`` beside it (no call runs before it passed;
                                      a tripwire cancels the request, which is charged no further)
tool_call     :class:`GuardedCall`    before a call runs (gadget, parameters, the conversation)
tool_result   :class:`GuardedResult`  after a call, before the model (or the stream) sees it
output        :class:`GuardedOutput`  on the final answer, the typed output included
============  ======================  ===========================================================

Guardrails of one kind run in the order given, each seeing what the one before let through;
the first tripwire or refusal decides. A guardrail that raises, returns something that is not
a verdict, or (async) gives none within its ``timeout_s``, trips: a check that cannot decide does
not let the run through. A late check is cancelled and given ``cancel_grace_s`` to stop, as a
gadget is; one that ignores its cancellation is left running, and the run goes on to its end
(its record says so). A sync guardrail runs on the event loop: keep it quick, and make one
that waits on I/O ``async``.

Every check is recorded (:class:`GuardrailRecord`): in :attr:`AgentResult.guardrails`, as a
:class:`~llmist.agent.events.GuardrailEvent` in the stream, and as a span when the run is traced.
Ready-made ones are in :mod:`llmist.agent.builtin_guardrails`. The record (with
:data:`GuardrailKind` and :data:`GuardrailOutcome`) lives in :mod:`llmist.agent.records`, below the
result and the events that carry it, and imports from here as well.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, overload

from llmist.agent.errors import GuardrailTripped
from llmist.agent.records import GuardrailKind, GuardrailOutcome, GuardrailRecord
from llmist.execution.cancellation import DEFAULT_CANCEL_GRACE_S, Overdue, await_within
from llmist.providers.base import ContentPart, Message

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "GuardedCall",
    "GuardedInput",
    "GuardedOutput",
    "GuardedResult",
    "Guardrail",
    "GuardrailCheck",
    "GuardrailKind",
    "GuardrailOutcome",
    "GuardrailRecord",
    "GuardrailTripped",
    "Guardrails",
    "Refuse",
    "Rewrite",
    "Tripwire",
    "Verdict",
    "input_guardrail",
    "output_guardrail",
    "run_guardrail",
    "tool_call_guardrail",
    "tool_result_guardrail",
]

_KINDS: tuple[GuardrailKind, ...] = ("input", "tool_call", "tool_result", "output")

_log = logging.getLogger("llmist.agent")

DEFAULT_TIMEOUT_S = 60.0
"""How long an async guardrail may take before it trips (a check that hangs must not hang the run)."""


# --- verdicts --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tripwire:
    """Verdict: the run must end here."""

    reason: str
    """Why, in words a person reads (it ends up in the result, the event and the span)."""
    data: Any = None
    """Anything the guardrail wants to hand on (what it matched, a score...)."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """Verdict of a tool-call guardrail: this call does not run; the model reads ``reason``."""

    reason: str
    """Why, written for the model (it reads it as the call's error)."""
    data: Any = None


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Verdict: replace what is guarded by ``value`` (a redaction), and say so with ``note``.

    ``value`` is of the guarded thing's type: the prompt's text (input), the parameters' dict
    (tool call), the result's text (tool result), the answer (output: text, or the typed value).
    """

    value: Any
    note: str = "rewritten"
    """What was changed, for the record (``"2 e-mail addresses redacted"``)."""


Verdict: TypeAlias = "Tripwire | Refuse | Rewrite | None"
"""What a guardrail returns (``None``: pass)."""


# --- what each kind guards -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GuardedInput:
    """What an input guardrail checks: the prompt of a run."""

    prompt: str
    """The prompt's text (its images left out)."""
    content: str | tuple[ContentPart, ...]
    """The prompt as given: text, or text and images."""
    messages: Sequence[Message] = ()
    """The conversation the run continues (empty for a new one)."""


@dataclass(frozen=True, slots=True)
class GuardedCall:
    """What a tool-call guardrail checks: a call about to run."""

    gadget: str
    """The gadget's name."""
    parameters: dict[str, Any]
    """The parameters, validated (defaults applied): a call whose parameters do not validate
    fails with the validation error before any guardrail sees it. A rewrite's parameters are
    validated again."""
    invocation_id: str
    messages: Sequence[Message] = ()
    """The conversation the call was made in (up to the response that makes it)."""


@dataclass(frozen=True, slots=True)
class GuardedResult:
    """What a tool-result guardrail checks: a finished call, before the model sees it."""

    gadget: str
    parameters: dict[str, Any]
    invocation_id: str
    result: str | None
    """What the model would read (``None`` when the call failed)."""
    error: str | None
    """The call's error, if it failed."""
    messages: Sequence[Message] = ()


@dataclass(frozen=True, slots=True)
class GuardedOutput:
    """What an output guardrail checks: the run's final answer."""

    output: Any
    """The answer: text, or the validated instance of the agent's ``output_type``."""
    text: str
    """The answer as text (a typed answer as its JSON)."""
    messages: Sequence[Message] = ()


GuardrailCheck: TypeAlias = Callable[[Any], "Verdict | Awaitable[Verdict]"]
"""The function of a guardrail: of a ``Guarded...`` record, returning a verdict (or awaiting one)."""


# --- guardrails ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Guardrail:
    """A check of one kind, with a name (make one with the decorators of this module)."""

    kind: GuardrailKind
    check: GuardrailCheck
    name: str
    """Named in records, events, spans and errors (default: the function's name)."""
    parallel: bool = False
    """Input only: run beside the first model request instead of before it (it may not rewrite)."""
    gadgets: frozenset[str] | None = None
    """Tool-call and tool-result only: the gadgets it checks (``None``: every gadget)."""
    timeout_s: float | None = DEFAULT_TIMEOUT_S
    """Seconds an async check may take; past them it trips (``None``: no limit). A sync check
    runs to its end: keep it quick."""
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S
    """Seconds an async check that is cancelled (its timeout passed, or the run was cancelled)
    is waited for; one that ignores its cancellation longer is left running, and the run goes on
    without it (a gadget's grace period, the same mechanism)."""

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"a guardrail's kind is one of {', '.join(_KINDS)}, got {self.kind!r}")
        if not callable(self.check):
            raise TypeError(f"guardrail {self.name!r}: its check must be callable, got {self.check!r}")
        if self.parallel and self.kind != "input":
            raise ValueError(f"guardrail {self.name!r}: only input guardrails run in parallel (it is {self.kind})")
        if self.gadgets is not None and self.kind not in ("tool_call", "tool_result"):
            raise ValueError(f"guardrail {self.name!r}: only tool guardrails take gadgets= (it is {self.kind})")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ValueError(f"guardrail {self.name!r}: timeout_s must be more than 0 seconds, got {self.timeout_s}")
        if not self.cancel_grace_s >= 0:
            raise ValueError(
                f"guardrail {self.name!r}: cancel_grace_s must be 0 seconds or more, got {self.cancel_grace_s}"
            )

    def applies_to(self, gadget: str) -> bool:
        """Whether this guardrail checks calls of ``gadget``."""
        return self.gadgets is None or gadget in self.gadgets


GadgetNames: TypeAlias = "Iterable[str | type | object] | str | type | None"
"""Gadgets named by name, class or instance."""


@overload
def input_guardrail(fn: GuardrailCheck, /) -> Guardrail: ...
@overload
def input_guardrail(
    *,
    name: str | None = None,
    parallel: bool = False,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Callable[[GuardrailCheck], Guardrail]: ...
def input_guardrail(
    fn: GuardrailCheck | None = None,
    /,
    *,
    name: str | None = None,
    parallel: bool = False,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Guardrail | Callable[[GuardrailCheck], Guardrail]:
    """Make ``fn`` (of a :class:`GuardedInput`) an input guardrail; as ``@input_guardrail`` or
    ``@input_guardrail(parallel=True)``."""
    return _decorate("input", fn, name=name, parallel=parallel, timeout_s=timeout_s, cancel_grace_s=cancel_grace_s)


@overload
def tool_call_guardrail(fn: GuardrailCheck, /) -> Guardrail: ...
@overload
def tool_call_guardrail(
    *,
    name: str | None = None,
    gadgets: GadgetNames = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Callable[[GuardrailCheck], Guardrail]: ...
def tool_call_guardrail(
    fn: GuardrailCheck | None = None,
    /,
    *,
    name: str | None = None,
    gadgets: GadgetNames = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Guardrail | Callable[[GuardrailCheck], Guardrail]:
    """Make ``fn`` (of a :class:`GuardedCall`) a tool-call guardrail, for every gadget or those
    named in ``gadgets`` (names, classes or instances)."""
    return _decorate("tool_call", fn, name=name, gadgets=gadgets, timeout_s=timeout_s, cancel_grace_s=cancel_grace_s)


@overload
def tool_result_guardrail(fn: GuardrailCheck, /) -> Guardrail: ...
@overload
def tool_result_guardrail(
    *,
    name: str | None = None,
    gadgets: GadgetNames = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Callable[[GuardrailCheck], Guardrail]: ...
def tool_result_guardrail(
    fn: GuardrailCheck | None = None,
    /,
    *,
    name: str | None = None,
    gadgets: GadgetNames = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Guardrail | Callable[[GuardrailCheck], Guardrail]:
    """Make ``fn`` (of a :class:`GuardedResult`) a tool-result guardrail."""
    return _decorate("tool_result", fn, name=name, gadgets=gadgets, timeout_s=timeout_s, cancel_grace_s=cancel_grace_s)


@overload
def output_guardrail(fn: GuardrailCheck, /) -> Guardrail: ...
@overload
def output_guardrail(
    *,
    name: str | None = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Callable[[GuardrailCheck], Guardrail]: ...
def output_guardrail(
    fn: GuardrailCheck | None = None,
    /,
    *,
    name: str | None = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Guardrail | Callable[[GuardrailCheck], Guardrail]:
    """Make ``fn`` (of a :class:`GuardedOutput`) an output guardrail."""
    return _decorate("output", fn, name=name, timeout_s=timeout_s, cancel_grace_s=cancel_grace_s)


def _decorate(
    kind: GuardrailKind,
    fn: GuardrailCheck | None,
    *,
    name: str | None,
    parallel: bool = False,
    gadgets: GadgetNames = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S,
) -> Guardrail | Callable[[GuardrailCheck], Guardrail]:
    names = gadget_names(gadgets)

    def make(check: GuardrailCheck) -> Guardrail:
        label = name or getattr(check, "__name__", None) or type(check).__name__
        return Guardrail(
            kind, check, label, parallel=parallel, gadgets=names, timeout_s=timeout_s, cancel_grace_s=cancel_grace_s
        )

    return make if fn is None else make(fn)


def gadget_names(gadgets: GadgetNames) -> frozenset[str] | None:
    """The names of ``gadgets`` (names, gadget classes or instances); ``None`` for ``None``."""
    if gadgets is None:
        return None
    items = [gadgets] if isinstance(gadgets, (str, type)) else list(gadgets)
    names = set()
    for item in items:
        if isinstance(item, str):
            names.add(item)
            continue
        label = getattr(item, "name", None)
        if not isinstance(label, str):
            label = item.__name__ if isinstance(item, type) else None
        if not label:
            raise TypeError(f"gadgets= takes gadget names, classes or instances, got {item!r}")
        names.add(label)
    return frozenset(names)


@dataclass(frozen=True, slots=True)
class Guardrails:
    """An agent's guardrails, and whether a tripwire raises (``Agent(guardrails=...)`` takes
    this, or a plain list of guardrails)."""

    checks: tuple[Guardrail, ...] = ()
    """Every guardrail, of every kind, in the order they run within a kind."""
    raise_on_tripwire: bool = False
    """Raise :class:`GuardrailTripped` out of ``run()`` when one trips (``stream()`` still ends
    normally: its result says so)."""
    by_kind: dict[GuardrailKind, tuple[Guardrail, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        checks = tuple(self.checks)
        for g in checks:
            if not isinstance(g, Guardrail):
                raise TypeError(
                    f"guardrails are made with input_guardrail, tool_call_guardrail, tool_result_guardrail or "
                    f"output_guardrail (or taken from llmist.agent.builtin_guardrails), got {g!r}"
                )
        object.__setattr__(self, "checks", checks)
        object.__setattr__(self, "by_kind", {k: tuple(g for g in checks if g.kind == k) for k in _KINDS})

    @classmethod
    def of(cls, value: Guardrails | Iterable[Guardrail] | None) -> Guardrails | None:
        """``value`` as ``Guardrails`` (a list becomes one that does not raise); ``None`` when empty."""
        if value is None:
            return None
        found = value if isinstance(value, Guardrails) else cls(tuple(value))
        return found if found.checks else None

    def of_kind(self, kind: GuardrailKind) -> tuple[Guardrail, ...]:
        """The guardrails of ``kind``, in order."""
        return self.by_kind[kind]


async def run_guardrail(
    guardrail: Guardrail,
    subject: Any,
    *,
    iteration: int = 0,
    gadget: str | None = None,
    invocation_id: str | None = None,
) -> tuple[GuardrailRecord, Verdict]:
    """Run one check on ``subject`` and record it; a check that raises, or returns what is not a
    verdict of its kind, trips (with the error named in the reason)."""
    started = time.perf_counter()
    try:
        verdict = guardrail.check(subject)
        if inspect.isawaitable(verdict):
            verdict = await await_within(verdict, guardrail.timeout_s, guardrail.cancel_grace_s)
        verdict = _checked(guardrail, verdict)
    except Overdue as late:
        verdict = _late(guardrail, late, invocation_id)
    except Exception as error:  # a check that cannot decide does not let the run through
        verdict = Tripwire(
            f"the guardrail failed ({type(error).__name__}: {error}), so the run stops",
            data={"error": type(error).__name__, "message": str(error)},
        )
    elapsed = (time.perf_counter() - started) * 1000.0
    if verdict is None:
        outcome: GuardrailOutcome = "pass"
        reason, data = "", None
    elif isinstance(verdict, Rewrite):
        outcome, reason, data = "rewrite", verdict.note, None
    else:
        outcome = "tripwire" if isinstance(verdict, Tripwire) else "refuse"
        reason, data = verdict.reason, verdict.data
    record = GuardrailRecord(
        guardrail.name, guardrail.kind, outcome, reason, data, gadget, invocation_id, iteration, elapsed
    )
    return record, verdict


def _late(guardrail: Guardrail, late: Overdue, invocation_id: str | None) -> Tripwire:
    """The tripwire of a check that gave no verdict in time (and maybe ignored its cancellation)."""
    reason = f"the guardrail gave no verdict within {late.timeout_s:g} s"
    if late.left_running:
        where = f" ({invocation_id})" if invocation_id else ""
        _log.warning("Guardrail %r%s ignored its cancellation; left running", guardrail.name, where)
        reason += f" and did not stop within {late.grace_s:g} s of being cancelled (it was left running)"
    data = {"error": "TimeoutError", "timeout_s": late.timeout_s, "left_running": late.left_running}
    return Tripwire(reason + ", so the run stops", data=data)


def _checked(guardrail: Guardrail, verdict: object) -> Verdict:
    """``verdict`` if it is one a guardrail of this kind may give; else the error that says what was expected."""
    if verdict is None or isinstance(verdict, Tripwire):
        return verdict
    if isinstance(verdict, Refuse):
        if guardrail.kind != "tool_call":
            raise TypeError(f"only a tool-call guardrail may Refuse (this one guards {guardrail.kind}); use Tripwire")
        return verdict
    if isinstance(verdict, Rewrite):
        if guardrail.parallel:
            raise TypeError(
                "a parallel input guardrail cannot Rewrite: the model already has the prompt; "
                "make it input_guardrail(parallel=False)"
            )
        _check_rewrite(guardrail.kind, verdict.value)
        return verdict
    raise TypeError(f"a guardrail returns None (pass), Tripwire, Refuse or Rewrite; got {verdict!r}")


def _check_rewrite(kind: GuardrailKind, value: object) -> None:
    if kind == "input" and not isinstance(value, (str, tuple)):
        raise TypeError(f"an input guardrail's Rewrite takes the new prompt (text), got {type(value).__name__}")
    if kind == "tool_call" and not isinstance(value, dict):
        raise TypeError(
            f"a tool-call guardrail's Rewrite takes the new parameters (a dict), got {type(value).__name__}"
        )
    if kind == "tool_result" and not isinstance(value, str):
        raise TypeError(f"a tool-result guardrail's Rewrite takes the new result (text), got {type(value).__name__}")
