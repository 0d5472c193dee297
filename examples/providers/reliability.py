"""Retries, a client-side rate limit, and a custom provider prefix.

Registers "work:<model>" as OpenAI with 8 attempts and at most 60 requests and
100,000 tokens per minute (shared by every call through this prefix).
"""

import asyncio

from llmist.providers import (
    LLMClient,
    OpenAIProvider,
    RateLimiter,
    RetryPolicy,
    StreamInterruptedError,
    register_provider,
)

limiter = RateLimiter(requests_per_minute=60, tokens_per_minute=100_000)
register_provider(
    "work",
    lambda: OpenAIProvider(retry=RetryPolicy(max_attempts=8, base_delay=0.5), rate_limiter=limiter),
)


async def main() -> None:
    client = LLMClient(model="work:gpt-4o-mini")
    try:
        print(await client.complete("Summarise the plot of Hamlet in one sentence."))
    except StreamInterruptedError as error:
        print(f"The stream broke; this much arrived: {error.partial_text!r}")


if __name__ == "__main__":
    asyncio.run(main())
