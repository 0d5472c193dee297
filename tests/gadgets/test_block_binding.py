"""Binding a block call to its gadget reads the body as the parser does (one fence stripper)."""

from __future__ import annotations

from pydantic import BaseModel

from llmist import Agent, ExecutionContext, Gadget
from llmist.testing import MockModel, collect_events


class EchoParams(BaseModel):
    text: str
    n: int = 0


class Echo(Gadget):
    description = "Echo the text"
    Params = EchoParams

    def execute(self, params: EchoParams, ctx: ExecutionContext) -> str:
        return params.text


async def test_the_gadget_receives_the_parameters_the_parser_reports_for_a_fenced_block() -> None:
    # One fence stripper: whatever the parser does with a closing fence at the end of the
    # last argument, binding the call to the gadget does the same.
    for body in ("!!!ARG:n\n2\n!!!ARG:text\nprint(1)\n```", "```\n!!!ARG:text\nhi\n!!!ARG:n\n2\n```"):
        model = MockModel([f"!!!GADGET_START:Echo\n{body}\n!!!GADGET_END\n", "done"])
        events = await collect_events(Agent(model=model, gadgets=[Echo]).stream("go"))
        (call,) = [e.call for e in events if e.type == "gadget_call"]
        (result,) = [e.result for e in events if e.type == "gadget_result"]
        assert call.parameters is not None
        assert result.result == call.parameters["text"]
