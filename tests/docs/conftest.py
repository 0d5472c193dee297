"""The docs tests' summary: how many command lines of the guides ran, which did not and why."""

from __future__ import annotations

import pytest

from tests.docs.report import REPORT


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not (REPORT.ran or REPORT.skipped):
        return
    terminalreporter.section("command lines of the guides")
    terminalreporter.write_line(f"{len(REPORT.ran)} ran, {len(REPORT.skipped)} not run (norun=):")
    for where, reason in REPORT.skipped:
        terminalreporter.write_line(f"  {where}: {reason}")
