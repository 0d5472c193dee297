"""A model that reacts: a function of the conversation returns the next response."""

import asyncio
from collections.abc import Sequence

from llmist import Agent, gadget
from llmist.providers import Message
from llmist.testing import MockModel, block_call, result_text


@gadget
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def model(messages: Sequence[Message]) -> str:
    last = messages[-1]
    if last.role == "user":
        return block_call("divide", a=1, b=0)  # a first, wrong call
    if "Error" in last.text:
        return block_call("divide", a=1, b=4)  # the corrected retry
    return f"The answer is {result_text(last)}."  # the result without the loop's notes


async def test_the_agent_recovers_from_a_gadget_error() -> None:
    result = await Agent(model=MockModel(model), gadgets=[divide]).run("1 / 4?")
    errors = [r.error for r in result.gadget_results]
    assert errors[0] is not None and "ZeroDivisionError" in errors[0]
    assert result.output == "The answer is 0.25."


if __name__ == "__main__":
    asyncio.run(test_the_agent_recovers_from_a_gadget_error())
