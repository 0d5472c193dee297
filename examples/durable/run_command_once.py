"""At most once: RunCommand, made to run each call's command once however often DBOS retries the
call. DBOS runs a step at least once: a process killed inside a gadget runs that call again when
the run is recovered. ``ctx.idempotency_key`` is the same both times, so the gadget records it
before it acts, in one transaction with a unique key, and skips a call whose key it has seen."""

import asyncio
import sqlite3
import tempfile
from pathlib import Path

from llmist import ExecutionContext
from llmist.gadgets.builtins import RunCommand
from llmist.gadgets.builtins.command import RunCommandParams


class RunCommandOnce(RunCommand):
    """RunCommand whose each call runs its command at most once (keys kept in ``ledger``)."""

    def __init__(self, root: str | Path, ledger: str | Path) -> None:
        super().__init__(root)
        self.ledger = str(ledger)

    async def execute(self, params: RunCommandParams, ctx: ExecutionContext) -> str:
        with sqlite3.connect(self.ledger) as db:  # committed before the command runs
            db.execute("CREATE TABLE IF NOT EXISTS done (key TEXT PRIMARY KEY)")
            try:
                db.execute("INSERT INTO done VALUES (?)", (ctx.idempotency_key,))
            except sqlite3.IntegrityError:
                return "not run: this call ran before the process that made it died"
        return await super().execute(params, ctx)


async def main(folder: Path) -> None:
    gadget = RunCommandOnce(folder, folder / "ledger.sqlite")
    params = RunCommandParams(command="echo sent >> outbox.txt")
    # The same call twice, as a recovered run would make it: the same key both times.
    for _ in range(2):
        ctx = ExecutionContext(gadget_name=gadget.name, idempotency_key="booking-1:2.1")
        print(await gadget.execute(params, ctx))
    assert (folder / "outbox.txt").read_text() == "sent\n"  # the command ran once


with tempfile.TemporaryDirectory() as folder:
    asyncio.run(main(Path(folder)))
