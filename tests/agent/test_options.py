"""An agent's options: four named groups, the flat keywords folded into them, and a snapshot per
run, so a change applies from the next run on, the same way for every option."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from llmist import Agent, GadgetSettings, LLMist, ModelSettings, PromptSettings, RunLimits
from llmist.agent import Hooks, LLMCallContext, Markers, Observers
from llmist.agent.options import DEFAULT_MAX_RESPONSE_TOKENS
from llmist.providers.base import Message, Reasoning
from llmist.testing import MockModel, block_call

from .conftest import add


def _forever() -> MockModel:
    return MockModel(lambda messages: block_call("add", a=len(messages), b=1))


def test_the_flat_keywords_fold_into_their_groups() -> None:
    agent = Agent(
        model="mock", max_iterations=3, max_cost=0.5, temperature=0.3, reasoning="high", system="S",
        prompt_style="compact", gadget_start_prefix="<<<T:", gadget_timeout_s=5.0, gadget_output_limit=False,
    )  # fmt: skip
    assert agent.limits == RunLimits(max_iterations=3, max_cost=0.5)
    assert agent.model_settings == ModelSettings(temperature=0.3, reasoning=Reasoning(effort="high"))
    assert agent.prompt_settings == PromptSettings(system="S", style="compact", markers=Markers(start="<<<T:"))
    assert agent.gadget_settings == GadgetSettings(timeout_s=5.0, output_limit=False)


def test_a_flat_keyword_overrides_that_field_of_a_group_given_beside_it() -> None:
    agent = Agent(model="mock", limits=RunLimits(max_iterations=7, max_tokens=100), max_iterations=2)
    assert agent.limits == RunLimits(max_iterations=2, max_tokens=100)


def test_the_old_attributes_read_and_write_the_groups() -> None:
    agent = Agent(model="mock", limits=RunLimits(max_iterations=7), prompt_settings=PromptSettings(few_shot=1))
    assert (agent.max_iterations, agent.few_shot, agent.temperature) == (7, 1, 0.0)
    agent.max_cost = 2.0
    agent.gadget_output_limit_percent = 20.0
    assert agent.limits == RunLimits(max_iterations=7, max_cost=2.0)
    assert agent.gadget_settings.output_limit_percent == 20.0


def test_an_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_iteration'"):
        Agent(model="mock", max_iteration=3)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: RunLimits(max_iterations=0), "max_iterations must be at least 1"),
        (lambda: PromptSettings(style="tiny"), "prompt_style"),  # type: ignore[arg-type]
        (lambda: PromptSettings(few_shot=-1), "few_shot must be 0 or more"),
    ],
)
def test_each_group_checks_its_own_values(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


async def test_hooks_assigned_after_a_run_apply_to_the_next_run() -> None:
    agent = Agent(model=MockModel(["one", "two"]), gadgets=[add])
    await agent.run("q")
    seen: list[int] = []
    agent.hooks = Hooks(observers=Observers(on_llm_call_start=lambda ctx: seen.append(ctx.iteration)))
    await agent.run("q")
    assert seen == [1]


async def test_system_extra_assigned_after_reading_the_system_prompt_applies_to_the_next_run() -> None:
    model = MockModel(["one", "two"])
    agent = Agent(model=model, gadgets=[add])
    assert "Be brief." not in agent.system_prompt
    await agent.run("q")
    agent.system_extra = "Be brief."
    assert "Be brief." in agent.system_prompt
    await agent.run("q")
    assert "Be brief." in model.requests[-1].messages[0].text


async def test_a_limit_assigned_after_a_run_applies_to_the_next_run() -> None:
    agent = Agent(model=_forever(), gadgets=[add], max_iterations=4)
    assert (await agent.run("q")).iterations == 4
    agent.max_iterations = 2
    assert (await agent.run("q")).iterations == 2


async def test_a_group_assigned_after_a_run_applies_to_the_next_run() -> None:
    agent = Agent(model=_forever(), gadgets=[add], max_iterations=4)
    assert (await agent.run("q")).iterations == 4
    agent.limits = RunLimits(max_iterations=2)
    assert (await agent.run("q")).iterations == 2


async def test_a_group_given_to_run_replaces_the_agents_for_that_run_only() -> None:
    agent = Agent(model=_forever(), gadgets=[add], max_iterations=4)
    assert (await agent.run("q", limits=RunLimits(max_iterations=1))).iterations == 1
    assert (await agent.run("q")).iterations == 4


async def test_model_settings_given_to_run_reach_that_runs_requests() -> None:
    model = MockModel(["one", "two"])
    agent = Agent(model=model, temperature=0.0)
    await agent.run("q", model_settings=ModelSettings(temperature=0.9, max_response_tokens=50))
    await agent.run("q")
    assert [(r.temperature, r.max_tokens) for r in model.requests] == [(0.9, 50), (0.0, DEFAULT_MAX_RESPONSE_TOKENS)]


async def test_a_change_during_a_run_waits_for_the_next_run() -> None:
    agent = Agent(model=_forever(), gadgets=[add], max_iterations=3)
    stream = agent.stream("q")
    async for event in stream:
        if event.type == "llm_response_end":
            agent.max_iterations = 10  # the run in flight took its options when it started
    assert stream.result is not None and stream.result.iterations == 3


async def test_prompt_settings_given_to_run_change_that_runs_system_prompt() -> None:
    model = MockModel(["one", "two"])
    agent = Agent(model=model, gadgets=[add], system="Agent's own.")
    await agent.run("q", prompt_settings=PromptSettings(system="For this run."))
    await agent.run("q")
    assert [r.messages[0].text.split("\n")[0] for r in model.requests] == ["For this run.", "Agent's own."]


async def test_a_gadget_appended_to_the_list_joins_the_next_run() -> None:
    agent = Agent(model=MockModel([block_call("add", a=1, b=2), "done"]))
    agent.gadgets.append(add)
    result = await agent.run("q")
    assert [r.result for r in result.gadget_results] == ["3"]


async def test_a_subagent_call_takes_the_subagents_options_when_it_starts() -> None:
    seen: list[str] = []

    def child(messages: Sequence[Message]) -> str:
        seen.append(messages[0].text.split("\n")[0])
        return "child done"

    helper = Agent(model=MockModel(child), name="Helper", description="helps", system="Old.")
    parent = Agent(model=MockModel([block_call("Helper", task="go"), "parent done"] * 2), subagents=[helper])
    await parent.run("q")
    helper.system = "New."
    await parent.run("q")
    assert seen == ["Old.", "New."]


async def test_the_builder_takes_the_groups() -> None:
    calls: list[LLMCallContext] = []
    agent = (
        LLMist.create_agent()
        .with_model(_forever())
        .with_gadgets(add)
        .with_limits(RunLimits(max_iterations=2))
        .with_model_settings(ModelSettings(temperature=0.5))
        .with_prompt_settings(PromptSettings(system="Built."))
        .with_gadget_settings(GadgetSettings(timeout_s=3.0))
        .with_hooks(Hooks(observers=Observers(on_llm_call_start=calls.append)))
        .build()
    )
    result = await agent.run("q")
    assert (result.iterations, len(calls), agent.temperature, agent.gadget_timeout_s) == (2, 2, 0.5, 3.0)
    assert agent.system_prompt.startswith("Built.")


def test_the_spec_is_the_agents_options_frozen() -> None:
    agent = Agent(model="mock", gadgets=[add], max_iterations=3)
    spec = agent.spec
    assert spec.limits.max_iterations == 3 and spec.gadgets == (agent.gadgets[0],)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.syntax = "emoji"  # type: ignore[misc]
    agent.syntax = "emoji"
    assert (spec.syntax, agent.spec.syntax) == ("block", "emoji")
