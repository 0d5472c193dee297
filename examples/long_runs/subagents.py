"""Subagents: a coordinator hands parts of a task to two researchers, who run in parallel."""

import asyncio

from llmist import Agent
from llmist.agent import SubagentEvent
from llmist.testing import MockModel, block_call


def researcher(topic_answer: str) -> Agent:
    return Agent(
        model=MockModel(lambda messages: topic_answer),
        name=f"Research{topic_answer.split()[0]}",
        description="Finds facts about a topic and reports them in one paragraph.",
        max_iterations=5,  # its own limits, model and conversation
    )


async def main() -> None:
    plan = block_call("ResearchCats", task="Facts about cats") + block_call("ResearchDogs", task="Facts about dogs")
    coordinator = Agent(
        model=MockModel(lambda messages: "Both reports are in." if messages[-1].role == "gadget_result" else plan),
        subagents=[researcher("Cats sleep a lot."), researcher("Dogs like walks.")],
    )
    stream = coordinator.stream("Compare cats and dogs.")
    async for event in stream:
        if isinstance(event, SubagentEvent) and event.event.type == "text":
            print("  " * event.depth + f"{event.path[-1].split(':')[0]}: {event.event.content}")
    assert stream.result is not None
    print(stream.result.output)  # Both reports are in.
    # Another agent as one gadget, with a depth limit for agents that call agents:
    helper = researcher("Birds sing.").as_gadget("AskBirds", "Knows about birds.", max_depth=2)
    print(helper.name, helper.max_depth)  # AskBirds 2


if __name__ == "__main__":
    asyncio.run(main())
