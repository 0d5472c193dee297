"""HookPresets.progress_tracking: iterations, tokens, LLM + gadget cost, elapsed time."""

import asyncio

from llmist import Agent, ExecutionContext, HookPresets, gadget
from llmist.agent import Progress
from llmist.testing import MockModel, block_call


@gadget
def paid_search(query: str, ctx: ExecutionContext) -> str:
    """Search a paid API."""
    ctx.report_cost(0.001)
    return f"3 results for {query}"


async def main() -> None:
    seen: list[Progress] = []
    hooks = HookPresets.progress_tracking(on_progress=seen.append)  # pass model_registry= to price tokens
    model = MockModel([block_call("paid_search", query="llmist"), "Found 3 results."])
    await Agent(model=model, gadgets=[paid_search], hooks=hooks).run("Search")

    last = seen[-1]
    print(f"{last.iterations} calls, {last.input_tokens} in / {last.output_tokens} out tokens")
    print(f"cost ${last.total_cost:.4f} (LLM ${last.llm_cost:.4f} + gadgets ${last.gadget_cost:.4f})")
    print(f"{last.elapsed_s * 1000:.1f} ms")

    assert last.iterations == 2 and last.gadget_cost == 0.001


if __name__ == "__main__":
    asyncio.run(main())
