"""The fluent builder: LLMist.create_agent() builds the same Agent as keyword construction."""

import asyncio

from llmist import LLMist, TaskCompletionSignal, gadget
from llmist.testing import MockModel, block_call


@gadget(ends_run=True)
def finish(summary: str) -> str:
    """Call when the task is complete."""
    raise TaskCompletionSignal(summary)


async def main() -> None:
    model = MockModel([block_call("finish", summary="Report written.")])
    answer = await (
        LLMist.create_agent()
        .with_model(model)  # or "sonnet", "openai:gpt-4o", "ollama:qwen2.5:7b", "mock"
        .with_gadgets(finish)
        .with_system("You write reports.")
        .with_max_iterations(10)
        .with_gadget_output_limit_percent(20)
        .ask_and_collect("Write the report")
    )
    print(answer)  # Report written.
    assert answer == "Report written."


if __name__ == "__main__":
    asyncio.run(main())
