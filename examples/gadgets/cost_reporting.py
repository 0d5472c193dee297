"""Cost reporting: ctx.report_cost, ctx.llm (auto-tracked) and GadgetResult(cost=...) add up."""

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from pydantic import BaseModel, Field

from llmist import ExecutionContext, GadgetExecutor, GadgetResult, create_gadget, gadget
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers import LLMClient
from llmist.providers.base import LLMChunk, LLMRequest, Usage
from llmist.syntax import ParsedCall


async def call_api(query: str) -> str:
    await asyncio.sleep(0)
    return f"<{query}>"


@gadget(name="MultiStepAPI")
async def multi_step_api(query: Annotated[str, Field(description="Query to process")], ctx: ExecutionContext) -> str:
    """Calls multiple paid APIs."""
    step1 = await call_api(query)
    ctx.report_cost(0.001)  # $0.001
    step2 = await call_api(step1)
    ctx.report_cost(0.002)  # $0.002
    return f"Processed: {step2}"  # total: $0.003


@gadget(name="Summarizer")
async def summarizer(text: Annotated[str, Field(description="Text to summarize")], ctx: ExecutionContext) -> str:
    """Summarizes text using an internal LLM."""
    if ctx.llm is None:  # absent in tests, CLI runs, or without an agent
        return "LLM not available in this context"
    # Cost reported automatically; `model="haiku"` would pick another model than the client's default.
    return await ctx.llm.complete(f"Summarize briefly: {text}")


class DataParams(BaseModel):
    data: str


async def complex_processing(params: DataParams, ctx: ExecutionContext) -> GadgetResult:
    await call_api(params.data)
    ctx.report_cost(0.001)  # source 1: manual report
    if ctx.llm is None:
        return GadgetResult(result="LLM not available", cost=0.001)
    analysis = await ctx.llm.complete("Analyze: " + params.data)  # source 2: the wrapped client
    return GadgetResult(result=analysis, cost=0.0005)  # source 3: the return value; all three are summed


complex_gadget = create_gadget(
    name="ComplexGadget",
    description="Complex processing with multiple cost sources",
    schema=DataParams,
    execute=complex_processing,
)


@gadget(name="PaidAPI")
async def paid_api(query: Annotated[str, Field(description="Query to send to the API")]) -> GadgetResult:
    """Calls a paid external API."""
    response = await call_api(query)
    return GadgetResult(result=response, cost=0.001)  # $0.001 per call


class FakeModel:
    """Stands in for a real model: answers "a summary" and bills 10,000 input tokens."""

    name = "fake"

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        yield LLMChunk(text="a summary")
        yield LLMChunk(usage=Usage(input_tokens=10_000), finish_reason="stop")


def fake_client() -> LLMClient:
    """The client an agent lends its gadgets, on the fake model at $1 per million input tokens."""
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("fake", "fake", input_price=1.0, output_price=0.0))
    return LLMClient(model=FakeModel(), model_registry=registry)  # every completion costs $0.01


async def run() -> float:
    executor = GadgetExecutor([multi_step_api, summarizer, complex_gadget, paid_api], llm_client=fake_client())
    calls = [
        ParsedCall("MultiStepAPI", "m", "", {"query": "q"}, None, ()),
        ParsedCall("Summarizer", "s", "", {"text": "long text"}, None, ()),
        ParsedCall("ComplexGadget", "c", "", {"data": "d"}, None, ()),
        ParsedCall("PaidAPI", "p", "", {"query": "q"}, None, ()),
    ]
    results = [await executor.execute(call) for call in calls]
    costs = {r.gadget_name: round(r.cost, 6) for r in results}
    assert costs == {"MultiStepAPI": 0.003, "Summarizer": 0.01, "ComplexGadget": 0.0115, "PaidAPI": 0.001}
    return sum(r.cost for r in results)  # what a progress tracker adds to the LLM cost


def main() -> None:
    print(f"Total gadget cost: ${asyncio.run(run()):.6f}")


if __name__ == "__main__":
    main()
