"""Several output types, and prose as a way out."""

import asyncio

from pydantic import BaseModel

from llmist import Agent
from llmist.testing import MockModel


class Weather(BaseModel):
    city: str
    celsius: float


class Unknown(BaseModel):
    reason: str


# One final-answer gadget per type: FinalAnswer_Weather and FinalAnswer_Unknown.
agent: Agent[Weather | Unknown] = Agent(
    model=MockModel(["!!!GADGET_START:FinalAnswer_Unknown\n!!!ARG:reason\nNo weather gadget\n!!!GADGET_END"]),
    output_type=[Weather, Unknown],
)
answer = asyncio.run(agent.run("How warm is it in Oslo?")).output
if isinstance(answer, Unknown):
    print("unknown:", answer.reason)

# `str` among the types lets the model answer in plain text instead.
chatty: Agent[Weather | str] = Agent(model=MockModel(["Which Oslo do you mean?"]), output_type=[Weather, str])
print(asyncio.run(chatty.run("How warm is it in Oslo?")).output)
