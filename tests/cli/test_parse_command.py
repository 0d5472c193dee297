"""``llmist parse`` driven through a real subprocess, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "examples" / "transcripts"


def llmist(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "llmist.cli", *args], input=stdin, capture_output=True, text=True, env=env, timeout=60
    )


def test_terminal_view_shows_calls_text_and_parse_errors() -> None:
    proc = llmist("parse", str(TRANSCRIPTS / "block-malformed.txt"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "UpdateConfig  id=cfg1" in out
    assert "parse error: Array index gap: expected 1, got 2" in out
    assert "parse error: Duplicate pointer: path" in out
    assert "Oops, I'll set the tags too:" in out
    assert "calls  4  parse errors  2" in out


def test_json_lines_are_the_same_for_any_chunk_size() -> None:
    outputs = []
    for chunk in ("0", "1", "3", "64"):
        proc = llmist("parse", str(TRANSCRIPTS / "block-weather.txt"), "--json", "--chunk", chunk)
        assert proc.returncode == 0, proc.stderr
        outputs.append([json.loads(line) for line in proc.stdout.splitlines()])
    assert all(o == outputs[0] for o in outputs)
    calls = [r["call"] for r in outputs[0] if r["type"] == "gadget_call"]
    assert [(c["invocation_id"], c["dependencies"]) for c in calls] == [
        ("paris", []),
        ("tokyo", []),
        ("report", ["paris", "tokyo"]),
    ]


def test_reads_standard_input_and_emoji_syntax() -> None:
    proc = llmist("parse", "-", "--syntax", "emoji", "--json", stdin="hi 🛠️[run ls -la]🛠️[/end]")
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[1]["call"]["raw_args"] == "ls -la" and records[1]["call"]["gadget_name"] == "run"


def test_missing_file_is_a_clear_error() -> None:
    proc = llmist("parse", "no/such/file.txt")
    assert proc.returncode == 2
    assert "no such file: no/such/file.txt" in proc.stderr


def test_a_number_past_the_int_limit_is_parsed_as_text() -> None:
    big = "9" * 5000
    proc = llmist("parse", "-", "--json", stdin=f"!!!GADGET_START:s\n!!!ARG:a\n{big}\n!!!GADGET_END\n")
    assert proc.returncode == 0, proc.stderr
    (line,) = [r for r in map(json.loads, proc.stdout.splitlines()) if r["type"] == "gadget_call"]
    assert line["call"]["parameters"] == {"a": big}
