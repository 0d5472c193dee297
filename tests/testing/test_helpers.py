"""llmist.testing: override, the real-model guard, assertions and call writers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from llmist import Agent, gadget
from llmist.providers.base import LLMChunk, LLMRequest
from llmist.syntax import GadgetCallParser
from llmist.testing import (
    MockModel,
    RealModelRequestBlocked,
    assert_gadget_called,
    assert_no_errors,
    block_call,
    block_real_models,
    emoji_call,
    gadget_calls,
    override,
)


@gadget
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class _FakeRemote:
    """Stands in for a real provider (not marked offline)."""

    name = "remote"

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        yield LLMChunk(text="real answer", finish_reason="stop")


async def test_override_swaps_the_model_inside_the_block_only() -> None:
    remote = _FakeRemote()
    agent = Agent(model=remote, gadgets=[add])
    with override(agent, model=MockModel(["mocked"])):
        assert (await agent.run("q")).output == "mocked"
    assert agent.model is remote
    assert (await agent.run("q")).output == "real answer"


async def test_block_real_models_refuses_real_providers() -> None:
    with block_real_models(), pytest.raises(RealModelRequestBlocked, match="remote"):
        await Agent(model=_FakeRemote()).run("q")


async def test_block_real_models_lets_mock_models_through() -> None:
    with block_real_models():
        assert (await Agent(model=MockModel(["ok"])).run("q")).output == "ok"


async def test_assert_gadget_called_matches_parameters() -> None:
    result = await Agent(model=MockModel([block_call("add", a=2, b=3), "5"]), gadgets=[add]).run("q")
    call = assert_gadget_called(result, "add", times=1, a=2, b=3)
    assert call.result == "5"
    assert_no_errors(result)
    assert [r.result for r in gadget_calls(result, "add")] == ["5"]


async def test_assert_gadget_called_explains_a_mismatch() -> None:
    result = await Agent(model=MockModel([block_call("add", a=2, b=3), "5"]), gadgets=[add]).run("q")
    with pytest.raises(AssertionError, match="no add call had"):
        assert_gadget_called(result, "add", a=9)
    with pytest.raises(AssertionError, match="never called"):
        assert_gadget_called(result, "sub")


async def test_assert_no_errors_lists_failures() -> None:
    result = await Agent(model=MockModel([block_call("add", a="x", b=3), "5"]), gadgets=[add]).run("q")
    with pytest.raises(AssertionError, match="1 gadget call"):
        assert_no_errors(result)


def test_block_call_writes_nested_values_as_pointers() -> None:
    text = block_call("t", invocation_id="i1", deps=["d"], items=[{"name": "x"}], flag=True)
    calls = [e.call for e in GadgetCallParser().feed(text) if e.type == "gadget_call"]
    assert calls[0].invocation_id == "i1" and calls[0].dependencies == ("d",)
    assert calls[0].parameters == {"items": [{"name": "x"}], "flag": True}


def test_emoji_call_quotes_arguments_with_spaces() -> None:
    assert emoji_call("write", "my file.txt", body="hi") == '🛠️[write "my file.txt"]\nhi\n🛠️[/end]\n'


def test_the_guard_is_the_agent_layers_public_one() -> None:
    import llmist.agent.guard
    import llmist.testing

    assert llmist.testing.block_real_models is llmist.agent.guard.block_real_models
    assert llmist.testing.RealModelRequestBlocked is llmist.agent.guard.RealModelRequestBlocked
