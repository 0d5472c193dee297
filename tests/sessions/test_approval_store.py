"""The approval half of the session contract: calls that wait, decisions, and the hold that makes
decided calls run once. Run against every store (see ``stores.py``)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from llmist.agent.approvals import (
    AlreadyDecidedError,
    ApprovalConflictError,
    ApprovalsPendingError,
    Decision,
    InvalidDecisionError,
    PendingCall,
    UnknownApprovalError,
)
from llmist.agent.messages import GadgetResultMessage
from llmist.agent.sessions import SessionConflictError
from llmist.providers.base import Message
from llmist.syntax import ParsedCall
from tests.sessions.stores import Store

CONVERSATION = [Message("system", "s"), Message("user", "write two files")]


def _waiting(invocation_id: str, waits_for: str | None = None) -> PendingCall:
    call = ParsedCall("WriteFile", invocation_id, "", {"path": f"{invocation_id}.txt"}, None, ())
    reason = "WriteFile writes files" if waits_for is None else f"runs after {waits_for}"
    return PendingCall(invocation_id, "WriteFile", {"path": f"{invocation_id}.txt"}, reason, waits_for, call=call)


async def _paused(store: Store, *calls: PendingCall) -> None:
    session = store.session("s")
    await session.load()
    await session.pause(CONVERSATION, calls or (_waiting("a"), _waiting("b")))


async def test_a_pause_keeps_the_conversation_and_the_calls_together(store: Store) -> None:
    await _paused(store, _waiting("a"), _waiting("c", waits_for="a"))
    session = store.session("s")
    assert await session.load() == CONVERSATION
    pending = await session.pending()
    assert [(p.invocation_id, p.needs_decision, p.decision) for p in pending] == [("a", True, None), ("c", False, None)]
    assert pending[0].call is not None and pending[0].call.parameters == {"path": "a.txt"}


async def test_a_session_that_is_not_paused_has_nothing_pending(store: Store) -> None:
    assert await store.session("none").pending() == []
    assert await store.session("none").claim() is None


async def test_a_decision_is_stored_with_the_call(store: Store) -> None:
    await _paused(store)
    decided = await store.session("s").decide("b", Decision.approve({"path": "other.txt"}))
    assert decided.decision == Decision("edit", {"path": "other.txt"})
    assert [p.decision for p in await store.session("s").pending()] == [None, Decision("edit", {"path": "other.txt"})]


async def test_deciding_an_unknown_call_names_the_calls_that_wait(store: Store) -> None:
    await _paused(store)
    with pytest.raises(UnknownApprovalError, match="no call 'zz' waits for a decision; the calls that do: a, b"):
        await store.session("s").decide("zz", Decision.approve())


async def test_deciding_in_a_session_that_waits_for_nothing_says_so(store: Store) -> None:
    with pytest.raises(UnknownApprovalError, match="no call 'a' waits for a decision; none does"):
        await store.session("empty").decide("a", Decision.approve())


async def test_an_edit_naming_a_parameter_the_call_lacks_is_refused_and_the_call_still_waits(store: Store) -> None:
    await _paused(store)
    with pytest.raises(
        InvalidDecisionError, match=r"call 'a' \(WriteFile\) has no parameter 'pth'; its parameters: path"
    ):
        await store.session("s").decide("a", Decision.approve({"pth": "other.txt"}))
    assert [p.decision for p in await store.session("s").pending()] == [None, None]


async def test_a_reason_any_text_is_stored_as_written(store: Store) -> None:
    reason = "not \udcff (a byte argv could not decode), not \x00, not \u202e"
    await _paused(store)
    await store.session("s").decide("a", Decision.deny(reason))
    assert (await store.session("s").pending())[0].decision == Decision.deny(reason)


async def test_deciding_twice_keeps_the_first_decision(store: Store) -> None:
    await _paused(store)
    await store.session("s").decide("a", Decision.deny("not that file"))
    first = r"'a' was already decided \(denied: 'not that file', at .*first decision stands"
    with pytest.raises(AlreadyDecidedError, match=first):
        await store.session("s").decide("a", Decision.approve())
    assert (await store.session("s").pending())[0].decision == Decision.deny("not that file")


async def test_a_call_that_waits_for_another_needs_no_decision(store: Store) -> None:
    await _paused(store, _waiting("a"), _waiting("c", waits_for="a"))
    with pytest.raises(UnknownApprovalError, match="'c' needs no decision: it runs after 'a'"):
        await store.session("s").decide("c", Decision.approve())


async def test_of_deciders_racing_on_one_call_exactly_one_wins(store: Store) -> None:
    await _paused(store)

    async def decide(n: int) -> Decision | None:
        try:
            await store.session("s").decide("a", Decision.deny(f"decider {n}"))
        except AlreadyDecidedError:
            return None
        return Decision.deny(f"decider {n}")

    outcomes = await asyncio.gather(*(decide(n) for n in range(6)))
    winners = [d for d in outcomes if d is not None]
    assert len(winners) == 1
    assert (await store.session("s").pending())[0].decision == winners[0]


async def test_the_calls_cannot_be_claimed_while_one_waits_for_a_decision(store: Store) -> None:
    await _paused(store)
    await store.session("s").decide("a", Decision.approve())
    with pytest.raises(ApprovalsPendingError, match="calls still wait for a decision: b"):
        await store.session("s").claim()


async def test_decided_calls_are_held_by_one_run_only(store: Store) -> None:
    await _paused(store)
    for iid in ("a", "b"):
        await store.session("s").decide(iid, Decision.approve())
    first, second = store.session("s"), store.session("s")
    claimed = await first.claim()
    assert claimed is not None and [c.invocation_id for c in claimed.calls] == ["a", "b"]
    with pytest.raises(ApprovalConflictError, match=r"another run .* is running the decided calls; each runs once"):
        await second.claim()


async def test_the_holders_next_write_ends_the_pause(store: Store) -> None:
    await _paused(store)
    for iid in ("a", "b"):
        await store.session("s").decide(iid, Decision.approve())
    holder = store.session("s")
    await holder.load()
    assert await holder.claim() is not None
    await holder.save([*CONVERSATION, GadgetResultMessage("gadget_result", "ok", "WriteFile", "a")])
    await holder.flush()
    assert await store.session("s").pending() == []
    assert len(await store.session("s").load()) == 3
    assert await store.session("s").claim() is None


async def test_a_released_hold_can_be_taken_again_with_what_was_noted(store: Store) -> None:
    await _paused(store)
    for iid in ("a", "b"):
        await store.session("s").decide(iid, Decision.approve())
    holder = store.session("s")
    await holder.claim()
    await holder.note_started("a")
    result = GadgetResultMessage("gadget_result", "Result of WriteFile (id a):\nwrote 3 bytes", "WriteFile", "a")
    await holder.note_result("a", result)
    await holder.note_started("b")
    assert await holder.release()
    again = await store.session("s").claim()
    assert again is not None
    assert again.results == {"a": result} and again.started == frozenset({"a", "b"})


async def test_a_hold_of_a_process_that_died_is_taken_over(store: Store) -> None:
    await _paused(store)
    for iid in ("a", "b"):
        await store.session("s").decide(iid, Decision.approve())
    code = (
        "import asyncio, sys; sys.path.insert(0, '.'); from tests.sessions.stores import open_session; "
        f"print(asyncio.run(open_session({store.spec!r}, 's').claim()) is not None)"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "True"  # it holds them, and ended without a word
    assert await store.session("s").claim() is not None


async def test_a_stale_holder_cannot_store_over_the_run_that_took_over(store: Store) -> None:
    await _paused(store)
    for iid in ("a", "b"):
        await store.session("s").decide(iid, Decision.approve())
    stale = store.session("s")
    await stale.load()
    await stale.claim()
    await store.session("s").release(force=True)  # as `llmist approvals S --release` would
    assert await store.session("s").claim() is not None
    with pytest.raises((ApprovalConflictError, SessionConflictError)):
        await stale.save([*CONVERSATION, Message("user", "late")])
        await stale.flush()
    assert await store.session("s").load() == CONVERSATION
