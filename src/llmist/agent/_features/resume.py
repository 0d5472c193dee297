"""The approvals feature's prelude (``llmist.agent._run.context.Prelude``): the first step of a
run that resumes a paused one, the decided calls run, as if they had never waited, before the
loop's first model call.

A paused run ended after a response whose calls needed a person's decision; the ones that
needed none ran, and their results are in the conversation. :class:`Resumption` carries the
waiting calls with their decisions (the approvals feature takes them from the session), and
:func:`run_decided` runs them through the run's own :class:`ResponseCalls`: an approved call
runs (with the edited parameters, if any), a denied one is answered with the denial, a call
that waited for another runs after it, and their results join the conversation in the order
the model made the calls. A call that an earlier run started and never finished (it died) is
not run again: the model reads that its outcome is unknown.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field

from llmist.agent._run.calls import ResponseCalls
from llmist.agent._run.context import Events, MessageOf
from llmist.agent.approvals import PendingCall
from llmist.agent.events import GadgetResultEvent
from llmist.agent.messages import AssistantMessage, GadgetResultMessage
from llmist.execution import GadgetExecutionResult
from llmist.execution.results import call_result
from llmist.providers.base import Message

__all__ = ["UNKNOWN_OUTCOME", "Resumption", "run_decided"]

UNKNOWN_OUTCOME = (
    "Unknown outcome: the run that was running this approved call ended before it recorded a result, "
    "so it may or may not have run. Check its effect before you call it again."
)


async def _nothing(*args: object) -> None:
    return None


@dataclass(slots=True)
class Resumption:
    """The calls a paused run left waiting, decided, for the next run to run first."""

    calls: list[PendingCall]
    """Every call that waited, in the order the model made them, with its decision."""
    recorded: dict[str, GadgetResultMessage] = field(default_factory=dict)
    """Results an earlier run recorded before it died: used as they are, not run again."""
    started: frozenset[str] = frozenset()
    """Calls an earlier run started and never recorded: not run again (outcome unknown)."""
    note_started: Callable[[str], Awaitable[None]] = _nothing
    """Told before a call runs (the session stores it first)."""
    note_result: Callable[[str, GadgetResultMessage], Awaitable[None]] = _nothing
    """Told each call's result as the model will read it (the session stores it at once)."""

    @property
    def size(self) -> int:
        """How many calls waited (the ``on_iteration`` observer's count)."""
        return len(self.calls)

    @property
    def invocation_ids(self) -> list[str]:
        """The ids of the calls that waited."""
        return [c.invocation_id for c in self.calls]

    def run(self, calls: ResponseCalls, messages: list[Message], message_of: MessageOf) -> AsyncGenerator[Events, None]:
        """:func:`run_decided` of these calls: the loop runs it before its first model call."""
        return run_decided(self, calls, messages, message_of)


async def run_decided(
    resume: Resumption, calls: ResponseCalls, messages: list[Message], message_of: MessageOf
) -> AsyncGenerator[Events, None]:
    """Run ``resume``'s calls through ``calls`` and add their results to ``messages``."""
    native = _answers_native(messages)
    calls.start_response(0)
    calls.remember(_earlier_results(messages))
    calls.decided = {c.invocation_id: c.decision for c in resume.calls if c.decision is not None}
    calls.on_start = resume.note_started
    told: dict[str, GadgetResultMessage] = {}  # each result becomes its message once
    try:
        for n, waiting in enumerate(resume.calls, 1):
            known = _known(resume, waiting)
            if known is not None:
                yield [await calls.settle(known, n)]
            elif waiting.call is not None:
                for r in calls.submit(waiting.call, n):
                    yield [await calls.settle(r, n)]
        calls.close_response()
        while (late := await calls.late_result()) is not None:
            if isinstance(late, GadgetResultEvent):
                r = late.result
                told[r.invocation_id] = message = message_of(r, native)
                await resume.note_result(r.invocation_id, message)
            yield [late]
    finally:
        calls.decided, calls.on_start = {}, None
    messages.extend(told.get(r.invocation_id) or message_of(r, native) for r in calls.ordered())


def _known(resume: Resumption, waiting: PendingCall) -> GadgetExecutionResult | None:
    """The result of a call an earlier run got to, if it did: recorded, or of unknown outcome."""
    iid = waiting.invocation_id
    recorded = resume.recorded.get(iid)
    if recorded is not None:
        return GadgetExecutionResult(
            waiting.gadget_name,
            iid,
            dict(recorded.parameters or waiting.parameters),
            None if recorded.is_error else recorded.text,
            recorded.text if recorded.is_error else None,
            0.0,
            status="error" if recorded.is_error else "success",
        )
    if iid in resume.started and waiting.call is not None:
        return call_result(waiting.call, None, UNKNOWN_OUTCOME, "error")
    return None


def _answers_native(messages: list[Message]) -> bool:
    """Whether the paused response made native tool calls (their results must answer them)."""
    for m in reversed(messages):
        if isinstance(m, AssistantMessage) or m.role == "assistant":
            return bool(m.tool_calls)
    return False


def _earlier_results(messages: list[Message]) -> dict[str, GadgetExecutionResult]:
    """The paused response's results that are in the conversation (its calls that ran), by id."""
    out: dict[str, GadgetExecutionResult] = {}
    for m in reversed(messages):
        if m.role == "assistant":
            break
        if isinstance(m, GadgetResultMessage):
            out[m.invocation_id] = GadgetExecutionResult(
                m.gadget_name, m.invocation_id, dict(m.parameters or {}), m.text, None, 0.0,
                status="error" if m.is_error else "success",
            )  # fmt: skip
    return out
