"""``llmist agent`` with guardrails (flags, configuration, gadget files) and fallback models: what
the view and the JSON lines show."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

from rich.console import Console

from llmist.agent import GuardrailEvent, ModelFallbackEvent
from llmist.agent.guardrails import GuardrailRecord
from llmist.cli._json_sink import JsonSink
from llmist.cli._view import AgentView
from tests.cli.helpers import llmist


def _script(tmp_path: Path, turns: list[object], name: str = "script.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _view() -> tuple[AgentView, Console]:
    console = Console(record=True, width=120, force_terminal=False)
    return AgentView(console, model="mock", max_iterations=3, live=False), console


# --- the view and the JSON lines, event by event ----------------------------------------------


def test_the_view_shows_a_refusal_a_rewrite_and_a_tripwire_but_not_a_pass() -> None:
    agent_view, console = _view()
    for outcome, reason in (("pass", ""), ("refuse", "no rm"), ("rewrite", "a card redacted"), ("tripwire", "leak")):
        record = GuardrailRecord("g", "tool_call", outcome, reason, None, "RunCommand", "c1")  # type: ignore[arg-type]
        agent_view.handle(GuardrailEvent(record))
    text = console.export_text()
    assert "guardrail g refused RunCommand (c1): no rm" in text
    assert "guardrail g rewrote RunCommand (c1): a card redacted" in text
    assert "guardrail g tripped RunCommand (c1): leak" in text
    assert "passed" not in text and text.count("guardrail g") == 3


def test_the_view_says_which_model_takes_over_and_whether_the_answer_starts_over() -> None:
    agent_view, console = _view()
    agent_view.handle(
        ModelFallbackEvent(1, "anthropic:claude-sonnet-5-5", "openai:gpt-4o", "ServerNotListeningError: x")
    )
    agent_view.handle(ModelFallbackEvent(2, "openai:gpt-4o", "mock", "StreamInterruptedError: y", restart=True))
    text = console.export_text()
    assert "⟳ anthropic:claude-sonnet-5-5 failed (ServerNotListeningError: x); openai:gpt-4o answers" in text
    assert "⟳ openai:gpt-4o failed (StreamInterruptedError: y); mock starts the answer over" in text


def test_json_lines_write_guardrail_and_fallback_events() -> None:
    out = io.StringIO()
    sink = JsonSink(out)
    sink.handle(GuardrailEvent(GuardrailRecord("g", "input", "tripwire", "too long", {"chars": 9})))
    sink.handle(ModelFallbackEvent(1, "a", "b", "E: x", restart=True, kept_calls=("c1",)))
    guard, fallback = (json.loads(line) for line in out.getvalue().splitlines())
    assert guard["v"] == 1 and guard["type"] == "guardrail"
    assert guard["record"]["name"] == "g" and guard["record"]["outcome"] == "tripwire"
    assert guard["record"]["data"] == {"chars": 9}
    assert fallback == {
        "v": 1,
        "type": "model_fallback",
        "iteration": 1,
        "failed": "a",
        "model": "b",
        "error": "E: x",
        "restart": True,
        "kept_calls": ["c1"],
    }


# --- the command ------------------------------------------------------------------------------


def test_deny_refuses_a_command_and_the_view_says_so(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("data")
    script = _script(tmp_path, [[{"gadget": "RunCommand", "params": {"command": "rm -rf ./*"}}], "I left it."])
    args = ["agent", "Clean up", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path), "--yes"]
    proc = llmist(*args, "--deny", r"\brm\s+-rf\b")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "keep.txt").exists()
    assert "guardrail deny_parameters refused RunCommand" in proc.stdout
    assert "its command matches the denied pattern" in proc.stdout


def test_allow_path_refuses_a_write_elsewhere_in_json_lines(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    turns = [[{"gadget": "WriteFile", "params": {"path": "setup.py", "content": "x"}}], "Done."]
    script = _script(tmp_path, turns)
    args = ["agent", "Write", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path), "--yes", "--json"]
    proc = llmist(*args, "--allow-path", "out/")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (refusal,) = [line for line in lines if line["type"] == "guardrail"]
    assert refusal["record"]["name"] == "allow_paths" and refusal["record"]["outcome"] == "refuse"
    assert not (tmp_path / "setup.py").exists()


def test_guardrails_defined_in_a_gadget_file_join_the_agent(tmp_path: Path) -> None:
    tools = tmp_path / "rails.py"
    tools.write_text(
        "from llmist.agent.guardrails import Tripwire, input_guardrail\n\n"
        "@input_guardrail\n"
        "def no_weather(guarded):\n"
        "    return Tripwire('not about the weather') if 'weather' in guarded.prompt else None\n",
        encoding="utf-8",
    )
    script = _script(tmp_path, ["Sunny."])
    proc = llmist("agent", "weather?", "-m", f"mock:{script}", "-g", str(tools), "--json")
    assert proc.returncode == 0, proc.stderr
    end = json.loads(proc.stdout.splitlines()[-1])
    assert end["stop_reason"] == "guardrail"
    assert end["tripwire"]["name"] == "no_weather" and end["tripwire"]["reason"] == "not about the weather"


def test_a_bad_deny_pattern_is_refused_naming_it(tmp_path: Path) -> None:
    proc = llmist("agent", "q", "-m", "mock", "--deny", "rm (")
    assert proc.returncode == 2
    assert "'rm (' is not one" in proc.stderr


def test_fallback_takes_over_from_a_model_that_is_down(tmp_path: Path) -> None:
    script = _script(tmp_path, ["The mock answered."])
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    proc = llmist("agent", "q", "-m", "openai:gpt-4o", "--fallback", f"mock:{script}", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "⟳ openai:gpt-4o failed (ServerNotListeningError" in proc.stdout
    assert "The mock answered." in proc.stdout
    assert "2 fallback" not in proc.stdout and "1 fallback" in proc.stdout
