"""The same gadgets through the provider's tool-calling API: ``syntax="native"``."""

import asyncio

from llmist import Agent, gadget
from llmist.testing import MockModel, MockReply, tool_call


@gadget(description="Current weather of a city.")
def get_weather(city: str) -> str:
    return {"Paris": "18°C, sunny", "Oslo": "4°C, rain"}.get(city, "unknown")


async def main() -> None:
    # A scripted model answering as a tool-calling API does: two calls in one response (run in
    # parallel), then the answer. With a real model: Agent(model="openai:gpt-4.1-mini", ...).
    model = MockModel(
        [
            MockReply("Checking.", [tool_call("get_weather", city="Paris"), tool_call("get_weather", city="Oslo")]),
            "Paris: 18°C and sunny. Oslo: 4°C with rain.",
        ]
    )
    agent = Agent(model=model, gadgets=[get_weather], syntax="native")
    result = await agent.run("Weather in Paris and Oslo?")
    print(result.output)
    assert [t.name for t in model.requests[0].tools] == ["get_weather"]  # the viewer: once an output is stored
    assert [r.result for r in sorted(result.gadget_results, key=lambda r: r.parameters["city"])] == [
        "4°C, rain",
        "18°C, sunny",
    ]


if __name__ == "__main__":
    asyncio.run(main())
