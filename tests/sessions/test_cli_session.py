"""``llmist agent --session NAME``: the conversation is kept, and the next command continues it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from llmist.agent import SQLiteSession
from tests.cli.helpers import llmist


def _script(tmp_path: Path, name: str, turns: list[object]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_second_command_continues_the_named_session(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    first = llmist("agent", "remember 42", "-m", f"mock:{_script(tmp_path, 'a.json', ['Noted.'])}",
                   "--session", "chat", "--session-db", str(db))  # fmt: skip
    assert first.returncode == 0, first.stderr
    second = llmist("agent", "which number?", "-m", f"mock:{_script(tmp_path, 'b.json', ['42.'])}",
                    "--session", "chat", "--session-db", str(db))  # fmt: skip
    assert second.returncode == 0, second.stderr
    stored = asyncio.run(SQLiteSession(db, "chat").load())
    assert [m.text for m in stored[1:]] == ["remember 42", "Noted.", "which number?", "42."]


@pytest.mark.slow
def test_the_session_file_defaults_to_the_environment_variable(tmp_path: Path) -> None:
    db = tmp_path / "env.db"
    proc = llmist("agent", "hi", "-m", f"mock:{_script(tmp_path, 'a.json', ['hello'])}", "--session", "s",
                  env={"LLMIST_SESSION_DB": str(db)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [m.text for m in asyncio.run(SQLiteSession(db, "s").load())[1:]] == ["hi", "hello"]


def test_without_prompt_or_session_the_command_says_what_it_needs() -> None:
    proc = llmist("agent", "-m", "mock")
    assert proc.returncode != 0
    assert "give a PROMPT (or --session NAME" in proc.stdout + proc.stderr
