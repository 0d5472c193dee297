"""A file that is not a session store, given as one (issue 40): refused, naming the file and what
a store is, before anything in it changes (its bytes, its journal mode, no ``-wal`` beside it)."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from llmist import Agent
from llmist.agent import SessionError, SQLiteSession
from llmist.testing import MockModel
from tests.cli.helpers import llmist, one_error_line


def _foreign_db(path: Path, *tables: str) -> Path:
    """Another program's database in the rollback-journal mode SQLite starts files in."""
    with closing(sqlite3.connect(path)) as conn:
        for table in tables:
            conn.execute(f'CREATE TABLE "{table}" (id INTEGER PRIMARY KEY, note TEXT)')
            conn.execute(f'INSERT INTO "{table}" (note) VALUES (?)', (f"a row of {table}",))
        conn.commit()
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    return path


def _state(path: Path) -> tuple[str, str, list[str]]:
    """What must not change: the file's bytes, its journal mode, and the files beside it."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
    return digest, mode, sorted(p.name for p in path.parent.iterdir())


async def test_a_database_of_another_program_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = _foreign_db(tmp_path / "app.db", "users", "orders")
    before = _state(db)
    with pytest.raises(SessionError) as caught:
        await SQLiteSession(db, "chat").load()
    message = str(caught.value)
    assert message.startswith(f"{db}: the file is not an llmist session store")
    assert "its tables: 'orders', 'users'" in message and "llmist_meta" in message
    assert "nothing in it was changed" in message
    assert _state(db) == before
    assert before[1] == "delete"


async def test_a_run_on_another_programs_database_fails_before_the_model_is_asked(tmp_path: Path) -> None:
    db = _foreign_db(tmp_path / "app.db", "users")
    before = _state(db)
    model = MockModel(["never asked"])
    with pytest.raises(SessionError, match="not an llmist session store"):
        await Agent(model=model, session=SQLiteSession(db, "chat")).run("hi")
    assert _state(db) == before


async def test_a_table_named_like_a_store_table_does_not_make_a_file_a_store(tmp_path: Path) -> None:
    db = _foreign_db(tmp_path / "app.db", "llmist_messages")
    before = _state(db)
    with pytest.raises(SessionError, match=r"its tables: 'llmist_messages'\)"):
        await SQLiteSession(db, "chat").load()
    assert _state(db) == before


async def test_the_error_names_a_few_tables_of_many_and_counts_the_rest(tmp_path: Path) -> None:
    db = _foreign_db(tmp_path / "app.db", *(f"t{i:02}" for i in range(12)), "ünï\u202ecode")
    before = _state(db)
    with pytest.raises(SessionError, match=r"its tables: 't00', 't01', 't02', 't03', 't04' and 8 more\)"):
        await SQLiteSession(db, "chat").load()
    assert _state(db) == before


async def test_an_empty_database_file_becomes_a_store_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    db.touch()
    await Agent(model=MockModel(["hello"]), session=SQLiteSession(db, "chat")).run("hi")
    assert [m.text for m in (await SQLiteSession(db, "chat").load())[1:]] == ["hi", "hello"]
    assert _state(db)[1] == "wal"


async def test_a_store_shared_with_another_programs_tables_stays_usable(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    await Agent(model=MockModel(["first"]), session=SQLiteSession(db, "chat")).run("one")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER)")  # the user's own table, next to llmist's
        conn.commit()
    stored = await SQLiteSession(db, "chat").load()
    assert [m.text for m in stored[1:]] == ["one", "first"]


def test_llmist_agent_refuses_another_programs_database_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    db = _foreign_db(tmp_path / "app.db", "users")
    before = _state(db)
    line = one_error_line(llmist("agent", "hi", "-m", "mock", "--session", "s", "--session-db", str(db)))
    assert line.startswith(f"error: {db}: the file is not an llmist session store")
    assert "its tables: 'users'" in line
    assert line.endswith(f"give another file with --session-db, or move {db} aside")
    assert _state(db) == before
