"""One completion with OpenAI: reads OPENAI_API_KEY (and OPENAI_BASE_URL, if set)."""

import asyncio

from llmist.providers import LLMClient


async def main() -> None:
    client = LLMClient()
    answer = await client.complete("Name three prime numbers.", model="gpt-4o")
    print(answer)
    print(f"tokens: {client.usage.total_tokens}, cost: ${client.cost:.6f}")


if __name__ == "__main__":
    asyncio.run(main())
