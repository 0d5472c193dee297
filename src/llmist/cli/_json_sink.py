"""The JSON lines of ``llmist agent --json`` and ``llmist parse --json``: one event schema, versioned.

Every line is an object with ``"v"`` (:data:`SCHEMA_VERSION`) and ``"type"``, then the event's
fields, named as the Python event's fields are (docs/cli.md, "JSON lines", lists them):

- ``text`` (``content``), ``reasoning`` (``content``), ``gadget_args_partial`` (``invocation_id``,
  ``gadget_name``, ``field_path``, ``value``, ``delta``, ``is_field_complete``);
- ``gadget_call``: ``call``, the parsed call: every field of :class:`~llmist.syntax.ParsedCall`
  and ``gadget_body`` (for an emoji call, the body as a gadget receives it; else ``null``).
  ``parse`` and ``agent`` write a call the same way;
- ``agent`` only: ``gadget_result`` (``result``), ``gadget_skipped``, ``gadget_pending`` (a call
  that waits for approval: :func:`pending_record`'s fields), ``llm_response_end``
  (``finish_reason``, ``usage``, ``model``), ``subagent`` (``depth``, ``path``, ``event``: the
  subagent's event, as a record without ``v``), ``guardrail`` (``record``: the check's name,
  kind, outcome, reason, data, gadget, invocation id, iteration and duration),
  ``model_fallback`` (``iteration``, ``failed``, ``model``, ``error``, ``restart``,
  ``kept_calls``), ``notice`` (``message``) and the closing ``run_end`` (with ``pending``: the
  calls that wait, when the run paused for approval; ``models``, each model's responses, usage
  and cost; ``fallbacks``, how many; ``tripwire``, the check that stopped the run, or ``null``).

A change that renames or removes a field, or changes its meaning, raises the version; a new
field or event type does not (readers ignore what they do not know).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any, TextIO

from llmist._text import clean
from llmist.agent import AgentEvent, AgentResult, GadgetPendingEvent, PendingCall, Progress, SubagentEvent
from llmist.cli._summary import declined
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, ParsedCall, TextEvent
from llmist.syntax.writing import read_emoji_body

__all__ = ["SCHEMA_VERSION", "JsonSink", "call_record", "event_record", "json_line", "pending_record", "record"]

SCHEMA_VERSION = 1
"""The version of the JSON lines (``"v"`` in every line)."""


def record(kind: str, **fields: Any) -> dict[str, Any]:
    """A line of the schema: ``{"v": ..., "type": kind, **fields}``."""
    return {"v": SCHEMA_VERSION, "type": kind, **fields}


def call_record(call: ParsedCall) -> dict[str, Any]:
    """A parsed call as the schema writes it: its fields, and ``gadget_body`` for an emoji call."""
    body = read_emoji_body(call.body) if call.syntax == "emoji" and call.body is not None else None
    return {**dataclasses.asdict(call), "gadget_body": body}


def pending_record(call: PendingCall) -> dict[str, Any]:
    """A call that waits, as JSON: ``invocation_id``, ``gadget``, ``parameters``, ``reason``,
    ``needs_decision``, and ``waits_for`` / ``decision`` when set (``llmist approvals --json``
    writes the same)."""
    fields: dict[str, Any] = {
        "invocation_id": call.invocation_id,
        "gadget": call.gadget_name,
        "parameters": call.parameters,
        "reason": call.reason,
        "needs_decision": call.needs_decision,
    }
    if call.waits_for is not None:
        fields["waits_for"] = call.waits_for
    if call.decision is not None:
        fields["decision"] = call.decision.to_json()
    return fields


def event_record(event: AgentEvent | TextEvent | ArgsPartialEvent | GadgetCallEvent) -> dict[str, Any]:
    """The line of an agent's or a parser's event (nested dataclasses become objects)."""
    if isinstance(event, GadgetCallEvent):
        return record(event.type, call=call_record(event.call))
    if isinstance(event, GadgetPendingEvent):
        return record(event.type, **pending_record(event.pending))
    if isinstance(event, SubagentEvent):
        inner = {k: v for k, v in event_record(event.event).items() if k != "v"}
        return record(event.type, depth=event.depth, path=list(event.path), event=inner)
    return record(event.type, **dataclasses.asdict(event))


def json_line(line: dict[str, Any]) -> str:
    """One record as a line of JSON (without the newline); a lone surrogate becomes U+FFFD, the
    rule for text leaving the process (docs/limits.md)."""
    return clean(json.dumps(line, ensure_ascii=False, default=_plain))


def _plain(value: object) -> object:
    """What JSON cannot hold as is: bytes (a gadget's media) by their size, the rest as text."""
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return str(value)


class JsonSink:
    """Writes events, notices and the final result as JSON lines (same interface as ``AgentView``)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout

    def _write(self, line: dict[str, Any]) -> None:
        self.out.write(json_line(line) + "\n")
        self.out.flush()

    def start(self) -> None:
        """Nothing to set up."""

    def pause(self) -> None:
        """Nothing is animated."""

    def resume(self) -> None:
        """Nothing is animated."""

    def stop(self) -> None:
        """Nothing is animated."""

    def on_progress(self, progress: Progress) -> None:
        """Progress is not written (the final record holds the totals)."""

    def handle(self, event: AgentEvent) -> None:
        """Write one event."""
        self._write(event_record(event))

    def note(self, message: str) -> None:
        """Write a notice record."""
        self._write(record("notice", message=message))

    def summary(self, result: AgentResult | None, *, error: str | None = None) -> None:
        """Write the closing ``run_end`` record."""
        if result is None:
            self._write(record("run_end", stop_reason="error", error=error))
            return
        self._write(
            record(
                "run_end",
                stop_reason=result.stop_reason,
                output=result.output,
                iterations=result.iterations,
                usage=dataclasses.asdict(result.usage),
                cost=result.cost,
                llm_cost=result.llm_cost,
                gadget_cost=result.gadget_cost,
                gadget_calls=len(result.gadget_results),
                failed_calls=sum(1 for r in result.gadget_results if r.error is not None),
                declined_calls=sum(1 for r in result.gadget_results if declined(r)),
                models={name: dataclasses.asdict(m) for name, m in result.models.items()},
                fallbacks=len(result.fallbacks),
                tripwire=None if result.tripwire is None else dataclasses.asdict(result.tripwire),
                pending=[pending_record(p) for p in result.pending],
            )
        )
