"""LLMist.create_agent(): the fluent builder builds the same Agent as keyword construction."""

from __future__ import annotations

import pytest

from llmist import Agent, ExecutionContext, HookPresets, LLMist, gadget
from llmist.testing import MockModel, block_call, collect_events

from .conftest import add


def test_builder_sets_every_option() -> None:
    agent = (
        LLMist.create_agent()
        .with_model("mock")
        .with_gadgets(add)
        .with_system("You add.")
        .with_hooks(HookPresets.logging(), HookPresets.timing())
        .with_syntax("emoji")
        .with_max_iterations(4)
        .with_max_gadgets_per_response(2)
        .with_budget(max_cost=1.0, max_tokens=1000)
        .with_gadget_output_limit_percent(25)
        .with_temperature(0.5)
        .build()
    )
    assert isinstance(agent, Agent)
    assert (agent.syntax, agent.max_iterations, agent.max_gadgets_per_response) == ("emoji", 4, 2)
    assert (agent.max_cost, agent.max_tokens, agent.gadget_output_limit_percent) == (1.0, 1000, 25)
    assert agent.system_prompt.startswith("You add.") and agent.temperature == 0.5


def test_builder_and_keywords_give_the_same_prompt() -> None:
    built = LLMist.create_agent().with_model("mock").with_gadgets(add).with_system("S").build()
    direct = Agent(model="mock", gadgets=[add], system="S")
    assert built.system_prompt == direct.system_prompt


def test_builder_custom_markers() -> None:
    agent = (
        LLMist.create_agent()
        .with_model("mock")
        .with_gadgets(add)
        .with_gadget_start_prefix("<<<T:")
        .with_gadget_end_prefix("<<<E")
        .with_gadget_arg_prefix("@p:")
        .build()
    )
    assert "<<<T:" in agent.system_prompt and "@p:" in agent.system_prompt


def test_output_limit_off() -> None:
    agent = LLMist.create_agent().with_model("mock").with_gadgets(add).with_gadget_output_limit(False).build()
    assert "GadgetOutputViewer" not in agent.system_prompt


async def test_ask_and_collect_returns_the_final_text() -> None:
    model = MockModel([block_call("add", a=2, b=3), "5"])
    assert await LLMist.create_agent().with_model(model).with_gadgets(add).ask_and_collect("2+3") == "5"


async def test_ask_streams_events() -> None:
    model = MockModel([block_call("add", a=2, b=3), "5"])
    events = await collect_events(LLMist.create_agent().with_model(model).with_gadgets(add).ask("2+3"))
    assert "gadget_result" in [e.type for e in events]


def test_build_without_a_model_says_what_to_do() -> None:
    with pytest.raises(ValueError, match="with_model"):
        LLMist.create_agent().build()


@gadget
async def summarize(text: str, ctx: ExecutionContext) -> str:
    """Summarize with a model."""
    assert ctx.llm is not None
    return await ctx.llm.complete(text, model="mock")


async def test_agents_built_from_a_client_lend_it_to_gadgets() -> None:
    client = LLMist()
    model = MockModel([block_call("summarize", text="long text"), "ok"])
    agent = client.create_agent().with_model(model).with_gadgets(summarize).build()
    assert agent.model_registry is client.model_registry
    result = await agent.run("q")
    assert result.gadget_results[0].result == "(mock) long text"
