"""The loop's repairs are visible: an observer sees each, the result counts them, strict refuses them."""

import asyncio

from llmist import Agent, gadget
from llmist.agent import Hooks, Observers, RepairEvent, RepairRefused
from llmist.testing import MockModel, block_call


@gadget(description="Current weather of a city.")
def get_weather(city: str) -> str:
    return f"{city}: 18°C"


async def main() -> None:
    seen: list[RepairEvent] = []
    hooks = Hooks(observers=Observers(on_repair=seen.append))
    answers = [block_call("Get-Weather", city="Paris") + "Result: 30°C", "It is 18°C in Paris."]
    agent = Agent(model=MockModel(answers), gadgets=[get_weather], hooks=hooks)
    result = await agent.run("Weather in Paris?")
    print(result.repairs)  # {'gadget_name': 1, 'invented_result': 1}
    print([e.detail for e in seen])
    assert result.repairs == {"gadget_name": 1, "invented_result": 1}

    strict = Agent(model=MockModel(answers), gadgets=[get_weather], strict=True)
    try:
        await strict.run("Weather in Paris?")
    except RepairRefused as exc:
        print(exc.event.kind)  # gadget_name


if __name__ == "__main__":
    asyncio.run(main())
