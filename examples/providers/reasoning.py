"""A reasoning model: thinking effort in, thinking text out as its own events, tokens priced apart.

Reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set).
"""

import asyncio

from llmist import Agent, ReasoningEvent, TextEvent
from llmist.models import ModelRegistry


async def main() -> None:
    registry = ModelRegistry()
    # "high", "low"... or a token budget (reasoning=8000), or Reasoning(effort=..., budget_tokens=...)
    agent = Agent(model="sonnet", reasoning="high", model_registry=registry)
    stream = agent.stream("Is 221 a prime number?")
    async for event in stream:
        if isinstance(event, ReasoningEvent):
            print(f"[thinking] {event.content}")  # never parsed for gadget calls
        elif isinstance(event, TextEvent):
            print(event.content, end="")
    assert stream.result is not None
    usage = stream.result.usage
    cost = registry.cost_breakdown("sonnet", usage)
    print(f"\nreasoning tokens: {usage.reasoning_tokens} of {usage.output_tokens} output")
    print(f"cost: answer ${cost.output:.6f}, reasoning ${cost.reasoning:.6f}, total ${cost.total:.6f}")


if __name__ == "__main__":
    asyncio.run(main())
