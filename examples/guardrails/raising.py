"""A tripwire as an exception, for code that would rather not check ``stop_reason``."""

import asyncio

from llmist import Agent
from llmist.agent.builtin_guardrails import max_prompt_chars
from llmist.agent.guardrails import Guardrails, GuardrailTripped
from llmist.testing import MockModel

agent = Agent(
    model=MockModel(["never asked"]),
    guardrails=Guardrails((max_prompt_chars(1_000),), raise_on_tripwire=True),
)


async def main() -> None:
    try:
        await agent.run("x" * 5_000)
    except GuardrailTripped as error:
        print(error)  # guardrail 'max_prompt_chars' (input) tripped: the prompt has 5,000 characters; ...
        print(error.result.stop_reason, error.record.data)


if __name__ == "__main__":
    asyncio.run(main())
