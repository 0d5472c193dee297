"""What a model writes reaches the terminal and ``--json`` safely: a lone surrogate becomes
U+FFFD (the rule for all text leaving the process), and control characters in model-chosen text
are shown as escapes (``\\x1b``) in the approval prompt, the live view and the summary."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from hypothesis import given, settings
from rich.console import Console

from llmist.agent import GadgetResultEvent, ReasoningEvent
from llmist.cli._json_sink import JsonSink
from llmist.cli._view import AgentView
from llmist.execution import GadgetExecutionResult
from llmist.syntax import GadgetCallEvent, ParsedCall, TextEvent
from tests.cli.helpers import Terminal, llmist
from tests.strategies import any_text, replaced

SPOOF = "touch pwned\x1b[1A\x1b[2K\r    command: ls -la"
"""A command that, printed raw, redraws the line above it as ``command: ls -la``."""


def _script(tmp_path: Path, turns: list[object]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")  # JSON keeps "\ud800" as an escape
    return path


def _surrogate_script(tmp_path: Path) -> Path:
    return _script(
        tmp_path,
        [
            ["bad \ud800 text", {"gadget": "ListDirectory", "id": "ls", "params": {"path": ".\ud800"}}],
            "done \ud800",
        ],
    )


def test_a_lone_surrogate_is_shown_as_a_replacement_character(tmp_path: Path) -> None:
    script = _surrogate_script(tmp_path)
    proc = llmist("agent", "hi", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "bad \ufffd text" in proc.stdout
    assert "stop reason  │ no_calls" in proc.stdout


def test_a_lone_surrogate_in_the_live_view_of_a_terminal(tmp_path: Path) -> None:
    script = _surrogate_script(tmp_path)
    term = Terminal("agent", "hi", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path))
    assert term.wait(60) == 0
    assert "bad \ufffd text" in term.text and "Traceback" not in term.text


def test_a_lone_surrogate_in_json_lines_is_a_replacement_character(tmp_path: Path) -> None:
    script = _surrogate_script(tmp_path)
    proc = llmist("agent", "hi", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[-1]["type"] == "run_end" and records[-1]["stop_reason"] == "no_calls"
    assert records[-1]["output"] == "done \ufffd"
    texts = "".join(r["content"] for r in records if r["type"] == "text")
    assert "bad \ufffd text" in texts


def test_escape_sequences_in_a_command_are_shown_in_the_approval_prompt(tmp_path: Path) -> None:
    script = _script(tmp_path, [[{"gadget": "RunCommand", "id": "c", "params": {"command": SPOOF}}], "done"])
    term = Terminal("agent", "go", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path))
    term.expect("[a]lways for this gadget")
    assert b"\x1b[2K\r    command: ls -la" not in term.raw  # (the live view's own redraws use such codes too)
    assert "command: touch pwned\\x1b[1A\\x1b[2K\\r    command: ls -la" in term.text
    term.type("n\n")
    assert term.wait(30) == 0
    assert not (tmp_path / "pwned").exists()


def test_escape_sequences_in_model_text_are_shown_in_the_live_view_and_the_summary(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        [
            [
                "prose \x1b]0;title\x07 and \x1b[31mred",
                {"gadget": "Ask\x1b[2Jer", "id": "x\x1b[1A", "params": {"q": "\x1b[2K"}},
            ],
            "final \x1b[2J answer",
        ],
    )
    term = Terminal("agent", "go", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path))
    assert term.wait(30) == 0
    for raw in (b"\x1b]0;title", b"\x1b[2J", b"x\x1b[1A", b"\x1b[31mred"):
        assert raw not in term.raw
    screen = term.text
    assert "prose \\x1b]0;title\\x07 and \\x1b[31mred" in screen
    assert "Ask\\x1b[2Jer (x\\x1b[1A)" in screen
    assert "final \\x1b[2J answer" in screen


def test_escape_sequences_in_a_parsed_transcript_are_shown(tmp_path: Path) -> None:
    proc = llmist("parse", "-", stdin="before \x1b[2J after\n!!!GADGET_START:Do\x1b[1A\n!!!ARG:a\nb\n!!!GADGET_END\n")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout
    assert "before \\x1b[2J after" in proc.stdout and "Do\\x1b[1A" in proc.stdout


_SHOWN_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@settings(max_examples=60, deadline=None)
@given(any_text)
def test_any_text_in_any_event_reaches_the_terminal_encodable_and_without_control_characters(text: str) -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    view = AgentView(Console(file=out, width=100, color_system=None), model="m", max_iterations=1, live=False)
    view.start()
    call = ParsedCall(text or "x", text, "", {text: text}, text, (text,))
    result = GadgetExecutionResult(text, text, {}, text, None, 1.0)
    for event in (TextEvent(text + "\n"), GadgetCallEvent(call), GadgetResultEvent(result), ReasoningEvent(text)):
        view.handle(event)
    view.summary(None, error=text)
    shown = raw.getvalue().decode("utf-8")
    assert _SHOWN_CONTROLS.search(shown) is None


@given(any_text)
def test_any_text_in_json_lines_is_written_with_surrogates_replaced(text: str) -> None:
    out = io.StringIO()
    JsonSink(out).handle(TextEvent(text))
    line = out.getvalue()
    line.encode("utf-8")
    assert json.loads(line)["content"] == replaced(text)
