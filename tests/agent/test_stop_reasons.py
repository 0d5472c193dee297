"""Every way a run ends, and what AgentResult says about it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from llmist import Agent, Hooks, Observers
from llmist.agent import LLMCompleteContext
from llmist.gadgets import AbortSignal
from llmist.providers.base import LLMChunk, LLMRequest, Usage
from llmist.testing import MockModel, block_call, collect_events

from .conftest import add, finish


async def test_no_calls_stops_with_the_text_as_output() -> None:
    result = await Agent(model=MockModel(["  All done.  "]), gadgets=[add]).run("q")
    assert (result.stop_reason, result.output, result.iterations) == ("no_calls", "All done.", 1)


async def test_task_completion_signal_stops_with_its_summary() -> None:
    model = MockModel([block_call("finish", summary="finished it"), "never asked"])
    result = await Agent(model=model, gadgets=[finish]).run("q")
    assert (result.stop_reason, result.output, model.calls) == ("task_complete", "finished it", 1)
    assert result.gadget_results[0].breaks_loop


async def test_max_iterations_stops_a_model_that_keeps_calling() -> None:
    model = MockModel(lambda messages: block_call("add", a=1, b=1))
    result = await Agent(model=model, gadgets=[add], max_iterations=3).run("q")
    assert (result.stop_reason, result.iterations, len(result.gadget_results)) == ("max_iterations", 3, 3)


async def test_token_budget_stops_the_run() -> None:
    model = MockModel(lambda messages: block_call("add", a=1, b=1))
    result = await Agent(model=model, gadgets=[add], max_tokens=1, max_iterations=10).run("q")
    assert (result.stop_reason, result.iterations) == ("budget", 1)


class _Prices:
    def cost(self, model: str, usage: Usage, provider: str | None = None) -> float:
        return 0.01

    def get(self, model: str, provider: str | None = None) -> None:
        return None


async def test_cost_budget_stops_the_run() -> None:
    model = MockModel(lambda messages: block_call("add", a=1, b=1))
    result = await Agent(model=model, gadgets=[add], max_cost=0.025, model_registry=_Prices()).run("q")
    assert (result.stop_reason, result.iterations) == ("budget", 3)
    assert abs(result.llm_cost - 0.03) < 1e-9 and result.cost == result.llm_cost + result.gadget_cost


async def test_cancel_before_start_runs_nothing() -> None:
    signal = AbortSignal()
    signal.abort("user pressed stop")
    model = MockModel(["never"])
    result = await Agent(model=model).run("q", signal=signal)
    assert (result.stop_reason, result.iterations, model.calls) == ("cancelled", 0, 0)


async def test_cancel_during_a_run_stops_after_the_current_step() -> None:
    signal = AbortSignal()

    def stop_after_first(ctx: LLMCompleteContext) -> None:
        signal.abort("enough")

    hooks = Hooks(observers=Observers(on_llm_call_complete=stop_after_first))
    model = MockModel(lambda messages: block_call("add", a=1, b=1))
    result = await Agent(model=model, gadgets=[add], hooks=hooks).run("q", signal=signal)
    assert (result.stop_reason, result.iterations) == ("cancelled", 1)


async def test_stream_cancel_stops_the_run() -> None:
    model = MockModel(lambda messages: block_call("add", a=1, b=1))
    stream = Agent(model=model, gadgets=[add], max_iterations=50).stream("q")
    seen = 0
    async for event in stream:
        if event.type == "gadget_result":
            seen += 1
            stream.cancel()
    assert stream.result is not None and stream.result.stop_reason == "cancelled" and seen == 1


class _StallsAfterFirstChunk:
    """A provider that sends part of a block, then never sends the rest."""

    name = "stalling"
    offline = True  # a test double: allowed under block_real_models()

    def __init__(self) -> None:
        self.first_chunk_sent = asyncio.Event()

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        yield LLMChunk(text=block_call("add", a=1, b=2)[:30])
        self.first_chunk_sent.set()
        await asyncio.sleep(3600)
        yield LLMChunk(text="never")


async def test_cancel_interrupts_a_model_that_stalls_mid_stream() -> None:
    signal = AbortSignal()
    model = _StallsAfterFirstChunk()
    run = asyncio.ensure_future(Agent(model=model, gadgets=[add]).run("q", signal=signal))
    await asyncio.wait_for(model.first_chunk_sent.wait(), timeout=10)
    started = time.perf_counter()
    signal.abort("user pressed stop")
    result = await asyncio.wait_for(run, timeout=10)
    assert time.perf_counter() - started < 5  # it did not wait for the stalled chunk
    assert (result.stop_reason, result.iterations) == ("cancelled", 1)
    # The block was cut off by the cancel: its call is reported cancelled, not run.
    assert [r.status for r in result.gadget_results] == ["cancelled"]
    assert not asyncio.current_task().cancelling()  # type: ignore[union-attr]


async def test_cancel_interrupts_a_model_that_never_answers_and_a_stream_consumer_sees_the_end() -> None:
    never = asyncio.Event()

    async def silent(messages: object) -> str:
        await never.wait()
        return "unreachable"

    stream = Agent(model=MockModel(silent)).stream("q")
    consumer = asyncio.ensure_future(collect_events(stream))
    await asyncio.sleep(0.01)
    stream.cancel()
    events = await asyncio.wait_for(consumer, timeout=10)
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    assert [e.type for e in events] == ["llm_response_end"]


async def test_continue_on_no_calls_nudges_the_model() -> None:
    model = MockModel(["thinking...", block_call("finish", summary="done")])
    result = await Agent(model=model, gadgets=[finish], stop_on_no_calls=False).run("q")
    assert result.stop_reason == "task_complete"
    assert model.requests[1].messages[-1].role == "user"
    assert "no gadget calls" in model.requests[1].messages[-1].text


async def test_stream_events_end_with_the_final_response() -> None:
    events = await collect_events(Agent(model=MockModel(["bye"])).stream("q"))
    assert [e.type for e in events] == ["text", "llm_response_end"]


async def test_closing_a_stream_early_cancels_running_gadgets() -> None:
    import asyncio

    from llmist import gadget

    started = asyncio.Event()
    cancelled = asyncio.Event()

    @gadget
    async def wait_forever() -> str:
        """Never returns."""
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    stream = Agent(model=MockModel([block_call("wait_forever") + "more text", "x"]), gadgets=[wait_forever]).stream("q")
    async for event in stream:
        if event.type == "gadget_call":
            await started.wait()
            break
    await stream.aclose()
    assert cancelled.is_set()


async def test_a_signal_shared_by_many_runs_does_not_keep_them_alive() -> None:
    import gc
    import weakref

    signal = AbortSignal()
    agents = [Agent(model=MockModel([block_call("add", a=1, b=2), "done"]), gadgets=[add]) for _ in range(3)]
    for agent in agents:
        assert (await agent.run("q", signal=signal)).stop_reason == "no_calls"
    alive = [weakref.ref(agent) for agent in agents]
    del agents, agent
    gc.collect()
    assert [ref() for ref in alive] == [None, None, None]
    signal.abort("late")  # nothing is listening any more; must not fail
