"""``parse --json`` and ``agent --json`` write one event schema, versioned (docs/cli.md, "JSON lines")."""

from __future__ import annotations

import json
from typing import Any

from llmist.cli._json_sink import SCHEMA_VERSION
from tests.cli.helpers import ROOT, llmist

ANSWER = "Let me add them.\n!!!GADGET_START:add\n!!!ARG:a\n2\n!!!ARG:b\n3\n!!!GADGET_END\n"


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _parsed() -> list[dict[str, Any]]:
    proc = llmist("parse", "-", "--json", stdin=ANSWER)
    assert proc.returncode == 0, proc.stderr
    return _lines(proc.stdout)


def _agent() -> list[dict[str, Any]]:
    script = ROOT / "examples" / "cli" / "add-script.json"
    tools = ROOT / "examples" / "cli" / "tools.py"
    proc = llmist("agent", "What is 2 + 3?", "-g", str(tools), "-m", f"mock:{script}", "--json")
    assert proc.returncode == 0, proc.stderr
    return _lines(proc.stdout)


def test_parse_and_agent_describe_a_call_in_the_same_shape() -> None:
    (parsed,) = [line for line in _parsed() if line["type"] == "gadget_call"]
    (ran,) = [line for line in _agent() if line["type"] == "gadget_call"]
    assert parsed.keys() == ran.keys() == {"v", "type", "call"}
    assert parsed["call"].keys() == ran["call"].keys()
    same = {k: v for k, v in parsed["call"].items() if k != "invocation_id"}
    assert same == {k: v for k, v in ran["call"].items() if k != "invocation_id"}
    assert same["parameters"] == {"a": 2, "b": 3} and same["syntax"] == "block"


def test_every_line_of_both_commands_carries_the_schema_version() -> None:
    lines = _parsed() + _agent()
    assert {line["v"] for line in lines} == {SCHEMA_VERSION} == {1}
    assert {line["type"] for line in lines} >= {"text", "gadget_call", "gadget_result", "run_end"}


def test_an_emoji_call_carries_its_body_as_written_and_as_a_gadget_gets_it() -> None:
    proc = llmist("parse", "-", "--syntax", "emoji", "--json", stdin="🛠️[save a.txt]\nhello\n🛠️[/end]")
    (call,) = [line["call"] for line in _lines(proc.stdout) if line["type"] == "gadget_call"]
    assert (call["body"], call["gadget_body"], call["raw_args"]) == ("hello\n", "hello", "a.txt")
