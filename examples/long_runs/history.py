"""The conversation as data: save a run's messages as JSON, continue it later."""

import asyncio

from llmist import Agent, gadget
from llmist.agent import dumps_messages, loads_messages
from llmist.testing import MockModel, block_call


@gadget
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def main() -> None:
    model = MockModel([block_call("add", a=2, b=3), "2 + 3 = 5", "Doubled, that is 10."])
    agent = Agent(model=model, gadgets=[add])

    first = await agent.run("What is 2 + 3?")
    saved = dumps_messages(first.messages)  # text, calls, results, images, usage: plain JSON

    second = await agent.run("And doubled?", history=loads_messages(saved))
    print(second.output)  # Doubled, that is 10.
    print([m.role for m in second.messages])
    # ['system', 'user', 'assistant', 'gadget_result', 'assistant', 'user', 'assistant']


if __name__ == "__main__":
    asyncio.run(main())
