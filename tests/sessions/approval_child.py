"""One process of the multi-process approval tests: ``python -m tests.sessions.approval_child
STORE LOG MODE [ARGS]``, from the repository root.

The agent's one response makes three calls: ``append`` ``w1`` (line "one") and ``w2`` (line
"two"), which need approval, and ``peek`` ``p1``, which needs none. ``append`` adds its line to
the file LOG, so the test counts how often each call really ran. Modes:

- ``pause``: the first run; prints ``{"stop": ..., "pending": [...]}`` (with ``--kill``, then
  kills itself with SIGKILL: no exit handlers, no tidying up).
- ``decide ID=approve|deny[:reason] ...``: stores the decisions in order; prints ``decided``
  after each (with ``--wait``, then waits to be killed); on a barrier line first with ``--barrier``.
- ``resume``: the run after the decisions; prints ``{"stop": ..., "output": ...}``, or
  ``conflict: ...`` (exit 4) when another run holds the calls; ``--barrier`` waits for a line on
  standard input after the session is loaded; ``--hang`` makes ``append`` hang after writing
  (the test kills the process there).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from llmist import Agent, gadget
from llmist.agent.approvals import AlreadyDecidedError, ApprovalConflictError, Decision
from llmist.testing import MockModel, block_call
from tests.sessions.stores import open_session

RESPONSE = (
    "I will add two lines and look at the log.\n"
    + block_call("append", invocation_id="w1", line="one")
    + block_call("append", invocation_id="w2", line="two")
    + block_call("peek", invocation_id="p1")
)


def main(argv: list[str]) -> int:
    spec, log, mode, *rest = argv
    return asyncio.run(_MODES[mode](spec, Path(log), rest))


def _agent(spec: str, log: Path, responses: list[str], *, hang: bool = False) -> Agent[str]:
    @gadget(requires_approval=True)
    async def append(line: str) -> str:
        """Append a line to the log."""
        with log.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        if hang:
            print("appended", flush=True)
            await asyncio.Event().wait()
        return f"appended {line!r}"

    @gadget
    def peek() -> str:
        """Read the log."""
        return log.read_text(encoding="utf-8") if log.exists() else "(empty)"

    session = open_session(spec, "job")
    return Agent(model=MockModel(responses), gadgets=[append, peek], session=session, approvals="defer")


async def _pause(spec: str, log: Path, rest: list[str]) -> int:
    result = await _agent(spec, log, [RESPONSE]).run("Add the lines one and two to the log.")
    pending = [{"id": p.invocation_id, "gadget": p.gadget_name, "reason": p.reason} for p in result.pending]
    print(json.dumps({"stop": result.stop_reason, "pending": pending}), flush=True)
    if "--kill" in rest:
        os.kill(os.getpid(), signal.SIGKILL)
    return 0


async def _decide(spec: str, log: Path, rest: list[str]) -> int:
    if "--barrier" in rest:
        print("ready", flush=True)
        sys.stdin.readline()
    for item in (r for r in rest if not r.startswith("--")):
        invocation_id, _, how = item.partition("=")
        action, _, reason = how.partition(":")
        decision = Decision.approve() if action == "approve" else Decision.deny(reason)
        try:
            await open_session(spec, "job").decide(invocation_id, decision)
        except AlreadyDecidedError as exc:
            print(f"already: {exc}", flush=True)
            return 4
        print("decided", flush=True)
    if "--wait" in rest:
        await asyncio.Event().wait()
    return 0


async def _resume(spec: str, log: Path, rest: list[str]) -> int:
    agent = _agent(spec, log, ["The log has both lines' answers; done."], hang="--hang" in rest)
    if "--barrier" in rest:
        assert agent.session is not None
        await agent.session.load()
        print("ready", flush=True)
        sys.stdin.readline()
    try:
        result = await agent.run(None)
    except ApprovalConflictError as exc:
        print(f"conflict: {exc}", flush=True)
        return 4
    print(json.dumps({"stop": result.stop_reason, "output": result.output}), flush=True)
    return 0


_MODES = {"pause": _pause, "decide": _decide, "resume": _resume}

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
