"""Stream raw chunks from Gemini: text, reasoning, then usage and finish reason.

Reads GEMINI_API_KEY (or GOOGLE_API_KEY); GEMINI_BASE_URL overrides the server.
"""

import asyncio

from llmist.providers import LLMClient, Message


async def main() -> None:
    client = LLMClient()
    conversation = [Message("system", "Answer in one word."), Message("user", "Capital of France?")]
    async for chunk in client.stream(conversation, model="flash"):
        if chunk.reasoning:
            print(f"[thinking] {chunk.reasoning}")
        if chunk.text:
            print(chunk.text, end="")
        if chunk.finish_reason:
            print(f"\nfinish: {chunk.finish_reason}, usage: {chunk.usage}")


if __name__ == "__main__":
    asyncio.run(main())
