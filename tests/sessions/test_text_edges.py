"""A conversation holding any text is stored and reads back unchanged, a lone surrogate included
(kept as a JSON escape), and one session's strange text never fails another session of the file."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings

from llmist import Agent
from llmist.agent import SQLiteSession, dumps_messages, loads_messages
from llmist.providers.base import Message
from llmist.testing import MockModel
from tests.strategies import any_text


def as_json_reads(text: str) -> str:
    """``text`` as JSON reads it back: a surrogate pair (two escapes) is one character, a lone
    surrogate stays itself."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


async def test_a_lone_surrogate_in_an_answer_is_stored_and_other_sessions_of_the_file_go_on(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    await Agent(model=MockModel(["bad \ud800 text"]), session=SQLiteSession(db, "one")).run("hi")
    await Agent(model=MockModel(["fine"]), session=SQLiteSession(db, "two")).run("hello")
    one, two = SQLiteSession(db, "one"), SQLiteSession(db, "two")
    await one.flush()
    assert [m.text for m in (await one.load())[1:]] == ["hi", "bad \ud800 text"]
    assert [m.text for m in (await two.load())[1:]] == ["hello", "fine"]


@settings(max_examples=40, deadline=None)  # a real SQLite file per example
@given(any_text)
def test_any_text_is_stored_and_read_back_unchanged(text: str) -> None:
    async def round_trip(db: Path) -> list[Message]:
        session = SQLiteSession(db, "s")
        await session.save([Message("user", text), Message("assistant", text)])
        await session.flush()
        return await SQLiteSession(db, "s").load()

    with tempfile.TemporaryDirectory() as tmp:
        stored = asyncio.run(round_trip(Path(tmp) / "runs.db"))
    assert [m.text for m in stored] == [as_json_reads(text), as_json_reads(text)]


@given(any_text)
def test_the_conversation_as_json_is_utf8_and_reads_back_unchanged(text: str) -> None:
    document = dumps_messages([Message("user", text)])
    document.encode("utf-8")
    assert loads_messages(document)[0].text == as_json_reads(text)
