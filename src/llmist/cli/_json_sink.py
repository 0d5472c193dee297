"""``llmist agent --json``: every event as one JSON line on standard output."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any, TextIO

from llmist.agent import AgentEvent, AgentResult, Progress
from llmist.cli._view import declined

__all__ = ["JsonSink", "event_record"]


def event_record(event: AgentEvent) -> dict[str, Any]:
    """``{"type": ..., **fields}`` for an event (nested dataclasses become objects)."""
    return {"type": event.type, **dataclasses.asdict(event)}


def _plain(value: object) -> object:
    """What JSON cannot hold as is: bytes (a gadget's media) by their size, the rest as text."""
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return str(value)


class JsonSink:
    """Writes events, notices and the final result as JSON lines (same interface as ``AgentView``)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout

    def _write(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record, ensure_ascii=False, default=_plain) + "\n")
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
        self._write({"type": "notice", "message": message})

    def summary(self, result: AgentResult | None, *, error: str | None = None) -> None:
        """Write the closing ``run_end`` record."""
        if result is None:
            self._write({"type": "run_end", "stop_reason": "error", "error": error})
            return
        self._write(
            {
                "type": "run_end",
                "stop_reason": result.stop_reason,
                "output": result.output,
                "iterations": result.iterations,
                "usage": dataclasses.asdict(result.usage),
                "cost": result.cost,
                "llm_cost": result.llm_cost,
                "gadget_cost": result.gadget_cost,
                "gadget_calls": len(result.gadget_results),
                "failed_calls": sum(1 for r in result.gadget_results if r.error is not None),
                "declined_calls": sum(1 for r in result.gadget_results if declined(r)),
                "models": {name: dataclasses.asdict(m) for name, m in result.models.items()},
                "fallbacks": len(result.fallbacks),
                "tripwire": None if result.tripwire is None else dataclasses.asdict(result.tripwire),
            }
        )
