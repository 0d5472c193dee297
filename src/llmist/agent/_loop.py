"""The agent loop: stream a response, run its calls while it streams, feed results back, repeat.

:func:`run_loop` is the async generator behind ``Agent.stream()`` and ``Agent.run()``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable

from llmist.agent._config import RunConfig
from llmist.agent._guard import check_model_allowed
from llmist.agent._response import ModelWait, Response, RunState
from llmist.agent._scheduling import ResponseCalls
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
from llmist.gadgets import AbortSignal
from llmist.providers.base import Message, Usage, new_message, new_request

__all__ = ["RunConfig", "run_loop"]

logger = logging.getLogger("llmist.agent")

_NO_CALLS_NUDGE = (
    "Your last answer made no gadget calls. Continue the task with gadget calls, "
    "or give your final answer if it is done."
)


async def run_loop(
    cfg: RunConfig, prompt: str, signal: AbortSignal, on_result: Callable[[AgentResult], None], emit: bool = True
) -> AsyncGenerator[AgentEvent, None]:
    """Run the agent on ``prompt``, yielding events (none when ``emit`` is false: ``Agent.run``
    needs only the result); hand the :class:`AgentResult` to ``on_result``."""
    agent = cfg.agent
    obs, icp, ctl = cfg.observers, cfg.interceptors, cfg.controllers
    st = RunState()
    messages: list[Message] = [cfg.system_message, Message("user", prompt)]
    calls = ResponseCalls(cfg, st, signal)
    model_wait = ModelWait(signal)
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
            chunk_ctx = ChunkContext(it) if (obs is not None or icp is not None) else None
            resp = Response(cfg, calls, parser, chunk_ctx, emit)
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
                        model_wait.waiting()
                        try:
                            chunk = await chunks.__anext__()
                        except StopAsyncIteration:
                            finished = True
                            break
                        finally:
                            model_wait.done_waiting()
                        events = await resp.feed(chunk)
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
                    resp.clear()
                finally:
                    aclose = None if finished else getattr(stream, "aclose", None)
                    if aclose is not None:
                        await aclose()
            if synthetic is not None:
                events = await resp.feed_text(synthetic)
                if emit:
                    for ev in events:
                        yield ev
            events = await resp.finalize()
            if emit:
                for ev in events:
                    yield ev
            usage, finish = resp.usage, resp.finish
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
                while (r := await sched.next_result()) is not None:
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
    cfg: RunConfig, st: RunState, signal: AbortSignal, completed: bool, n_calls: int
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
