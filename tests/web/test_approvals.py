"""The in-process approvals: a call waits until a decision arrives for it, and only for it."""

from __future__ import annotations

import asyncio

import pytest

from llmist.web import ApprovalRequest, Decision, InProcessApprovals, UnknownApprovalError


def request(invocation_id: str = "c1", run_id: str = "r1", thread_id: str = "t") -> ApprovalRequest:
    return ApprovalRequest(thread_id, run_id, invocation_id, "WriteFile", {"path": "a.txt"})


async def test_a_waiting_call_gets_the_decision_posted_for_it() -> None:
    approvals = InProcessApprovals()
    waiting = asyncio.create_task(approvals.request(request()))
    await asyncio.sleep(0)
    assert approvals.pending("t") == [request()]
    approvals.decide("r1", "c1", Decision("edit", {"path": "b.txt"}))
    assert await waiting == Decision("edit", {"path": "b.txt"})
    assert approvals.pending("t") == []


async def test_the_same_invocation_id_in_two_runs_waits_separately() -> None:
    approvals = InProcessApprovals()
    first = asyncio.create_task(approvals.request(request(run_id="r1")))
    second = asyncio.create_task(approvals.request(request(run_id="r2")))
    await asyncio.sleep(0)
    approvals.decide("r2", "c1", Decision("deny", reason="no"))
    assert (await second).action == "deny" and not first.done()
    first.cancel()


async def test_a_decision_for_no_waiting_call_is_refused() -> None:
    with pytest.raises(UnknownApprovalError, match="no call 'x' of run 'r' is waiting"):
        InProcessApprovals().decide("r", "x", Decision("approve"))


async def test_a_cancelled_wait_leaves_nothing_pending() -> None:
    approvals = InProcessApprovals()
    waiting = asyncio.create_task(approvals.request(request()))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert approvals.pending("t") == []


@pytest.mark.parametrize(
    ("action", "parameters", "message"),
    [("maybe", None, "'approve', 'edit' or 'deny'"), ("edit", None, "edited parameters as a JSON object")],
)
def test_a_malformed_decision_says_what_is_expected(action: str, parameters: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Decision(action, parameters)  # type: ignore[arg-type]
