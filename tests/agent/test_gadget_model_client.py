"""``ctx.llm``: the whole model client for gadgets, with every call's cost on the gadget's bill."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from llmist import Agent, ExecutionContext, gadget
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers import LLMClient
from llmist.providers.base import LLMChunk, LLMRequest, Usage
from llmist.testing import MockModel, block_call

PRICE = 2.0
"""USD per million input tokens of the scripted model; each of its answers bills exactly this."""


class Priced:
    """A provider whose every answer is "words" and bills one million input tokens."""

    name = "priced"

    def __init__(self) -> None:
        self.requests: list[LLMRequest] = []

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        self.requests.append(request)
        yield LLMChunk(text="wor")
        yield LLMChunk(text="ds")
        yield LLMChunk(usage=Usage(1_000_000, 0), finish_reason="stop")


def priced_client() -> LLMClient:
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("priced", "priced", input_price=PRICE, output_price=0.0))
    return LLMClient(model=Priced(), model_registry=registry)


@gadget
async def every_path(ctx: ExecutionContext) -> str:
    """Uses each way of calling the model once."""
    assert ctx.llm is not None
    whole = await ctx.llm.complete("one")
    pieces = [piece async for piece in ctx.llm.stream_text("two")]
    chunks = [chunk async for chunk in ctx.llm.stream("three")]
    known = ctx.llm.model_registry.get("priced:priced") is not None
    return f"{whole}|{''.join(pieces)}|{chunks[-1].finish_reason}|{known}"


async def test_complete_stream_text_and_stream_each_add_their_cost_to_the_gadget() -> None:
    client = priced_client()
    agent = Agent(model=MockModel([block_call("every_path"), "done"]), gadgets=[every_path], llm_client=client)
    result = await agent.run("go")
    (call,) = result.gadget_results
    assert call.result == "words|words|stop|True"
    assert call.cost == pytest.approx(3 * PRICE)
    assert client.cost == pytest.approx(3 * PRICE)  # the lent client's totals include its gadgets' calls


@gadget
def sync_user(text: str, ctx: ExecutionContext) -> str:
    """A sync gadget (run in a worker thread) asking the model."""
    assert ctx.llm is not None
    return ctx.llm.complete_sync(text).upper()


async def test_a_sync_gadget_completes_through_the_agents_loop_and_is_billed() -> None:
    agent = Agent(
        model=MockModel([block_call("sync_user", text="x"), "done"]), gadgets=[sync_user], llm_client=priced_client()
    )
    (call,) = (await agent.run("go")).gadget_results
    assert call.result == "WORDS"
    assert call.cost == pytest.approx(PRICE)


@gadget
async def blocks_its_loop(ctx: ExecutionContext) -> str:
    """Calls the sync form on the event loop's own thread."""
    assert ctx.llm is not None
    return ctx.llm.complete_sync("x")


async def test_complete_sync_on_the_loops_thread_is_an_error_that_says_to_await() -> None:
    agent = Agent(
        model=MockModel([block_call("blocks_its_loop"), "done"]), gadgets=[blocks_its_loop], llm_client=priced_client()
    )
    (call,) = (await agent.run("go")).gadget_results
    assert call.error is not None
    assert "complete_sync" in call.error and "await" in call.error


@gadget
async def asks_default_model(question: str, ctx: ExecutionContext) -> str:
    """Asks whatever model the agent runs on."""
    assert ctx.llm is not None
    return await ctx.llm.complete(question)


async def test_without_an_llm_client_gadgets_get_a_client_of_the_agents_own_model() -> None:
    model = MockModel([block_call("asks_default_model", question="q"), "the gadget's answer", "done"])
    result = await Agent(model=model, gadgets=[asks_default_model]).run("go")
    assert result.gadget_results[0].result == "the gadget's answer"
    assert result.output == "done"
