"""Calls run while the model is still writing."""

from __future__ import annotations

import asyncio
import time

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call, collect_events

SLOW_S = 0.3


@gadget
async def slow(n: int) -> str:
    """Sleeps, then returns n."""
    await asyncio.sleep(SLOW_S)
    return str(n)


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


async def test_total_time_is_close_to_the_max_not_the_sum() -> None:
    # 3 calls of 0.3 s each, the last one early in a response that streams for ~0.45 s.
    text = "".join(block_call("slow", invocation_id=f"s{i}", n=i) for i in range(3)) + "x" * 300
    n_chunks = len(text) // 10 + 1
    delay = 0.45 / n_chunks
    model = MockModel([text, "done"], chunk_size=10, delay_s=delay)
    started = time.perf_counter()
    result = await Agent(model=model, gadgets=[slow]).run("q")
    elapsed = time.perf_counter() - started
    stream_s = n_chunks * delay
    assert len(result.gadget_results) == 3
    serial = stream_s + 3 * SLOW_S
    assert elapsed < 0.8 * serial, (elapsed, serial)
    assert elapsed < max(stream_s, SLOW_S) * 1.5 + 0.1
