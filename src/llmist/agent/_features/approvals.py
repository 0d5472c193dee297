"""Deferred approvals in a run: a call that needs approval waits in the session, and a later run
runs the calls once a person decided them.

- **Deferring** (``Agent(approvals="defer")``): a ``before_gadget`` controller of the plan asks
  :func:`~llmist.gadgets.approval_reason` of each call and defers those that need approval (the
  execution layer defers the calls that depend on them too). The loop keeps the response's other
  calls running, then ends the run ``"awaiting_approval"``; the session feature stores the
  conversation and the waiting calls together.
- **Resuming** (any run of a session that waits, whatever its ``approvals``): before the loop
  starts, the waiting calls are read from the session. While one still waits for its decision
  the run ends at once, ``"awaiting_approval"`` again, without calling the model (a new prompt
  then is an error: the calls must be decided first). Once all are decided, the run takes them
  (:meth:`~llmist.agent.sessions.ApprovalStore.claim`: of two runs, one gets them, so each runs
  once) and the loop runs them first, as the run's prelude (``llmist.agent._features.resume``). The run's first save
  stores their results and ends the pause.

It sits inside the session feature, which has loaded the conversation it resumes and saves
what it keeps.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from llmist.agent._features import Feature
from llmist.agent._features.resume import Resumption
from llmist.agent.approvals import PendingCall
from llmist.agent.errors import ApprovalsPendingError
from llmist.agent.hooks import Controllers, DeferGadget, GadgetContext, Hooks
from llmist.agent.result import AgentResult
from llmist.agent.sessions import ApprovalStore
from llmist.gadgets import approval_reason
from llmist.providers.base import Usage

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent._run.plan import RunPlan
    from llmist.agent.spec import AgentSpec

__all__ = ["DeferredApprovals"]

logger = logging.getLogger("llmist.agent")


class DeferredApprovals(Feature):
    """Deferred approvals as a feature: the controller that defers, and the resume of decided calls."""

    def hooks(self, spec: AgentSpec, plan: RunPlan) -> Hooks | None:
        """With ``approvals="defer"``: defer each call that needs approval."""
        if spec.approvals != "defer":
            return None
        gadgets = {g.name: g for g in plan.gadgets}

        def defer(ctx: GadgetContext) -> DeferGadget | None:
            gadget = gadgets.get(ctx.gadget_name)
            reason = approval_reason(gadget, dict(ctx.parameters)) if gadget is not None else None
            return DeferGadget(reason) if reason is not None else None

        return Hooks(controllers=Controllers(before_gadget=defer))

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run of a session whose calls wait: end at once, or run the decided calls first."""
        session = run.spec.session
        # `session is None` first: isinstance against a protocol reads the protocol's members on
        # every call before Python 3.12, a tenth of a short run's time (benchmarks/RESULTS.md).
        if session is None or not isinstance(session, ApprovalStore):
            if run.spec.approvals == "defer":
                where = "no session" if session is None else f"session {session!r}, which cannot keep them"
                raise ValueError(
                    f'approvals="defer" keeps calls that wait for approval in the session, but the agent has '
                    f"{where}: give it an ApprovalStore, such as SQLiteSession(path, id) or SQLAlchemySession(url, id)"
                )
            return events
        return _resumed(run, session, events)


async def _resumed(run: RunContext, store: ApprovalStore, events: RunEvents) -> RunEvents:
    waiting = await store.pending()  # (the session feature, outside this one, has loaded the history)
    if waiting and any(c.needs_decision and c.decision is None for c in waiting):
        await events.aclose()
        if run.prompt is not None:
            undecided = ", ".join(c.invocation_id for c in waiting if c.needs_decision and c.decision is None)
            raise ApprovalsPendingError(
                f"{store!r}: calls wait for a decision ({undecided}); decide each (session.decide(id, Decision...), "
                "or `llmist approve` / `llmist deny`) before the conversation goes on"
            )
        run.result = _still_waiting(run, waiting)
        return
    claimed = await store.claim() if waiting else None
    if claimed is None:
        async for batch in events:
            yield batch
        return
    run.prelude = Resumption(claimed.calls, claimed.results, claimed.started, store.note_started, store.note_result)
    try:
        async for batch in events:
            yield batch
    finally:
        await events.aclose()
        with contextlib.suppress(Exception):  # the run's error says more; the hold is released if it can be
            await store.release()


def _still_waiting(run: RunContext, waiting: list[PendingCall]) -> AgentResult[Any]:
    """The result of a run that ends before it starts: the calls still wait for decisions."""
    return AgentResult(
        output="",
        gadget_results=[],
        usage=Usage(),
        llm_cost=0.0,
        gadget_cost=0.0,
        iterations=0,
        stop_reason="awaiting_approval",
        messages=list(run.history or ()),
        pending=waiting,
    )
