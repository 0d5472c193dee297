"""The run summary's token line: measured counts as measured, and a server that reported none
(llama-cpp-python's own streams no usage) said to have reported none, never "0 in / 0 out"."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from llmist.agent import AgentResult
from llmist.cli._view import AgentView
from llmist.providers.base import Usage


def _summary(usage: Usage, iterations: int) -> str:
    out = io.StringIO()
    view = AgentView(Console(file=out, width=100, color_system=None), model="m", max_iterations=5, live=False)
    view.start()
    result = AgentResult("answer", [], usage, 0.0, 0.0, iterations, "no_calls")
    view.summary(result)
    return out.getvalue()


def test_measured_tokens_are_shown_as_counts() -> None:
    assert "1,200 in / 34 out" in _summary(Usage(input_tokens=1200, output_tokens=34), iterations=2)


@pytest.mark.parametrize("iterations", [1, 3])
def test_a_server_that_reported_no_usage_is_not_shown_as_zero_tokens(iterations: int) -> None:
    text = _summary(Usage(), iterations=iterations)
    assert "not reported by the server" in text
    assert "0 in / 0 out" not in text
