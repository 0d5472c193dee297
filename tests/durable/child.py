"""One process of the durable-run tests: ``python -m tests.durable.child URL DIR MODE WORKFLOW``,
from the repository root.

The agent's model answers three responses (:data:`RESPONSES`): two ``tick`` calls, then one
``hold`` call, then the final answer. Every model request, every gadget run and every side
effect is appended to a file in DIR, so the test counts what really happened:

- ``requests.log``: ``request <n>`` each time response ``n`` is asked of the model;
- ``calls.log``: ``<gadget> <tag>`` each time a gadget runs (a run again after a crash counts);
- ``effects.log``: ``<tag> <idempotency key>``, written at most once per key (the recipe of
  docs/durable.md: the effect is skipped when its key is already there).

Stops, each a marker file the parent waits for before it kills the process (SIGKILL):
``hold`` writes ``in_gadget`` after its effect and waits for ``release_gadget``; with
``--hold-response N`` the model streams half of response N, writes ``in_response`` and waits
for ``release_response``.

Modes: ``run`` starts the run WORKFLOW and prints its result as JSON; ``recover`` launches
DBOS (which recovers the runs left pending) and prints the result of
WORKFLOW; both print each event's type to ``events.log``, and launch as executor ``local`` (DBOS's
default: a process that launches recovers the runs that ``local`` left PENDING) unless
``--executor NAME`` names another. With ``--approvals`` the agent defers
its one ``sign`` call for a person's decision (:data:`APPROVAL_RESPONSES`). ``enqueue IDS`` is a
client that runs no agent: it puts the runs IDS on the queue and prints their results.
``worker NAME`` launches as executor NAME, takes runs from the agent's queue, recovers the runs
of ``--recover-from`` executors, writes ``ready_NAME`` and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from llmist import Agent, ExecutionContext, gadget
from llmist.durable import DBOSAgent, DurableClient, DurableRunEvent, launch
from llmist.providers.base import LLMChunk, LLMRequest, Usage
from llmist.testing import block_call

RESPONSES = (
    "Two ticks first.\n"
    + block_call("tick", invocation_id="a", tag="one")
    + block_call("tick", tag="two"),  # no explicit id: its invocation id counts per process
    "Now the long one.\n" + block_call("hold", tag="three"),
    "Done: one, two and three are ticked.",
)

FIRST_RESPONSES = {
    "fail": "Two ticks first.\n" + block_call("tick", invocation_id="a", tag="one") + block_call("tick", tag="fail"),
    "garbage": "Two ticks\x00 \ufffd!!!GADGET_END\n!!!GADGET_START:tick:a\n!!!ARG:tag\none\n"
    + "!!!GADGET_START:tick\n!!!ARG:tag\ntwo\n!!!ARG:tag\n",
}
"""``--script NAME``: another first response, a tick that raises (``fail``), or text a model
should not write (``garbage``: a stray end marker, a NUL, a duplicate argument, no end marker)."""

APPROVAL_RESPONSES = (
    "Signing needs a person.\n" + block_call("sign", invocation_id="s1", tag="deal"),
    "Signed the deal.",
)
"""With ``--approvals``: one call that needs a person's approval, then the answer."""

WAIT_S = 60.0
"""The longest a stop waits for its release file: a test that forgets it fails, never hangs."""


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.01)


def append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")


class ScriptedModel:
    """A model that answers :data:`RESPONSES` by the number of its answers in the conversation,
    in two chunks, holding between them at response ``hold``."""

    name = "scripted"
    offline = True

    def __init__(self, work: Path, hold: int | None, responses: tuple[str, ...] = RESPONSES) -> None:
        self.work, self.hold, self.responses = work, hold, responses

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        n = sum(1 for m in request.messages if m.role == "assistant")
        append(self.work / "requests.log", f"request {n}")
        text = self.responses[min(n, len(self.responses) - 1)]
        half = len(text) // 2
        yield LLMChunk(text=text[:half])
        if n == self.hold:
            (self.work / "in_response").touch()
            await asyncio.to_thread(wait_for, self.work / "release_response")
        yield LLMChunk(text=text[half:], usage=Usage(input_tokens=10, output_tokens=5), finish_reason="stop")


def make_agent(
    work: Path, hold_at: int | None, approvals: bool = False, script: str = "", **options: object
) -> DBOSAgent[str]:
    @gadget
    def tick(tag: str, ctx: ExecutionContext) -> str:
        """Tick a tag."""
        append(work / "calls.log", f"tick {tag}")
        if tag == "fail":
            raise RuntimeError(f"tick {tag} failed")
        return f"ticked {tag}"

    @gadget(requires_approval=True)
    def sign(tag: str) -> str:
        """Sign, once a person approved."""
        append(work / "calls.log", f"sign {tag}")
        return f"signed {tag}"

    @gadget
    def hold(tag: str, ctx: ExecutionContext) -> str:
        """Tick a tag, the long way."""
        append(work / "calls.log", f"hold {tag}")
        effects = work / "effects.log"
        lines = effects.read_text(encoding="utf-8").splitlines() if effects.exists() else []
        if ctx.idempotency_key not in {line.split(" ", 1)[1] for line in lines}:  # the at-most-once recipe
            append(effects, f"{tag} {ctx.idempotency_key}")
        (work / "in_gadget").touch()
        (work / f"in_gadget_{ctx.idempotency_key.split(':')[0].encode().hex()}").touch()
        wait_for(work / "release_gadget")
        return f"held {tag}"

    responses = APPROVAL_RESPONSES if approvals else RESPONSES
    if script in FIRST_RESPONSES:
        responses = (FIRST_RESPONSES[script], *RESPONSES[1:])
    agent = Agent(
        model=ScriptedModel(work, hold_at, responses),
        gadgets=[tick, hold, sign],
        max_iterations=5,
        approvals="defer" if approvals else None,
    )
    return DBOSAgent(agent, name="crash-test", **options)  # type: ignore[arg-type]


def event_line(work: Path, event: object) -> None:
    kind = str(getattr(event, "type", type(event).__name__))
    if isinstance(event, DurableRunEvent):
        kind += " recovered" if event.recovered else " new"
    append(work / "events.log", kind)


def summary(result: object) -> str:
    return json.dumps(
        {
            "output": getattr(result, "output", None),
            "stop": getattr(result, "stop_reason", None),
            "results": [r.result or r.error for r in getattr(result, "gadget_results", [])],
        }
    )


async def main(args: argparse.Namespace) -> int:
    work = Path(args.dir)
    on_event = (lambda event: event_line(work, event)) if args.mode != "run" else None
    if args.mode == "enqueue":
        return await enqueue(args.url, args.workflow.split(","))
    durable = make_agent(
        work, args.hold_response, args.approvals, args.script, on_event=on_event, worker_concurrency=args.concurrency
    )
    if args.mode == "worker":
        await launch(args.url, executor_id=args.workflow, application_version="tests")
        if args.recover_from:
            durable.recover(args.recover_from.split(","))
        (work / f"ready_{args.workflow}").touch()
        await asyncio.Event().wait()
    await launch(args.url, executor_id=args.executor, application_version="tests")
    (work / f"ready_{args.mode}").touch()
    if args.mode == "run":
        stream = durable.stream("Tick one, two and three.", workflow_id=args.workflow)
        async for event in stream:
            event_line(work, event)
        print(summary(stream.result), flush=True)
    else:
        print(summary(await durable.result(args.workflow)), flush=True)
    return 0


async def enqueue(url: str, workflow_ids: list[str]) -> int:
    """A client that runs no agent: put the runs on the queue, print each result as it ends."""
    with DurableClient(url, "crash-test") as client:
        for workflow_id in workflow_ids:
            await client.enqueue("Tick one, two and three.", workflow_id=workflow_id)
        for workflow_id in workflow_ids:
            print(workflow_id, summary(await client.result(workflow_id)), flush=True)
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("dir")
    parser.add_argument("mode", choices=["run", "recover", "worker", "enqueue"])
    parser.add_argument("workflow", help="the workflow id (worker: the executor id; enqueue: ids, comma-separated)")
    parser.add_argument("--approvals", action="store_true")
    parser.add_argument("--script", choices=sorted(FIRST_RESPONSES), default="")
    parser.add_argument("--hold-response", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--recover-from", default="")
    parser.add_argument("--executor", default=None, help="run, recover: the executor id (DBOS's default: local)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
