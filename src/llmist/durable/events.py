"""The event that opens a durable run's stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = ["DurableRunEvent"]


@dataclass(frozen=True, slots=True)
class DurableRunEvent:
    """The first event of each execution of a durable run (``"durable_run"``).

    A recovered run's execution starts with one whose ``recovered`` is true: the events after it
    include those of steps replayed from the system database (a response's text is streamed
    again, a call's result reported again, neither done again)."""

    type: ClassVar[str] = "durable_run"
    workflow_id: str
    """The run's DBOS workflow id."""
    recovered: bool
    """This execution continues a run that an earlier process started (and died in, or was
    stopped in): the run's completed steps are replayed, not done again."""
