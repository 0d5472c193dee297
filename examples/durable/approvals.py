"""A call that waits days for a person, with no process holding it: with ``approvals="defer"`` the
durable run publishes the calls that wait and sleeps in DBOS (``recv``). Any process launched on
the system database, or a DurableClient, gives the decision; the run wakes and goes on. A worker
that restarts meanwhile recovers the run, which waits again (tests/durable/test_approvals.py
kills one)."""

import asyncio
import tempfile
from pathlib import Path

from dbos import DBOS

from llmist import Agent, gadget
from llmist.agent.approvals import Decision
from llmist.durable import DBOSAgent, launch
from llmist.testing import MockModel, block_call


@gadget(description="Refund an order", requires_approval=True)
def refund(order: str) -> str:
    return f"refunded {order}"


agent = Agent(
    model=MockModel([block_call("refund", invocation_id="r1", order="A-17"), "Order A-17 is refunded."]),
    gadgets=[refund],
    approvals="defer",
)
durable = DBOSAgent(agent, name="refunds")


async def main(folder: Path) -> None:
    await launch(f"sqlite:///{folder / 'runs.sqlite'}")
    try:
        run = await durable.start("Refund order A-17.", workflow_id="refund-A-17")
        while not (waiting := await durable.pending("refund-A-17")):
            await asyncio.sleep(0.05)
        print("waiting:", [(c.invocation_id, c.gadget_name, c.parameters) for c in waiting])
        await durable.decide("refund-A-17", "r1", Decision.approve())  # days later, from anywhere
        print((await run.get_result()).output)
    finally:
        DBOS.destroy()


with tempfile.TemporaryDirectory() as folder:
    asyncio.run(main(Path(folder)))
