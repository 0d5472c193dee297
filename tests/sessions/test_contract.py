"""The session contract: what every store does, run against the SQLite file, PostgreSQL (a real
server) and SQLite through SQLAlchemy alike."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from pydantic import Field

from llmist import Agent, gadget
from llmist.agent import AssistantMessage, CompactionSummary, GadgetResultMessage, SessionError
from llmist.agent.sessions import SCHEMA_VERSION, SessionConflictError
from llmist.providers.base import ImagePart, Message, TextPart, ToolCall, Usage
from llmist.testing import MockModel, block_call
from tests.sessions.stores import Store


@gadget
def add(a: Annotated[int, Field(description="first")], b: Annotated[int, Field(description="second")]) -> int:
    """Add two integers."""
    return a + b


async def test_a_new_session_is_empty(store: Store) -> None:
    assert await store.session("new").load() == []


async def test_a_new_session_object_loads_what_a_run_saved(store: Store) -> None:
    session = store.session("chat")
    result = await Agent(model=MockModel([block_call("add", a=2, b=3), "5"]), gadgets=[add], session=session).run("?")
    await session.flush()
    assert await store.session("chat").load() == result.messages


async def test_the_next_run_continues_the_stored_conversation(store: Store) -> None:
    first = store.session("c")
    await Agent(model=MockModel(["noted"]), session=first).run("remember 42")
    await first.flush()
    model = MockModel(["42"])
    await Agent(model=model, session=store.session("c")).run("what number?")
    assert [m.text for m in model.requests[0].messages[1:]] == ["remember 42", "noted", "what number?"]


async def test_every_kind_of_message_round_trips(store: Store) -> None:
    messages = [
        Message("system", "be brief"),
        Message("user", (TextPart("look: "), ImagePart(b"\x89PNG\r\n", "image/png", name="chart.png"))),
        AssistantMessage(
            "assistant",
            "calling",
            Usage(input_tokens=7, output_tokens=3),
            tool_calls=(ToolCall("t1", "add", '{"a": 1}'),),
        ),
        GadgetResultMessage("gadget_result", "1", "add", "t1", {"a": 1}, False, tool_call_id="t1"),
        CompactionSummary("user", "earlier: ✓ 日本語 \U0001f6e0️", turns=3),
    ]
    session = store.session("kinds")
    await session.save(messages)
    await session.flush()
    assert await store.session("kinds").load() == messages


async def test_any_text_round_trips_even_what_utf8_cannot_encode(store: Store) -> None:
    odd = [
        Message("user", "a lone surrogate \udcff from a file read with surrogateescape"),
        Message("assistant", "NUL \x00, right-to-left \u202e, zero-width \u200b, 🛠️[x] 日本語"),
        Message("user", "x" * 200_000),
    ]
    session = store.session("odd")
    await session.save(odd)
    await session.flush()
    assert await store.session("odd").load() == odd


def test_a_session_id_with_a_nul_character_is_refused_by_every_store(store: Store) -> None:
    with pytest.raises(ValueError, match="a session id is text without NUL characters"):
        store.session("a\x00b")


async def test_sessions_of_one_store_stay_apart(store: Store) -> None:
    for name, text in (("one", "first"), ("two", "second")):
        session = store.session(name)
        await session.save([Message("user", text)])
        await session.flush()
    assert [m.text for m in await store.session("one").load()] == ["first"]
    assert await store.list_ids() == ["one", "two"]


async def test_a_replaced_conversation_is_stored_whole(store: Store) -> None:
    session = store.session("c")
    await session.save([Message("user", "a"), AssistantMessage("assistant", "b")])
    await session.save([Message("user", "summary")])
    await session.flush()
    assert await store.session("c").load() == [Message("user", "summary")]


async def test_a_session_that_never_loaded_replaces_what_is_stored(store: Store) -> None:
    first = store.session("c")
    await first.save([Message("user", "old")])
    await first.flush()
    given = store.session("c")  # a run given history= does not load the session
    await given.save([Message("user", "given")])
    await given.flush()
    assert await store.session("c").load() == [Message("user", "given")]


async def test_clear_deletes_the_conversation(store: Store) -> None:
    session = store.session("c")
    await session.save([Message("user", "a")])
    await session.clear()
    assert await store.session("c").load() == []
    assert await store.list_ids() == []


async def test_a_second_writer_of_one_session_gets_a_clear_error_and_nothing_is_lost(store: Store) -> None:
    first, second = store.session("c"), store.session("c")
    await first.load()
    await second.load()
    await first.save([Message("user", "from the first")])
    await first.flush()
    with pytest.raises(SessionConflictError, match="another writer changed this session since it was loaded"):
        await second.save([Message("user", "from the second")])
        await second.flush()
    assert await store.session("c").load() == [Message("user", "from the first")]


async def test_a_writer_that_failed_keeps_failing_and_others_go_on(store: Store) -> None:
    first, second, other = store.session("c"), store.session("c"), store.session("other")
    await first.load()
    await second.load()
    await first.save([Message("user", "1")])
    await first.flush()
    with pytest.raises(SessionConflictError):
        await second.save([Message("user", "2")])
        await second.flush()
    with pytest.raises(SessionConflictError):  # its later changes build on the one that failed
        await second.save([Message("user", "2"), Message("user", "3")])
        await second.flush()
    await other.save([Message("user", "unaffected")])
    await other.flush()
    assert await store.session("other").load() == [Message("user", "unaffected")]


async def test_writers_racing_on_one_session_keep_exactly_one_conversation(store: Store) -> None:
    writers = [store.session("c") for _ in range(4)]
    for w in writers:
        await w.load()

    async def write(n: int) -> bool:
        try:
            await writers[n].save([Message("user", f"writer {n}")])
            await writers[n].flush()
        except SessionConflictError:
            return False
        return True

    won = await asyncio.gather(*(write(n) for n in range(4)))
    assert sum(won) == 1
    assert await store.session("c").load() == [Message("user", f"writer {won.index(True)}")]


async def test_a_store_of_a_newer_schema_fails_saying_to_upgrade(store: Store) -> None:
    await asyncio.to_thread(
        store.execute,
        "CREATE TABLE llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO llmist_meta VALUES ('schema_version', '99')",
    )
    expected = rf"schema version '99', this llmist reads version {SCHEMA_VERSION}; .*upgrade llmist"
    with pytest.raises(SessionError, match=expected):
        await store.session("c").load()


def test_a_store_of_schema_1_is_migrated_and_keeps_its_conversations(store: Store) -> None:
    body = '{"format":1,"messages":[{"role":"user","content":"kept"}]}'
    store.execute(
        "CREATE TABLE llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO llmist_meta VALUES ('schema_version', '1')",
        "CREATE TABLE llmist_messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, "
        "PRIMARY KEY (session_id, seq))",
        f"INSERT INTO llmist_messages VALUES ('old', 0, '{body}')",
    )
    assert asyncio.run(store.session("old").load()) == [Message("user", "kept")]
    assert store.execute("SELECT value FROM llmist_meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]

    async def continue_it() -> list[Message]:
        session = store.session("old")
        await Agent(model=MockModel(["and more"]), session=session).run("go on")
        await session.flush()
        return await store.session("old").load()

    assert [m.text for m in asyncio.run(continue_it())][1:] == ["kept", "go on", "and more"]
