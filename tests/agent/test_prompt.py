"""The system prompt: syntax rules, gadget list, user text, and its size."""

from __future__ import annotations

import logging

from llmist import Agent
from llmist.agent import estimate_prompt_tokens

from .conftest import Echo, add, finish

log = logging.getLogger(__name__)


def test_block_prompt_teaches_markers_ids_dependencies_and_finishing() -> None:
    prompt = Agent(model="mock", gadgets=[add]).system_prompt
    assert "!!!GADGET_START:" in prompt and "!!!ARG:" in prompt and "!!!GADGET_END" in prompt
    assert "Summarize:sum:page" in prompt  # the dependency example
    assert "without any block" in prompt
    assert "## add" in prompt and "Add two integers." in prompt


def test_emoji_prompt_teaches_the_emoji_form() -> None:
    prompt = Agent(model="mock", gadgets=[add], syntax="emoji").system_prompt
    assert "🛠️[GadgetName" in prompt and "🛠️[/end]" in prompt and "!!!ARG:" not in prompt


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
