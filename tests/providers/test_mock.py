"""MockModel: scripted responses, chunking, delays, usage, recording, exhaustion."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from llmist.providers.base import LLMChunk, LLMRequest, Message, Provider, ToolCall, ToolSpec, complete
from llmist.providers.mock import MockModel, MockModelExhausted, MockReply
from llmist.testing import tool_call


def _req(text: str = "hi") -> LLMRequest:
    return LLMRequest(model="mock", messages=[Message("user", text)])


async def _chunks(model: MockModel, text: str = "hi") -> list[LLMChunk]:
    return [c async for c in model.stream(_req(text))]


def test_mock_model_is_a_provider() -> None:
    assert isinstance(MockModel(["x"]), Provider)


async def test_scripted_responses_come_one_per_call() -> None:
    model = MockModel(["first", "second"])
    first = "".join(c.text for c in await _chunks(model))
    second = "".join(c.text for c in await _chunks(model))
    assert (first, second) == ("first", "second")


async def test_chunk_size_splits_the_text() -> None:
    chunks = await _chunks(MockModel(["abcdefg"], chunk_size=3))
    assert [c.text for c in chunks[:-1]] == ["abc", "def", "g"]


async def test_split_offsets_cut_where_asked() -> None:
    chunks = await _chunks(MockModel(["abcdefg"], split=[1, 5]))
    assert [c.text for c in chunks[:-1]] == ["a", "bcde", "fg"]


async def test_split_function_chooses_chunks() -> None:
    chunks = await _chunks(MockModel(["a b c"], split=lambda t: t.split(" ")))
    assert [c.text for c in chunks[:-1]] == ["a", "b", "c"]


async def test_last_chunk_carries_usage_and_finish_reason() -> None:
    last = (await _chunks(MockModel(["12345678"]), text="abcd"))[-1]
    assert last.finish_reason == "stop"
    assert last.usage is not None
    assert (last.usage.input_tokens, last.usage.output_tokens) == (1, 2)


async def test_responder_function_sees_the_conversation() -> None:
    def answer(messages: Sequence[Message]) -> str:
        return messages[-1].text.upper()

    assert "".join(c.text for c in await _chunks(MockModel(answer), "hey")) == "HEY"


async def test_async_responder_is_awaited() -> None:
    async def answer(messages: Sequence[Message]) -> str:
        return "async"

    assert "".join(c.text for c in await _chunks(MockModel(answer))) == "async"


async def test_scripted_exception_is_raised() -> None:
    with pytest.raises(RuntimeError, match="boom"):
        await _chunks(MockModel([RuntimeError("boom")]))


async def test_requests_are_recorded() -> None:
    model = MockModel(["a"])
    await _chunks(model, "question")
    assert model.calls == 1
    assert model.requests[0].messages[0].text == "question"


async def test_running_past_the_script_says_so() -> None:
    model = MockModel(["only"])
    await _chunks(model)
    with pytest.raises(MockModelExhausted, match="only 1 response"):
        await _chunks(model)


async def test_assert_complete_fails_on_unused_responses() -> None:
    model = MockModel(["a", "b"])
    await _chunks(model)
    with pytest.raises(AssertionError, match="1 scripted response"):
        model.assert_complete()


async def test_assert_complete_passes_when_all_used() -> None:
    model = MockModel(["a"])
    await _chunks(model)
    model.assert_complete()


def test_chunk_size_and_split_are_exclusive() -> None:
    with pytest.raises(ValueError, match="not both"):
        MockModel(["a"], chunk_size=2, split=[1])


async def test_a_mock_reply_streams_its_text_then_each_call_whole_in_order() -> None:
    calls = [ToolCall("call_1", "add", '{"a": 2, "b": 3}'), ToolCall("call_2", "add", '{"a": 1, "b": 1}')]
    chunks = await _chunks(MockModel([MockReply("Adding.", calls)], chunk_size=3))
    assert "".join(c.text for c in chunks) == "Adding."
    assert [c.tool_calls for c in chunks if c.tool_calls] == [(calls[0],), (calls[1],)]
    first_call = next(i for i, c in enumerate(chunks) if c.tool_calls)
    assert all(not c.text for c in chunks[first_call:])


async def test_a_reply_with_calls_finishes_with_tool_calls_and_counts_them_as_output() -> None:
    last = (await _chunks(MockModel([MockReply(tool_calls=[tool_call("add", a=2, b=3)])])))[-1]
    assert last.finish_reason == "tool_calls"
    assert last.usage is not None and last.usage.output_tokens > 0


async def test_a_responder_may_answer_with_a_mock_reply() -> None:
    def answer(messages: Sequence[Message]) -> MockReply:
        return MockReply(tool_calls=[ToolCall("c1", "echo", json.dumps({"text": messages[-1].text}))])

    response = await complete(MockModel(answer), _req("hey"))
    assert response.tool_calls == (ToolCall("c1", "echo", '{"text": "hey"}'),)


async def test_the_request_offering_tools_is_recorded() -> None:
    model = MockModel(["ok"])
    tools = (ToolSpec("add", "Add.", {"type": "object", "properties": {}}),)
    await complete(model, LLMRequest(model="mock", messages=[Message("user", "hi")], tools=tools))
    assert model.requests[0].tools == tools
