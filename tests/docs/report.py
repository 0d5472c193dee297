"""What the docs tests ran and what they did not run, for the summary at the end of a session."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    """The command lines of the guides run in this session, and those not run, with why."""

    ran: list[str] = field(default_factory=list)
    """``page:line`` of each command line that ran (and exited with 0)."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """``(page:line, reason)`` of each command line a ``norun=`` block keeps from running."""


REPORT = Report()
