"""Testing an agent: a scripted model, assertions on calls and results, assert_complete()."""

import asyncio

from llmist import Agent, gadget
from llmist.testing import MockModel, assert_gadget_called, assert_no_errors, block_call, gadget_calls


@gadget
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_agent_adds() -> None:
    model = MockModel([block_call("add", a=2, b=3), "The sum is 5."])
    result = await Agent(model=model, gadgets=[add]).run("What is 2 + 3?")

    assert result.output == "The sum is 5."
    assert_gadget_called(result, "add", times=1, a=2, b=3)
    assert_no_errors(result)
    assert [r.result for r in gadget_calls(result, "add")] == ["5"]
    assert model.requests[1].messages[-1].role == "gadget_result"  # what the model saw
    model.assert_complete()  # fails if scripted turns were left unused


if __name__ == "__main__":
    asyncio.run(test_agent_adds())
