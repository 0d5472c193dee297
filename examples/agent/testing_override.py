"""Swap the model of an agent defined elsewhere, and make real model calls fail in tests."""

import asyncio
from collections.abc import Iterator

import pytest

from llmist import Agent
from llmist.testing import MockModel, block_real_models, override

# application code
support_agent = Agent(model="sonnet", system="You answer support questions.")


@pytest.fixture(autouse=True)
def no_real_models() -> Iterator[None]:
    with block_real_models():
        yield


async def test_support_agent_answers() -> None:
    with override(support_agent, model=MockModel(["Try turning it off and on again."])):
        result = await support_agent.run("My laptop froze")
    assert result.output == "Try turning it off and on again."


async def main() -> None:
    with block_real_models():
        await test_support_agent_answers()


if __name__ == "__main__":
    asyncio.run(main())
