"""The command line shows a reasoning model's thinking, a subagent's calls and a gadget's media."""

from __future__ import annotations

import io
import json

from rich.console import Console

from llmist.agent import GadgetResultEvent, ReasoningEvent, SubagentEvent
from llmist.cli._json_sink import JsonSink
from llmist.cli._view import AgentView
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import GadgetMedia
from llmist.syntax import TextEvent


def view() -> tuple[AgentView, Console]:
    console = Console(record=True, width=100, force_terminal=False)
    return AgentView(console, model="mock", max_iterations=3, live=False), console


def result(name: str, error: str | None = None, media: tuple[GadgetMedia, ...] = ()) -> GadgetExecutionResult:
    return GadgetExecutionResult(name, f"{name}_1", {}, None if error else "ok", error, 1.0, media=media)


def test_thinking_and_the_answer_print_as_separate_lines() -> None:
    agent_view, console = view()
    for event in (ReasoningEvent("Is 221 prime? 13 × "), ReasoningEvent("17.\n"), TextEvent("No: 13 × 17.\n")):
        agent_view.handle(event)
    lines = console.export_text().splitlines()
    assert "Is 221 prime? 13 × 17." in lines
    assert "No: 13 × 17." in lines


def test_a_subagents_results_show_under_the_path_that_led_to_them() -> None:
    agent_view, console = view()
    agent_view.handle(SubagentEvent(1, ("Researcher:r1",), GadgetResultEvent(result("Search"))))
    agent_view.handle(SubagentEvent(2, ("Researcher:r1", "Reader:r2"), GadgetResultEvent(result("Fetch", "boom"))))
    text = console.export_text()
    assert "✓ Researcher Search" in text
    assert "✗ Researcher › Reader Fetch" in text


def test_json_lines_give_media_bytes_by_size() -> None:
    out = io.StringIO()
    media = (GadgetMedia(b"\x89PNG" + bytes(96), "image/png", "chart.png"),)
    JsonSink(out).handle(GadgetResultEvent(result("Chart", media=media)))
    record = json.loads(out.getvalue())
    assert record["result"]["media"][0] == {"data": "<100 bytes>", "media_type": "image/png", "name": "chart.png"}
