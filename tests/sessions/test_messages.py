"""The conversation as data: ``AgentResult.messages``, ``history=`` and the JSON form."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from llmist import Agent, gadget
from llmist.agent import (
    AssistantMessage,
    GadgetResultMessage,
    MessageFormatError,
    dumps_messages,
    loads_messages,
    messages_from_json,
    messages_to_json,
)
from llmist.providers.base import ImagePart, Message, TextPart, Usage
from llmist.testing import MockModel, block_call


@gadget
def add(a: Annotated[int, Field(description="first")], b: Annotated[int, Field(description="second")]) -> int:
    """Add two integers."""
    return a + b


async def test_result_messages_record_usage_calls_and_results() -> None:
    model = MockModel([block_call("add", invocation_id="s1", a=2, b=3), "5"])
    result = await Agent(model=model, gadgets=[add]).run("2 + 3?")
    assistant, res = result.messages[2], result.messages[3]
    assert isinstance(assistant, AssistantMessage) and assistant.usage is not None
    assert assistant.usage.output_tokens > 0
    assert isinstance(res, GadgetResultMessage)
    assert (res.gadget_name, res.invocation_id, res.parameters, res.is_error) == ("add", "s1", {"a": 2, "b": 3}, False)


async def test_messages_survive_a_json_round_trip() -> None:
    model = MockModel([block_call("add", a=2, b=3), "5"])
    result = await Agent(model=model, gadgets=[add]).run("2 + 3?")
    text = dumps_messages(result.messages)
    assert loads_messages(text) == result.messages
    assert json.loads(text)["format"] == 1


async def test_a_run_continues_from_history() -> None:
    first = await Agent(model=MockModel([block_call("add", a=2, b=3), "5"]), gadgets=[add]).run("2 + 3?")
    model = MockModel(["10"])
    second = await Agent(model=model, gadgets=[add]).run(
        "and doubled?", history=loads_messages(dumps_messages(first.messages))
    )
    sent = model.requests[0].messages
    assert [m.text for m in sent[1:-1]] == [m.text for m in first.messages[1:]]
    assert sent[-1] == Message("user", "and doubled?")
    assert second.messages[: len(sent)] == list(sent)


async def test_history_system_prompt_is_replaced_by_the_agents_own() -> None:
    model = MockModel(["ok"])
    agent = Agent(model=model, system="new system")
    await agent.run("hi", history=[Message("system", "old system"), Message("user", "before")])
    sent = model.requests[0].messages
    assert sent[0].text == agent.system_prompt
    assert [m.text for m in sent[1:]] == ["before", "hi"]


async def test_prompt_none_continues_without_a_new_user_message() -> None:
    model = MockModel(["done"])
    history = [Message("system", "s"), Message("user", "task"), AssistantMessage("assistant", "working")]
    await Agent(model=model).run(None, history=history)
    assert [m.role for m in model.requests[0].messages] == ["system", "user", "assistant"]


async def test_a_run_without_prompt_or_history_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a prompt, or a history"):
        await Agent(model=MockModel(["x"])).run(None)


def test_images_travel_as_base64_with_their_media_type() -> None:
    msg = Message("user", (TextPart("look"), ImagePart(b"\x89PNG\x00\xff", "image/png")))
    data = messages_to_json([msg])
    assert data["messages"][0]["content"][1] == {"type": "image", "media_type": "image/png", "data": "iVBORwD/"}
    assert messages_from_json(data) == [msg]


def test_an_image_by_url_and_a_named_image_keep_their_url_and_name() -> None:
    by_url = ImagePart.from_url("https://example.com/cat.jpg")
    named = ImagePart.from_bytes(b"\x89PNG\r\n\x1a\n\x00", name="chart.png")
    msg = Message("user", (TextPart("compare"), by_url, named))
    assert messages_from_json(json.loads(json.dumps(messages_to_json([msg])))) == [msg]


def test_another_format_version_fails_naming_both_versions() -> None:
    with pytest.raises(MessageFormatError, match="format 2; this llmist reads format 1"):
        messages_from_json({"format": 2, "messages": []})


def test_a_bad_role_is_named_with_its_position() -> None:
    with pytest.raises(MessageFormatError, match=r"message 1: role must be one of .* got 'robot'"):
        messages_from_json(
            {"format": 1, "messages": [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]}
        )


_text = st.text(max_size=40)
_usage = st.builds(Usage, *[st.integers(0, 10**6)] * 5)
_part = st.one_of(
    st.builds(TextPart, _text),
    st.builds(ImagePart, st.binary(min_size=1, max_size=30), st.sampled_from(["image/png", "image/jpeg"])),
)
_content = st.one_of(_text, st.lists(_part, max_size=3).map(tuple))
_message = st.one_of(
    st.builds(Message, st.sampled_from(["system", "user", "assistant", "gadget_result"]), _content),
    st.builds(AssistantMessage, st.just("assistant"), _content, st.none() | _usage),
    st.builds(
        GadgetResultMessage,
        st.just("gadget_result"),
        _text,
        _text,
        _text,
        st.none() | st.dictionaries(_text, st.integers() | _text, max_size=3),
        st.booleans(),
    ),
)


@given(st.lists(_message, max_size=6))
def test_any_conversation_round_trips(messages: list[Message]) -> None:
    assert loads_messages(dumps_messages(messages)) == messages
