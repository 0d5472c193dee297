"""The session stores the contract suite runs against, each behind one small interface.

:class:`Store` opens sessions of one store (``store.session("chat")``), runs raw SQL on it (to
set up an old or a foreign schema) and names it for a child process (``store.spec``), so one
test serves the SQLite file, PostgreSQL (a real server, ``tests/postgres.py``) and SQLite
through SQLAlchemy (``aiosqlite``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llmist.agent import SQLiteSession
from llmist.agent.sessions import SQLStoreSession

__all__ = ["KINDS", "Store", "open_session"]

KINDS = ("sqlite", "postgresql", "sqlalchemy-sqlite")


@dataclass(frozen=True)
class Store:
    """One store: ``kind`` and where it is (a file, or a URL)."""

    kind: str
    where: str

    @property
    def spec(self) -> str:
        """``kind=where``: what :func:`open_session` takes (a child process gets it as an argument)."""
        return f"{self.kind}={self.where}"

    def session(self, session_id: str) -> SQLStoreSession:
        """A new session object of ``session_id`` in this store."""
        return open_session(self.spec, session_id)

    async def list_ids(self) -> list[str]:
        """The store's conversations."""
        if self.kind == "sqlite":
            return await SQLiteSession.list_ids(self.where)
        from llmist.agent.sqlalchemy_session import SQLAlchemySession

        return await SQLAlchemySession.list_ids(self.where)

    def execute(self, *statements: str) -> list[Any]:
        """Run ``statements`` outside llmist (in one transaction); the last one's rows."""
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.where)
            try:
                rows: list[Any] = []
                for statement in statements:
                    rows = conn.execute(statement).fetchall()
                conn.commit()
                return rows
            finally:
                conn.close()
        return asyncio.run(self._execute_async(statements))

    async def _execute_async(self, statements: tuple[str, ...]) -> list[Any]:
        from sqlalchemy import text
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(self.where)
        try:
            async with engine.begin() as conn:
                rows: list[Any] = []
                for statement in statements:
                    result = await conn.execute(text(statement.replace(":", r"\:")))  # no parameters here
                    rows = [tuple(r) for r in result.fetchall()] if result.returns_rows else []
                return rows
        finally:
            await engine.dispose()


def open_session(spec: str, session_id: str) -> SQLStoreSession:
    """A session of the store ``spec`` (``kind=where``)."""
    kind, _, where = spec.partition("=")
    if kind == "sqlite":
        return SQLiteSession(where, session_id)
    from llmist.agent.sqlalchemy_session import SQLAlchemySession

    return SQLAlchemySession(where, session_id)


def new_store(kind: str, folder: Path, postgres: Any) -> Store:
    """A new, empty store of ``kind`` (``postgres``: the server fixture, used only for it)."""
    if kind == "sqlite":
        return Store(kind, str(folder / "runs.db"))
    if kind == "sqlalchemy-sqlite":
        return Store(kind, f"sqlite+aiosqlite:///{folder / 'runs.db'}")
    return Store(kind, postgres.new_database())
