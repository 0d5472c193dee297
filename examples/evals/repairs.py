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

    # What the parser tolerated counts too: markers with a wrong count of "!", a value fused to its
    # argument line; and a native tool call written as JSON text runs when it names a gadget.
    sloppy = [
        "!!GADGET_START:get_weather\n!!!ARG:city Oslo\n!!!!GADGET_END",
        '{"name": "get_weather", "arguments": {"city": "Lima"}}',
        "Done.",
    ]
    result = await Agent(model=MockModel(sloppy), gadgets=[get_weather]).run("Weather in Oslo and Lima?")
    print(result.repairs)  # {'marker_spelling': 2, 'fused_argument': 1, 'json_call': 1}
    assert [r.result for r in result.gadget_results] == ["Oslo: 18°C", "Lima: 18°C"]

    strict = Agent(model=MockModel(answers), gadgets=[get_weather], strict=True)
    try:
        await strict.run("Weather in Paris?")
    except RepairRefused as exc:
        print(exc.event.kind)  # gadget_name


if __name__ == "__main__":
    asyncio.run(main())
