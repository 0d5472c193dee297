"""Human input: a gadget asks, the handler answers, the answer is the gadget's result."""

import asyncio

from llmist import Agent, HumanInputRequired, gadget
from llmist.testing import MockModel, block_call


@gadget
def ask_user(question: str) -> str:
    """Ask the user a question and wait for the answer."""
    raise HumanInputRequired(question)


async def answer(question: str) -> str:
    return "Saturday"  # e.g. await a web form, or input() in a terminal


async def main() -> None:
    script = [block_call("ask_user", question="Which day suits you?"), "Booked for Saturday."]
    agent = Agent(model=MockModel(script), gadgets=[ask_user], on_human_input=answer)
    result = await agent.run("Book a table")
    print(result.gadget_results[0].result)  # Saturday

    assert result.gadget_results[0].result == "Saturday"


if __name__ == "__main__":
    asyncio.run(main())
