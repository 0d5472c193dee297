"""Options in four groups: limits, model settings, prompt settings, gadget settings."""

import asyncio
import dataclasses

from llmist import Agent, GadgetSettings, ModelSettings, PromptSettings, RunLimits, gadget
from llmist.testing import MockModel, block_call


@gadget
def search(query: str) -> str:
    """Search the notes."""
    return f"3 notes about {query}"


async def main() -> None:
    model = MockModel([block_call("search", query="llmist"), "Found 3 notes.", block_call("search", query="x")])
    agent = Agent(
        model=model,
        gadgets=[search],
        limits=RunLimits(max_iterations=5, max_cost=0.50),
        model_settings=ModelSettings(temperature=0.2, max_response_tokens=800),
        prompt_settings=PromptSettings(system="You search notes.", style="compact"),
        gadget_settings=GadgetSettings(timeout_s=30, output_limit_percent=20),
    )
    result = await agent.run("Find notes about llmist")
    print(result.output)  # Found 3 notes.

    # A group given to one run replaces the agent's for that run only.
    quick = await agent.run("Search once", limits=RunLimits(max_iterations=1))
    print(quick.stop_reason)  # max_iterations

    # Assigning an option applies from the next run on, the same way for every option.
    agent.limits = dataclasses.replace(agent.limits, max_iterations=10)
    agent.max_cost = 1.00  # the flat name of a field: agent.limits.max_cost
    print(agent.limits.max_iterations, agent.limits.max_cost)  # 10 1.0

    assert (result.output, quick.stop_reason, agent.max_iterations) == ("Found 3 notes.", "max_iterations", 10)


if __name__ == "__main__":
    asyncio.run(main())
