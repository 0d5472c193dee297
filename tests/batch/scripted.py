"""A scripted agent for the batch tests: each run calls ``add`` once, then answers with the sum.

Also runnable as a script (``python scripted.py OUT LOG COUNT``): runs a batch of COUNT tasks into
OUT, appending each model request's task to LOG and printing each finished id, so a test can
kill it mid-batch and run it again.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from llmist import Agent, GadgetResult, gadget
from llmist.providers import RateLimitError
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call, result_text

TASK_COST = 0.01
"""USD each run's gadget call reports."""


@gadget(description="Add two numbers")
def add(a: int, b: int) -> GadgetResult:
    """The sum, at a cost."""
    return GadgetResult(str(a + b), cost=TASK_COST)


def task_of(messages: Sequence[Message]) -> str:
    """The prompt of the run (its first user message)."""
    return next(m.text for m in messages if m.role == "user")


@dataclass
class Script:
    """Answers like a model: first a call of ``add``, then the sum; records every request."""

    fail_every: int | None = None
    """Answer every n-th request with a 429 (retry_after ``pause_s``)."""
    pause_s: float = 0.0
    requests: list[tuple[float, str]] = field(default_factory=list)
    """``(monotonic time, kind)`` of each request: ``"first"``, ``"final"`` or ``"429"``."""
    active: int = 0
    most_active: int = 0

    def __call__(self, messages: Sequence[Message]) -> str:
        now = time.monotonic()
        if self.fail_every and (len(self.requests) + 1) % self.fail_every == 0:
            self.requests.append((now, "429"))
            raise RateLimitError("too many requests", provider="mock", status_code=429, retry_after=self.pause_s)
        if messages[-1].role == "user" and len(messages) == 2:
            self.requests.append((now, "first"))
            self.active += 1
            self.most_active = max(self.most_active, self.active)
            n = int(task_of(messages).split()[-1])
            return block_call("add", a=n, b=1, invocation_id=f"add_{n}")  # no process-wide counter in the text
        self.requests.append((now, "final"))
        self.active -= 1
        return f"sum {result_text(messages[-1])}"


def scripted_agent(script: Script | None = None, *, delay_s: float = 0.0) -> Agent:
    """An agent on ``script`` (a fresh one by default) with the ``add`` gadget."""
    return Agent(model=MockModel(script or Script(), delay_s=delay_s, chunk_size=16), gadgets=[add])


def prompts(count: int) -> list[str]:
    """``count`` prompts, ``"task 0"`` ... (their sums are n + 1)."""
    return [f"task {n}" for n in range(count)]


def _main(out: str, log: str, count: int) -> None:
    import asyncio

    from llmist.batch import arun_batch

    script = Script()

    def logged(messages: Sequence[Message]) -> str:
        if len(messages) == 2:  # a run's first request: the task starts
            with open(log, "a", encoding="utf-8") as f:
                f.write(task_of(messages) + "\n")
        return script(messages)

    agent = Agent(model=MockModel(logged, delay_s=0.002, chunk_size=8), gadgets=[add])
    asyncio.run(
        arun_batch(agent, prompts(count), out=out, concurrency=20, on_result=lambda _, r: print(r.id, flush=True))
    )


@dataclass
class LoggedFactory:
    """An agent factory Ray can send to its workers: each model request appends
    ``"<time.time()> <pid>"`` to the file ``log`` (one file shared by every process)."""

    log: str

    def __call__(self) -> Agent:
        script = Script()
        log = self.log

        def respond(messages: Sequence[Message]) -> str:
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{time.time()} {os.getpid()}\n")
            return script(messages)

        return Agent(model=MockModel(respond, chunk_size=16), gadgets=[add])


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
