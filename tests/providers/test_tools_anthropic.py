"""Native tool calls through the Anthropic SDK: tools offered, ``tool_use`` blocks read whole,
a conversation with calls and results sent as ``tool_use`` / ``tool_result`` blocks, and the
signed thinking before calls sent back as the API requires."""

from __future__ import annotations

from typing import Any

from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import LLMChunk, LLMRequest, Message, Reasoning, ToolCall, complete
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeResponse, FakeServer, anthropic_stream
from tests.providers.tool_script import ADD, CALL_ADD, CALL_PLOT, CONVERSATION, TOOLS

MODEL = "claude-sonnet-5-5"
THINK = Reasoning(budget_tokens=2048)
ASK = [Message("user", "Add 2 and 3")]


def _provider(server: FakeServer) -> AnthropicProvider:
    return AnthropicProvider(api_key="sk-ant-test", base_url=server.base_url, retry=RetryPolicy(max_attempts=1))


def _request(messages: list[Message], reasoning: Reasoning | None = None) -> LLMRequest:
    return LLMRequest(model=MODEL, messages=messages, tools=TOOLS, reasoning=reasoning)


def _calls(*calls: ToolCall) -> list[tuple[str, str, str]]:
    return [(c.id, c.name, c.arguments) for c in calls]


async def test_tools_are_offered_with_their_input_schema() -> None:
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server), _request(ASK))
    tools = server.requests[0].body["tools"]
    assert tools[0] == {"name": "add", "description": ADD.description, "input_schema": ADD.parameters}
    assert [t["name"] for t in tools] == ["add", "plot"]


async def test_tool_use_blocks_stream_out_whole_each_at_its_end() -> None:
    stream = anthropic_stream(["Calling."], model=MODEL, tool_calls=_calls(CALL_ADD, CALL_PLOT), stop_reason="tool_use")
    with FakeServer([stream]) as server:
        chunks: list[LLMChunk] = [c async for c in _provider(server).stream(_request(ASK))]
    assert [c.tool_calls for c in chunks if c.tool_calls] == [(CALL_ADD,), (CALL_PLOT,)]
    assert "".join(c.text for c in chunks) == "Calling."
    assert chunks[-1].finish_reason == "tool_use"


async def test_a_call_without_input_has_empty_object_arguments() -> None:
    stream = anthropic_stream([], model=MODEL, tool_calls=[("toolu_1", "now", "")], stop_reason="tool_use")
    with FakeServer([stream]) as server:
        response = await complete(_provider(server), _request(ASK))
    assert response.tool_calls == (ToolCall("toolu_1", "now", "{}"),)


async def test_calls_are_sent_as_tool_use_blocks_with_decoded_input() -> None:
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server), _request(CONVERSATION))
    sent = server.requests[0].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert sent[1]["content"] == [
        {"type": "text", "text": "Calling both."},
        {"type": "tool_use", "id": "call_add", "name": "add", "input": {"a": 2, "b": 3}},
        {"type": "tool_use", "id": "call_plot", "name": "plot", "input": {"points": [{"x": 1, "y": 2}]}},
    ]


async def test_results_of_one_turn_go_together_with_images_inside_the_tool_result() -> None:
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server), _request(CONVERSATION))
    sent = server.requests[0].body["messages"]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_add", "content": "5"},
        {
            "type": "tool_result",
            "tool_use_id": "call_plot",
            "content": [
                {"type": "text", "text": "Plot drawn."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
            ],
        },
    ]


async def test_an_error_result_is_a_tool_result_and_the_last_block_is_cached() -> None:
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server), _request(CONVERSATION))
    sent = server.requests[0].body["messages"]
    assert sent[3]["content"] == [{"type": "tool_use", "id": "call_div", "name": "divide", "input": {"a": 1, "b": 0}}]
    assert sent[4]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "call_div",
            "content": "Error in divide: division by zero",
            "cache_control": {"type": "ephemeral"},
        }
    ]


async def test_malformed_arguments_are_sent_as_an_empty_input() -> None:
    messages = [*ASK, Message("assistant", "", tool_calls=(ToolCall("t1", "add", '{"a": 2,'),))]
    messages.append(Message("gadget_result", "Error: the arguments are not valid JSON", tool_call_id="t1"))
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server), _request(messages))
    assert server.requests[0].body["messages"][1]["content"][0]["input"] == {}


async def test_a_user_message_after_results_joins_their_turn_after_them() -> None:
    messages = [*CONVERSATION, Message("user", "Now explain.")]
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server), _request(messages))
    last = server.requests[0].body["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "text"]


async def _replayed(first: FakeResponse) -> list[dict[str, Any]]:
    """The assistant turn sent back after ``first`` (a response with calls) was received, with thinking on."""
    with FakeServer([first, anthropic_stream(["5"], model=MODEL)]) as server:
        provider = _provider(server)
        response = await complete(provider, _request(ASK, reasoning=THINK))
        answers = [Message("gadget_result", "5", tool_call_id=c.id) for c in response.tool_calls]
        turn = Message("assistant", response.text, tool_calls=response.tool_calls)
        await complete(provider, _request([*ASK, turn, *answers], reasoning=THINK))
    assert server.requests[1].body["thinking"]["type"] == "enabled"
    content: list[dict[str, Any]] = server.requests[1].body["messages"][1]["content"]
    return content


async def test_the_signed_thinking_before_calls_is_sent_back_with_them() -> None:
    stream = anthropic_stream(
        [], model=MODEL, thinking=["add them"], tool_calls=_calls(CALL_ADD), stop_reason="tool_use"
    )
    assert await _replayed(stream) == [
        {"type": "thinking", "thinking": "add them", "signature": "sig-add them"},
        {"type": "tool_use", "id": "call_add", "name": "add", "input": {"a": 2, "b": 3}},
    ]


async def test_a_response_with_interleaved_thinking_is_sent_back_block_for_block() -> None:
    stream = anthropic_stream(
        ["Both."],
        model=MODEL,
        thinking=["first"],
        tool_calls=_calls(CALL_ADD, CALL_PLOT),
        interleaved=["then plot"],
        stop_reason="tool_use",
    )
    assert [b["type"] for b in await _replayed(stream)] == ["thinking", "text", "tool_use", "thinking", "tool_use"]


async def test_redacted_thinking_is_sent_back_as_received() -> None:
    stream = anthropic_stream(
        [], model=MODEL, redacted="EncryptedBlob", tool_calls=_calls(CALL_ADD), stop_reason="tool_use"
    )
    assert (await _replayed(stream))[0] == {"type": "redacted_thinking", "data": "EncryptedBlob"}


async def test_an_open_cycle_whose_thinking_is_unknown_is_sent_with_thinking_off() -> None:
    messages = [
        *ASK,
        Message("assistant", "", tool_calls=(CALL_ADD,)),
        Message("gadget_result", "5", tool_call_id="call_add"),
    ]
    with FakeServer([anthropic_stream(["5"], model=MODEL)]) as server:
        await complete(_provider(server), _request(messages, reasoning=THINK))
    body = server.requests[0].body
    assert body["thinking"] == {"type": "disabled"}
    assert body["messages"][1]["content"][0]["type"] == "tool_use"


async def test_without_thinking_no_thinking_blocks_are_sent() -> None:
    first = anthropic_stream([], model=MODEL, thinking=["hm"], tool_calls=_calls(CALL_ADD), stop_reason="tool_use")
    with FakeServer([first, anthropic_stream(["5"], model=MODEL)]) as server:
        provider = _provider(server)
        response = await complete(provider, _request(ASK))
        turn = Message("assistant", "", tool_calls=response.tool_calls)
        await complete(provider, _request([*ASK, turn, Message("gadget_result", "5", tool_call_id="call_add")]))
    body = server.requests[1].body
    assert "thinking" not in body
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]
