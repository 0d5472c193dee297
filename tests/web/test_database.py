"""``llmist web --session-url``: conversations, and the calls that wait for approval, in a real
PostgreSQL; a server killed while a call waits, the call decided from the command line, a new
server going on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from llmist.agent import GadgetResultMessage
from llmist.agent.sqlalchemy_session import SQLAlchemySession
from tests.cli.helpers import llmist
from tests.web.servers import llmist_web
from tests.web.test_app import post_run, run_input

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "web"


def test_a_call_waiting_in_postgresql_outlives_a_killed_server_and_runs_once_after_a_cli_decision(
    postgres: Any, tmp_path: Path
) -> None:
    url = postgres.new_database()
    common = ["-g", str(EXAMPLES / "tools.py"), "--session-url", url]
    with (
        llmist_web(["-m", f"mock:{EXAMPLES / 'capitals.json'}", *common], cwd=tmp_path, killed=True) as base,
        httpx2.Client(base_url=base, timeout=30) as c,
    ):
        events = post_run(c, run_input("trip", "r1", "Capitals of France and Japan?"))
        assert events[-1]["result"]["stopReason"] == "awaiting_approval"
    where = ["--session-url", url]
    listed = json.loads(llmist("approvals", "trip", *where, "--json").stdout)
    assert [(p["invocation_id"], p["gadget"]) for p in listed["pending"]] == [("note", "SaveNote")]
    assert llmist("approve", "trip", "note", "--edit", "title=Two capitals", *where).returncode == 0
    second = tmp_path / "second.json"
    second.write_text(json.dumps({"turns": ["Saved the note; Paris and Tokyo."]}), encoding="utf-8")
    with (
        llmist_web(["-m", f"mock:{second}", *common], cwd=tmp_path) as base,
        httpx2.Client(base_url=base, timeout=30) as c,
    ):
        assert [t["id"] for t in c.get("/api/threads").json()["threads"]] == ["trip"]
        body = run_input("trip", "r2", "Go on.")
        events = post_run(c, body)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"]["output"] == "Saved the note; Paris and Tokyo."
    stored = asyncio.run(SQLAlchemySession(url, "trip").load())
    notes = [m for m in stored if isinstance(m, GadgetResultMessage) and m.invocation_id == "note"]
    assert len(notes) == 1 and not notes[0].is_error and "saved 'Two capitals'" in notes[0].text
    assert [m.text for m in stored if m.role == "user"] == ["Capitals of France and Japan?", "Go on."]
    assert asyncio.run(SQLAlchemySession(url, "trip").pending()) == []
