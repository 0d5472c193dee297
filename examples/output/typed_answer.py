"""A typed final answer: the model retries until its FinalAnswer call validates."""

import asyncio

from pydantic import BaseModel

from llmist import Agent
from llmist.testing import MockModel


class City(BaseModel):
    name: str
    population: int


# The scripted model first gets the population wrong, reads the validation error, then fixes it.
model = MockModel(
    [
        "!!!GADGET_START:FinalAnswer\n!!!ARG:name\nParis\n!!!ARG:population\nabout two million\n!!!GADGET_END",
        "!!!GADGET_START:FinalAnswer\n!!!ARG:name\nParis\n!!!ARG:population\n2102650\n!!!GADGET_END",
    ]
)
agent = Agent(model=model, output_type=City)
result = asyncio.run(agent.run("What is the capital of France, and how many people live there?"))
city = result.output  # a City: the type checker knows it
print(city.name, city.population, result.iterations)
assert city == City(name="Paris", population=2102650)
