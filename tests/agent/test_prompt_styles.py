"""The compact system prompt for small models, and example exchanges before the task."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from llmist import Agent, GadgetExample, gadget
from llmist.agent import estimate_prompt_tokens
from llmist.testing import MockModel


@gadget(
    description="Add two integers.",
    examples=[GadgetExample({"a": 2, "b": 3}, "5", "Use add to compute 2 + 3.")],
)
def add(a: int, b: int) -> str:
    return str(a + b)


@gadget(description="Count lines.")
def count_lines(text: Annotated[str, Field(description="Text", json_schema_extra={"body": True})]) -> str:
    return str(len(text.splitlines()))


def test_the_compact_prompt_lists_each_gadget_on_one_line() -> None:
    prompt = Agent(model="mock", gadgets=[add, count_lines], syntax="emoji", prompt_style="compact").system_prompt
    assert "- add: Add two integers. Parameters: a (integer), b (integer)" in prompt
    assert "- count_lines: Count lines. Parameters: text (string, the body)" in prompt


def test_the_compact_prompt_is_less_than_half_the_full_one() -> None:
    full = Agent(model="mock", gadgets=[add, count_lines]).system_prompt
    compact = Agent(model="mock", gadgets=[add, count_lines], prompt_style="compact").system_prompt
    assert estimate_prompt_tokens(compact) * 2 < estimate_prompt_tokens(full)


async def test_few_shot_sends_an_example_exchange_before_the_task() -> None:
    model = MockModel(["done"])
    await Agent(model=model, gadgets=[add, count_lines], syntax="emoji", few_shot=2).run("Add 4 and 5.")
    sent = [(m.role, m.text) for m in model.requests[0].messages[1:]]
    assert sent == [
        ("user", "Use add to compute 2 + 3."),
        ("assistant", "🛠️[add 2 3]\n🛠️[/end]"),
        ("gadget_result", "Result of add (id example_1):\n5"),
        ("assistant", "The result is: 5"),
        ("user", "Add 4 and 5."),
    ]


async def test_in_the_block_syntax_the_examples_end_on_a_call_and_its_result() -> None:
    model = MockModel(["done"])
    await Agent(model=model, gadgets=[add], few_shot=1).run("Add 4 and 5.")
    sent = [m.role for m in model.requests[0].messages[1:]]
    assert sent == ["user", "assistant", "gadget_result", "assistant", "user", "assistant", "gadget_result", "user"]
    assert model.requests[0].messages[-3].text == model.requests[0].messages[2].text  # the call again


async def test_without_few_shot_the_task_comes_right_after_the_system_prompt() -> None:
    model = MockModel(["done"])
    await Agent(model=model, gadgets=[add]).run("Add 4 and 5.")
    assert [m.role for m in model.requests[0].messages] == ["system", "user"]


@pytest.mark.parametrize(
    ("option", "message"), [({"prompt_style": "tiny"}, "prompt_style"), ({"few_shot": -1}, "few_shot")]
)
def test_bad_prompt_options_are_refused(option: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Agent(model="mock", gadgets=[add], **option)  # type: ignore[arg-type]
