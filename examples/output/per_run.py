"""A plain agent asked for a typed answer in one run; the builder's with_output_type."""

import asyncio

from pydantic import BaseModel

from llmist import LLMist
from llmist.testing import MockModel


class Verdict(BaseModel):
    ok: bool
    note: str


model = MockModel(["!!!GADGET_START:FinalAnswer\n!!!ARG:ok\ntrue\n!!!ARG:note\nall tests pass\n!!!GADGET_END"])
agent = LLMist().create_agent().with_model(model).build()
verdict = asyncio.run(agent.run("Is the build green?", output_type=Verdict)).output
print(verdict.ok, verdict.note)

# The builder's with_output_type gives an Agent[Verdict] too.
builder = LLMist().create_agent().with_model(MockModel([model.responses[0]]))
print(asyncio.run(builder.with_output_type(Verdict, max_retries=1).build().run("Again?")).output.note)
