"""Two runs on one conversation at once: the one that writes second fails with a
``SessionError`` naming the conflict, and the stored conversation stays whole (it once lost
rows, or one run's turns silently replaced the other's)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from llmist import Agent, gadget
from llmist.agent import SessionError, SQLiteSession
from llmist.testing import MockModel, block_call


async def _stored(db: Path, session_id: str) -> list[str]:
    return [m.text for m in (await SQLiteSession(db, session_id).load())[1:]]


async def _started(db: Path) -> None:
    await Agent(model=MockModel(["Started."]), session=SQLiteSession(db, "s")).run("start")


async def test_the_second_of_two_runs_on_one_session_fails_and_the_first_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await _started(db)
    both_loaded = asyncio.Barrier(2)

    @gadget
    async def meet() -> str:
        """Wait for the other run (both have loaded the session by now)."""
        await both_loaded.wait()
        return "met"

    def agent(name: str) -> Agent[str]:
        return Agent(model=MockModel([block_call("meet"), f"{name} done."]), gadgets=[meet],
                     session=SQLiteSession(db, "s"))  # fmt: skip

    first, second = await asyncio.gather(agent("a").run("from a"), agent("b").run("from b"), return_exceptions=True)
    outcomes = {"a": first, "b": second}
    failed = [name for name, outcome in outcomes.items() if isinstance(outcome, BaseException)]
    assert len(failed) == 1, outcomes
    error = outcomes[failed[0]]
    assert isinstance(error, SessionError) and "another writer changed this session" in str(error)
    (winner,) = {"a", "b"} - set(failed)
    stored = await _stored(db, "s")
    assert stored[:3] == ["start", "Started.", f"from {winner}"] and stored[-1] == f"{winner} done."
    assert len(stored) == 6  # the winner's turn: prompt, call, result, answer
    await Agent(model=MockModel(["Again."]), session=SQLiteSession(db, "s")).run("next")
    assert await _stored(db, "s") == [*stored, "next", "Again."]  # a new run continues it


async def test_a_session_that_lost_a_race_keeps_failing_while_the_others_of_its_file_go_on(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await _started(db)
    late, early = SQLiteSession(db, "s"), SQLiteSession(db, "s")
    stored = await late.load()
    await early.save([*await early.load(), *stored[1:2]])
    await early.flush()
    await late.save([*stored, *stored[1:2]])
    with pytest.raises(SessionError, match="another writer changed this session"):
        await late.flush()
    with pytest.raises(SessionError, match="another writer changed this session"):
        await late.save([*stored, *stored[1:2], *stored[1:2]])
    await Agent(model=MockModel(["fine"]), session=SQLiteSession(db, "other")).run("elsewhere")
    assert await _stored(db, "other") == ["elsewhere", "fine"]
    assert await _stored(db, "s") == ["start", "Started.", "start"]


async def test_clearing_a_session_stops_a_run_that_loaded_it_from_writing_it_back(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await _started(db)
    loaded = SQLiteSession(db, "s")
    stored = await loaded.load()
    await SQLiteSession(db, "s").clear()
    await loaded.save([*stored, *stored[1:2]])
    with pytest.raises(SessionError, match="another writer changed this session"):
        await loaded.flush()
    assert await SQLiteSession(db, "s").load() == []
