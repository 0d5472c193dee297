"""The calls of each response: admitted through the loop's repairs, submitted to the execution
layer's scheduler as they are parsed, their results turned into events and hook calls, ordered
for the conversation."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

from llmist.agent._run.hooks import RunHooks
from llmist.agent._run.plan import RunPlan
from llmist.agent._run.state import RunState
from llmist.agent.approvals import Decision, PendingCall, denied_text, edited_note
from llmist.agent.conversation import not_run_message
from llmist.agent.errors import RepairRefused
from llmist.agent.events import AgentEvent, GadgetPendingEvent, GadgetSkippedEvent, build_result_event
from llmist.agent.hooks import (
    DeferGadget,
    GadgetContext,
    RepairEvent,
    ReplaceParameters,
    ReplaceResult,
    SkipGadget,
    call_controller,
    call_observer,
)
from llmist.agent.repairs import CallRepairs, RepairKind
from llmist.agent.spec import AgentSpec
from llmist.agent.steps import RunSteps
from llmist.execution import (
    BeforeGadgetDecision,
    GadgetCallInfo,
    GadgetExecutionResult,
    GadgetExecutor,
    GadgetScheduler,
)
from llmist.execution.names import same_name
from llmist.execution.results import call_result
from llmist.gadgets import AbortSignal, GadgetOutputViewer, validate_gadget_params
from llmist.syntax import CallIds, ParsedCall

__all__ = ["ResponseCalls", "result_event"]

_LAST: Final = 1 << 30
_CANCELLED = "Cancelled: the run was cancelled before this call started"


class ResponseCalls:
    """Runs the calls of one run, response by response (one executor per run, one scheduler per
    response). Created inside the running event loop."""

    def __init__(
        self, cfg: RunPlan, hooks: RunHooks, spec: AgentSpec, st: RunState, signal: AbortSignal, ids: CallIds
    ) -> None:
        self.ids = ids
        """The run's call ids: its parsers', and those its repairs and native calls give."""
        self._cfg = cfg
        self._hooks = hooks
        self._spec = spec
        self._st = st
        self._signal = signal
        self._limit = spec.limits.max_gadgets_per_response
        self._strict = spec.strict
        self._executor: GadgetExecutor | None = None
        ctl = hooks.controllers
        self._on_skipped = ctl.on_dependency_skipped if ctl is not None else None
        self._after = ctl.after_gadget if ctl is not None else None
        obs = hooks.observers
        self._observed = obs is not None and (obs.on_gadget_complete is not None or obs.on_gadget_skipped is not None)
        """Whether observers want finished calls."""
        self._by_id: dict[str, GadgetExecutionResult] = {}
        self._sched: GadgetScheduler | None = None
        self._iteration = 0
        self._pos: dict[str, int] = {}
        self._resp: list[GadgetExecutionResult] = []
        self.completion: str | None = None
        """The ``TaskCompletionSignal`` summary, once a gadget raised it."""
        offered_later = cfg.viewer_entry is not None or cfg.viewer_tool is not None
        self.repairs = CallRepairs(
            cfg.by_name, hidden=(GadgetOutputViewer.name,) if offered_later else (), arg_prefix=cfg.markers.arg, ids=ids
        )
        """The loop's repairs of the run's calls."""
        self.kept: dict[tuple[str, str], GadgetExecutionResult] | None = None
        """After a model failed mid-response (fallback): the calls it had started, by gadget and
        parameters, that the next model has not written again yet."""
        self.pending: list[PendingCall] = []
        """This response's calls that were deferred (they wait for a decision, or for one that does)."""
        self.decided: dict[str, Decision] = {}
        """Calls a person decided (a resumed run's), by invocation id: they run as decided,
        without asking the ``before_gadget`` controllers again."""
        self._unwaited: dict[str, str] = {}
        """Calls run without waiting for an id no call has, and that id (``missing_dependency``)."""
        self._steps: RunSteps | None = None
        self._places: dict[str, tuple[int, int]] = {}
        """Each call's place in the run, (response, position), by invocation id: its idempotency
        key's second half, which a recovered run that parses the same responses again gives it
        again (whatever ids the calls were given)."""
        self.on_start: Callable[[str], Awaitable[None]] | None = None
        """Told before a call runs (while a resumed run runs its decided calls, it notes each in
        its session first)."""

    def use_steps(self, steps: RunSteps) -> None:
        """Run each call through ``steps`` (a durable run's: see ``llmist.agent.steps``)."""
        self._steps = steps

    # --- per response -------------------------------------------------------------------

    def start_response(self, iteration: int) -> None:
        """Begin the calls of a new response."""
        self._iteration = iteration
        self._sched = None
        self._pos = {}
        self._resp = []
        self.kept = None
        self.pending = []
        self.repairs.start_response()

    async def settle(self, r: GadgetExecutionResult, n: int) -> AgentEvent:
        """A result known without running the call (the ``n``-th of its response): recorded
        like a finished call, in its place."""
        self._pos.setdefault(r.invocation_id, n)
        return await self.finished(r)

    def remember(self, earlier: dict[str, GadgetExecutionResult]) -> None:
        """Results of calls made before this run (a paused response's): calls may depend on them."""
        self._by_id.update(earlier)

    def submit(self, call: ParsedCall, n: int) -> list[GadgetExecutionResult]:
        """Start ``call`` (the ``n``-th of its response); returns results known at once (a call
        over ``max_gadgets_per_response``)."""
        self._pos.setdefault(call.invocation_id, n)
        self._places[call.invocation_id] = (self._iteration, n)
        if self._signal.aborted:  # a call that closed as the run was cancelled (say, at finalize)
            return [call_result(call, None, _CANCELLED, "cancelled")]
        limit = self._limit
        if limit is not None and n > limit:
            return [call_result(call, None, not_run_message(limit), "error")]
        sched = self._sched
        if sched is None:
            sched = self._sched = GadgetScheduler(
                self._executor or self._make_executor(),
                on_dependency_skipped=self._on_skipped,
                completed=self._by_id,
                on_missing_dependency=self._without_dependency,
            )
        sched.submit(call)
        return []

    async def admit(self, call: ParsedCall, n: int) -> tuple[ParsedCall, list[GadgetExecutionResult]]:
        """:meth:`submit` after the loop's repairs (:class:`~llmist.agent.repairs.CallRepairs`):
        the call as repaired (as written, when it is answered without running) and the results
        known at once (the answer of a call not run); each repair is noted first."""
        self._pos.setdefault(call.invocation_id, n)  # its result's place, however it is answered
        repairs = self.repairs
        admitted = repairs.admit(call)
        if repairs.noted:
            for kind, detail, invocation_id in repairs.take_noted():
                await self.note_repair(kind, detail, invocation_id)
        if not isinstance(admitted, ParsedCall):
            return call, [admitted]
        return admitted, self.submit(admitted, n)

    def refuse(self, call: ParsedCall, n: int, error: str) -> GadgetExecutionResult:
        """The result of the response's ``n``-th call, answered with ``error`` without running or
        being repaired (a call the response's token limit cut off)."""
        self._pos.setdefault(call.invocation_id, n)
        return call_result(call, None, error, "error")

    async def note_repair(self, kind: RepairKind, detail: str, invocation_id: str | None = None) -> None:
        """Count a repair and tell the ``on_repair`` observer; in strict mode raise instead."""
        st = self._st
        event = RepairEvent(kind, st.iteration, detail, invocation_id)
        if self._strict:
            raise RepairRefused(event)
        st.repairs[kind] = st.repairs.get(kind, 0) + 1
        obs = self._hooks.observers
        if obs is not None and obs.on_repair is not None:
            await call_observer(obs.on_repair, event)

    # --- a response started over on the next model (fallback) ---------------------------

    def keep_started(self) -> list[str]:
        """The model failed mid-response: no more calls on this response's scheduler (those
        running finish: :meth:`late_result`); the invocation ids of every call it had made."""
        self.close_response()
        return list(self._pos)

    def reopen(self) -> None:
        """The next model starts the response over, once the kept calls finished: its calls get a
        new scheduler, and one it writes again as a kept call was (same gadget and parameters)
        gets that call's result instead of running twice (:meth:`kept_answer`)."""
        self._sched = None
        kept = self.kept or {}
        for r in self._resp:
            kept.setdefault(_signature(r.gadget_name, r.parameters), r)
        self.kept = kept

    def kept_answer(self, call: ParsedCall) -> GadgetExecutionResult | None:
        """The result of the kept call ``call`` repeats, now under ``call``'s id (and in its place
        among this response's results); ``None`` when it repeats none."""
        kept = self.kept
        if not kept or call.parameters is None:
            return None
        parameters = call.parameters
        gadget = self._cfg.by_name.get(call.gadget_name)
        if gadget is not None:  # compared as validated: defaults applied, values coerced
            checked = validate_gadget_params(gadget, parameters)
            if checked.success and isinstance(checked.data, dict):
                parameters = checked.data
        r = kept.pop(_signature(call.gadget_name, parameters), None)
        if r is None:
            return None
        answer = dataclasses.replace(r, invocation_id=call.invocation_id)
        self._resp[self._resp.index(r)] = answer
        self._pos[call.invocation_id] = self._pos.get(r.invocation_id, _LAST)
        return answer

    def take_ready(self) -> list[GadgetExecutionResult]:
        """Results finished so far (without waiting)."""
        return self._sched.take_ready() if self._sched is not None else []

    def close_response(self) -> None:
        """The response ended: no more calls (:meth:`late_result` gives the results still to come)."""
        if self._sched is not None:
            self._sched.close()

    def _without_dependency(self, call: ParsedCall, dep: str) -> bool:
        """A call of the response waits for ``dep``, an id no call has: it runs without waiting,
        told so, as the ``missing_dependency`` repair (noted here, reported by
        :meth:`late_result`; in strict mode the call fails instead, and the repair is refused)."""
        by_name = self._cfg.by_name
        if dep in by_name or same_name(dep, list(by_name)) is not None:
            return False  # a gadget's name: one of its calls was meant, which one is unknown
        detail = f"{call.gadget_name}: waits for {dep!r}, which no call has: run without waiting"
        self.repairs.noted.append(("missing_dependency", detail, call.invocation_id))
        if self._strict:
            return False
        self._unwaited[call.invocation_id] = dep
        return True

    async def late_result(self) -> AgentEvent | None:
        """The event of the next of this response's calls to finish after the response ended
        (recorded, observers told), in completion order; ``None`` once all have finished."""
        if self.repairs.noted:  # repairs made as the response ended (missing_dependency)
            for kind, detail, invocation_id in self.repairs.take_noted():
                await self.note_repair(kind, detail, invocation_id)
        sched = self._sched
        if sched is None:
            return None
        r = await sched.next_result()
        return None if r is None else await self.finished(r)

    def ordered(self) -> list[GadgetExecutionResult]:
        """This response's results in the order the model wrote the calls."""
        resp = self._resp
        if len(resp) < 2:
            return resp[:]
        pos = self._pos
        return sorted(resp, key=lambda r: pos.get(r.invocation_id, _LAST))

    def record(self, r: GadgetExecutionResult) -> GadgetExecutionResult:
        """Apply the result interceptor to a finished call and add it to the run's totals."""
        icp = self._hooks.interceptors
        if icp is not None and icp.intercept_gadget_result is not None:
            r = icp.intercept_gadget_result(r)
        st = self._st
        st.results.append(r)
        st.gadget_cost += r.cost
        self._resp.append(r)
        self._by_id[r.invocation_id] = r
        self.repairs.remember(r)
        if r.breaks_loop and self.completion is None:
            self.completion = r.result or ""
        return r

    async def finished(self, r: GadgetExecutionResult) -> AgentEvent:
        """A call finished: record it, tell the observers, and return its stream event (a
        deferred call is kept in :attr:`pending` instead: it did not run). The ``after_gadget``
        controller may replace what a call that ran left, before it is recorded."""
        d = r.deferral
        if d is not None:
            waiting = PendingCall(r.invocation_id, r.gadget_name, r.parameters, d.reason, d.waits_for, call=d.call)
            self.pending.append(waiting)
            return GadgetPendingEvent(waiting)
        if self._after is not None:
            action = await call_controller(self._after, r)
            if isinstance(action, ReplaceResult):
                r = dataclasses.replace(r, result=action.result, error=action.error)
        dep = self._unwaited.pop(r.invocation_id, None) if self._unwaited else None
        if dep is not None:
            r = _with_note(r, f"(This call waited for {dep!r}, but no call has that id: it ran without waiting.)\n")
        decision = self.decided.get(r.invocation_id)
        if decision is not None and decision.parameters is not None and r.skip is None:
            r = _with_note(r, edited_note(decision.parameters))
        r = self.record(r)
        if self._observed:
            await self._notify(r)
        return result_event(r)

    async def _notify(self, r: GadgetExecutionResult) -> None:
        """Tell the observers about a recorded call."""
        obs = self._hooks.observers
        if obs is None:
            return
        if r.skip is not None:
            if obs.on_gadget_skipped is not None:
                await call_observer(obs.on_gadget_skipped, r.skip)
        elif obs.on_gadget_complete is not None:
            await call_observer(obs.on_gadget_complete, r)

    def _make_executor(self) -> GadgetExecutor:
        """The run's executor, made when its first call arrives (runs without calls never pay for it)."""
        cfg = self._cfg
        gadgets = self._spec.gadget_settings
        hooks = self._hooks
        obs, icp, ctl = hooks.observers, hooks.interceptors, hooks.controllers
        wants_before = (
            (ctl is not None and ctl.before_gadget is not None)
            or (obs is not None and obs.on_gadget_start is not None)
            or bool(self.decided)
            or self.on_start is not None
        )
        wants_params = icp is not None and icp.intercept_gadget_parameters is not None
        self._executor = GadgetExecutor(
            cfg.gadgets,
            default_timeout_s=gadgets.timeout_s,
            arg_prefix=cfg.markers.arg,
            llm_client=cfg.llm_client,
            on_human_input=gadgets.on_human_input,
            output_store=cfg.output_store,
            before_gadget=self._before_gadget if wants_before else None,
            intercept_parameters=self._intercept_parameters if wants_params else None,
            around_call=self._steps.call if self._steps is not None else None,
            idempotency_scope=self._steps.scope if self._steps is not None else None,
            call_positions=self._places,
        )
        self._loop = asyncio.get_running_loop()
        self._signal.add_listener(self._on_abort)
        return self._executor

    # --- hook adapters ------------------------------------------------------------------

    async def _before_gadget(self, info: GadgetCallInfo) -> BeforeGadgetDecision | None:
        ctx = GadgetContext(
            self._iteration, info.gadget_name, info.invocation_id, info.parameters, info.call.dependencies
        )
        ctl, obs = self._hooks.controllers, self._hooks.observers
        decision: BeforeGadgetDecision | None = None
        decided = self.decided.get(info.invocation_id)
        if decided is not None:  # a person's decision: the controllers are not asked again
            if decided.action == "deny":
                return BeforeGadgetDecision("skip", denied_text(info.gadget_name, decided.reason))
            if decided.parameters is not None:
                ctx = dataclasses.replace(ctx, parameters=dict(decided.parameters))
                decision = BeforeGadgetDecision(parameters=dict(decided.parameters))
        elif ctl is not None and ctl.before_gadget is not None:
            action = await call_controller(ctl.before_gadget, ctx)
            if isinstance(action, SkipGadget):
                return BeforeGadgetDecision("skip", action.result)
            if isinstance(action, DeferGadget):
                return BeforeGadgetDecision("defer", action.reason)
            if isinstance(action, ReplaceParameters):
                ctx = dataclasses.replace(ctx, parameters=dict(action.parameters))
                decision = BeforeGadgetDecision(parameters=dict(action.parameters))
        if self.on_start is not None:
            await self.on_start(info.invocation_id)
        if obs is not None and obs.on_gadget_start is not None:
            await call_observer(obs.on_gadget_start, ctx)
        return decision

    def _intercept_parameters(self, gadget_name: str, raw: dict[str, Any], call: ParsedCall) -> dict[str, Any]:
        icp = self._hooks.interceptors
        assert icp is not None and icp.intercept_gadget_parameters is not None
        ctx = GadgetContext(self._iteration, gadget_name, call.invocation_id, raw)
        return icp.intercept_gadget_parameters(raw, ctx)

    # --- cancellation -------------------------------------------------------------------

    def _on_abort(self, reason: object) -> None:
        with contextlib.suppress(RuntimeError):  # loop already closed: nothing left to cancel
            self._loop.call_soon_threadsafe(self._cancel_now)

    def _cancel_now(self) -> None:
        if self._sched is not None:
            self._sched.cancel("the run was cancelled")

    async def shutdown(self) -> None:
        """Cancel anything still running (the run ended early or failed), wait for it, and stop
        listening to the run's signal."""
        sched = self._sched
        if sched is not None:
            await sched.__aexit__(None, None, None)
        if self._executor is not None:
            self._signal.remove_listener(self._on_abort)


def _signature(gadget: str, parameters: dict[str, Any]) -> tuple[str, str]:
    """A call as two models would both write it: its gadget and its parameters as JSON."""
    return gadget, json.dumps(parameters, sort_keys=True, default=str)


def _with_note(r: GadgetExecutionResult, note: str) -> GadgetExecutionResult:
    """``r`` with ``note`` before what the model reads of it."""
    if r.result is not None:
        return dataclasses.replace(r, result=note + r.result)
    return dataclasses.replace(r, error=note + (r.error or ""))


def result_event(r: GadgetExecutionResult) -> AgentEvent:
    """The stream event of a recorded call."""
    skip = r.skip
    if skip is None:
        return build_result_event(r)
    return GadgetSkippedEvent(
        skip.gadget_name, skip.invocation_id, skip.parameters, skip.failed_dependency, skip.failed_dependency_error
    )
