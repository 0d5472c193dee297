"""``llmist agent --session NAME``: the conversation is kept, and the next command continues it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from llmist.agent import SQLiteSession
from tests.cli.helpers import llmist, one_error_line


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


def test_a_session_store_in_an_impossible_place_is_one_line_naming_it(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    db = blocked / "sub" / "s.db"  # its folder would be inside a file
    line = one_error_line(llmist("agent", "hi", "-m", "mock", "--session", "s", "--session-db", str(db)))
    assert line.startswith(f"error: --session-db {db}: cannot create its folder")


def test_a_session_store_that_is_a_directory_is_one_line_naming_it(tmp_path: Path) -> None:
    line = one_error_line(llmist("agent", "hi", "-m", "mock", "--session", "s", "--session-db", str(tmp_path)))
    assert line == f"error: --session-db {tmp_path} is a directory; give the path of a file (it is created if missing)"


def test_a_file_that_is_not_a_database_is_named_with_the_fix(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database, just notes\n" * 100, encoding="utf-8")
    line = one_error_line(llmist("agent", "hi", "-m", "mock", "--session", "s", "--session-db", str(junk)))
    assert str(junk) in line and "file is not a database" in line
    assert line.endswith(f"give another file with --session-db, or move {junk} aside")


def test_a_store_whose_tables_are_damaged_is_named_with_the_fix(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO llmist_meta VALUES ('schema_version', '2')")
        conn.execute("CREATE TABLE llmist_messages (id INTEGER)")  # same name, other columns
        conn.commit()
    line = one_error_line(llmist("agent", "hi", "-m", "mock", "--session", "s", "--session-db", str(other)))
    assert str(other) in line and "is not an llmist session store, or it is damaged (no such column" in line


def test_continuing_a_session_that_does_not_exist_lists_the_existing_ones(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert llmist("agent", "hi", "-m", "mock", "--session", "chat", "--session-db", str(db)).returncode == 0
    line = one_error_line(llmist("agent", "-m", "mock", "--session", "nope", "--session-db", str(db)))
    assert line == (
        f"error: no session named 'nope' in {db} (sessions there: chat); "
        "give a PROMPT to start it, or name an existing one"
    )
