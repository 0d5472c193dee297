"""Watch the answer's fields arrive while the model writes them."""

import asyncio

from pydantic import BaseModel

from llmist import Agent
from llmist.syntax import ArgsPartialEvent
from llmist.testing import MockModel


class Summary(BaseModel):
    title: str
    body: str


answer = (
    "!!!GADGET_START:FinalAnswer\n!!!ARG:title\nRelease notes\n"
    "!!!ARG:body\nFaster parser.\nTyped output.\n!!!GADGET_END"
)


async def main() -> None:
    agent = Agent(model=MockModel([answer], chunk_size=8), output_type=Summary)
    stream = agent.stream("Summarise the release")
    async for event in stream:
        if isinstance(event, ArgsPartialEvent) and event.gadget_name == "FinalAnswer":
            print(f"{event.field_path}: {event.value!r}")
    assert stream.result is not None
    print(stream.result.output)


asyncio.run(main())
