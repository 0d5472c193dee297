"""Fallback models, the resume of a paused run and guardrails' ``raise_on_tripwire`` are features
like the others (one module each, in the assembler's feature list), and work through the public
API as before; their hooks and a run's own merge with the agent's by the one rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from llmist import Agent, gadget
from llmist.agent import (
    Controllers,
    GadgetContext,
    Guardrails,
    GuardrailTripped,
    Hooks,
    IterationContext,
    Observers,
    SQLiteSession,
)
from llmist.agent._assemble import FEATURES
from llmist.agent._features import Feature
from llmist.agent.approvals import Decision
from llmist.agent.guardrails import Refuse, Tripwire, input_guardrail, tool_call_guardrail
from llmist.providers import ProviderServerError
from llmist.testing import MockModel, block_call

from .conftest import ListSession, add


@gadget(requires_approval=True)
def send(text: str) -> str:
    """Send a message (needs approval)."""
    return f"sent {text}"


def test_the_feature_list_names_every_feature_each_behind_the_one_interface() -> None:
    names = [type(f).__name__ for f in FEATURES]
    assert names == [
        "Tracing", "Guarding", "TypedOutput", "Subagents", "Sessions",
        "DeferredApprovals", "MCPServers", "Compacting", "Fallback",
    ]  # fmt: skip
    assert all(isinstance(f, Feature) for f in FEATURES)
    # What lived in the assembler, the loop and Agent.run is now the feature's own.
    assert [type(f).__name__ for f in FEATURES if type(f).plan is not Feature.plan] == ["Fallback"]
    assert [type(f).__name__ for f in FEATURES if type(f).returning is not Feature.returning] == ["Guarding"]


async def test_fallback_models_with_hooks_of_the_agent_and_of_the_run() -> None:
    down = ProviderServerError("HTTP 503: down", provider="mock", status_code=503)
    first, second = MockModel([down], name="first"), MockModel(["from the second"], name="second")
    asked: list[str] = []
    watch = Hooks(observers=Observers(on_llm_call_start=lambda ctx: asked.append(ctx.model)))
    session = ListSession()  # its feature adds a hook of this run: merged into each model's plan's
    result = await Agent(model=[first, second], hooks=watch, session=session).run("q")
    assert result.output == "from the second" and asked == ["first", "second"]
    assert [m.role for m in session.stored] == ["system", "user", "assistant"]


async def test_a_paused_run_resumes_through_the_approvals_feature(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    iterations: list[tuple[int, int]] = []

    def seen(ctx: IterationContext) -> None:
        iterations.append((ctx.iteration, ctx.gadget_calls))

    model = MockModel([block_call("send", invocation_id="s1", text="hi"), "done"])
    agent = Agent(
        model=model, gadgets=[send], session=SQLiteSession(db, "s"), approvals="defer",
        hooks=Hooks(observers=Observers(on_iteration=seen)),
    )  # fmt: skip
    paused = await agent.run("Say hi.")
    assert paused.stop_reason == "awaiting_approval"
    await SQLiteSession(db, "s").decide("s1", Decision.approve())
    resumed = await agent.run(None)
    assert resumed.output == "done"
    assert [m.text.splitlines()[-1] for m in resumed.messages if m.role == "gadget_result"] == ["sent hi"]
    assert iterations == [(1, 1), (0, 1), (1, 0)]  # the prelude's calls are iteration 0


async def test_a_guardrail_refuses_before_a_call_is_deferred_for_approval(tmp_path: Path) -> None:
    refuse = tool_call_guardrail(lambda guarded: Refuse("not today"))
    asked: list[str] = []

    def mine(ctx: GadgetContext) -> None:
        asked.append(ctx.gadget_name)

    agent = Agent(
        model=MockModel([block_call("send", text="hi"), "done"]), gadgets=[send],
        session=SQLiteSession(tmp_path / "s.db", "s"), approvals="defer", guardrails=[refuse],
        hooks=Hooks(controllers=Controllers(before_gadget=mine)),
    )  # fmt: skip
    result = await agent.run("Say hi.")
    assert result.stop_reason != "awaiting_approval" and result.pending == []
    assert "Refused by guardrail" in next(m.text for m in result.messages if m.role == "gadget_result")
    assert asked == []  # the features' controllers decided first


async def test_run_raises_on_a_tripwire_through_the_guardrails_feature_and_a_stream_does_not() -> None:
    trip = input_guardrail(lambda guarded: Tripwire("no"))
    agent = Agent(model=MockModel(["never"]), guardrails=Guardrails((trip,), raise_on_tripwire=True))
    with pytest.raises(GuardrailTripped) as info:
        await agent.run("q")
    assert info.value.result.stop_reason == "guardrail"
    stream = agent.stream("q")
    assert [e async for e in stream] and stream.result is not None
    assert stream.result.stop_reason == "guardrail"


async def test_a_run_with_hooks_of_its_own_leaves_the_plan_as_it_was() -> None:
    mine = Hooks(observers=Observers(on_llm_call_start=lambda ctx: None))
    agent = Agent(model=MockModel(["a", "b"]), gadgets=[add], hooks=mine, session=ListSession())
    await agent.run("q")
    (plan,) = agent.spec.plans.values()
    hooks = plan.hooks
    await agent.run("again")  # the session's per-run observer merged for the run, not into the plan
    assert agent.spec.plans[()] is plan and plan.hooks is hooks and hooks.hooks is mine
