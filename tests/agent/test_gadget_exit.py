"""A gadget that calls ``sys.exit`` fails like any other gadget; the agent and the program go on."""

from __future__ import annotations

import sys

import pytest
from pydantic import BaseModel

from llmist import Agent, ExecutionContext, Gadget, gadget, test_gadget
from llmist.testing import MockModel, block_call


@gadget
def quit_sync(code: int) -> str:
    """Call sys.exit from a worker thread."""
    sys.exit(code)


@gadget
async def quit_async(code: int) -> str:
    """Call sys.exit from the event loop's thread."""
    sys.exit(code)


class QuitInline(Gadget):
    """Call sys.exit on the loop's thread, run inline."""

    description = "Call sys.exit inline"
    run_inline = True

    class Params(BaseModel):
        code: int

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        sys.exit(params.code)


@pytest.mark.parametrize("name", ["quit_sync", "quit_async", "QuitInline"])
def test_sys_exit_in_a_gadget_becomes_an_error_the_model_sees(name: str) -> None:
    model = MockModel([block_call(name, code=3), "done"])
    result = Agent(model=model, gadgets=[quit_sync, quit_async, QuitInline]).run_sync("go")
    error = result.gadget_results[0].error
    assert error is not None and "the gadget called sys.exit(3)" in error
    assert "sys.exit(3)" in model.requests[1].messages[-1].text
    assert result.output == "done"


@pytest.mark.parametrize("g", [quit_sync, quit_async, QuitInline])
def test_sys_exit_under_test_gadget_is_an_error(g: object) -> None:
    outcome = test_gadget(g, {"code": 3})
    assert outcome.error is not None and "the gadget called sys.exit(3)" in outcome.error


def test_keyboard_interrupt_in_a_gadget_still_stops_the_run() -> None:
    @gadget
    async def interrupt() -> str:
        """Simulate Ctrl-C."""
        raise KeyboardInterrupt

    model = MockModel([block_call("interrupt"), "done"])
    with pytest.raises(KeyboardInterrupt):
        Agent(model=model, gadgets=[interrupt]).run_sync("go")
