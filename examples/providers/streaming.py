"""Stream an answer from Claude as it is written: reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL)."""

import asyncio

from llmist.providers import LLMClient


async def main() -> None:
    client = LLMClient(model="sonnet")
    async for piece in client.stream_text("Write a haiku about rivers.", system="You are a poet."):
        print(piece, end="", flush=True)
    print()


if __name__ == "__main__":
    asyncio.run(main())
