"""Results as runs finish, a budget, and one rate limit shared by every run."""

import asyncio
import tempfile
from pathlib import Path

from llmist import Agent, GadgetResult, gadget
from llmist.batch import RateLimit, Task, iter_batch
from llmist.testing import MockModel, block_call


@gadget(description="Look a word up (a paid API)")
def lookup(word: str) -> GadgetResult:
    return GadgetResult(f"{word}: found", cost=0.25)


def make_agent(task: Task) -> Agent:  # a factory gets each task, with its inputs
    script = [block_call("lookup", word=task.inputs["word"]), "done"]
    return Agent(model=MockModel(script), gadgets=[lookup], system_extra=f"Task {task.id}")


async def main() -> None:
    tasks = [Task(str(n), "Look it up", {"word": f"w{n}"}) for n in range(20)]
    batch = iter_batch(
        make_agent,
        tasks,
        out=Path(tempfile.mkdtemp()) / "results.jsonl",
        concurrency=2,
        budget_usd=1.0,
        rate_limits={"mock": RateLimit(requests_per_minute=600)},
    )
    async for result in batch:
        print(result.id, result.output, f"${batch.cost:.2f} so far, {batch.running} running")
    summary = batch.summary
    print(summary.message)  # Stopped by the budget: $1.0000 spent of $1.0000; ... not started.
    assert summary.stop_reason == "budget" and summary.not_started > 0


asyncio.run(main())
