"""A durable run: the agent's run is a DBOS workflow on a SQLite file, each model response and
each gadget call a step. Run it again with the same workflow id and DBOS returns the recorded
result without asking the model or running a gadget again."""

import asyncio
import tempfile
from pathlib import Path

from dbos import DBOS

from llmist import Agent, gadget
from llmist.durable import DBOSAgent, DurableRunEvent, launch
from llmist.testing import MockModel, block_call

runs = []


@gadget(description="Book a meeting room")
def book_room(room: str) -> str:
    runs.append(room)  # a side effect we can count
    return f"booked {room}"


agent = Agent(
    model=MockModel([block_call("book_room", room="Ada"), "Room Ada is booked."]),
    gadgets=[book_room],
)
durable = DBOSAgent(agent, name="quick-start")  # before launch: DBOS recovers its runs as it launches


async def main(folder: Path) -> None:
    await launch(f"sqlite:///{folder / 'runs.sqlite'}")
    try:
        stream = durable.stream("Book room Ada.", workflow_id="booking-1")
        async for event in stream:
            if isinstance(event, DurableRunEvent):
                print("run", event.workflow_id, "recovered" if event.recovered else "new")
        print(stream.result.output)

        again = await durable.run("Book room Ada.", workflow_id="booking-1")  # the same run: its result
        assert again.output == stream.result.output and runs == ["Ada"]
    finally:
        DBOS.destroy()  # this example's DBOS ends here (a service keeps it for its lifetime)


with tempfile.TemporaryDirectory() as folder:
    asyncio.run(main(Path(folder)))
