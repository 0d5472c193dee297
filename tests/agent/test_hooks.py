"""Observers, interceptors and controllers, and how hook sets merge."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from llmist import (
    Agent,
    Controllers,
    DependencySkipDecision,
    GadgetExecutionResult,
    Hooks,
    Interceptors,
    Observers,
    Proceed,
    Recover,
    ReplaceParameters,
    Rethrow,
    SkipGadget,
    SkipLLMCall,
    merge_hooks,
)
from llmist.agent import GadgetContext, LLMCallContext, LLMErrorContext
from llmist.testing import MockModel, block_call

from .conftest import add, boom

SCRIPT = ["Adding.\n" + block_call("add", a=2, b=3), "It is 5."]
DEP_SCRIPT = [
    block_call("boom", invocation_id="b", reason="x") + block_call("add", invocation_id="s", deps=["b"], a=1, b=1),
    "ok",
]


async def _run(hooks: Hooks, script: list[Any] | None = None, gadgets: list[Any] | None = None) -> Any:
    model = MockModel(script or SCRIPT, chunk_size=5)
    return await Agent(model=model, gadgets=gadgets or [add], hooks=hooks).run("2+3")


# --- observers -------------------------------------------------------------------------


async def test_every_observer_fires() -> None:
    seen: list[str] = []

    def note(name: str) -> Any:
        return lambda *args: seen.append(name)

    names = [
        "on_llm_call_start", "on_llm_call_complete", "on_stream_chunk", "on_args_partial",
        "on_gadget_start", "on_gadget_complete", "on_iteration",
    ]  # fmt: skip
    await _run(Hooks(observers=Observers(**{n: note(n) for n in names})))
    assert set(seen) == set(names)
    assert seen.count("on_llm_call_start") == 2 and seen.count("on_iteration") == 2


async def test_async_observers_are_awaited() -> None:
    seen: list[int] = []

    async def on_start(ctx: LLMCallContext) -> None:
        seen.append(ctx.iteration)

    await _run(Hooks(observers=Observers(on_llm_call_start=on_start)))
    assert seen == [1, 2]


async def test_an_observer_that_raises_is_logged_and_the_run_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object) -> None:
        raise ValueError("observer bug")

    with caplog.at_level(logging.ERROR, logger="llmist.agent.hooks"):
        result = await _run(Hooks(observers=Observers(on_gadget_complete=broken, on_stream_chunk=broken)))
    assert result.output == "It is 5."
    assert "observer bug" in caplog.text


async def test_llm_error_observer_sees_the_error() -> None:
    errors: list[str] = []

    def on_error(ctx: LLMErrorContext) -> None:
        errors.append(str(ctx.error))

    with pytest.raises(RuntimeError):
        await _run(Hooks(observers=Observers(on_llm_call_error=on_error)), script=[RuntimeError("down")])
    assert errors == ["down"]


async def test_gadget_skipped_observer_fires() -> None:
    skipped: list[str] = []
    hooks = Hooks(observers=Observers(on_gadget_skipped=lambda skip: skipped.append(skip.invocation_id)))
    await _run(hooks, script=DEP_SCRIPT, gadgets=[add, boom])
    assert skipped == ["s"]


# --- interceptors ----------------------------------------------------------------------


async def test_raw_chunk_interceptor_rewrites_model_text() -> None:
    hooks = Hooks(interceptors=Interceptors(intercept_raw_chunk=lambda text, ctx: text.replace("5", "five")))
    result = await _run(hooks, script=["It is 5."])
    assert result.output == "It is five."


async def test_text_chunk_interceptor_can_suppress_text() -> None:
    hooks = Hooks(interceptors=Interceptors(intercept_text_chunk=lambda text, ctx: None))
    result = await _run(hooks)
    assert result.output == "" and result.gadget_results[0].result == "5"


async def test_parameter_interceptor_changes_arguments() -> None:
    def double_a(params: dict[str, Any], ctx: GadgetContext) -> dict[str, Any]:
        return {**params, "a": params["a"] * 2}

    result = await _run(Hooks(interceptors=Interceptors(intercept_gadget_parameters=double_a)))
    assert result.gadget_results[0].result == "7"


async def test_result_interceptor_changes_what_the_model_sees() -> None:
    def redact(r: GadgetExecutionResult) -> GadgetExecutionResult:
        from dataclasses import replace

        return replace(r, result="[redacted]")

    model = MockModel(SCRIPT)
    await Agent(model=model, gadgets=[add], hooks=Hooks(interceptors=Interceptors(intercept_gadget_result=redact))).run(
        "q"
    )
    assert "[redacted]" in model.requests[1].messages[-1].text


async def test_final_message_interceptor_changes_the_output() -> None:
    result = await _run(Hooks(interceptors=Interceptors(intercept_final_message=str.upper)))
    assert result.output == "IT IS 5."


# --- controllers -----------------------------------------------------------------------


async def test_before_llm_call_can_skip_with_a_synthetic_response() -> None:
    def skip_second(ctx: LLMCallContext) -> SkipLLMCall | Proceed:
        return SkipLLMCall("cached answer") if ctx.iteration == 2 else Proceed()

    model = MockModel([SCRIPT[0]])
    result = await Agent(
        model=model, gadgets=[add], hooks=Hooks(controllers=Controllers(before_llm_call=skip_second))
    ).run("q")
    assert (result.output, model.calls, result.iterations) == ("cached answer", 1, 2)


async def test_after_llm_error_can_recover_with_a_fallback() -> None:
    def recover(ctx: LLMErrorContext) -> Recover:
        return Recover("fallback answer")

    result = await _run(Hooks(controllers=Controllers(after_llm_error=recover)), script=[RuntimeError("down")])
    assert (result.output, result.stop_reason) == ("fallback answer", "no_calls")


async def test_after_llm_error_can_rethrow() -> None:
    with pytest.raises(RuntimeError, match="down"):
        await _run(Hooks(controllers=Controllers(after_llm_error=lambda ctx: Rethrow())), script=[RuntimeError("down")])


async def test_before_gadget_can_deny_a_call_with_a_synthetic_result() -> None:
    async def deny(ctx: GadgetContext) -> SkipGadget:
        return SkipGadget(f"user denied {ctx.gadget_name}")

    model = MockModel(SCRIPT)
    result = await Agent(model=model, gadgets=[add], hooks=Hooks(controllers=Controllers(before_gadget=deny))).run("q")
    assert result.gadget_results[0].result == "user denied add"
    assert "user denied add" in model.requests[1].messages[-1].text


async def test_before_gadget_can_run_a_call_with_replaced_parameters() -> None:
    started: list[dict[str, Any]] = []
    hooks = Hooks(
        controllers=Controllers(before_gadget=lambda ctx: ReplaceParameters({"a": 40, "b": 2})),
        observers=Observers(on_gadget_start=lambda ctx: started.append(ctx.parameters)),
    )
    result = await _run(hooks)
    assert result.gadget_results[0].result == "42"
    assert result.gadget_results[0].parameters == {"a": 40, "b": 2}
    assert started == [{"a": 40, "b": 2}]


async def test_replaced_parameters_that_fail_validation_fail_the_call_with_the_error() -> None:
    hooks = Hooks(controllers=Controllers(before_gadget=lambda ctx: ReplaceParameters({"a": "many"})))
    result = await _run(hooks)
    error = result.gadget_results[0].error
    assert error is not None and error.startswith("the replaced parameters are invalid:") and "b" in error


async def test_before_gadget_proceed_runs_the_call() -> None:
    result = await _run(Hooks(controllers=Controllers(before_gadget=lambda ctx: Proceed())))
    assert result.gadget_results[0].result == "5"


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (DependencySkipDecision("skip"), None),
        (DependencySkipDecision("execute_anyway"), "2"),
        (DependencySkipDecision("use_fallback", fallback_result="fallback"), "fallback"),
    ],
)
async def test_on_dependency_skipped_actions(decision: DependencySkipDecision, expected: str | None) -> None:
    hooks = Hooks(controllers=Controllers(on_dependency_skipped=lambda info: decision))
    result = await _run(hooks, script=DEP_SCRIPT, gadgets=[add, boom])
    dependent = next(r for r in result.gadget_results if r.invocation_id == "s")
    assert dependent.result == expected


# --- composition -----------------------------------------------------------------------


async def test_merged_observers_all_run_in_order() -> None:
    seen: list[str] = []
    first = Hooks(observers=Observers(on_llm_call_start=lambda ctx: seen.append("first")))
    second = Hooks(observers=Observers(on_llm_call_start=lambda ctx: seen.append("second")))
    await _run(merge_hooks(first, second), script=["hi"])
    assert seen == ["first", "second"]


async def test_merged_interceptors_chain() -> None:
    a = Hooks(interceptors=Interceptors(intercept_final_message=lambda s: s + "!"))
    b = Hooks(interceptors=Interceptors(intercept_final_message=str.upper))
    result = await _run(merge_hooks(a, b), script=["hi"])
    assert result.output == "HI!"


async def test_merged_controllers_first_decision_wins() -> None:
    a = Hooks(controllers=Controllers(before_llm_call=lambda ctx: Proceed()))
    b = Hooks(controllers=Controllers(before_llm_call=lambda ctx: SkipLLMCall("from b")))
    c = Hooks(controllers=Controllers(before_llm_call=lambda ctx: SkipLLMCall("from c")))
    result = await _run(merge_hooks(a, b, c), script=[])
    assert result.output == "from b"


async def test_agent_accepts_a_list_of_hook_sets() -> None:
    seen: list[str] = []
    hooks = [Hooks(observers=Observers(on_llm_call_start=lambda ctx: seen.append("x"))) for _ in range(2)]
    await Agent(model=MockModel(["hi"]), hooks=hooks).run("q")
    assert len(seen) == 2


async def test_parameter_interceptor_sees_the_invocation_id() -> None:
    seen: list[str] = []

    def note(params: dict[str, Any], ctx: GadgetContext) -> dict[str, Any]:
        seen.append(ctx.invocation_id)
        return params

    result = await _run(Hooks(interceptors=Interceptors(intercept_gadget_parameters=note)))
    assert seen == [result.gadget_results[0].invocation_id] and seen[0]


async def test_after_gadget_replaces_what_is_recorded_streamed_and_sent() -> None:
    from llmist import ReplaceResult

    def hide(result: Any) -> ReplaceResult | None:
        return ReplaceResult("[hidden]") if result.gadget_name == "add" else None

    model = MockModel([block_call("add", a=1, b=2), "done"])
    agent = Agent(model=model, gadgets=[add], hooks=Hooks(controllers=Controllers(after_gadget=hide)))
    stream = agent.stream("q")
    shown = [e.result.result async for e in stream if e.type == "gadget_result"]
    assert stream.result is not None
    assert shown == ["[hidden]"] == [r.result for r in stream.result.gadget_results]
    assert "[hidden]" in model.requests[1].messages[-1].text


async def test_after_gadget_may_turn_a_result_into_an_error() -> None:
    from llmist import ReplaceResult

    async def fail(result: Any) -> ReplaceResult:
        return ReplaceResult(None, "not today")

    agent = Agent(model=MockModel([block_call("add", a=1, b=2), "done"]), gadgets=[add])
    agent.hooks = Hooks(controllers=Controllers(after_gadget=fail))
    result = await agent.run("q")
    assert (result.gadget_results[0].result, result.gadget_results[0].error) == (None, "not today")


async def test_on_guardrail_observes_every_check() -> None:
    from llmist.agent.guardrails import input_guardrail

    seen: list[str] = []
    observe = Hooks(observers=Observers(on_guardrail=lambda record: seen.append(f"{record.name}:{record.outcome}")))
    ok = input_guardrail(name="ok")(lambda guarded: None)
    await Agent(model=MockModel(["hi"]), hooks=observe, guardrails=[ok]).run("q")
    assert seen == ["ok:pass"]
