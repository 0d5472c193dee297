"""Native tool calls through the google-genai SDK: function declarations (JSON schema kept whole),
``functionCall`` parts read as whole calls, and a conversation with calls and results sent as
``functionCall`` / ``functionResponse`` parts, thought signatures included."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from llmist.providers.base import LLMChunk, LLMRequest, Message, ToolCall, complete
from llmist.providers.gemini import GeminiProvider
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer, gemini_stream
from tests.providers.test_images import _snake
from tests.providers.tool_script import ADD, CALL_ADD, CONVERSATION, PLOT, TOOLS

MODEL = "gemini-2.5-flash"
ASK = [Message("user", "Add 2 and 3")]


def _provider(server: FakeServer) -> GeminiProvider:
    return GeminiProvider(api_key="gm-test", base_url=server.base_url, retry=RetryPolicy(max_attempts=1))


def _request(messages: list[Message]) -> LLMRequest:
    return LLMRequest(model=MODEL, messages=messages, tools=TOOLS)


async def _sent_contents(messages: list[Message]) -> list[dict[str, Any]]:
    with FakeServer([gemini_stream(["ok"])]) as server:
        await complete(_provider(server), _request(messages))
    contents: list[dict[str, Any]] = _snake(server.requests[0].body["contents"])
    return contents


async def test_tools_are_function_declarations_with_the_json_schema_unconverted() -> None:
    with FakeServer([gemini_stream(["ok"])]) as server:
        await complete(_provider(server), _request(ASK))
    (tool,) = server.requests[0].body["tools"]
    declarations = {d["name"]: d for d in tool["functionDeclarations"]}
    assert declarations["add"] == {
        "name": "add",
        "description": ADD.description,
        "parameters_json_schema": ADD.parameters,
    }
    assert declarations["plot"]["parameters_json_schema"] == PLOT.parameters


async def test_function_calls_stream_out_whole_in_order() -> None:
    calls = [{"id": "fc_1", "name": "add", "args": {"a": 2, "b": 3}}, {"id": "fc_2", "name": "add", "args": {"a": 1}}]
    with FakeServer([gemini_stream(["Adding."], function_calls=calls)]) as server:
        chunks: list[LLMChunk] = [c async for c in _provider(server).stream(_request(ASK))]
    assert [c.tool_calls for c in chunks if c.tool_calls] == [
        (ToolCall("fc_1", "add", '{"a": 2, "b": 3}'),),
        (ToolCall("fc_2", "add", '{"a": 1}'),),
    ]
    assert "".join(c.text for c in chunks) == "Adding."


async def test_calls_without_an_id_get_unique_ones_that_are_never_sent_back() -> None:
    calls = [{"name": "add", "args": {"a": 2, "b": 3}}, {"name": "add", "args": {}}]
    with FakeServer([gemini_stream([], function_calls=calls), gemini_stream(["5"])]) as server:
        provider = _provider(server)
        response = await complete(provider, _request(ASK))
        answers = [Message("gadget_result", "5", tool_call_id=c.id) for c in response.tool_calls]
        turn = Message("assistant", "", tool_calls=response.tool_calls)
        await complete(provider, _request([*ASK, turn, *answers]))
    assert len({c.id for c in response.tool_calls}) == 2
    contents = _snake(server.requests[1].body["contents"])
    assert all("id" not in p["function_call"] for p in contents[1]["parts"])
    assert all("id" not in p["function_response"] for p in contents[2]["parts"])


async def test_calls_are_sent_as_function_call_parts_after_the_text() -> None:
    contents = await _sent_contents(CONVERSATION)
    assert [c["role"] for c in contents] == ["user", "model", "user", "model", "user"]
    assert contents[1]["parts"] == [
        {"text": "Calling both."},
        {"function_call": {"id": "call_add", "name": "add", "args": {"a": 2, "b": 3}}},
        {"function_call": {"id": "call_plot", "name": "plot", "args": {"points": [{"x": 1, "y": 2}]}}},
    ]


async def test_results_are_function_responses_named_after_their_call_then_their_images() -> None:
    contents = await _sent_contents(CONVERSATION)
    assert contents[2]["parts"] == [
        {"function_response": {"id": "call_add", "name": "add", "response": {"result": "5"}}},
        {"function_response": {"id": "call_plot", "name": "plot", "response": {"result": "Plot drawn."}}},
        {"inline_data": {"data": "iVBORw==", "mime_type": "image/png"}},
    ]


async def test_an_error_result_is_a_function_response_with_the_error_text() -> None:
    contents = await _sent_contents(CONVERSATION)
    response = {"id": "call_div", "name": "divide", "response": {"result": "Error in divide: division by zero"}}
    assert contents[4]["parts"] == [{"function_response": response}]


async def test_the_thought_signature_of_a_call_is_sent_back_with_it() -> None:
    calls = [{"id": "fc_1", "name": "add", "args": {"a": 2, "b": 3}}]
    with FakeServer([gemini_stream([], function_calls=calls), gemini_stream(["5"])]) as server:
        provider = _provider(server)
        response = await complete(provider, _request(ASK))
        turn = Message("assistant", "", tool_calls=response.tool_calls)
        await complete(provider, _request([*ASK, turn, Message("gadget_result", "5", tool_call_id="fc_1")]))
    part = _snake(server.requests[1].body["contents"])[1]["parts"][0]
    assert base64.b64decode(part["thought_signature"]) == b"sig-add"


async def test_a_result_answering_no_call_in_the_conversation_is_refused_clearly() -> None:
    messages = [*ASK, Message("gadget_result", "5", tool_call_id=CALL_ADD.id)]
    with FakeServer([]) as server, pytest.raises(ValueError, match="no assistant message in the conversation made"):
        await complete(_provider(server), _request(messages))
