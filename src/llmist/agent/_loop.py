"""The agent loop: stream a response, run its calls while it streams, feed results back, repeat.

:func:`run_loop` is the async generator behind ``Agent.stream()`` and ``Agent.run()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from typing import Any

from llmist.agent._config import RunConfig
from llmist.agent._guard import check_model_allowed
from llmist.agent._scheduling import ResponseCalls, result_event
from llmist.agent.conversation import result_message
from llmist.agent.events import AgentEvent, LLMResponseEndEvent
from llmist.agent.hooks import (
    ChunkContext,
    IterationContext,
    LLMCallContext,
    LLMCompleteContext,
    LLMErrorContext,
    Recover,
    SkipLLMCall,
    call_controller,
    call_observer,
)
from llmist.agent.result import AgentResult, StopReason
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import AbortSignal
from llmist.providers.base import LLMChunk, Message, Usage, new_message, new_request
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, SyntaxEvent, TextEvent

__all__ = ["RunConfig", "run_loop"]

logger = logging.getLogger("llmist.agent")

_NO_CALLS_NUDGE = (
    "Your last answer made no gadget calls. Continue the task with gadget calls, "
    "or give your final answer if it is done."
)


class _RunState:
    """Mutable totals of one run."""

    __slots__ = ("gadget_cost", "iteration", "llm_cost", "results", "started", "usage")

    def __init__(self) -> None:
        self.iteration = 0
        self.usage = Usage()
        self.llm_cost = 0.0
        self.gadget_cost = 0.0
        self.results: list[GadgetExecutionResult] = []
        self.started = time.perf_counter()


class _Response:
    """One response in the making: its text, its prose, and its calls (started as they are parsed)."""

    __slots__ = ("calls", "cfg", "ctx", "emit", "n_calls", "prose", "raw")

    def __init__(self, cfg: RunConfig, calls: ResponseCalls, ctx: ChunkContext | None, emit: bool) -> None:
        self.cfg = cfg
        self.calls = calls
        self.ctx = ctx
        self.emit = emit
        """Whether events are wanted (``Agent.run`` needs only the result: it builds none)."""
        self.raw: list[str] = []
        """The response text, chunk by chunk (after raw-chunk interceptors)."""
        self.prose: list[str] = []
        """Text outside calls (after text interceptors): the run's output if this is the last response."""
        self.n_calls = 0

    def clear(self) -> None:
        """Forget what streamed so far (the model failed and a controller supplies the response)."""
        self.raw.clear()
        self.prose.clear()

    async def handle(self, events: Iterable[SyntaxEvent]) -> list[AgentEvent]:
        """Apply hooks to parser events, start each call at once, and add results finished so far."""
        out: list[AgentEvent] = []
        cfg, calls, emit = self.cfg, self.calls, self.emit
        icp, obs = cfg.interceptors, cfg.observers
        for ev in events:
            kind = type(ev)
            if kind is TextEvent:
                if icp is not None and icp.intercept_text_chunk is not None:
                    content = icp.intercept_text_chunk(ev.content, self.ctx)  # type: ignore[arg-type,union-attr]
                    if not content:
                        continue
                    ev = TextEvent(content)
                self.prose.append(ev.content)  # type: ignore[union-attr]
            elif kind is GadgetCallEvent:
                self.n_calls += 1
                immediate = calls.submit(ev.call, self.n_calls)  # type: ignore[union-attr]
                if emit:
                    out.append(ev)
                for r in immediate:
                    await self.finished(r, out)
                continue
            elif kind is ArgsPartialEvent and obs is not None and obs.on_args_partial is not None:
                await call_observer(obs.on_args_partial, ev)
            if emit:
                out.append(ev)
        for r in calls.take_ready():
            await self.finished(r, out)
        return out

    async def finished(self, r: GadgetExecutionResult, out: list[AgentEvent]) -> None:
        """Record a finished call and tell the observers; add its event to ``out`` if wanted."""
        calls = self.calls
        r = calls.record(r)
        if calls.observed:
            await calls.notify(r)
        if self.emit:
            out.append(result_event(r))


class _ModelWait:
    """Lets a cancelled run stop while it waits for the model's next chunk (a stalled stream),
    not only when that chunk arrives: the abort cancels the wait itself."""

    __slots__ = ("_interrupted", "_loop", "_task")

    def __init__(self, signal: AbortSignal) -> None:
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[Any] | None = None  # set only while waiting for a chunk
        self._interrupted = False
        signal.add_listener(self._on_abort)

    def detach(self, signal: AbortSignal) -> None:
        """The run is over: stop listening to its signal (which may outlive it)."""
        signal.remove_listener(self._on_abort)

    async def next(self, chunks: AsyncIterator[LLMChunk]) -> LLMChunk:
        """The next chunk (``StopAsyncIteration`` at the end); an abort meanwhile cancels the wait."""
        self._task = asyncio.current_task()
        try:
            return await chunks.__anext__()
        finally:
            self._task = None

    def interrupted_here(self) -> bool:
        """Whether the ``CancelledError`` being handled is the abort's own (then it is consumed)."""
        if not self._interrupted:
            return False
        self._interrupted = False
        task = asyncio.current_task()
        return task is None or task.uncancel() == 0  # another cancellation too: let it through

    def _on_abort(self, reason: object) -> None:
        with contextlib.suppress(RuntimeError):  # loop closed: the run is long over
            self._loop.call_soon_threadsafe(self._interrupt)

    def _interrupt(self) -> None:
        task = self._task
        if task is not None and not self._interrupted:
            self._interrupted = True
            task.cancel("run cancelled")


async def run_loop(
    cfg: RunConfig, prompt: str, signal: AbortSignal, on_result: Callable[[AgentResult], None], emit: bool = True
) -> AsyncGenerator[AgentEvent, None]:
    """Run the agent on ``prompt``, yielding events (none when ``emit`` is false: ``Agent.run``
    needs only the result); hand the :class:`AgentResult` to ``on_result``."""
    agent = cfg.agent
    obs, icp, ctl = cfg.observers, cfg.interceptors, cfg.controllers
    st = _RunState()
    messages: list[Message] = [cfg.system_message, Message("user", prompt)]
    calls = ResponseCalls(cfg, st, signal)
    model_wait = _ModelWait(signal)
    parser = cfg.take_parser()
    stop: StopReason | None = None
    output = ""
    try:
        while stop is None:
            if signal.aborted:
                stop = "cancelled"
                break
            st.iteration += 1
            it = st.iteration
            if it > 1:
                parser.reset()
            calls.start_response(it)
            resp = _Response(cfg, calls, ChunkContext(it) if (obs is not None or icp is not None) else None, emit)
            usage: Usage | None = None
            finish: str | None = None
            synthetic: str | None = None
            call_ctx = LLMCallContext(it, cfg.model_name, messages) if (obs is not None or ctl is not None) else None
            if ctl is not None and ctl.before_llm_call is not None:
                action = await call_controller(ctl.before_llm_call, call_ctx)
                if isinstance(action, SkipLLMCall):
                    synthetic = action.response
            if obs is not None and obs.on_llm_call_start is not None:
                await call_observer(obs.on_llm_call_start, call_ctx)
            if synthetic is None:
                check_model_allowed(cfg.provider, cfg.model_name)
                request = new_request(
                    cfg.model_name, tuple(messages), agent.max_response_tokens, agent.temperature, (), {}
                )
                stream = cfg.provider.stream(request)
                chunks = stream.__aiter__()
                finished = False
                try:
                    while True:
                        try:
                            chunk = await model_wait.next(chunks)
                        except StopAsyncIteration:
                            finished = True
                            break
                        if chunk.usage is not None:
                            usage = chunk.usage
                        if chunk.finish_reason is not None:
                            finish = chunk.finish_reason
                        text = chunk.text
                        if not text:
                            continue
                        if icp is not None and icp.intercept_raw_chunk is not None:
                            changed = icp.intercept_raw_chunk(text, resp.ctx)  # type: ignore[arg-type]
                            if not changed:
                                continue
                            text = changed
                        if obs is not None and obs.on_stream_chunk is not None:
                            await call_observer(obs.on_stream_chunk, text, resp.ctx)
                        resp.raw.append(text)
                        events = await resp.handle(parser.feed(text))
                        if emit:
                            for ev in events:
                                yield ev
                        if signal.aborted:
                            break
                except asyncio.CancelledError:
                    if not model_wait.interrupted_here():
                        raise
                except Exception as exc:
                    synthetic = await _after_error(cfg, it, exc)
                    if synthetic is None:
                        raise
                    parser.reset()
                    resp.clear()
                finally:
                    aclose = None if finished else getattr(stream, "aclose", None)
                    if aclose is not None:
                        await aclose()
            if synthetic is not None:
                resp.raw.append(synthetic)
                events = await resp.handle(parser.feed(synthetic))
                if emit:
                    for ev in events:
                        yield ev
            events = await resp.handle(parser.finalize())
            if emit:
                for ev in events:
                    yield ev
            response_usage = usage if usage is not None else Usage()
            st.usage = st.usage + response_usage
            cost = cfg.cost_of(response_usage) if usage is not None else 0.0
            st.llm_cost += cost
            if emit:
                yield LLMResponseEndEvent(finish, usage)
            full_text = "".join(resp.raw)
            if obs is not None and obs.on_llm_call_complete is not None:
                provider_name = getattr(cfg.provider, "name", "")
                done = LLMCompleteContext(
                    it, cfg.model_name, full_text, response_usage, finish, cost, synthetic is not None, provider_name
                )
                await call_observer(obs.on_llm_call_complete, done)
            sched = calls.close_response()
            if sched is not None:
                late: list[AgentEvent] = []
                async for r in sched:
                    await resp.finished(r, late)
                    if late:
                        yield late.pop()
            messages.append(new_message("assistant", full_text))
            n_calls = resp.n_calls
            if n_calls:
                messages.extend(result_message(r) for r in calls.ordered())
            output = "".join(resp.prose).strip()
            if obs is not None and obs.on_iteration is not None:
                elapsed = time.perf_counter() - st.started
                await call_observer(
                    obs.on_iteration, IterationContext(it, st.usage, st.llm_cost, st.gadget_cost, elapsed, n_calls)
                )
            stop = _stop_reason(cfg, st, signal, calls.completion is not None, n_calls)
            if stop is None and n_calls == 0:
                messages.append(Message("user", _NO_CALLS_NUDGE))
    finally:
        await calls.shutdown()
        model_wait.detach(signal)
        cfg.give_back_parser(parser)
    final = calls.completion if calls.completion is not None else output
    if icp is not None and icp.intercept_final_message is not None:
        final = icp.intercept_final_message(final)
    on_result(
        AgentResult(
            output=final,
            gadget_results=st.results,
            usage=st.usage,
            llm_cost=st.llm_cost,
            gadget_cost=st.gadget_cost,
            iterations=st.iteration,
            stop_reason=stop,
            messages=messages,
        )
    )


def _stop_reason(
    cfg: RunConfig, st: _RunState, signal: AbortSignal, completed: bool, n_calls: int
) -> StopReason | None:
    """Why the run stops after this iteration, or ``None`` to go on."""
    agent = cfg.agent
    if signal.aborted:
        return "cancelled"
    if completed:
        return "task_complete"
    if n_calls == 0 and agent.stop_on_no_calls:
        return "no_calls"
    if agent.max_cost is not None and st.llm_cost + st.gadget_cost >= agent.max_cost:
        return "budget"
    if agent.max_tokens is not None and st.usage.total_tokens >= agent.max_tokens:
        return "budget"
    if st.iteration >= agent.max_iterations:
        return "max_iterations"
    return None


async def _after_error(cfg: RunConfig, iteration: int, exc: Exception) -> str | None:
    """Observers and the ``after_llm_error`` controller; the fallback response, or ``None`` to rethrow."""
    obs, ctl = cfg.observers, cfg.controllers
    ctx = LLMErrorContext(iteration, cfg.model_name, exc)
    if obs is not None and obs.on_llm_call_error is not None:
        await call_observer(obs.on_llm_call_error, ctx)
    if ctl is not None and ctl.after_llm_error is not None:
        action = await call_controller(ctl.after_llm_error, ctx)
        if isinstance(action, Recover):
            logger.info("model error recovered by controller: %s", exc)
            return action.response
    return None
