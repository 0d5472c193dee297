"""``Agent(approvals="defer")``: a call that needs approval waits in the session; a later run,
once a person decided, runs it (once) and goes on as if it had never waited."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel

from llmist import Agent, gadget
from llmist.agent import GadgetResultMessage, SQLiteSession
from llmist.agent.approvals import ApprovalConflictError, ApprovalsPendingError, Decision
from llmist.agent.events import GadgetPendingEvent
from llmist.providers.base import Message
from llmist.testing import MockModel, MockReply, block_call, tool_call
from tests.sessions.stores import Store

ran: list[str] = []


@gadget(requires_approval=True)
def write(path: str, text: str) -> str:
    """Write a file (needs approval)."""
    ran.append(f"write {path}")
    return f"wrote {len(text)} characters to {path}"


@gadget
def read(path: str) -> str:
    """Read a file."""
    ran.append(f"read {path}")
    return f"contents of {path}"


@gadget(requires_approval=lambda p: "it deletes everything" if p["path"] == "/" else False)
def remove(path: str) -> str:
    """Remove a path (approval for the root only)."""
    ran.append(f"remove {path}")
    return f"removed {path}"


TWO_WRITES = (
    block_call("write", invocation_id="w1", path="a.txt", text="hello")
    + block_call("read", invocation_id="r1", path="notes.txt")
    + block_call("write", invocation_id="w2", path="b.txt", text="bye")
)


def agent(session: object, *responses: object, **options: object) -> tuple[Agent[str], MockModel]:
    model = MockModel(list(responses))  # type: ignore[arg-type]
    return Agent(model=model, gadgets=[write, read, remove], session=session, approvals="defer", **options), model  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


async def test_a_call_that_needs_approval_waits_and_the_run_ends_saying_so(tmp_path: Path) -> None:
    a, _ = agent(SQLiteSession(tmp_path / "s.db", "s"), TWO_WRITES)
    result = await a.run("Write two files.")
    assert result.stop_reason == "awaiting_approval"
    assert ran == ["read notes.txt"]  # the call that needs no approval ran
    assert [(p.invocation_id, p.gadget_name, p.parameters, p.reason) for p in result.pending] == [
        ("w1", "write", {"path": "a.txt", "text": "hello"}, "write needs a person's approval for each call"),
        ("w2", "write", {"path": "b.txt", "text": "bye"}, "write needs a person's approval for each call"),
    ]
    assert [m.role for m in result.messages] == ["system", "user", "assistant", "gadget_result"]


async def test_the_session_keeps_the_conversation_and_the_waiting_calls(tmp_path: Path) -> None:
    a, _ = agent(SQLiteSession(tmp_path / "s.db", "s"), TWO_WRITES)
    result = await a.run("Write two files.")
    stored = SQLiteSession(tmp_path / "s.db", "s")
    assert await stored.load() == result.messages
    assert [p.invocation_id for p in await stored.pending()] == ["w1", "w2"]


async def test_decided_calls_run_once_and_the_loop_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a, _ = agent(SQLiteSession(db, "s"), TWO_WRITES)
    await a.run("Write two files.")
    await SQLiteSession(db, "s").decide("w1", Decision.approve())
    await SQLiteSession(db, "s").decide("w2", Decision.deny("not b.txt"))
    b, model = agent(SQLiteSession(db, "s"), "Wrote a.txt; b.txt was declined.")
    result = await b.run(None)
    assert ran == ["read notes.txt", "write a.txt"]
    assert result.stop_reason == "no_calls" and result.output == "Wrote a.txt; b.txt was declined."
    sent = [m.text for m in model.requests[0].messages[-3:]]
    assert sent[0].startswith("Result of read (id r1)")
    assert sent[1] == "Result of write (id w1):\nwrote 5 characters to a.txt"
    assert sent[2] == "Result of write (id w2):\nNot run: the user declined this write call: not b.txt."
    assert await SQLiteSession(db, "s").pending() == []
    c, _ = agent(SQLiteSession(db, "s"), "Nothing more.")
    await c.run("Anything else?")
    assert ran == ["read notes.txt", "write a.txt"]  # a later run does not run them again


@gadget(requires_approval=True)
def dump_log() -> str:
    """Print the whole log (needs approval)."""
    return "\n".join(f"line {i}" for i in range(2000))


async def test_a_decided_calls_result_reads_as_any_other_even_an_output_stored_for_the_viewer(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    options = {"context_window": 1000, "gadget_output_limit_percent": 10}
    first = Agent(model=MockModel([block_call("dump_log", invocation_id="d")]), gadgets=[dump_log], **options)
    first.session, first.approvals = SQLiteSession(db, "s"), "defer"
    await first.run("Show the log.")
    await SQLiteSession(db, "s").decide("d", Decision.approve())
    model = MockModel(["It is long."])
    second = Agent(model=model, gadgets=[dump_log], session=SQLiteSession(db, "s"), approvals="defer", **options)
    await second.run(None)
    told = model.requests[0].messages[-1].text
    assert "returned too much data" in told and "To read it, call GadgetOutputViewer:" in told


async def test_an_edited_call_runs_with_the_edited_parameters_and_the_model_is_told(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a, _ = agent(SQLiteSession(db, "s"), block_call("write", invocation_id="w1", path="a.txt", text="hello"))
    await a.run("Write.")
    await SQLiteSession(db, "s").decide("w1", Decision.approve({"path": "c.txt", "text": "hello"}))
    b, model = agent(SQLiteSession(db, "s"), "done")
    result = await b.run(None)
    assert ran == ["write c.txt"]
    assert result.gadget_results[0].parameters == {"path": "c.txt", "text": "hello"}
    assert "The user edited this call's parameters before approving it" in model.requests[0].messages[-1].text


async def test_a_run_while_calls_still_wait_ends_at_once_without_calling_the_model(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a, _ = agent(SQLiteSession(db, "s"), TWO_WRITES)
    await a.run("Write two files.")
    await SQLiteSession(db, "s").decide("w1", Decision.approve())
    b, model = agent(SQLiteSession(db, "s"))
    result = await b.run(None)
    assert result.stop_reason == "awaiting_approval" and model.requests == []
    assert [(p.invocation_id, p.decision) for p in result.pending] == [("w1", Decision("approve")), ("w2", None)]


async def test_a_new_prompt_while_calls_wait_for_decisions_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a, _ = agent(SQLiteSession(db, "s"), TWO_WRITES)
    await a.run("Write two files.")
    b, _ = agent(SQLiteSession(db, "s"), "?")
    with pytest.raises(ApprovalsPendingError, match=r"calls wait for a decision \(w1, w2\); decide each"):
        await b.run("Something else.")


async def test_a_new_prompt_after_the_decisions_follows_the_decided_calls(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a, _ = agent(SQLiteSession(db, "s"), block_call("write", invocation_id="w1", path="a.txt", text="x"))
    await a.run("Write.")
    await SQLiteSession(db, "s").decide("w1", Decision.approve())
    b, model = agent(SQLiteSession(db, "s"), "ok")
    await b.run("And now?")
    assert [m.role for m in model.requests[0].messages[-3:]] == ["assistant", "gadget_result", "user"]
    assert model.requests[0].messages[-1].text == "And now?"


async def test_a_call_that_depends_on_a_waiting_call_waits_and_runs_after_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    response = block_call("write", invocation_id="w1", path="a.txt", text="x") + block_call(
        "read", invocation_id="r1", deps=["w1"], path="a.txt"
    )
    a, _ = agent(SQLiteSession(db, "s"), response)
    result = await a.run("Write, then read.")
    assert [(p.invocation_id, p.waits_for, p.needs_decision) for p in result.pending] == [
        ("w1", None, True),
        ("r1", "w1", False),
    ]
    assert ran == []
    await SQLiteSession(db, "s").decide("w1", Decision.approve())
    b, _ = agent(SQLiteSession(db, "s"), "done")
    await b.run(None)
    assert ran == ["write a.txt", "read a.txt"]


async def test_a_call_that_depends_on_a_denied_call_is_skipped(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    response = block_call("write", invocation_id="w1", path="a.txt", text="x") + block_call(
        "read", invocation_id="r1", deps=["w1"], path="a.txt"
    )
    a, _ = agent(SQLiteSession(db, "s"), response)
    await a.run("Write, then read.")
    await SQLiteSession(db, "s").decide("w1", Decision.deny())
    b, _ = agent(SQLiteSession(db, "s"), "done")
    result = await b.run(None)
    assert ran == [] and [r.status for r in result.gadget_results] == ["skipped", "skipped"]


async def test_a_rule_over_the_parameters_decides_which_calls_wait(tmp_path: Path) -> None:
    response = block_call("remove", invocation_id="x1", path="tmp") + block_call("remove", invocation_id="x2", path="/")
    a, _ = agent(SQLiteSession(tmp_path / "s.db", "s"), response)
    result = await a.run("Clean up.")
    assert ran == ["remove tmp"]
    assert [(p.invocation_id, p.reason) for p in result.pending] == [("x2", "it deletes everything")]


async def test_the_stream_tells_when_a_call_waits(tmp_path: Path) -> None:
    a, _ = agent(SQLiteSession(tmp_path / "s.db", "s"), TWO_WRITES)
    waiting = [e.pending.invocation_id async for e in a.stream("Write.") if isinstance(e, GadgetPendingEvent)]
    assert waiting == ["w1", "w2"]


async def test_native_calls_that_waited_are_answered_by_their_ids(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    reply = MockReply("Writing.", [tool_call("write", path="a.txt", text="x", id="call_9")])
    a, _ = agent(SQLiteSession(db, "s"), reply, syntax="native")
    result = await a.run("Write.")
    assert [p.invocation_id for p in result.pending] == ["call_9"]
    await SQLiteSession(db, "s").decide("call_9", Decision.approve())
    b, model = agent(SQLiteSession(db, "s"), "done", syntax="native")
    await b.run(None)
    answer = model.requests[0].messages[-1]
    assert isinstance(answer, GadgetResultMessage) and answer.tool_call_id == "call_9"


async def test_a_typed_run_that_pauses_returns_before_its_answer(tmp_path: Path) -> None:
    class Report(BaseModel):
        files: int

    a, _ = agent(SQLiteSession(tmp_path / "s.db", "s"), TWO_WRITES, output_type=Report)
    result = await a.run("Write two files and report.")
    assert result.stop_reason == "awaiting_approval" and len(result.pending) == 2


async def test_deferring_without_a_session_that_keeps_calls_is_refused_up_front() -> None:
    with pytest.raises(ValueError, match=r'approvals="defer" keeps calls .* but the agent has no session'):
        await Agent(model=MockModel(["x"]), gadgets=[write], approvals="defer").run("hi")


async def test_without_deferred_approvals_a_call_that_needs_approval_runs(tmp_path: Path) -> None:
    model = MockModel([block_call("write", path="a.txt", text="x"), "done"])
    await Agent(model=model, gadgets=[write], session=SQLiteSession(tmp_path / "s.db", "s")).run("Write.")
    assert ran == ["write a.txt"]


async def test_of_two_runs_resuming_at_once_one_runs_the_calls(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    a, _ = agent(SQLiteSession(db, "s"), block_call("write", invocation_id="w1", path="a.txt", text="x"))
    await a.run("Write.")
    await SQLiteSession(db, "s").decide("w1", Decision.approve())
    runs = [agent(SQLiteSession(db, "s"), "done")[0].run(None) for _ in range(2)]
    outcomes = await asyncio.gather(*runs, return_exceptions=True)
    assert ran == ["write a.txt"]
    assert sorted(type(o).__name__ for o in outcomes) == ["AgentResult", "ApprovalConflictError"]
    assert isinstance(next(o for o in outcomes if isinstance(o, Exception)), ApprovalConflictError)


async def test_every_store_keeps_and_resumes_waiting_calls(store: Store) -> None:
    a, _ = agent(store.session("s"), TWO_WRITES)
    await a.run("Write two files.")
    await store.session("s").decide("w1", Decision.approve())
    await store.session("s").decide("w2", Decision.deny())
    b, _ = agent(store.session("s"), "done")
    result = await b.run(None)
    assert ran == ["read notes.txt", "write a.txt"] and result.output == "done"
    roles = [m.role for m in await store.session("s").load()]
    assert roles == ["system", "user", "assistant", "gadget_result", "gadget_result", "gadget_result", "assistant"]


async def test_a_session_that_cannot_keep_waiting_calls_fails_the_run_clearly() -> None:
    class Plain:
        session_id = "p"

        async def load(self) -> list[Message]:
            return []

        async def save(self, messages: object) -> None:
            pass

        async def flush(self) -> None:
            pass

    with pytest.raises(ValueError, match="cannot keep them"):
        await agent(Plain(), TWO_WRITES)[0].run("Write.")
