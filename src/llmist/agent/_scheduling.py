"""The calls of each response: submitted to the execution layer's scheduler as they are parsed,
their results turned into events and hook calls, ordered for the conversation."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from llmist.agent._config import RunConfig
from llmist.agent._state import RunState
from llmist.agent.conversation import not_run_message
from llmist.agent.events import AgentEvent, GadgetResultEvent, GadgetSkippedEvent
from llmist.agent.hooks import GadgetContext, ReplaceParameters, SkipGadget, call_controller, call_observer
from llmist.agent.repairs import (
    PARSER_REPAIRS,
    RepairEvent,
    RepairKind,
    RepairRefused,
    call_signature,
    json_calls,
    same_name,
    unknown_gadget_text,
    without_stray_body,
)
from llmist.execution import (
    BeforeGadgetDecision,
    GadgetCallInfo,
    GadgetExecutionResult,
    GadgetExecutor,
    GadgetScheduler,
)
from llmist.execution.results import call_result
from llmist.gadgets import AbortSignal
from llmist.syntax import ParsedCall

__all__ = ["ResponseCalls", "note_repair", "result_event"]

_LAST = 1 << 30
_CANCELLED = "Cancelled: the run was cancelled before this call started"


class ResponseCalls:
    """Runs the calls of one run, response by response (one executor per run, one scheduler per
    response). Created inside the running event loop."""

    def __init__(self, cfg: RunConfig, st: RunState, signal: AbortSignal) -> None:
        self._cfg = cfg
        self._st = st
        self._signal = signal
        self._executor: GadgetExecutor | None = None
        ctl = cfg.controllers
        self._on_skipped = ctl.on_dependency_skipped if ctl is not None else None
        obs = cfg.observers
        self._observed = obs is not None and (obs.on_gadget_complete is not None or obs.on_gadget_skipped is not None)
        """Whether observers want finished calls."""
        self._by_id: dict[str, GadgetExecutionResult] = {}
        self._sched: GadgetScheduler | None = None
        self._iteration = 0
        self._pos: dict[str, int] = {}
        self._resp: list[GadgetExecutionResult] = []
        self.completion: str | None = None
        """The ``TaskCompletionSignal`` summary, once a gadget raised it."""
        self._names = [g.name for g in cfg.gadgets]
        self._signatures: dict[str, tuple[str, str, str]] = {}
        """Invocation id -> what the call wrote, for calls that may be repeated."""
        self._done: dict[tuple[str, str, str], GadgetExecutionResult] = {}
        """Successful calls of the run by what they wrote."""

    # --- per response -------------------------------------------------------------------

    def start_response(self, iteration: int) -> None:
        """Begin the calls of a new response."""
        self._iteration = iteration
        self._sched = None
        self._pos = {}
        self._resp = []

    def submit(self, call: ParsedCall, n: int) -> list[GadgetExecutionResult]:
        """Start ``call`` (the ``n``-th of its response); returns results known at once (a call
        over ``max_gadgets_per_response``)."""
        self._pos.setdefault(call.invocation_id, n)
        if self._signal.aborted:  # a call that closed as the run was cancelled (say, at finalize)
            return [call_result(call, None, _CANCELLED, "cancelled")]
        limit = self._cfg.agent.max_gadgets_per_response
        if limit is not None and n > limit:
            return [call_result(call, None, not_run_message(limit), "error")]
        sched = self._sched
        if sched is None:
            sched = self._sched = GadgetScheduler(
                self._executor or self._make_executor(), on_dependency_skipped=self._on_skipped, completed=self._by_id
            )
        sched.submit(call)
        return []

    async def admit(self, call: ParsedCall, n: int) -> list[GadgetExecutionResult]:
        """:meth:`submit` after the loop's repairs: what the parser tolerated counted, a misspelt
        gadget name fixed, an unknown one answered with the closest names, a repeated call
        answered with its earlier result."""
        self._pos.setdefault(call.invocation_id, n)  # its result's place, however it is answered
        if call.repairs:
            await self._note_parser_repairs(call)
        name = call.gadget_name
        if name not in self._names:
            fixed = same_name(name, self._names)
            if fixed is None:
                text = unknown_gadget_text(name, self._names)
                await note_repair(self._cfg, self._st, "unknown_gadget", text, call.invocation_id)
                return [call_result(call, None, text, "error")]
            detail = f"gadget {name!r} read as {fixed!r}"
            await note_repair(self._cfg, self._st, "gadget_name", detail, call.invocation_id)
            call = dataclasses.replace(call, gadget_name=fixed)
        if call.repairs and call.syntax == "emoji":
            call = await self._unclosed(call)
        signature = call_signature(call)
        earlier = self._done.get(signature)
        if earlier is not None and not earlier.breaks_loop:
            detail = f"{call.gadget_name} call identical to {earlier.invocation_id} answered with its result"
            await note_repair(self._cfg, self._st, "repeated_call", detail, call.invocation_id)
            note = (
                f"\n(Note: this call is identical to {earlier.invocation_id}, made earlier in this run; "
                "this is its result again. Use it instead of repeating the call.)"
            )
            return [call_result(call, f"{earlier.result or ''}{note}", None, "success")]
        self._signatures[call.invocation_id] = signature
        return self.submit(call, n)

    async def _unclosed(self, call: ParsedCall) -> ParsedCall:
        """``call`` without the prose the model wrote after it, when the call was never closed and
        its gadget takes no body (:func:`~llmist.agent.repairs.without_stray_body`)."""
        gadget = next((g for g in self._cfg.gadgets if g.name == call.gadget_name), None)
        bare = None if gadget is None else without_stray_body(gadget, call)
        if bare is None:
            return call
        detail = f"{call.gadget_name} takes no body: the text after the unclosed call read as prose"
        await note_repair(self._cfg, self._st, "body_as_prose", detail, call.invocation_id)
        return bare

    def text_calls(self, prose: str) -> list[ParsedCall]:
        """Native tool calls the model wrote as JSON text in a response's ``prose`` (outside any
        call) that name a gadget: run as calls, each counted as a ``json_call`` repair."""
        if '"' not in prose:
            return []
        return json_calls(prose, self._names)

    async def _note_parser_repairs(self, call: ParsedCall) -> None:
        """Count each tolerance the parser needed to read ``call`` as a repair."""
        for name in call.repairs:
            kind, what = PARSER_REPAIRS.get(name, (None, name))
            if kind is not None:
                await note_repair(self._cfg, self._st, kind, f"{call.gadget_name}: {what}", call.invocation_id)

    def take_ready(self) -> list[GadgetExecutionResult]:
        """Results finished so far (without waiting)."""
        return self._sched.take_ready() if self._sched is not None else []

    def close_response(self) -> None:
        """The response ended: no more calls (:meth:`late_result` gives the results still to come)."""
        if self._sched is not None:
            self._sched.close()

    async def late_result(self) -> AgentEvent | None:
        """The event of the next of this response's calls to finish after the response ended
        (recorded, observers told), in completion order; ``None`` once all have finished."""
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
        icp = self._cfg.interceptors
        if icp is not None and icp.intercept_gadget_result is not None:
            r = icp.intercept_gadget_result(r)
        st = self._st
        st.results.append(r)
        st.gadget_cost += r.cost
        self._resp.append(r)
        self._by_id[r.invocation_id] = r
        signature = self._signatures.pop(r.invocation_id, None)
        if signature is not None and r.ok and r.skip is None:
            self._done.setdefault(signature, r)
        if r.breaks_loop and self.completion is None:
            self.completion = r.result or ""
        return r

    async def finished(self, r: GadgetExecutionResult) -> AgentEvent:
        """A call finished: record it, tell the observers, and return its stream event."""
        r = self.record(r)
        if self._observed:
            await self._notify(r)
        return result_event(r)

    async def _notify(self, r: GadgetExecutionResult) -> None:
        """Tell the observers about a recorded call."""
        obs = self._cfg.observers
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
        agent = cfg.agent
        obs, icp, ctl = cfg.observers, cfg.interceptors, cfg.controllers
        wants_before = (ctl is not None and ctl.before_gadget is not None) or (
            obs is not None and obs.on_gadget_start is not None
        )
        wants_params = icp is not None and icp.intercept_gadget_parameters is not None
        self._executor = GadgetExecutor(
            cfg.gadgets,
            default_timeout_s=agent.gadget_timeout_s,
            arg_prefix=cfg.markers.arg,
            llm_client=cfg.llm_client,
            on_human_input=agent.on_human_input,
            output_store=cfg.output_store,
            before_gadget=self._before_gadget if wants_before else None,
            intercept_parameters=self._intercept_parameters if wants_params else None,
        )
        self._loop = asyncio.get_running_loop()
        self._signal.add_listener(self._on_abort)
        return self._executor

    # --- hook adapters ------------------------------------------------------------------

    async def _before_gadget(self, info: GadgetCallInfo) -> BeforeGadgetDecision | None:
        ctx = GadgetContext(
            self._iteration, info.gadget_name, info.invocation_id, info.parameters, info.call.dependencies
        )
        ctl, obs = self._cfg.controllers, self._cfg.observers
        decision: BeforeGadgetDecision | None = None
        if ctl is not None and ctl.before_gadget is not None:
            action = await call_controller(ctl.before_gadget, ctx)
            if isinstance(action, SkipGadget):
                return BeforeGadgetDecision("skip", action.result)
            if isinstance(action, ReplaceParameters):
                ctx = dataclasses.replace(ctx, parameters=dict(action.parameters))
                decision = BeforeGadgetDecision(parameters=dict(action.parameters))
        if obs is not None and obs.on_gadget_start is not None:
            await call_observer(obs.on_gadget_start, ctx)
        return decision

    def _intercept_parameters(self, gadget_name: str, raw: dict[str, Any], call: ParsedCall) -> dict[str, Any]:
        icp = self._cfg.interceptors
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


async def note_repair(
    cfg: RunConfig, st: RunState, kind: RepairKind, detail: str, invocation_id: str | None = None
) -> None:
    """Count a repair and tell the ``on_repair`` observer; in strict mode raise instead."""
    event = RepairEvent(kind, st.iteration, detail, invocation_id)
    if cfg.agent.strict:
        raise RepairRefused(event)
    st.repairs[kind] = st.repairs.get(kind, 0) + 1
    obs = cfg.observers
    if obs is not None and obs.on_repair is not None:
        await call_observer(obs.on_repair, event)


def result_event(r: GadgetExecutionResult) -> AgentEvent:
    """The stream event of a recorded call."""
    skip = r.skip
    if skip is None:
        return GadgetResultEvent(r)
    return GadgetSkippedEvent(
        skip.gadget_name, skip.invocation_id, skip.parameters, skip.failed_dependency, skip.failed_dependency_error
    )
