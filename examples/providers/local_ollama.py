"""A local model through Ollama's OpenAI-compatible API: no key needed.

Start Ollama and pull the model first (`ollama pull qwen2.5:7b`). OLLAMA_BASE_URL
overrides the default http://localhost:11434/v1.
"""

import asyncio

from llmist.models import ModelSpec
from llmist.providers import LLMClient


async def main() -> None:
    client = LLMClient()
    # Optional: tell the registry what the model can do (local models cost nothing by default).
    client.model_registry.register(ModelSpec("ollama", "qwen2.5:7b", context_window=32_768))
    answer = await client.complete("Say hello in French.", model="ollama:qwen2.5:7b")
    print(answer)


if __name__ == "__main__":
    asyncio.run(main())
