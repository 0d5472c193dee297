"""Calls run while the model is still writing."""

from __future__ import annotations

import asyncio

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call, collect_events


@gadget
async def quick(n: int) -> str:
    """Returns n at once."""
    return str(n)


async def test_first_result_arrives_before_the_response_ends() -> None:
    text = block_call("quick", invocation_id="q1", n=1) + "Meanwhile I keep writing. " * 8
    model = MockModel([text, "done"], chunk_size=8, delay_s=0.002)
    agent = Agent(model=model, gadgets=[quick])
    events = await collect_events(agent.stream("q"))
    kinds = [e.type for e in events]
    first_result = kinds.index("gadget_result")
    first_end = kinds.index("llm_response_end")
    assert kinds.index("gadget_call") < first_result < first_end


async def test_the_calls_of_one_response_run_at_the_same_time() -> None:
    # Each call waits until all three are running: calls run one after another would never meet
    # (the first would time out), so this proves parallelism without measuring time.
    running = 0
    all_running = asyncio.Event()

    @gadget
    async def meet(n: int) -> str:
        """Returns n once all three calls are running."""
        nonlocal running
        running += 1
        if running == 3:
            all_running.set()
        await asyncio.wait_for(all_running.wait(), timeout=30)
        return str(n)

    text = "".join(block_call("meet", invocation_id=f"m{i}", n=i) for i in range(3)) + "x" * 300
    result = await Agent(model=MockModel([text, "done"], chunk_size=10), gadgets=[meet]).run("q")
    # Results are recorded as calls finish, so their order is whichever call the loop woke first.
    assert sorted((r.result, r.error) for r in result.gadget_results) == [("0", None), ("1", None), ("2", None)]
