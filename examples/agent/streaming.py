"""Streaming: events arrive while the model writes; each call runs as soon as its block closes."""

import asyncio

from llmist import Agent, GadgetCallEvent, GadgetResultEvent, LLMResponseEndEvent, TextEvent, gadget
from llmist.testing import MockModel, block_call


@gadget
async def lookup(city: str) -> str:
    """Look up a city's population."""
    return {"Paris": "2.1M", "Lyon": "0.5M"}[city]


async def main() -> None:
    script = [
        "Let me check both.\n" + block_call("lookup", city="Paris") + block_call("lookup", city="Lyon"),
        "Paris has 2.1M people, Lyon 0.5M.",
    ]
    agent = Agent(model=MockModel(script, chunk_size=12), gadgets=[lookup])

    kinds = []
    at_line_start = True  # text arrives in pieces; other events start on a line of their own
    stream = agent.stream("Compare Paris and Lyon")
    async for event in stream:
        kinds.append(event.type)
        if isinstance(event, TextEvent):
            print(event.content, end="", flush=True)
            at_line_start = event.content.endswith("\n")
            continue
        if not at_line_start:
            print()
            at_line_start = True
        if isinstance(event, GadgetCallEvent):
            print(f"-> {event.call.gadget_name} {event.call.parameters}")
        elif isinstance(event, GadgetResultEvent):
            print(f"<- {event.result.gadget_name}: {event.result.result}")
        elif isinstance(event, LLMResponseEndEvent):
            print(f"[response ended: {event.finish_reason}]")
    assert stream.result is not None
    # The answer was streamed above; the result holds it too (stream.result.output), with the totals:
    print(f"{stream.result.iterations} responses, stop reason {stream.result.stop_reason!r}")
    assert kinds.count("gadget_result") == 2 and kinds[-1] == "llm_response_end"


if __name__ == "__main__":
    asyncio.run(main())
