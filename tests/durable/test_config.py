"""What a DBOSAgent refuses, with a message naming what was wrong and what was expected; and the
core install without the ``durable`` extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

from llmist import Agent, SQLiteSession
from llmist.durable import DBOSAgent, DurableConfigError, system_database_url
from llmist.testing import MockModel


def test_a_database_url_dbos_cannot_use_names_the_forms_expected() -> None:
    with pytest.raises(DurableConfigError, match=r"'mysql://db'.*sqlite:///.*postgresql://"):
        system_database_url("mysql://db")


def test_a_sqlite_url_without_a_file_is_refused() -> None:
    with pytest.raises(DurableConfigError, match="names no file"):
        system_database_url("sqlite:///")


def test_the_short_postgres_scheme_is_accepted() -> None:
    assert system_database_url("postgres://u@h/db") == "postgresql://u@h/db"
    assert system_database_url("sqlite:///runs.sqlite") == "sqlite:///runs.sqlite"


def test_a_workflow_name_used_twice_is_refused() -> None:
    DBOSAgent(Agent(model=MockModel(["x"])), name="twice")
    with pytest.raises(DurableConfigError, match="'twice' exists already"):
        DBOSAgent(Agent(model=MockModel(["x"])), name="twice")


def test_a_dbos_agent_needs_a_name() -> None:
    with pytest.raises(DurableConfigError, match="needs a name"):
        DBOSAgent(Agent(model=MockModel(["x"])), name=" ")


def test_a_dbos_agent_wraps_an_agent() -> None:
    with pytest.raises(TypeError, match="wraps an llmist Agent, got str"):
        DBOSAgent("agent", name="not-an-agent")  # type: ignore[arg-type]


def test_an_agent_with_a_session_is_refused(tmp_path: object) -> None:
    agent = Agent(model=MockModel(["x"]), session=SQLiteSession(f"{tmp_path}/s.db", "s"))
    with pytest.raises(DurableConfigError, match="give the agent no session"):
        DBOSAgent(agent, name="with-session")


def _python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return proc.stdout


def test_import_llmist_does_not_import_dbos() -> None:
    out = _python("import sys, llmist, llmist.agent; print(sorted(m for m in sys.modules if m.startswith('dbos')))")
    assert out.strip() == "[]"


def test_without_dbos_llmist_durable_names_the_extra() -> None:
    code = (
        "import sys\nsys.modules['dbos'] = None\n"
        "try:\n    import llmist.durable\nexcept ImportError as exc:\n    print(exc)\n"
    )
    assert "pip install 'llmist[durable]'" in _python(code)
