"""Quick start: an agent with one gadget, run offline with a scripted model."""

from typing import Annotated

from pydantic import Field

from llmist import Agent, gadget
from llmist.testing import MockModel, block_call


@gadget
def add(a: Annotated[int, Field(description="First number")], b: int) -> int:
    """Add two integers."""
    return a + b


def main() -> None:
    model = MockModel([block_call("add", a=2, b=3), "2 + 3 = 5"])
    agent = Agent(model=model, gadgets=[add], max_iterations=5)
    result = agent.run_sync("What is 2 + 3?")

    print(result.output)  # 2 + 3 = 5
    print(result.stop_reason, result.iterations)  # no_calls 2
    print([r.result for r in result.gadget_results])  # ['5']
    print(result.usage.total_tokens, result.cost)

    assert (result.output, result.stop_reason, result.iterations) == ("2 + 3 = 5", "no_calls", 2)


if __name__ == "__main__":
    main()
