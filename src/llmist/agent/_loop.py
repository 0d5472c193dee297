"""The agent loop: stream a response, run its calls while it streams, feed results back, repeat.

One :class:`RunConfig` is built per agent (prompt rendered once); :func:`run_loop` is the async
generator behind ``Agent.stream()`` and ``Agent.run()``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from llmist.agent._gadget_llm import gadget_llm
from llmist.agent._guard import check_model_allowed
from llmist.agent._models import shared_registry
from llmist.agent._scheduling import ResponseCalls, result_event
from llmist.agent.conversation import result_message
from llmist.agent.events import AgentEvent, LLMResponseEndEvent
from llmist.agent.hooks import (
    ChunkContext,
    Controllers,
    Hooks,
    Interceptors,
    IterationContext,
    LLMCallContext,
    LLMCompleteContext,
    LLMErrorContext,
    Observers,
    Recover,
    SkipLLMCall,
    call_controller,
    call_observer,
)
from llmist.agent.prompt import Markers, Syntax, render_system_prompt
from llmist.agent.result import AgentResult, StopReason
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import AbortSignal, Gadget, GadgetOutputStore, GadgetOutputViewer, output_char_limit
from llmist.providers.base import LLMRequest, Message, Provider, Usage
from llmist.syntax import ArgsPartialEvent, EmojiCallParser, GadgetCallEvent, GadgetCallParser, TextEvent

if TYPE_CHECKING:
    from llmist.agent.agent import Agent

__all__ = ["RunConfig", "run_loop"]

logger = logging.getLogger("llmist.agent")

DEFAULT_CONTEXT_WINDOW = 128_000
_NO_CALLS_NUDGE = (
    "Your last answer made no gadget calls. Continue the task with gadget calls, "
    "or give your final answer if it is done."
)


@dataclass(slots=True)
class RunConfig:
    """Everything a run needs, computed once per agent."""

    agent: Agent
    provider: Provider
    model_name: str
    system_prompt: str
    system_message: Message
    gadgets: list[Gadget]
    syntax: Syntax
    markers: Markers
    output_store: GadgetOutputStore | None
    """Shared by the agent's runs (ids are random, so runs do not see each other's outputs)."""
    observers: Observers | None
    interceptors: Interceptors | None
    controllers: Controllers | None
    cost_of: Callable[[Usage], float]
    llm_client: Any
    parsers: list[GadgetCallParser | EmojiCallParser] = field(default_factory=list)
    """Parsers of finished runs, reused by the next ones."""

    @classmethod
    def build(cls, agent: Agent, provider: Provider, model_name: str) -> RunConfig:
        """Resolve limits, pricing and hooks and render the system prompt."""
        registry = agent.model_registry
        if registry is None and not getattr(provider, "offline", False):
            registry = shared_registry()
        window = agent.context_window or _context_window(registry, provider, model_name) or DEFAULT_CONTEXT_WINDOW
        char_limit = output_char_limit(window, agent.gadget_output_limit_percent) if agent.gadget_output_limit else None
        listed = list(agent.gadgets)
        store: GadgetOutputStore | None = None
        if char_limit is not None:
            store = GadgetOutputStore(char_limit)
            if not any(g.name == GadgetOutputViewer.name for g in listed):
                listed.append(GadgetOutputViewer(store))
        prompt = render_system_prompt(
            listed, syntax=agent.syntax, markers=agent.markers, system=agent.system, system_extra=agent.system_extra
        )
        hooks: Hooks | None = agent.hooks
        return cls(
            agent=agent,
            provider=provider,
            model_name=model_name,
            system_prompt=prompt,
            system_message=Message("system", prompt),
            gadgets=listed,
            syntax=agent.syntax,
            markers=agent.markers,
            output_store=store,
            observers=hooks.observers if hooks is not None and _any_set(hooks.observers) else None,
            interceptors=hooks.interceptors if hooks is not None and _any_set(hooks.interceptors) else None,
            controllers=hooks.controllers if hooks is not None and _any_set(hooks.controllers) else None,
            cost_of=_pricer(registry, provider, model_name),
            llm_client=gadget_llm(agent.llm_client) if agent.llm_client is not None else None,
        )

    def take_parser(self) -> GadgetCallParser | EmojiCallParser:
        """A parser for one run: reused from earlier runs (reset) when one is free."""
        pool = self.parsers
        if pool:
            parser = pool.pop()
            parser.reset()
            return parser
        return self.new_parser()

    def give_back_parser(self, parser: GadgetCallParser | EmojiCallParser) -> None:
        """Return a run's parser to the pool (kept small)."""
        if len(self.parsers) < 8:
            self.parsers.append(parser)

    def new_parser(self) -> GadgetCallParser | EmojiCallParser:
        """A fresh call parser."""
        if self.syntax == "emoji":
            return EmojiCallParser()
        m = self.markers
        return GadgetCallParser(start_prefix=m.start, end_prefix=m.end, arg_prefix=m.arg)


def _any_set(obj: object) -> bool:
    return any(getattr(obj, name) is not None for name in type(obj).__slots__)  # type: ignore[attr-defined]


def _context_window(registry: Any, provider: Provider, model_name: str) -> int | None:
    if registry is None or not hasattr(registry, "get"):
        return None
    try:
        spec = registry.get(model_name, getattr(provider, "name", None))
    except Exception:
        return None
    window = getattr(spec, "context_window", None)
    return window if isinstance(window, int) else None


def _pricer(registry: Any, provider: Provider, model_name: str) -> Callable[[Usage], float]:
    if registry is None:
        return lambda usage: 0.0
    name = getattr(provider, "name", None)

    def cost_of(usage: Usage) -> float:
        try:
            return float(registry.cost(model_name, usage, name) or 0.0)
        except Exception:
            logger.debug("no price for %s:%s; cost counted as 0", name, model_name, exc_info=True)
            return 0.0

    return cost_of


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


async def run_loop(
    cfg: RunConfig, prompt: str, signal: AbortSignal, on_result: Callable[[AgentResult], None], emit: bool = True
) -> AsyncGenerator[AgentEvent, None]:
    """Run the agent on ``prompt``, yielding events (none when ``emit`` is false, as ``Agent.run``
    needs only the result); hand the :class:`AgentResult` to ``on_result``."""
    agent = cfg.agent
    obs, icp, ctl = cfg.observers, cfg.interceptors, cfg.controllers
    st = _RunState()
    messages: list[Message] = [cfg.system_message, Message("user", prompt)]
    calls = ResponseCalls(cfg, st, signal)
    parser = cfg.take_parser()
    stop: StopReason | None = None
    output = ""
    completion: str | None = None
    request_extra: dict[str, object] = {}
    try:
        while stop is None:
            if signal.aborted:
                stop = "cancelled"
                break
            st.iteration += 1
            it = st.iteration
            chunk_ctx = ChunkContext(it) if (obs is not None or icp is not None) else None
            calls.start_response(it)
            if it > 1:
                parser.reset()
            raw_parts: list[str] = []
            prose: list[str] = []
            n_calls = 0
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
                request = LLMRequest(
                    model=cfg.model_name,
                    messages=tuple(messages),
                    max_tokens=agent.max_response_tokens,
                    temperature=agent.temperature,
                    extra=request_extra,
                )
                stream = cfg.provider.stream(request)
                finished = False
                try:
                    async for chunk in stream:
                        if chunk.usage is not None:
                            usage = chunk.usage
                        if chunk.finish_reason is not None:
                            finish = chunk.finish_reason
                        text = chunk.text
                        if not text:
                            continue
                        if icp is not None and icp.intercept_raw_chunk is not None:
                            changed = icp.intercept_raw_chunk(text, chunk_ctx)  # type: ignore[arg-type]
                            if not changed:
                                continue
                            text = changed
                        if obs is not None and obs.on_stream_chunk is not None:
                            await call_observer(obs.on_stream_chunk, text, chunk_ctx)
                        raw_parts.append(text)
                        for ev in parser.feed(text):
                            if type(ev) is TextEvent:
                                if icp is not None and icp.intercept_text_chunk is not None:
                                    content = icp.intercept_text_chunk(ev.content, chunk_ctx)  # type: ignore[arg-type]
                                    if not content:
                                        continue
                                    ev = TextEvent(content)
                                prose.append(ev.content)
                            elif type(ev) is GadgetCallEvent:
                                n_calls += 1
                                immediate = calls.submit(ev.call, n_calls)  # starts now, before anyone sees the event
                                if emit:
                                    yield ev
                                for r in immediate:
                                    r = calls.record(r)
                                    if calls.observed:
                                        await calls.notify(r)
                                    if emit:
                                        yield result_event(r)
                                continue
                            elif type(ev) is ArgsPartialEvent and obs is not None and obs.on_args_partial is not None:
                                await call_observer(obs.on_args_partial, ev)
                            if emit:
                                yield ev
                        if calls.has_ready():
                            for r in calls.take_ready():
                                r = calls.record(r)
                                if calls.observed:
                                    await calls.notify(r)
                                if emit:
                                    yield result_event(r)
                        if signal.aborted:
                            break
                    else:
                        finished = True
                except Exception as exc:
                    recovered = await _after_error(cfg, it, exc)
                    if recovered is None:
                        raise
                    synthetic = recovered
                    parser.reset()
                    raw_parts.clear()
                    prose.clear()
                finally:
                    aclose = None if finished else getattr(stream, "aclose", None)
                    if aclose is not None:
                        await aclose()
            if synthetic is not None:
                raw_parts.append(synthetic)
                for ev in parser.feed(synthetic):
                    if type(ev) is GadgetCallEvent:
                        n_calls += 1
                        immediate = calls.submit(ev.call, n_calls)  # starts now, before anyone sees the event
                        if emit:
                            yield ev
                        for r in immediate:
                            r = calls.record(r)
                            if calls.observed:
                                await calls.notify(r)
                            if emit:
                                yield result_event(r)
                        continue
                    if type(ev) is TextEvent:
                        prose.append(ev.content)
                    if emit:
                        yield ev
            for ev in parser.finalize():
                if type(ev) is GadgetCallEvent:
                    n_calls += 1
                    immediate = calls.submit(ev.call, n_calls)  # starts now, before anyone sees the event
                    if emit:
                        yield ev
                    for r in immediate:
                        r = calls.record(r)
                        if calls.observed:
                            await calls.notify(r)
                        if emit:
                            yield result_event(r)
                    continue
                if type(ev) is TextEvent:
                    if icp is not None and icp.intercept_text_chunk is not None:
                        content = icp.intercept_text_chunk(ev.content, chunk_ctx)  # type: ignore[arg-type]
                        if not content:
                            continue
                        ev = TextEvent(content)
                    prose.append(ev.content)
                if emit:
                    yield ev
            response_usage = usage if usage is not None else Usage()
            st.usage = st.usage + response_usage
            cost = cfg.cost_of(response_usage) if usage is not None else 0.0
            st.llm_cost += cost
            if emit:
                yield LLMResponseEndEvent(finish, usage)
            full_text = "".join(raw_parts)
            if obs is not None and obs.on_llm_call_complete is not None:
                await call_observer(
                    obs.on_llm_call_complete,
                    LLMCompleteContext(
                        it,
                        cfg.model_name,
                        full_text,
                        response_usage,
                        finish,
                        cost,
                        synthetic is not None,
                        getattr(cfg.provider, "name", ""),
                    ),
                )
            sched = calls.close_response()
            if sched is not None:
                async for r in sched:
                    r = calls.record(r)
                    if calls.observed:
                        await calls.notify(r)
                    if emit:
                        yield result_event(r)
            messages.append(Message("assistant", full_text))
            if n_calls:
                messages.extend(result_message(r) for r in calls.ordered())
            if calls.completion is not None:
                completion = calls.completion
            output = "".join(prose).strip()
            if obs is not None and obs.on_iteration is not None:
                await call_observer(
                    obs.on_iteration,
                    IterationContext(
                        it, st.usage, st.llm_cost, st.gadget_cost, time.perf_counter() - st.started, n_calls
                    ),
                )
            if signal.aborted:
                stop = "cancelled"
            elif completion is not None:
                stop = "task_complete"
            elif n_calls == 0 and agent.stop_on_no_calls:
                stop = "no_calls"
            elif (agent.max_cost is not None and st.llm_cost + st.gadget_cost >= agent.max_cost) or (
                agent.max_tokens is not None and st.usage.total_tokens >= agent.max_tokens
            ):
                stop = "budget"
            elif it >= agent.max_iterations:
                stop = "max_iterations"
            elif n_calls == 0:
                messages.append(Message("user", _NO_CALLS_NUDGE))
    finally:
        await calls.shutdown()
        cfg.give_back_parser(parser)
    final = completion if completion is not None else output
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
