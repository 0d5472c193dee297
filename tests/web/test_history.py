"""A stored conversation read back as AG-UI messages: prose and calls in order, results matched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llmist import Agent
from llmist.agent import GadgetResultMessage, Markers, SQLiteSession
from llmist.providers.base import Message
from llmist.testing import MockModel, MockReply, block_call, tool_call
from llmist.web._history import conversation_view
from tests.web.scripted import echo


async def stored(tmp_path: Path, script: list[Any], syntax: str = "block") -> list[Message]:
    session = SQLiteSession(tmp_path / "s.db", "c")
    await Agent(model=MockModel(script), gadgets=[echo], syntax=syntax, session=session).run("go")  # type: ignore[arg-type]
    return await SQLiteSession(tmp_path / "s.db", "c").load()


def shape(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for m in messages:
        if m.get("toolCalls"):
            out.append(("calls", [c["id"] for c in m["toolCalls"]]))
        else:
            out.append((m["role"], m.get("content")))
    return out


async def test_prose_calls_and_results_come_back_in_the_order_written(tmp_path: Path) -> None:
    script = [
        "First.\n" + block_call("echo", invocation_id="a", text="1") + "Then.\n" + block_call("echo", text="2"),
        "Done.",
    ]
    messages, calls = conversation_view(await stored(tmp_path, script), "block", Markers())
    result_ids = [m["toolCallId"] for m in messages if m["role"] == "tool"]
    assert shape(messages)[:3] == [("user", "go"), ("assistant", "First.\n"), ("calls", ["a"])]
    assert [s[0] for s in shape(messages)] == [
        "user",
        "assistant",
        "calls",
        "tool",
        "assistant",
        "calls",
        "tool",
        "assistant",
    ]
    assert [m["content"] for m in messages if m["role"] == "tool"] == ["1", "2"]
    assert set(calls) == set(result_ids) and all(c["status"] == "done" for c in calls.values())


async def test_an_emoji_conversation_is_parsed_with_the_emoji_syntax(tmp_path: Path) -> None:
    messages, calls = conversation_view(
        await stored(tmp_path, ["🛠️[echo]\nhey\n🛠️[/end]", "ok"], "emoji"), "emoji", Markers()
    )
    assert [m["content"] for m in messages if m["role"] == "tool"] == ["hey"]
    assert [c["gadget"] for c in calls.values()] == ["echo"]


async def test_a_native_conversation_uses_the_stored_tool_calls(tmp_path: Path) -> None:
    script = [MockReply("Calling.", [tool_call("echo", {"text": "n"}, id="call_1")]), "ok"]
    messages, calls = conversation_view(await stored(tmp_path, script, "native"), "native", Markers())
    assert ("calls", ["call_1"]) in shape(messages) and calls["call_1"]["status"] == "done"


def test_a_result_whose_call_is_not_in_the_text_is_still_shown() -> None:
    result = GadgetResultMessage("gadget_result", "Error in echo (id z):\nboom", "echo", "z", {"text": "x"}, True)
    messages, calls = conversation_view([Message("user", "q"), result], "block", Markers())
    assert shape(messages) == [("user", "q"), ("calls", ["z"]), ("tool", "boom")]
    assert calls["z"]["status"] == "failed"


@pytest.mark.parametrize("text", ["", "plain prose, no calls"])
def test_a_response_without_calls_is_one_message(text: str) -> None:
    messages, _ = conversation_view([Message("assistant", text)], "block", Markers())
    assert shape(messages) == ([("assistant", text)] if text else [])
