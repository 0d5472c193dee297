"""GadgetExecutor: one call from ParsedCall to GadgetExecutionResult."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel

from llmist import (
    BeforeGadgetDecision,
    ExecutionContext,
    Gadget,
    GadgetExecutor,
    GadgetOutputStore,
    GadgetResult,
    HumanInputRequired,
    ModelRetry,
    TaskCompletionSignal,
    gadget,
)
from llmist.execution import GadgetCallInfo
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers import LLMClient
from llmist.providers.base import LLMChunk, LLMRequest, Usage
from llmist.syntax import ParsedCall


def call(name: str, params: dict[str, Any] | None = None, call_id: str = "c1") -> ParsedCall:
    return ParsedCall(name, call_id, "", params or {}, None, ())


class Add(Gadget):
    description = "Add two numbers"

    class Params(BaseModel):
        a: int
        b: int = 0

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return str(params.a + params.b)


async def test_sync_gadget_runs_in_a_worker_thread() -> None:
    @gadget
    def where() -> str:
        """Report the thread."""
        return threading.current_thread().name

    result = await GadgetExecutor([where]).execute(call("where"))
    assert result.result != threading.current_thread().name


async def test_success_result_carries_validated_parameters() -> None:
    result = await GadgetExecutor([Add]).execute(call("Add", {"a": 2}))
    assert (result.status, result.result, result.parameters) == ("success", "2", {"a": 2, "b": 0})


async def test_unknown_gadget_suggests_close_name() -> None:
    result = await GadgetExecutor([Add]).execute(call("Ad"))
    assert result.error == (
        "Unknown gadget 'Ad'. The closest: Add. No gadget has this name, so the call did not run: "
        "do not call Ad again. The gadgets you can call: Add."
    )


async def test_exception_becomes_error_result_with_type_and_message() -> None:
    @gadget
    def boom() -> str:
        """Fail."""
        raise KeyError("missing")

    result = await GadgetExecutor([boom]).execute(call("boom"))
    assert result.status == "error"
    assert result.error == "KeyError: 'missing'"


async def test_costs_from_all_three_sources_add_up() -> None:
    class Quarter:
        name = "quarter"

        async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
            yield LLMChunk(text=request.messages[-1].text.upper())
            yield LLMChunk(usage=Usage(1_000_000, 0), finish_reason="stop")

    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("quarter", "quarter", input_price=0.25, output_price=0.0))

    @gadget
    async def paid(ctx: ExecutionContext) -> GadgetResult:
        """Costs money."""
        ctx.report_cost(0.5)
        assert ctx.llm is not None
        text = await ctx.llm.complete("hi")
        return GadgetResult(result=text, cost=0.125)

    client = LLMClient(model=Quarter(), model_registry=registry)
    result = await GadgetExecutor([paid], llm_client=client).execute(call("paid"))
    assert (result.result, result.cost) == ("HI", 0.875)


async def test_task_completion_signal_breaks_loop() -> None:
    @gadget
    def finish(summary: str) -> str:
        """Finish."""
        raise TaskCompletionSignal(summary)

    result = await GadgetExecutor([finish]).execute(call("finish", {"summary": "done"}))
    assert (result.result, result.breaks_loop, result.status) == ("done", True, "success")


async def test_human_input_is_answered_by_handler() -> None:
    @gadget
    def ask(question: str) -> str:
        """Ask."""
        raise HumanInputRequired(question)

    async def answer(question: str) -> str:
        return f"answer to {question}"

    result = await GadgetExecutor([ask], on_human_input=answer).execute(call("ask", {"question": "why"}))
    assert (result.result, result.human_input_question) == ("answer to why", "why")


async def test_human_input_without_handler_is_an_error() -> None:
    @gadget
    def ask(question: str) -> str:
        """Ask."""
        raise HumanInputRequired(question)

    result = await GadgetExecutor([ask]).execute(call("ask", {"question": "why"}))
    assert result.error is not None and "no input handler is registered" in result.error


async def test_model_retry_counts_against_budget() -> None:
    @gadget
    def picky(x: int) -> str:
        """Picky."""
        raise ModelRetry("x must be even")

    executor = GadgetExecutor([picky], max_retries=1)
    first = await executor.execute(call("picky", {"x": 1}))
    second = await executor.execute(call("picky", {"x": 1}))
    assert first.model_retry and first.error is not None and "retry 1 of 1" in first.error
    assert second.error is not None and "used up its 1 retries" in second.error


async def test_async_timeout_fires_signal_listener_before_error() -> None:
    order: list[str] = []

    @gadget(timeout_s=0.01)
    async def hang(ctx: ExecutionContext) -> str:
        """Hang."""
        ctx.signal.add_listener(lambda reason: order.append("listener"))
        await asyncio.Event().wait()
        return "never"

    result = await GadgetExecutor([hang]).execute(call("hang"))
    order.append("result")
    assert order == ["listener", "result"]
    assert result.status == "timeout"
    assert result.error == "Gadget 'hang' timed out after 0.01 s"


async def test_sync_gadget_past_timeout_does_not_block_other_calls() -> None:
    release = threading.Event()

    @gadget(timeout_s=0.05)
    def stuck(ctx: ExecutionContext) -> str:
        """Blocks its thread until released."""
        release.wait(5)
        return "late"

    executor = GadgetExecutor([stuck, Add])
    stuck_task = asyncio.create_task(executor.execute(call("stuck", call_id="s")))
    quick = await executor.execute(call("Add", {"a": 1}, call_id="q"))
    assert quick.result == "1" and not stuck_task.done()
    timed_out = await stuck_task
    release.set()
    assert timed_out.status == "timeout"


async def test_sync_gadget_sees_abort_in_its_thread() -> None:
    seen = threading.Event()

    @gadget(timeout_s=0.01)
    def polls(ctx: ExecutionContext) -> str:
        """Waits for its own cancellation."""
        if ctx.signal.wait(5):
            seen.set()
        return "stopped"

    result = await GadgetExecutor([polls]).execute(call("polls"))
    assert result.status == "timeout"
    assert await asyncio.to_thread(seen.wait, 5)


async def test_cancelling_the_run_fires_the_signal() -> None:
    started = asyncio.Event()
    reasons: list[object] = []

    @gadget
    async def long(ctx: ExecutionContext) -> str:
        """Long."""
        ctx.signal.add_listener(reasons.append)
        started.set()
        await asyncio.Event().wait()
        return "never"

    task = asyncio.create_task(GadgetExecutor([long]).execute(call("long")))
    await started.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert reasons == ["cancelled"]


async def test_large_output_is_stored_and_replaced_by_notice() -> None:
    @gadget
    def big() -> str:
        """Big."""
        return "line\n" * 100

    store = GadgetOutputStore(char_limit=50)
    result = await GadgetExecutor([big], output_store=store).execute(call("big"))
    assert result.result is not None
    assert result.result.startswith('[Gadget "big" returned too much data: 500 bytes, 101 lines.')
    assert store.get(store.ids()[0]) == "line\n" * 100


async def test_before_gadget_can_skip_with_synthetic_result() -> None:
    seen: list[GadgetCallInfo] = []

    def deny(info: GadgetCallInfo) -> BeforeGadgetDecision:
        seen.append(info)
        return BeforeGadgetDecision("skip", "Denied by user")

    result = await GadgetExecutor([Add], before_gadget=deny).execute(call("Add", {"a": 1}))
    assert (result.status, result.result) == ("skipped", "Denied by user")
    assert seen[0].parameters == {"a": 1, "b": 0}


async def test_parameter_interceptor_rewrites_before_validation() -> None:
    async def bump(name: str, params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "b": 10}

    result = await GadgetExecutor([Add], intercept_parameters=bump).execute(call("Add", {"a": 1}))
    assert result.result == "11"


async def test_three_argument_parameter_interceptor_gets_the_call() -> None:
    seen: list[str] = []

    def note(name: str, params: dict[str, Any], parsed: ParsedCall) -> dict[str, Any]:
        seen.append(f"{name}:{parsed.invocation_id}")
        return params

    result = await GadgetExecutor([Add], intercept_parameters=note).execute(call("Add", {"a": 1}, "x7"))
    assert result.ok and seen == ["Add:x7"]


async def test_sync_input_handler_runs_in_a_worker_thread() -> None:
    @gadget
    def ask() -> str:
        """Ask the user."""
        raise HumanInputRequired("name?")

    def answer(question: str) -> str:
        return f"{question} {threading.current_thread().name}"

    result = await GadgetExecutor([ask], on_human_input=answer).execute(call("ask"))
    assert result.result is not None and result.result.startswith("name? ")
    assert result.result != f"name? {threading.current_thread().name}"


async def test_plain_hook_returning_an_awaitable_is_refused_with_a_hint() -> None:
    async def decide(info: GadgetCallInfo) -> None:
        return None

    executor = GadgetExecutor([Add], before_gadget=lambda info: decide(info))
    try:
        await executor.execute(call("Add", {"a": 1}))
    except TypeError as exc:
        assert "async def" in str(exc)
    else:
        raise AssertionError("expected a TypeError")
