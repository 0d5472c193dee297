"""``SQLiteSession``: a conversation kept across runs, processes and versions."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field

from llmist import Agent, gadget
from llmist.agent import AssistantMessage, GadgetResultMessage, SessionError, SQLiteSession
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call


@gadget
def add(a: Annotated[int, Field(description="first")], b: Annotated[int, Field(description="second")]) -> int:
    """Add two integers."""
    return a + b


async def test_a_new_session_object_loads_what_a_run_saved(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    model = MockModel([block_call("add", a=2, b=3), "5"])
    result = await Agent(model=model, gadgets=[add], session=SQLiteSession(db, "chat-42")).run("2 + 3?")
    assert await SQLiteSession(db, "chat-42").load() == result.messages


async def test_the_next_run_continues_the_stored_conversation(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await Agent(model=MockModel(["noted"]), session=SQLiteSession(db, "c")).run("remember 42")
    model = MockModel(["42"])
    await Agent(model=model, session=SQLiteSession(db, "c")).run("what number?")
    assert [m.text for m in model.requests[0].messages[1:]] == ["remember 42", "noted", "what number?"]
    stored = await SQLiteSession(db, "c").load()
    assert [m.role for m in stored] == ["system", "user", "assistant", "user", "assistant"]


async def test_sessions_sharing_a_file_stay_apart(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await Agent(model=MockModel(["a"]), session=SQLiteSession(db, "one")).run("first")
    await Agent(model=MockModel(["b"]), session=SQLiteSession(db, "two")).run("second")
    assert [m.text for m in (await SQLiteSession(db, "one").load())[1:]] == ["first", "a"]


async def test_list_ids_names_every_stored_conversation_of_a_file(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    for name in ("b-chat", "a-chat"):
        await Agent(model=MockModel(["ok"]), session=SQLiteSession(db, name)).run("hi")
    assert await SQLiteSession.list_ids(db) == ["a-chat", "b-chat"]


async def test_list_ids_of_a_missing_file_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    assert await SQLiteSession.list_ids(tmp_path / "none.db") == []
    assert not (tmp_path / "none.db").exists()


async def test_each_completed_iteration_is_stored_before_the_next_one_ends(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    session = SQLiteSession(db, "s")
    seen: list[list[str]] = []

    @gadget
    async def probe(n: int) -> str:
        """Record what the store holds while the run goes on."""
        await session.flush()
        seen.append([m.role for m in await SQLiteSession(db, "s").load()])
        return "ok"

    model = MockModel([block_call("probe", n=1), block_call("probe", n=2), "done"])
    await Agent(model=model, gadgets=[probe], session=session).run("go")
    assert seen == [[], ["system", "user", "assistant", "gadget_result"]]


async def test_history_given_to_run_wins_over_the_stored_one(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await Agent(model=MockModel(["old"]), session=SQLiteSession(db, "c")).run("stored")
    model = MockModel(["new"])
    await Agent(model=model, session=SQLiteSession(db, "c")).run("next", history=[Message("user", "given")])
    assert [m.text for m in model.requests[0].messages[1:]] == ["given", "next"]
    assert [m.text for m in (await SQLiteSession(db, "c").load())[1:]] == ["given", "next", "new"]


async def test_a_replaced_conversation_is_stored_whole(tmp_path: Path) -> None:
    session = SQLiteSession(tmp_path / "runs.db", "c")
    await session.save([Message("user", "a"), AssistantMessage("assistant", "b")])
    await session.save([Message("user", "summary")])
    await session.flush()
    assert await SQLiteSession(tmp_path / "runs.db", "c").load() == [Message("user", "summary")]


async def test_gadget_calls_are_stored_with_their_parameters(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    model = MockModel([block_call("add", invocation_id="x", a=2, b=3), "5"])
    await Agent(model=model, gadgets=[add], session=SQLiteSession(db, "c")).run("2 + 3?")
    stored = await SQLiteSession(db, "c").load()
    assert isinstance(stored[3], GadgetResultMessage) and stored[3].parameters == {"a": 2, "b": 3}


def _stamp(db: Path, version: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO llmist_meta VALUES ('schema_version', ?)", (version,))
    conn.commit()
    conn.close()


async def test_a_store_from_a_newer_version_fails_saying_to_upgrade(tmp_path: Path) -> None:
    _stamp(tmp_path / "new.db", "7")
    with pytest.raises(SessionError, match=r"schema version '7', this llmist reads version 2; .* upgrade llmist"):
        await SQLiteSession(tmp_path / "new.db", "c").load()


async def test_a_store_from_an_unknown_older_version_fails_saying_what_to_do(tmp_path: Path) -> None:
    _stamp(tmp_path / "old.db", "0")
    with pytest.raises(SessionError, match=r"schema version '0'.*move the file \(or database\) aside"):
        await Agent(model=MockModel(["x"]), session=SQLiteSession(tmp_path / "old.db", "c")).run("hi")


async def test_a_store_that_cannot_be_opened_fails_at_the_first_save(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    session = SQLiteSession(folder / "runs.db", "c")  # the folder does not exist: the writer cannot open it
    with pytest.raises(SessionError, match="cannot open the store"):
        await session.save([Message("user", "a")])
        await session.flush()


async def test_a_compacted_conversation_is_what_the_session_keeps(tmp_path: Path) -> None:
    from llmist.agent import CompactionSummary, SlidingWindow

    pages = iter(range(1, 100))

    def respond(messages: object) -> str:
        n = next(pages)
        return block_call("add", a=n, b=0) + " padding" * 40 if n <= 30 else "done"

    session = SQLiteSession(tmp_path / "runs.db", "c")
    agent = Agent(model=MockModel(respond), gadgets=[add], session=session, context_window=2_000,
                  compaction=SlidingWindow(keep_turns=3), max_iterations=40)  # fmt: skip
    result = await agent.run("Add them all.")
    await session.flush()
    stored = await SQLiteSession(tmp_path / "runs.db", "c").load()
    assert stored == result.messages
    assert any(isinstance(m, CompactionSummary) for m in stored)


async def test_the_builder_sets_session_compaction_and_subagents(tmp_path: Path) -> None:
    from llmist import LLMist
    from llmist.agent import SlidingWindow

    helper = Agent(model="mock", name="Helper", description="helps")
    agent = (
        LLMist.create_agent()
        .with_model(MockModel(["ok"]))
        .with_session(SQLiteSession(tmp_path / "runs.db", "b"))
        .with_compaction(SlidingWindow())
        .with_subagents(helper)
        .build()
    )
    assert isinstance(agent.session, SQLiteSession) and isinstance(agent.compaction, SlidingWindow)
    assert [g.name for g in agent.gadgets][-1:] == ["Helper"]
