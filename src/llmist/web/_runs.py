"""The runs the app has started: one agent, many conversations, at most one live run each.

A run's AG-UI events are kept while it lives, so a page that reloads (or a second tab) replays
them and follows the rest. The agent is shared: each run takes its session when it starts, and
the hooks :meth:`RunHub.install` adds find their run through a context variable, so two
conversations can run at once without seeing each other's calls.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from pydantic_core import PydanticSerializationError

from llmist._text import clean_value
from llmist.agent import (
    Agent,
    AgentStream,
    ApprovalsPendingError,
    ApprovalStore,
    Controllers,
    DeferGadget,
    GadgetContext,
    Hooks,
    Interceptors,
    LLMCallContext,
    LLMCompleteContext,
    Observers,
    PendingCall,
    ReplaceParameters,
    Session,
    SkipGadget,
    UserPrompt,
    merge_hooks,
)
from llmist.agent.approvals import denied_text, edited_note
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import approval_reason, may_need_approval
from llmist.providers.base import Message
from llmist.web.agui import AguiRun
from llmist.web.approvals import ApprovalRequest, Approvals, Decision, UnknownApprovalError

__all__ = ["LiveRun", "RunConflictError", "RunHub"]

logger = logging.getLogger("llmist.web")
_ENCODER = EventEncoder()


def _encoded(event: BaseEvent) -> str:
    """The event as a server-sent event; a lone surrogate in it (which UTF-8 JSON cannot hold)
    is sent as U+FFFD, the rule for text leaving the process (docs/limits.md)."""
    try:
        return _ENCODER.encode(event)
    except PydanticSerializationError:
        return _ENCODER.encode(type(event).model_validate(clean_value(event.model_dump())))


class RunConflictError(RuntimeError):
    """A conversation already has a live run."""


@dataclass(eq=False)
class LiveRun:
    """One run: its stream, its translator and the AG-UI events it sent so far (as SSE text)."""

    thread_id: str
    run_id: str
    translator: AguiRun
    stream: AgentStream[Any]
    history: list[Message] = field(default_factory=list)
    """The conversation as it stood when the run started."""
    prompt: dict[str, Any] | None = None
    """The run's user message as AG-UI JSON (a reloaded page shows it before the run's events)."""
    sent: list[str] = field(default_factory=list)
    done: bool = False
    llm_cost: float = 0.0
    gadget_cost: float = 0.0
    shown_cost: float = 0.0
    """The cost the page was last told."""
    edited: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Calls a person edited before approving: their new parameters."""
    stored: bool = False
    """Its calls that need approval wait in the session (the run ends, a decision resumes it)."""
    resumed: list[PendingCall] = field(default_factory=list)
    """The decided calls it starts with (it resumes a paused conversation)."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def publish(self, events: Iterable[BaseEvent]) -> None:
        """Send ``events`` to every follower (and keep them for later ones)."""
        added = False
        for event in events:
            self.sent.append(_encoded(event))
            added = True
        if added:
            self._changed.set()

    def close(self) -> None:
        """The run ended: followers get what is left, then their streams end."""
        self.done = True
        self._changed.set()

    async def follow(self) -> AsyncIterator[str]:
        """Every event of the run from its start, then each new one, until it ends."""
        seen = 0
        while True:
            while seen < len(self.sent):
                seen += 1
                yield self.sent[seen - 1]
            if self.done:
                return
            self._changed.clear()
            await self._changed.wait()


_current: contextvars.ContextVar[LiveRun | None] = contextvars.ContextVar("llmist_web_run", default=None)


class RunHub:
    """Starts, follows and stops the runs of one agent.

    Args:
        agent: The agent every conversation talks to.
        open_session: The session of a conversation (by thread id).
        approvals: Where guarded calls wait for a person while the run waits too.
        guarded: Names of the gadgets whose calls need approval.
        stored: Calls wait in the session instead, where it can keep them (an
            :class:`~llmist.agent.ApprovalStore`): the run ends, and a decision resumes it.
    """

    def __init__(
        self,
        agent: Agent[Any],
        open_session: Callable[[str], Session],
        approvals: Approvals,
        guarded: Iterable[str],
        *,
        stored: bool = False,
    ) -> None:
        self.agent = agent
        self.open_session = open_session
        self.approvals = approvals
        self.guarded = frozenset(guarded)
        self.stored = stored
        self.ended: dict[str, LiveRun] = {}
        """The last run of each conversation once it ended (its events stay for a late follower:
        a run a decision resumed can end before the page asks to follow it)."""
        self.paused: dict[str, str] = {}
        """Runs of this server that ended with calls waiting in their session: run id -> thread id."""
        self.live: dict[str, LiveRun] = {}
        """The live run of each conversation, by thread id."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._starting: set[str] = set()
        """Conversations whose run is loading its history (a second start must wait its turn)."""
        self._hooks: Hooks | None = None
        """The hooks that report to the page (made by :meth:`install`), joined to each run's."""

    def install(self) -> None:
        """Make the hooks that report to the page; each run takes them before the agent's own
        (approvals decide first), as an override: the agent, which the caller may share, is not changed."""
        self._hooks = Hooks(
            observers=Observers(
                on_llm_call_start=self._model_call_started,
                on_llm_call_complete=self._model_call_done,
                on_gadget_start=self._gadget_started,
                on_gadget_complete=self._gadget_done,
            ),
            interceptors=Interceptors(intercept_gadget_result=self._note_edit),
            controllers=Controllers(before_gadget=self._approve),
        )

    async def start(
        self, thread_id: str, run_id: str, prompt: UserPrompt | None, shown: dict[str, Any] | None = None
    ) -> LiveRun:
        """Start a run of ``thread_id``'s conversation (``prompt`` ``None``: continue it);
        ``shown`` is the prompt as AG-UI JSON, for a page that reloads during the run.

        Raises:
            RunConflictError: the conversation already has a live run.
            ValueError / LlmistError: the run cannot start (no message for a new conversation,
                images for a model that does not see them...).
        """
        if thread_id in self.live or thread_id in self._starting:
            raise RunConflictError(f"conversation {thread_id!r} already has a run in progress")
        self._starting.add(thread_id)
        try:
            session = self.open_session(thread_id)
            history = await session.load()
        finally:
            self._starting.discard(thread_id)
        if prompt is None and not history:
            raise ValueError("a new conversation needs a user message: the input's last message has none")
        stored = self.stored and isinstance(session, ApprovalStore)
        waiting = await session.pending() if isinstance(session, ApprovalStore) else []
        decided = [c for c in waiting if c.decision is not None or not c.needs_decision]
        if prompt is not None and len(decided) < len(waiting):
            undecided = ", ".join(c.invocation_id for c in waiting if c not in decided)
            raise ApprovalsPendingError(
                f"conversation {thread_id!r} waits for decisions on calls {undecided}: approve or deny them first"
            )
        agent = self.agent
        # The session and hooks are this run's overrides: two conversations' runs at once never
        # see each other's, and the agent's hooks as they are now join the page's.
        hooks = merge_hooks(self._hooks, agent.hooks)
        stream = agent.stream(prompt, history=history, session=session, hooks=hooks)
        gadgets = {g.name: g for g in agent.gadgets}
        translator = AguiRun(thread_id, run_id, gadgets, arg_prefix=agent.markers.arg)
        run = LiveRun(thread_id, run_id, translator, stream, history=history, prompt=shown, stored=stored)
        if decided and len(decided) == len(waiting):
            run.resumed = decided
        self.live[thread_id] = run
        task = asyncio.get_running_loop().create_task(self._pump(run), name=f"llmist-web run {run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run

    def find(self, run_id: str) -> LiveRun | None:
        """The live run ``run_id``, if any."""
        return next((r for r in self.live.values() if r.run_id == run_id), None)

    def followed(self, thread_id: str, run_id: str | None) -> LiveRun | None:
        """The run of ``thread_id`` to follow: the live one, or (named by ``run_id``) its last
        ended one, whose events are all there."""
        run = self.live.get(thread_id)
        if run is None and run_id is not None:
            last = self.ended.get(thread_id)
            run = last if last is not None and last.run_id == run_id else None
        return run if run_id is None or (run is not None and run.run_id == run_id) else None

    async def shutdown(self) -> None:
        """Cancel every live run and wait for them to end (the server is stopping)."""
        for run in list(self.live.values()):
            run.stream.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=10)

    async def _pump(self, run: LiveRun) -> None:
        _current.set(run)
        run.publish(run.translator.started())
        if run.resumed:
            run.publish(run.translator.resuming(run.resumed))
        try:
            async for event in run.stream:
                run.publish(run.translator.event(event))
        except Exception as exc:
            logger.exception("run %s of %s failed", run.run_id, run.thread_id)
            run.publish(run.translator.failed(f"{type(exc).__name__}: {exc}"))
        else:
            result = run.stream.result
            if result is not None and result.stop_reason == "awaiting_approval":
                self.paused[run.run_id] = run.thread_id
            run.publish(run.translator.finished(result))
        finally:
            self.live.pop(run.thread_id, None)
            self.ended[run.thread_id] = run
            run.close()

    # --- hooks (each acts only inside a run this hub started) ---------------------------------

    def _model_call_started(self, ctx: LLMCallContext) -> None:
        run = _current.get()
        if run is not None:
            run.publish(run.translator.model_call_started())

    def _model_call_done(self, ctx: LLMCompleteContext) -> None:
        run = _current.get()
        if run is not None:
            run.llm_cost += ctx.cost
            _show_cost(run)

    def _gadget_started(self, ctx: GadgetContext) -> None:
        run = _current.get()
        if run is not None:
            run.publish(run.translator.call_running(ctx.invocation_id, ctx.gadget_name))

    def _gadget_done(self, result: GadgetExecutionResult) -> None:
        run = _current.get()
        if run is not None:
            run.gadget_cost += result.cost
            _show_cost(run)

    async def decide(self, thread_id: str, invocation_id: str, decision: Decision) -> LiveRun | None:
        """Store ``decision`` for a call ``thread_id``'s session keeps waiting; once no call waits
        for a decision, start the run that resumes the conversation (returned).

        Raises:
            UnknownApprovalError / AlreadyDecidedError: as the session's ``decide``.
            RunConflictError: the conversation has a live run.
        """
        session = self.open_session(thread_id)
        if not isinstance(session, ApprovalStore):
            raise UnknownApprovalError(f"conversation {thread_id!r} keeps no calls waiting for approval")
        await session.decide(invocation_id, decision)
        if any(c.needs_decision and c.decision is None for c in await session.pending()):
            return None
        return await self.start(thread_id, f"run-{uuid.uuid4().hex[:12]}", None)

    def _reason(self, ctx: GadgetContext) -> str | None:
        """Why a call needs approval (its gadget's rule; a gadget named in ``guarded`` without a
        rule of its own needs it for every call), or ``None``."""
        if ctx.gadget_name not in self.guarded:
            return None
        gadget = next((g for g in self.agent.gadgets if g.name == ctx.gadget_name), None)
        if gadget is not None and may_need_approval(gadget):
            return approval_reason(gadget, dict(ctx.parameters))
        return f"{ctx.gadget_name} needs approval"

    async def _approve(self, ctx: GadgetContext) -> ReplaceParameters | SkipGadget | DeferGadget | None:
        run = _current.get()
        reason = self._reason(ctx) if run is not None else None
        if run is None or reason is None:
            return None
        if run.stored:
            return DeferGadget(reason)  # the session keeps it; the stream's GadgetPendingEvent shows it
        request = ApprovalRequest(
            run.thread_id, run.run_id, ctx.invocation_id, ctx.gadget_name, dict(ctx.parameters), reason
        )
        run.publish(run.translator.approval_requested(ctx.invocation_id, request.parameters, request.reason))
        started = time.monotonic()
        decision: Decision = await self.approvals.request(request)
        logger.info("%s %s after %.1fs", decision.action, ctx.invocation_id, time.monotonic() - started)
        run.publish(run.translator.approval_decided(ctx.invocation_id, decision.action))
        if decision.action == "deny":
            return SkipGadget(denied_text(ctx.gadget_name, decision.reason))
        if decision.action == "edit" and decision.parameters is not None:
            run.edited[ctx.invocation_id] = decision.parameters
            return ReplaceParameters(decision.parameters)
        return None

    def _note_edit(self, result: GadgetExecutionResult) -> GadgetExecutionResult:
        """Tell the model when a person changed a call's parameters before it ran."""
        run = _current.get()
        if run is None or result.invocation_id not in run.edited:
            return result
        note = edited_note(run.edited.pop(result.invocation_id))
        if result.result is not None:
            return dataclasses.replace(result, result=note + result.result)
        return dataclasses.replace(result, error=note + (result.error or ""))


def _show_cost(run: LiveRun) -> None:
    """Tell the page the run's cost when it changed."""
    total = run.llm_cost + run.gadget_cost
    if total != run.shown_cost:
        run.shown_cost = total
        run.publish(run.translator.cost(total))
