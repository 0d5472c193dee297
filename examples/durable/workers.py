"""Several workers, one queue: each worker process creates the DBOSAgent and launches DBOS on the
shared system database (PostgreSQL for several machines) under an executor id of its own; any
process puts runs on the queue with a DurableClient and reads their results. Here one worker
and the client share a process and a SQLite file; tests/durable/test_workers.py runs two
workers and a client as three processes, on SQLite and on PostgreSQL."""

import asyncio
import tempfile
from pathlib import Path

from dbos import DBOS

from llmist import Agent, gadget
from llmist.durable import DBOSAgent, DurableClient, launch
from llmist.testing import MockModel, block_call


@gadget(description="File a ticket under a team")
def file_ticket(team: str) -> str:
    return f"filed for {team}"


def triage(messages):  # a scripted model: file the ticket, then say where it went
    if messages[-1].role == "user":
        return block_call("file_ticket", team="billing" if "invoice" in messages[-1].text else "support")
    return next(line for line in messages[-1].text.splitlines() if line.startswith("filed"))


worker = DBOSAgent(
    Agent(model=MockModel(triage), gadgets=[file_ticket]),
    name="triage",
    concurrency=8,  # at most 8 runs at once over all workers
    worker_concurrency=2,  # and 2 in each
)


async def main(folder: Path) -> None:
    url = f"sqlite:///{folder / 'runs.sqlite'}"  # postgresql://user:password@host/db for many machines
    await launch(url, executor_id="worker-1")  # this process is a worker of the queue now
    try:
        with DurableClient(url, "triage") as client:  # any process: a web app, a cron job
            tickets = {"t1": "My invoice is wrong", "t2": "The app crashes", "t3": "Refund my invoice"}
            for ticket_id, text in tickets.items():
                await client.enqueue(text, workflow_id=ticket_id)
            for ticket_id in tickets:
                print(ticket_id, (await client.result(ticket_id)).output)
    finally:
        DBOS.destroy()


with tempfile.TemporaryDirectory() as folder:
    asyncio.run(main(Path(folder)))
