"""Native tool calls through the OpenAI SDK: tools offered, fragments joined into whole calls,
and a conversation with calls and results sent in Chat Completions form."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmist.providers.base import LLMChunk, LLMRequest, Message, ToolCall, complete
from llmist.providers.compatible import openai_compatible
from llmist.providers.openai import OpenAIProvider
from tests.providers.fake_servers import FakeServer, openai_stream
from tests.providers.tool_script import ADD, CALL_ADD, CALL_PLOT, CONVERSATION, TOOLS


def _provider(server: FakeServer) -> OpenAIProvider:
    return OpenAIProvider(api_key="sk-test", base_url=f"{server.base_url}/v1")


def _request(messages: list[Message] | None = None) -> LLMRequest:
    return LLMRequest(model="gpt-4o", messages=messages or [Message("user", "Add 2 and 3")], tools=TOOLS)


async def test_tools_are_offered_as_function_tools() -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server), _request())
    tools = server.requests[0].body["tools"]
    assert [t["type"] for t in tools] == ["function", "function"]
    assert tools[0]["function"] == {"name": "add", "description": ADD.description, "parameters": ADD.parameters}


async def test_parallel_calls_stream_out_whole_each_as_soon_as_it_is_complete() -> None:
    calls = [(c.id, c.name, c.arguments) for c in (CALL_ADD, CALL_PLOT)]
    with FakeServer([openai_stream(["Calling."], tool_calls=calls, finish_reason="tool_calls")]) as server:
        chunks: list[LLMChunk] = [c async for c in _provider(server).stream(_request())]
    with_calls = [c.tool_calls for c in chunks if c.tool_calls]
    assert with_calls == [(CALL_ADD,), (CALL_PLOT,)]
    assert chunks[-1].finish_reason == "tool_calls"


async def test_text_before_the_calls_streams_as_text() -> None:
    calls = [(CALL_ADD.id, CALL_ADD.name, CALL_ADD.arguments)]
    with FakeServer([openai_stream(["Let me ", "add."], tool_calls=calls, finish_reason="tool_calls")]) as server:
        response = await complete(_provider(server), _request())
    assert (response.text, response.tool_calls) == ("Let me add.", (CALL_ADD,))


async def test_fragments_without_an_index_are_joined_by_call_id() -> None:
    calls = [(c.id, c.name, c.arguments) for c in (CALL_ADD, CALL_PLOT)]
    stream = openai_stream([], tool_calls=calls, finish_reason="tool_calls", call_index=False)
    with FakeServer([stream]) as server:
        response = await complete(_provider(server), _request())
    assert response.tool_calls == (CALL_ADD, CALL_PLOT)


async def test_a_call_without_an_id_gets_a_unique_one() -> None:
    calls = [("", "add", "{}"), ("", "add", "{}")]
    with FakeServer([openai_stream([], tool_calls=calls, finish_reason="tool_calls")]) as server:
        response = await complete(_provider(server), _request())
    ids = [c.id for c in response.tool_calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)


async def test_calls_and_results_are_sent_as_tool_calls_and_tool_messages() -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server), _request(CONVERSATION))
    sent = server.requests[0].body["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "Calling both.",
        "tool_calls": [
            {"id": "call_add", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}},
            {
                "id": "call_plot",
                "type": "function",
                "function": {"name": "plot", "arguments": '{"points": [{"x": 1, "y": 2}]}'},
            },
        ],
    }
    assert sent[3:5] == [
        {"role": "tool", "tool_call_id": "call_add", "content": "5"},
        {"role": "tool", "tool_call_id": "call_plot", "content": "Plot drawn."},
    ]


async def test_images_of_tool_results_follow_the_tool_messages_in_a_user_message() -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server), _request(CONVERSATION))
    sent = server.requests[0].body["messages"]
    assert sent[5] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Images returned by tool call call_plot:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        ],
    }


async def test_an_assistant_turn_of_calls_only_has_empty_content_and_an_error_is_a_tool_message() -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server), _request(CONVERSATION))
    sent = server.requests[0].body["messages"]
    assert sent[6]["content"] == "" and sent[6]["tool_calls"][0]["id"] == "call_div"  # llama.cpp refuses null
    assert sent[7] == {"role": "tool", "tool_call_id": "call_div", "content": "Error in divide: division by zero"}
    assert len(sent) == 8


async def test_openai_compatible_servers_get_the_same_tools_and_calls() -> None:
    calls = [(CALL_ADD.id, CALL_ADD.name, CALL_ADD.arguments)]
    with FakeServer([openai_stream([], tool_calls=calls, finish_reason="tool_calls")]) as server:
        provider = openai_compatible("ollama", base_url=f"{server.base_url}/v1")
        response = await complete(provider, _request())
    assert server.requests[0].body["tools"][0]["function"]["name"] == "add"
    assert response.tool_calls == (ToolCall("call_add", "add", '{"a": 2, "b": 3}'),)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
_ARGUMENTS = st.dictionaries(st.text(max_size=6), _JSON, max_size=3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.lists(_ARGUMENTS, min_size=1, max_size=3), piece=st.integers(1, 12))
async def test_any_split_of_the_arguments_gives_the_same_whole_calls(
    arguments: list[dict[str, Any]], piece: int
) -> None:
    calls = [(f"call_{i}", f"tool_{i}", json.dumps(a, ensure_ascii=False)) for i, a in enumerate(arguments)]
    stream = openai_stream([], tool_calls=calls, arguments_piece=piece, finish_reason="tool_calls")
    with FakeServer([stream]) as server:
        response = await complete(_provider(server), _request())
    assert response.tool_calls == tuple(ToolCall(*c) for c in calls)
