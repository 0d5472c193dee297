"""Prompt caching: the agent's system prompt and conversation are read back from the cache.

Reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if set).
"""

import asyncio

from llmist import Agent, gadget
from llmist.models import ModelRegistry


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


async def main() -> None:
    registry = ModelRegistry()
    agent = Agent(model="sonnet", gadgets=[add], model_registry=registry)
    result = await agent.run("What is 2 + 3?")
    usage = result.usage
    print(f"input tokens: {usage.input_tokens}, read from cache: {usage.cached_input_tokens}")
    print(f"written to cache: {usage.cache_write_tokens}")
    print(f"input cost: ${registry.cost_breakdown('sonnet', usage).input:.6f} (cache reads at the cache price)")


if __name__ == "__main__":
    asyncio.run(main())
