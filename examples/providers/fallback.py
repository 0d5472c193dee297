"""Fallback between models: Claude first, then GPT-4o mini, then a local Qwen.

Each model keeps its own retries; a request moves on only when they are spent on a failure
worth moving on for (a connection error, a 5xx, overload, a rate limit still refused, a
timeout). A model that failed is asked last for a minute, so a provider that is down costs
its retries once, not on every request.
"""

import asyncio

from llmist import Agent
from llmist.providers import AllModelsFailedError, FallbackModel, LLMClient

chain = FallbackModel("sonnet", "openai:gpt-4o-mini", "ollama:qwen2.5:7b")


async def main() -> None:
    agent = Agent(model=chain, syntax="auto")  # each model in its own syntax, prompt and prices
    try:
        result = await agent.run("Name three prime numbers.")
    except AllModelsFailedError as error:
        print(error)  # names each model and how it failed
        return
    print(result.output)
    for switch in result.fallbacks:
        print(f"{switch.failed} failed ({switch.error.splitlines()[0]}); {switch.model} answered")
    for model, usage in result.models.items():
        print(f"{model}: {usage.responses} response(s), ${usage.cost:.6f}")

    client = LLMClient(model=chain)  # the same chain: Claude is still passed over
    async for chunk in client.stream("Three more?"):
        if chunk.restart:  # a model broke off mid-answer: the next one starts it over
            print(f"\n[{chunk.model} starts the answer over]")
        print(chunk.text, end="")
        if chunk.usage is not None:
            print(f"\n(answered by {chunk.model})")


if __name__ == "__main__":
    asyncio.run(main())
