"""The ``store`` fixture: each contract test runs once per session store (see ``stores.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sessions.stores import KINDS, Store, new_store


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """A new, empty store of each kind: the SQLite file, PostgreSQL, SQLite through SQLAlchemy."""
    kind: str = request.param
    server = request.getfixturevalue("postgres") if kind == "postgresql" else None
    return new_store(kind, tmp_path, server)
