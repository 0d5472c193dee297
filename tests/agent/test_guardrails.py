"""Guardrails in a run: what each kind sees, what each verdict does, and where checks show up."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from llmist import Agent, AgentResult, Hooks, Observers
from llmist.agent import GuardrailEvent
from llmist.agent.builtin_guardrails import allow_paths, deny_parameters, max_prompt_chars, output_validates
from llmist.agent.guardrails import (
    GuardedCall,
    GuardedInput,
    GuardedOutput,
    GuardedResult,
    Guardrails,
    GuardrailTripped,
    Refuse,
    Rewrite,
    Tripwire,
    input_guardrail,
    output_guardrail,
    tool_call_guardrail,
    tool_result_guardrail,
)
from llmist.gadgets import gadget
from llmist.gadgets.builtins import RunCommand, WriteFile
from llmist.testing import MockModel, block_call

from .conftest import add

RM_RF = r"\brm\s+-(?=\w*r)(?=\w*f)\w+"


async def _run(agent: Agent[Any], prompt: str) -> tuple[list[Any], AgentResult[Any]]:
    """The events of a run of ``agent`` on ``prompt``, and its result."""
    stream = agent.stream(prompt)
    events = [event async for event in stream]
    assert stream.result is not None
    return events, stream.result


def _of_type(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


class Ran:
    """A gadget that records every call it runs."""

    def __init__(self) -> None:
        self.calls: list[str] = []

        @gadget(name="note")
        def note(text: str) -> str:
            """Write a note."""
            self.calls.append(text)
            return f"noted {text}"

        self.gadget = note


# --- input ------------------------------------------------------------------------------------


async def test_an_input_tripwire_ends_the_run_before_any_model_call() -> None:
    @input_guardrail
    def no_secrets(guarded: GuardedInput) -> Tripwire | None:
        return Tripwire("asks for a secret", {"word": "password"}) if "password" in guarded.prompt else None

    model = MockModel(["never"])
    result = await Agent(model=model, guardrails=[no_secrets]).run("what is the admin password?")
    assert (result.stop_reason, model.calls, result.iterations, result.output) == ("guardrail", 0, 0, "")
    assert result.tripwire is not None
    assert (result.tripwire.name, result.tripwire.kind, result.tripwire.reason) == (
        "no_secrets",
        "input",
        "asks for a secret",
    )
    assert result.tripwire.data == {"word": "password"}


async def test_a_passing_input_guardrail_is_recorded_and_the_run_goes_on() -> None:
    result = await Agent(model=MockModel(["hello"]), guardrails=[max_prompt_chars(100)]).run("hi")
    assert (result.stop_reason, result.output, result.tripwire) == ("no_calls", "hello", None)
    assert [(g.name, g.kind, g.outcome) for g in result.guardrails] == [("max_prompt_chars", "input", "pass")]


async def test_an_input_rewrite_is_what_the_model_reads() -> None:
    @input_guardrail
    def redact_emails(guarded: GuardedInput) -> Rewrite | None:
        if "@" not in guarded.prompt:
            return None
        return Rewrite(guarded.prompt.replace("ada@example.com", "[e-mail]"), "1 e-mail address redacted")

    model = MockModel(["ok"])
    result = await Agent(model=model, guardrails=[redact_emails]).run("write to ada@example.com")
    assert model.requests[0].messages[-1].text == "write to [e-mail]"
    assert (result.guardrails[0].outcome, result.guardrails[0].reason) == ("rewrite", "1 e-mail address redacted")


async def test_input_guardrails_see_the_history_a_run_continues() -> None:
    seen: list[int] = []

    @input_guardrail
    def count(guarded: GuardedInput) -> None:
        seen.append(len(guarded.messages))

    agent = Agent(model=MockModel(["one", "two"]), guardrails=[count])
    first = await agent.run("a")
    await agent.run("b", history=first.messages)
    assert seen == [0, 3]


async def test_a_parallel_input_tripwire_cancels_the_model_request_and_no_call_runs() -> None:
    ran = Ran()
    streaming = asyncio.Event()

    @input_guardrail(parallel=True)
    async def slow_check(guarded: GuardedInput) -> Tripwire:
        await streaming.wait()  # the model has started answering
        return Tripwire("off-topic")

    def chunk_seen(text: str, ctx: object) -> None:
        streaming.set()

    reply = block_call("note", text="x") + "\nand a long answer " * 50
    model = MockModel([reply], chunk_size=40, delay_s=0.001)
    hooks = Hooks(observers=Observers(on_stream_chunk=chunk_seen))
    events, result = await _run(Agent(model=model, gadgets=[ran.gadget], hooks=hooks, guardrails=[slow_check]), "q")
    assert result.stop_reason == "guardrail"
    assert ran.calls == []  # the call closed before the verdict, and waited for it
    assert result.usage.output_tokens == 0  # the request was cancelled before it reported usage
    assert len("".join(e.content for e in _of_type(events, "text"))) < len(reply)


async def test_calls_wait_for_a_parallel_input_guardrail_then_run() -> None:
    ran = Ran()
    release = asyncio.Event()

    @input_guardrail(parallel=True)
    async def slow_pass(guarded: GuardedInput) -> None:
        await release.wait()

    def response_end(ctx: object) -> None:
        assert ran.calls == []  # the call was parsed, and waits for the verdict
        release.set()

    model = MockModel([block_call("note", text="x"), "done"])
    hooks = Hooks(observers=Observers(on_llm_call_complete=response_end))
    result = await Agent(model=model, gadgets=[ran.gadget], hooks=hooks, guardrails=[slow_pass]).run("q")
    assert (result.stop_reason, ran.calls) == ("no_calls", ["x"])


async def test_a_parallel_input_guardrail_may_not_rewrite() -> None:
    @input_guardrail(parallel=True)
    def rewrites(guarded: GuardedInput) -> Rewrite:
        return Rewrite("other")

    result = await Agent(model=MockModel(["hi"]), guardrails=[rewrites]).run("q")
    assert result.stop_reason == "guardrail"
    assert result.tripwire is not None and "cannot Rewrite" in result.tripwire.reason


# --- tool calls -------------------------------------------------------------------------------


async def test_a_refused_call_does_not_run_and_the_model_reads_why() -> None:
    ran = Ran()

    @tool_call_guardrail
    def no_x(guarded: GuardedCall) -> Refuse | None:
        return Refuse("notes about x are not allowed") if guarded.parameters.get("text") == "x" else None

    model = MockModel([block_call("note", text="x"), block_call("note", text="y"), "done"])
    result = await Agent(model=model, gadgets=[ran.gadget], guardrails=[no_x]).run("q")
    assert (result.stop_reason, ran.calls) == ("no_calls", ["y"])
    refused = result.gadget_results[0]
    assert refused.status == "skipped"
    assert refused.result == "Refused by guardrail 'no_x': notes about x are not allowed"
    assert "notes about x are not allowed" in model.requests[1].messages[-1].text
    assert [g.outcome for g in result.guardrails] == ["refuse", "pass"]


async def test_a_tool_call_tripwire_ends_the_run_without_running_the_call() -> None:
    ran = Ran()

    @tool_call_guardrail
    def stop_all(guarded: GuardedCall) -> Tripwire:
        return Tripwire("no notes today")

    model = MockModel([block_call("note", text="x"), "never"])
    result = await Agent(model=model, gadgets=[ran.gadget], guardrails=[stop_all]).run("q")
    assert (result.stop_reason, ran.calls, model.calls) == ("guardrail", [], 1)
    assert result.tripwire is not None
    assert (result.tripwire.gadget, result.tripwire.invocation_id) == ("note", result.gadget_results[0].invocation_id)


async def test_a_tool_call_rewrite_runs_the_call_with_the_new_parameters() -> None:
    ran = Ran()

    @tool_call_guardrail
    def shout(guarded: GuardedCall) -> Rewrite:
        return Rewrite({"text": guarded.parameters["text"].upper()}, "upper-cased")

    model = MockModel([block_call("note", text="quiet"), "done"])
    result = await Agent(model=model, gadgets=[ran.gadget], guardrails=[shout]).run("q")
    assert ran.calls == ["QUIET"]
    assert result.gadget_results[0].parameters == {"text": "QUIET"}


async def test_a_tool_call_guardrail_sees_gadget_parameters_and_conversation() -> None:
    seen: list[tuple[str, dict[str, Any], str]] = []

    @tool_call_guardrail
    def look(guarded: GuardedCall) -> None:
        seen.append((guarded.gadget, guarded.parameters, guarded.messages[1].text))

    model = MockModel([block_call("add", a=1, b=2), "3"])
    await Agent(model=model, gadgets=[add], guardrails=[look]).run("add them")
    assert seen == [("add", {"a": 1, "b": 2}, "add them")]


async def test_a_tool_guardrail_checks_only_its_gadgets() -> None:
    ran = Ran()
    never = tool_call_guardrail(gadgets=["add"])(lambda guarded: Tripwire("no adding"))
    model = MockModel([block_call("note", text="x"), "done"])
    result = await Agent(model=model, gadgets=[ran.gadget, add], guardrails=[never]).run("q")
    assert (result.stop_reason, ran.calls, result.guardrails) == ("no_calls", ["x"], [])


async def test_guardrails_decide_before_the_agents_own_controllers() -> None:
    asked: list[str] = []

    async def approve(ctx: Any) -> None:
        asked.append(ctx.gadget_name)

    from llmist import Controllers

    refuse_all = tool_call_guardrail(lambda guarded: Refuse("no"))
    model = MockModel([block_call("add", a=1, b=2), "done"])
    hooks = Hooks(controllers=Controllers(before_gadget=approve))
    await Agent(model=model, gadgets=[add], hooks=hooks, guardrails=[refuse_all]).run("q")
    assert asked == []  # a person is not asked about a call the guardrail refused


# --- tool results -----------------------------------------------------------------------------


async def test_a_tool_result_rewrite_is_what_the_model_and_the_stream_see() -> None:
    @tool_result_guardrail
    def redact(guarded: GuardedResult) -> Rewrite | None:
        if guarded.result and "secret" in guarded.result:
            return Rewrite(guarded.result.replace("secret", "[redacted]"), "a secret redacted")
        return None

    @gadget
    def read() -> str:
        """Read the vault."""
        return "the secret is 42"

    model = MockModel([block_call("read"), "done"])
    events, result = await _run(Agent(model=model, gadgets=[read], guardrails=[redact]), "q")
    assert (
        "[redacted]" in model.requests[1].messages[-1].text and "secret is" not in model.requests[1].messages[-1].text
    )
    (shown,) = _of_type(events, "gadget_result")
    assert shown.result.result == "the [redacted] is 42"
    assert result.gadget_results[0].result == "the [redacted] is 42"


async def test_a_tool_result_tripwire_ends_the_run_before_the_model_reads_it() -> None:
    @tool_result_guardrail
    def leak(guarded: GuardedResult) -> Tripwire | None:
        return Tripwire("a key leaked", {"id": guarded.invocation_id}) if "sk-" in (guarded.result or "") else None

    @gadget
    def env() -> str:
        """Show the environment."""
        return "OPENAI_API_KEY=sk-123"

    model = MockModel([block_call("env"), "never"])
    result = await Agent(model=model, gadgets=[env], guardrails=[leak]).run("q")
    assert (result.stop_reason, model.calls) == ("guardrail", 1)
    assert "sk-123" not in "".join(m.text for m in result.messages)


# --- output -----------------------------------------------------------------------------------


async def test_an_output_tripwire_ends_the_run_with_its_reason() -> None:
    @output_guardrail
    def polite(guarded: GuardedOutput) -> Tripwire | None:
        return Tripwire("rude") if "stupid" in guarded.text else None

    result = await Agent(model=MockModel(["a stupid question"]), guardrails=[polite]).run("q")
    assert result.stop_reason == "guardrail"
    assert result.tripwire is not None and result.tripwire.kind == "output"


async def test_an_output_rewrite_replaces_the_answer() -> None:
    redact = output_guardrail(lambda guarded: Rewrite(guarded.output.replace("42", "[n]"), "number hidden"))
    result = await Agent(model=MockModel(["it is 42"]), guardrails=[redact]).run("q")
    assert (result.output, result.stop_reason) == ("it is [n]", "no_calls")


class City(BaseModel):
    name: str
    population: int


async def test_an_output_guardrail_sees_the_typed_output() -> None:
    seen: list[object] = []
    look = output_guardrail(lambda guarded: seen.append(guarded.output))
    answer = block_call("final_answer", name="Oslo", population=700000)
    result = await Agent(model=MockModel([answer]), output_type=City, guardrails=[look]).run("q")
    assert seen == [City(name="Oslo", population=700000)] == [result.output]


async def test_typed_output_must_validate() -> None:
    class Invoice(BaseModel):
        number: str
        total: float

    result = await Agent(model=MockModel(['{"number": "A1"}']), guardrails=[output_validates(Invoice)]).run("q")
    assert result.stop_reason == "guardrail"
    assert result.tripwire is not None and "total: Field required" in result.tripwire.reason


# --- errors, raising, records -----------------------------------------------------------------


async def test_raise_on_tripwire_raises_out_of_run_with_the_result() -> None:
    trip = input_guardrail(lambda guarded: Tripwire("no"))
    agent = Agent(model=MockModel(["never"]), guardrails=Guardrails((trip,), raise_on_tripwire=True))
    with pytest.raises(GuardrailTripped, match="guardrail '<lambda>' \\(input\\) tripped: no") as info:
        await agent.run("q")
    assert info.value.result.stop_reason == "guardrail"


async def test_run_does_not_raise_on_a_tripwire_by_default() -> None:
    result = await Agent(model=MockModel(["x"]), guardrails=[input_guardrail(lambda g: Tripwire("no"))]).run("q")
    assert result.stop_reason == "guardrail"


@pytest.mark.parametrize(
    ("check", "reason"),
    [
        (lambda guarded: 1 / 0, "the guardrail failed (ZeroDivisionError: division by zero)"),
        (lambda guarded: "fine", "returns None (pass), Tripwire, Refuse or Rewrite; got 'fine'"),
        (lambda guarded: Refuse("no"), "only a tool-call guardrail may Refuse"),
    ],
)
async def test_a_guardrail_that_cannot_decide_trips(check: Any, reason: str) -> None:
    result = await Agent(model=MockModel(["x"]), guardrails=[input_guardrail(check)]).run("q")
    assert result.stop_reason == "guardrail"
    assert result.tripwire is not None and reason in result.tripwire.reason


async def test_guardrails_of_a_kind_run_in_order_and_the_first_trip_decides() -> None:
    order: list[str] = []

    def named(label: str, verdict: Any) -> Any:
        def check(guarded: GuardedInput) -> Any:
            order.append(label)
            return verdict(guarded) if callable(verdict) else verdict

        return input_guardrail(name=label)(check)

    upper = named("upper", lambda g: Rewrite(g.prompt.upper()))
    seen_upper = named("sees", lambda g: Tripwire(g.prompt))
    never = named("never", None)
    result = await Agent(model=MockModel(["x"]), guardrails=[upper, seen_upper, never]).run("q")
    assert order == ["upper", "sees"]
    assert result.tripwire is not None and result.tripwire.reason == "Q"


async def test_every_check_is_an_event_before_what_it_decided() -> None:
    refuse = tool_call_guardrail(lambda guarded: Refuse("no"))
    agent = Agent(model=MockModel([block_call("add", a=1, b=2), "done"]), gadgets=[add], guardrails=[refuse])
    events, _ = await _run(agent, "q")
    kinds = [e.type for e in events if e.type in ("guardrail", "gadget_result")]
    assert kinds == ["guardrail", "gadget_result"]
    (event,) = _of_type(events, "guardrail")
    assert isinstance(event, GuardrailEvent) and event.record.outcome == "refuse"


async def test_an_agent_without_guardrails_records_none() -> None:
    result = await Agent(model=MockModel(["x"])).run("q")
    assert (result.guardrails, result.tripwire) == ([], None)


async def test_a_guardrail_list_is_checked_when_the_agent_is_made() -> None:
    with pytest.raises(TypeError, match="guardrails are made with"):
        Agent(model=MockModel(["x"]), guardrails=[lambda g: None])  # type: ignore[list-item]


# --- the ready-made ones in a run -------------------------------------------------------------


async def test_rm_rf_is_refused_and_nothing_is_deleted(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("data")
    guard = deny_parameters(RM_RF, gadgets=[RunCommand])
    model = MockModel([block_call("RunCommand", command="rm -rf ./*"), "I will not delete anything."])
    result = await Agent(model=model, gadgets=[RunCommand(tmp_path)], guardrails=[guard]).run("clean up")
    assert (tmp_path / "keep.txt").exists()
    refused = result.gadget_results[0]
    assert refused.status == "skipped" and refused.result is not None and "denied pattern" in refused.result


async def test_writes_outside_the_allowed_paths_are_refused(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    guard = allow_paths("out/", gadgets=[WriteFile])
    model = MockModel(
        [
            block_call("WriteFile", path="setup.py", content="x")
            + block_call("WriteFile", path="out/a.txt", content="y"),
            "done",
        ]
    )
    result = await Agent(model=model, gadgets=[WriteFile(tmp_path)], guardrails=[guard]).run("q")
    assert not (tmp_path / "setup.py").exists()
    assert (tmp_path / "out" / "a.txt").read_text() == "y"
    assert [r.status for r in result.gadget_results] == ["skipped", "success"]


# --- with the agent's other features ----------------------------------------------------------


async def test_an_async_guardrail_that_hangs_trips_at_its_timeout() -> None:
    @tool_call_guardrail(timeout_s=0.05)
    async def hangs(guarded: GuardedCall) -> None:
        await asyncio.Event().wait()

    ran = Ran()
    model = MockModel([block_call("note", text="x"), "never"])
    result = await Agent(model=model, gadgets=[ran.gadget], guardrails=[hangs]).run("q")
    assert (result.stop_reason, ran.calls) == ("guardrail", [])
    assert result.tripwire is not None and "gave no verdict within 0.05 s" in result.tripwire.reason


async def test_an_input_guardrail_sees_the_conversation_of_the_session(tmp_path: Path) -> None:
    from llmist import SQLiteSession

    seen: list[list[str]] = []
    look = input_guardrail(lambda guarded: seen.append([m.text for m in guarded.messages if m.role != "system"]))
    session = SQLiteSession(tmp_path / "s.db", "s1")
    agent = Agent(model=MockModel(["first answer", "second answer"]), session=session, guardrails=[look])
    await agent.run("first question")
    await session.flush()
    await agent.run("second question")
    assert seen == [[], ["first question", "first answer"]]


async def test_the_input_guardrail_sees_the_prompt_before_typed_output_adds_its_instruction() -> None:
    seen: list[str] = []
    look = input_guardrail(lambda guarded: seen.append(guarded.prompt))
    answer = block_call("FinalAnswer", name="Oslo", population=700000)
    await Agent(model=MockModel([answer]), output_type=City, guardrails=[look]).run("the capital?")
    assert seen == ["the capital?"]


async def test_a_typed_run_stopped_by_a_guardrail_keeps_its_prose_instead_of_raising() -> None:
    stop = tool_call_guardrail(lambda guarded: Tripwire("no notes"))
    ran = Ran()
    model = MockModel(["Let me note it. " + block_call("note", text="x"), "never"])
    result = await Agent(model=model, gadgets=[ran.gadget], output_type=City, guardrails=[stop]).run("q")
    assert result.stop_reason == "guardrail"
    assert result.output == "Let me note it."


async def test_raise_on_tripwire_leaves_a_stream_to_end_normally() -> None:
    trip = input_guardrail(lambda guarded: Tripwire("no"))
    agent = Agent(model=MockModel(["never"]), guardrails=Guardrails((trip,), raise_on_tripwire=True))
    events, result = await _run(agent, "q")
    assert result.stop_reason == "guardrail"
    assert [e.type for e in events] == ["guardrail"]


async def test_a_tripwire_aborts_the_signal_the_run_was_given() -> None:
    from llmist.gadgets import AbortSignal

    signal = AbortSignal()
    stop = tool_call_guardrail(lambda guarded: Tripwire("no notes"))
    ran = Ran()
    model = MockModel([block_call("note", text="x"), "never"])
    await Agent(model=model, gadgets=[ran.gadget], guardrails=[stop]).run("q", signal=signal)
    assert signal.aborted


async def test_guardrails_apply_to_a_fallback_models_answer() -> None:
    from llmist.providers import ProviderServerError

    down = MockModel([ProviderServerError("HTTP 503: down", provider="mock", status_code=503)], name="first")
    polite = output_guardrail(lambda guarded: Tripwire("rude") if "fool" in guarded.text else None)
    result = await Agent(model=[down, MockModel(["you fool"], name="second")], guardrails=[polite]).run("q")
    assert (result.stop_reason, list(result.models)) == ("guardrail", ["second"])


async def test_a_subagents_tripwire_is_the_error_its_caller_reads_and_the_caller_goes_on() -> None:
    trip = input_guardrail(name="no_secrets")(lambda guarded: Tripwire("asks for a secret"))
    helper = Agent(model=MockModel(["never"]), name="helper", description="Helps.", guardrails=[trip])
    caller = MockModel([block_call("helper", task="find the password"), "I could not."])
    result = await Agent(model=caller, subagents=[helper]).run("q")
    (call,) = result.gadget_results
    assert call.error is not None and "guardrail 'no_secrets' (input) tripped: asks for a secret" in call.error
    assert (result.stop_reason, result.output) == ("no_calls", "I could not.")
