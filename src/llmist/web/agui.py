"""One run's agent events as AG-UI events: the mapping the page and any AG-UI client read.

:class:`AguiRun` turns what ``Agent.stream()`` yields (and the few hook notes the stream does
not carry: a call starting, a call waiting for approval, the run's cost) into events of the
``ag-ui-protocol`` package. docs/web.md has the table; in short:

- text: ``TEXT_MESSAGE_START`` / ``_CONTENT`` / ``_END`` (a message closes when a call, reasoning
  or the response's end comes);
- a call: ``TOOL_CALL_START`` at its first streamed field, ``TOOL_CALL_ARGS`` as fields grow
  (see :mod:`llmist.web._args_json`), ``TOOL_CALL_END`` when the call is parsed,
  ``TOOL_CALL_RESULT`` when it finished, failed, was declined or skipped;
- reasoning: ``REASONING_START`` / ``REASONING_MESSAGE_*`` / ``REASONING_END``;
- each model call: ``STEP_STARTED`` / ``STEP_FINISHED``;
- the run: ``RUN_STARTED``, then ``RUN_FINISHED`` (outcome ``cancelled`` after a stop) or
  ``RUN_ERROR``;
- state: a ``STATE_SNAPSHOT`` at the start, then ``STATE_DELTA`` patches of each call's status,
  dependencies, duration and cost, and of the run's tokens and cost;
- a call waiting for approval: its status ``awaiting_approval`` plus a ``CUSTOM`` event
  ``llmist.approval_requested``; a subagent's event: ``CUSTOM`` ``llmist.subagent``;
- a guardrail's check: ``CUSTOM`` ``llmist.guardrail`` (its name, kind, outcome and reason); a
  model that failed and the next one taking over: ``CUSTOM`` ``llmist.model_fallback`` (the text
  message open then is closed: with ``restart`` its text is void, the response starts over);
- ``RUN_FINISHED``'s result names the tripwire of a run a guardrail stopped.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    DataSource,
    ImagePart,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TextPart,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from llmist.agent import (
    AgentEvent,
    AgentResult,
    GadgetPendingEvent,
    GadgetResultEvent,
    GuardrailEvent,
    LLMResponseEndEvent,
    ModelFallbackEvent,
    PendingCall,
    ReasoningEvent,
    SubagentEvent,
)
from llmist.agent.guardrails import GuardrailRecord
from llmist.execution import GadgetExecutionResult, GadgetSkip
from llmist.gadgets import Gadget, bind_call
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, ParsedCall, TextEvent
from llmist.web._args_json import ArgsJson, string_fields

__all__ = ["STATUSES", "AguiRun"]

STATUSES = (
    "streaming",
    "waiting",
    "queued",
    "awaiting_approval",
    "running",
    "done",
    "failed",
    "declined",
    "skipped",
    "cancelled",
)
"""A call's statuses in the run's state: its arguments stream; it waits on a dependency; it is
parsed and about to run; it waits for a person; it runs; it ended (done, failed, declined by a
person or a controller, skipped because a dependency failed, cancelled with the run)."""

_ENDED = {"success": "done", "error": "failed", "timeout": "failed", "skipped": "declined", "cancelled": "cancelled"}


def _pointer(key: str) -> str:
    """``key`` escaped as one JSON-pointer segment."""
    return key.replace("~", "~0").replace("/", "~1")


class AguiRun:
    """Translates one run (see the module docstring). Every method returns the AG-UI events to send."""

    def __init__(self, thread_id: str, run_id: str, gadgets: Mapping[str, Gadget], *, arg_prefix: str = "!!!ARG:"):
        self.thread_id, self.run_id = thread_id, run_id
        self._gadgets, self._arg_prefix = gadgets, arg_prefix
        self._ids = itertools.count(1)
        self._text_id: str | None = None
        self._reasoning_id: str | None = None
        self._message_id = self._new_id("m")
        """The assistant message the current response's text and calls belong to."""
        self._args: dict[str, ArgsJson] = {}
        """Calls started whose arguments are still streaming."""
        self._calls: dict[str, dict[str, Any]] = {}
        """Each call's record in the state (``calls/<id>``)."""
        self._steps = 0
        self._step_open = False
        self._tokens = {"inputTokens": 0, "outputTokens": 0}

    def _new_id(self, kind: str) -> str:
        return f"{self.run_id}-{kind}{next(self._ids)}"

    # --- the run's lifecycle --------------------------------------------------------------

    def started(self) -> list[BaseEvent]:
        """``RUN_STARTED`` and the state's first snapshot."""
        return [
            RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id),
            StateSnapshotEvent(snapshot={"calls": {}, "usage": dict(self._tokens), "cost": 0.0}),
        ]

    def finished(self, result: AgentResult[Any] | None) -> list[BaseEvent]:
        """Close what is open and end the run (``cancelled`` when it was stopped)."""
        events = self._close_stream()
        if result is None:
            return [*events, RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id)]
        usage = result.usage
        cancelled = result.stop_reason == "cancelled"
        events.append(self._state_delta("/cost", result.cost))
        events.append(
            RunFinishedEvent(
                thread_id=self.thread_id,
                run_id=self.run_id,
                result=_result_value(result),
                outcome=RunFinishedCancelledOutcome() if cancelled else RunFinishedSuccessOutcome(),
                usage=[
                    TokenUsage(
                        input_tokens=usage.input_tokens,
                        output_tokens=usage.output_tokens,
                        total_tokens=usage.total_tokens,
                    )
                ],
            )
        )
        return events

    def failed(self, message: str) -> list[BaseEvent]:
        """Close what is open and end the run with ``RUN_ERROR``."""
        return [*self._close_stream(), RunErrorEvent(message=message)]

    def model_call_started(self) -> list[BaseEvent]:
        """A model call began: a new step (and a new assistant message)."""
        events = self._close_stream()
        self._steps += 1
        self._step_open = True
        self._message_id = self._new_id("m")
        return [*events, StepStartedEvent(step_name=f"model call {self._steps}")]

    # --- notes from the agent's hooks -------------------------------------------------------

    def call_running(self, invocation_id: str, gadget_name: str) -> list[BaseEvent]:
        """A call's gadget started."""
        return [*self._start_call(invocation_id, gadget_name), *self._set_status(invocation_id, "running")]

    def approval_requested(
        self, invocation_id: str, parameters: dict[str, Any], reason: str, *, stored: bool = False
    ) -> list[BaseEvent]:
        """A call waits for a person's decision (``stored``: in the session, so the run ends and
        the decision goes to the conversation, ``threadId``, rather than to the run)."""
        where = {"threadId": self.thread_id} if stored else {}
        events = self._set_status(invocation_id, "awaiting_approval", parameters=parameters, reason=reason, **where)
        value = {"toolCallId": invocation_id, "parameters": parameters, "reason": reason, "runId": self.run_id, **where}
        return [*events, CustomEvent(name="llmist.approval_requested", value=value)]

    def resuming(self, calls: Sequence[PendingCall]) -> list[BaseEvent]:
        """The run starts with the decided calls of a paused one: each is queued (its card, from
        the paused run or the stored conversation, is already on the page)."""
        events: list[BaseEvent] = []
        for call in calls:
            self._calls[call.invocation_id] = {"gadget": call.gadget_name, "status": "queued", "dependencies": []}
            events.append(self._state_delta(f"/calls/{_pointer(call.invocation_id)}", self._calls[call.invocation_id]))
        return events

    def approval_decided(self, invocation_id: str, action: str) -> list[BaseEvent]:
        """A person decided on a waiting call (its status moves on when it runs or ends)."""
        record = self._calls.get(invocation_id)
        if record is None:
            return []
        record.pop("reason", None)
        record["decision"] = action
        return [self._state_delta(f"/calls/{_pointer(invocation_id)}", dict(record))]

    def cost(self, total: float) -> list[BaseEvent]:
        """The run's cost so far (model and gadgets, USD)."""
        return [self._state_delta("/cost", total)]

    # --- the stream's events ----------------------------------------------------------------

    def event(self, event: AgentEvent) -> list[BaseEvent]:
        """The AG-UI events for one event of ``Agent.stream()``."""
        if isinstance(event, TextEvent):
            return self._text(event.content)
        if isinstance(event, ArgsPartialEvent):
            return self._partial(event)
        if isinstance(event, GadgetCallEvent):
            return self._call(event.call)
        if isinstance(event, GadgetResultEvent):
            return self._result(event.result)
        if isinstance(event, GadgetSkip):
            return self._skipped(event)
        if isinstance(event, GadgetPendingEvent):
            return self._pending(event.pending)
        if isinstance(event, LLMResponseEndEvent):
            return self._response_end(event)
        if isinstance(event, ReasoningEvent):
            return self._reasoning(event.content)
        if isinstance(event, SubagentEvent):
            return [CustomEvent(name="llmist.subagent", value=_subagent_value(event))]
        if isinstance(event, GuardrailEvent):
            return [CustomEvent(name="llmist.guardrail", value=_guardrail_value(event.record))]
        if isinstance(event, ModelFallbackEvent):
            return [*self._close_stream(), CustomEvent(name="llmist.model_fallback", value=_fallback_value(event))]
        return []

    def _pending(self, call: PendingCall) -> list[BaseEvent]:
        """A call that waits in the session: for a decision, or for the call it runs after."""
        if call.waits_for is not None:
            return self._set_status(call.invocation_id, "waiting")
        return self.approval_requested(call.invocation_id, call.parameters, call.reason, stored=True)

    def _text(self, content: str) -> list[BaseEvent]:
        events = self._close_reasoning()
        if self._text_id is None:
            self._text_id = self._new_id("t")
            events.append(TextMessageStartEvent(message_id=self._text_id, role="assistant"))
        events.append(TextMessageContentEvent(message_id=self._text_id, delta=content))
        return events

    def _reasoning(self, content: str) -> list[BaseEvent]:
        events = self._close_text()
        if self._reasoning_id is None:
            self._reasoning_id = self._new_id("r")
            events.append(ReasoningStartEvent(message_id=self._reasoning_id))
            events.append(ReasoningMessageStartEvent(message_id=self._reasoning_id, role="reasoning"))
        events.append(ReasoningMessageContentEvent(message_id=self._reasoning_id, delta=content))
        return events

    def _partial(self, event: ArgsPartialEvent) -> list[BaseEvent]:
        events = self._start_call(event.invocation_id, event.gadget_name)
        fragment = self._args[event.invocation_id].partial(event) if event.invocation_id in self._args else ""
        if fragment:
            events.append(ToolCallArgsEvent(tool_call_id=event.invocation_id, delta=fragment))
        return events

    def _call(self, call: ParsedCall) -> list[BaseEvent]:
        iid = call.invocation_id
        events = self._start_call(iid, call.gadget_name)
        args = self._args.pop(iid, None)
        if args is not None:
            events.append(ToolCallArgsEvent(tool_call_id=iid, delta=args.finish(self._parameters(call))))
            events.append(ToolCallEndEvent(tool_call_id=iid))
        record = self._calls[iid]
        record["gadget"] = call.gadget_name  # as the loop's repairs read it (save for save_note)
        record["dependencies"] = list(call.dependencies)
        pending = [d for d in call.dependencies if self._calls.get(d, {}).get("status") not in _FINAL]
        return [*events, *self._set_status(iid, "waiting" if pending else "queued")]

    def _start_call(self, invocation_id: str, gadget_name: str) -> list[BaseEvent]:
        if invocation_id in self._calls:
            return []
        events = [*self._close_text(), *self._close_reasoning()]
        self._args[invocation_id] = ArgsJson(string_fields(self._gadgets.get(gadget_name)))
        self._calls[invocation_id] = {"gadget": gadget_name, "status": "streaming", "dependencies": []}
        start = ToolCallStartEvent(
            tool_call_id=invocation_id, tool_call_name=gadget_name, parent_message_id=self._message_id
        )
        events.append(start)
        events.append(self._state_delta(f"/calls/{_pointer(invocation_id)}", dict(self._calls[invocation_id])))
        return events

    def _parameters(self, call: ParsedCall) -> dict[str, Any]:
        """The call's parameters as its gadget's schema reads them (else as parsed)."""
        gadget = self._gadgets.get(call.gadget_name)
        if gadget is not None:
            try:
                return bind_call(gadget, call, arg_prefix=self._arg_prefix)
            except Exception:  # the executor reports the error with the result
                pass
        return dict(call.parameters or {})

    def _result(self, r: GadgetExecutionResult) -> list[BaseEvent]:
        iid = r.invocation_id
        events = self._start_call(iid, r.gadget_name)
        if iid in self._args:  # a result for a call never parsed (the run was cut short)
            events.append(ToolCallArgsEvent(tool_call_id=iid, delta=self._args.pop(iid).finish(r.parameters)))
            events.append(ToolCallEndEvent(tool_call_id=iid))
        content: list[Any] = [TextPart(text=r.text)]
        content += [
            ImagePart(source=DataSource(value=base64.b64encode(m.data).decode("ascii"), mime_type=m.media_type))
            for m in r.media
            if m.media_type.startswith("image/")
        ]
        events.append(
            ToolCallResultEvent(
                message_id=self._new_id("c"),
                tool_call_id=iid,
                role="tool",
                content=r.text if len(content) == 1 else content,
            )
        )
        extra: dict[str, Any] = {"durationMs": round(r.execution_time_ms, 1), "cost": r.cost}
        if r.error is not None:
            extra["error"] = r.error
        events += self._set_status(iid, _ENDED.get(r.status, "failed"), **extra)
        return [*events, *self._waiting_ones_ready()]

    def _skipped(self, skip: GadgetSkip) -> list[BaseEvent]:
        iid = skip.invocation_id
        events = self._start_call(iid, skip.gadget_name)
        if iid in self._args:
            events.append(ToolCallArgsEvent(tool_call_id=iid, delta=self._args.pop(iid).finish(skip.parameters)))
            events.append(ToolCallEndEvent(tool_call_id=iid))
        text = f"Skipped: the call it depends on ({skip.failed_dependency}) failed: {skip.failed_dependency_error}"
        events.append(ToolCallResultEvent(message_id=self._new_id("c"), tool_call_id=iid, role="tool", content=text))
        events += self._set_status(iid, "skipped", error=text)
        return [*events, *self._waiting_ones_ready()]

    def _waiting_ones_ready(self) -> list[BaseEvent]:
        """Calls that waited on dependencies which have all ended now: queued."""
        events: list[BaseEvent] = []
        for iid, record in self._calls.items():
            if record["status"] == "waiting" and all(
                self._calls.get(d, {}).get("status") in _FINAL for d in record["dependencies"]
            ):
                events += self._set_status(iid, "queued")
        return events

    def _response_end(self, event: LLMResponseEndEvent) -> list[BaseEvent]:
        events = self._close_stream()
        if event.usage is not None:
            self._tokens["inputTokens"] += event.usage.input_tokens
            self._tokens["outputTokens"] += event.usage.output_tokens
            events.append(self._state_delta("/usage", dict(self._tokens)))
        return events

    # --- helpers --------------------------------------------------------------------------

    def _set_status(self, invocation_id: str, status: str, **extra: Any) -> list[BaseEvent]:
        record = self._calls.get(invocation_id)
        if record is None or _RANK[status] < _RANK[record["status"]]:
            return []  # a note that arrived before the stream's event of an earlier status
        record["status"] = status
        record.update(extra)
        return [self._state_delta(f"/calls/{_pointer(invocation_id)}", dict(record))]

    def _state_delta(self, path: str, value: Any) -> StateDeltaEvent:
        return StateDeltaEvent.model_validate({"delta": [{"op": "add", "path": path, "value": value}]})

    def _close_text(self) -> list[BaseEvent]:
        if self._text_id is None:
            return []
        event = TextMessageEndEvent(message_id=self._text_id)
        self._text_id = None
        return [event]

    def _close_reasoning(self) -> list[BaseEvent]:
        if self._reasoning_id is None:
            return []
        rid, self._reasoning_id = self._reasoning_id, None
        return [ReasoningMessageEndEvent(message_id=rid), ReasoningEndEvent(message_id=rid)]

    def _close_stream(self) -> list[BaseEvent]:
        """Close the open text, reasoning and step (a response ended, or the run did)."""
        events = [*self._close_text(), *self._close_reasoning()]
        if self._step_open:
            self._step_open = False
            events.append(StepFinishedEvent(step_name=f"model call {self._steps}"))
        return events


_FINAL = frozenset({"done", "failed", "declined", "skipped", "cancelled"})
_RANK = {"streaming": 0, "waiting": 1, "queued": 1, "awaiting_approval": 2, "running": 3} | dict.fromkeys(_FINAL, 4)
"""Statuses only move forward: hook notes and stream events may reach the translator out of order."""


def _subagent_value(event: SubagentEvent) -> dict[str, Any]:
    """What the page shows of a subagent's event: where it comes from, its type, its text."""
    inner = event.event
    value: dict[str, Any] = {"path": list(event.path), "depth": event.depth, "type": inner.type}
    if isinstance(inner, TextEvent):
        value["text"] = inner.content
    elif isinstance(inner, GadgetCallEvent):
        value["gadget"] = inner.call.gadget_name
    elif isinstance(inner, GadgetResultEvent):
        value["gadget"] = inner.result.gadget_name
        value["text"] = inner.result.text
    return value


def _result_value(result: AgentResult[Any]) -> dict[str, Any]:
    """``RUN_FINISHED``'s result: the output, why the run stopped (and the tripwire that stopped
    it), the cost."""
    value: dict[str, Any] = {"output": str(result.output), "stopReason": result.stop_reason, "cost": result.cost}
    if result.tripwire is not None:
        value["tripwire"] = _guardrail_value(result.tripwire)
    return value


def _guardrail_value(record: GuardrailRecord) -> dict[str, Any]:
    value: dict[str, Any] = {"name": record.name, "kind": record.kind, "outcome": record.outcome}
    if record.reason:
        value["reason"] = record.reason
    if record.invocation_id is not None:
        value["toolCallId"], value["gadget"] = record.invocation_id, record.gadget
    return value


def _fallback_value(event: ModelFallbackEvent) -> dict[str, Any]:
    return {
        "failed": event.failed,
        "model": event.model,
        "error": event.error,
        "restart": event.restart,
        "keptCalls": list(event.kept_calls),
    }
