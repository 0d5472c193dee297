"""The system prompt: syntax rules, gadget list, user text, and its size."""

from __future__ import annotations

import logging

import pytest

from llmist import Agent
from llmist.agent import estimate_prompt_tokens

from .conftest import Echo, add, finish

log = logging.getLogger(__name__)


def test_block_prompt_teaches_markers_ids_dependencies_and_finishing() -> None:
    prompt = Agent(model="mock", gadgets=[add]).system_prompt
    assert "!!!GADGET_START:" in prompt and "!!!ARG:" in prompt and "!!!GADGET_END" in prompt
    assert "`!!!GADGET_START:add:first` runs before `!!!GADGET_START:add:second:first`" in prompt
    assert "without any block" in prompt
    assert "## add" in prompt and "Add two integers." in prompt


def test_emoji_prompt_teaches_the_emoji_form() -> None:
    prompt = Agent(model="mock", gadgets=[add], syntax="emoji").system_prompt
    assert "to call add with a=2, b=3:\n🛠️[add 2 3]\n🛠️[/end]" in prompt and "!!!ARG:" not in prompt


def test_the_call_form_is_a_real_call_of_the_first_gadget_with_no_placeholder_to_copy() -> None:
    prompt = Agent(model="mock", gadgets=[add]).system_prompt
    form = prompt.split("# How to call a gadget\n", 1)[1].split("\n\n", 1)[0]
    assert form.endswith("to call add with a=2, b=3:\n!!!GADGET_START:add\n!!!ARG:a\n2\n!!!ARG:b\n3\n!!!GADGET_END")
    assert "\nvalue\n" not in prompt and "GadgetName" not in prompt and "!!!ARG:param" not in prompt


def test_a_gadget_without_examples_is_shown_with_values_made_up_from_its_schema() -> None:
    prompt = Agent(model="mock", gadgets=[finish]).system_prompt
    assert 'to call finish with summary="example":\n!!!GADGET_START:finish\n!!!ARG:summary\nexample\n' in prompt


def test_the_prompt_says_to_call_rather_than_compute_and_to_wait_for_a_result_a_call_needs() -> None:
    for syntax in ("block", "emoji", "native"):
        prompt = Agent(model="mock", gadgets=[add], syntax=syntax).system_prompt  # type: ignore[arg-type]
        assert "never work a result out or guess it yourself" in prompt
        assert "make the first call alone and wait for its result" in prompt


def test_system_replaces_the_preamble_and_extra_extends_it() -> None:
    prompt = Agent(model="mock", gadgets=[add], system="You are Bob.", system_extra="Be brief.").system_prompt
    assert prompt.startswith("You are Bob.\n\nBe brief.") and "helpful assistant" not in prompt
    assert "## add" in prompt


def test_without_gadgets_the_prompt_is_just_the_preamble() -> None:
    assert Agent(model="mock", system="Just chat.", gadget_output_limit=False).system_prompt == "Just chat."


def test_prompt_size_stays_small() -> None:
    base = Agent(model="mock", gadget_output_limit=False, gadgets=[add]).system_prompt
    three = Agent(model="mock", gadget_output_limit=False, gadgets=[add, Echo, finish]).system_prompt
    with_viewer = Agent(model="mock", gadgets=[add]).system_prompt
    sizes = {name: estimate_prompt_tokens(p) for name, p in [("one", base), ("three", three), ("viewer", with_viewer)]}
    log.warning("system prompt tokens: %s", sizes)
    assert sizes["one"] < 400
    assert sizes["three"] < 550
    assert sizes["viewer"] < 800


def test_few_shot_with_no_example_outputs_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="llmist.agent"):
        Agent(model="mock", gadgets=[add], few_shot=2).run_sync("2 + 3?")
    assert "few_shot=2 sends no example exchange: none of the gadgets ['add'] has a GadgetExample" in caplog.text
