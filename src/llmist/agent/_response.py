"""One response of a run in the making: its parser events turned into agent events and
started calls, and the wait for the model's next chunk.

Kept apart from :mod:`llmist.agent._loop` (whose ``run_loop`` is an async generator) so the
compiled build can compile these per-chunk paths with mypyc.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from typing import Any

from llmist.agent._config import RunConfig
from llmist.agent._scheduling import ResponseCalls, result_event
from llmist.agent.events import AgentEvent
from llmist.agent.hooks import ChunkContext, call_observer
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import AbortSignal
from llmist.providers.base import LLMChunk, Usage
from llmist.syntax import ArgsPartialEvent, EmojiCallParser, GadgetCallEvent, GadgetCallParser, SyntaxEvent, TextEvent

__all__ = ["ModelWait", "Response", "RunState"]


class RunState:
    """Mutable totals of one run."""

    __slots__ = ("gadget_cost", "iteration", "llm_cost", "results", "started", "usage")

    def __init__(self) -> None:
        self.iteration = 0
        self.usage = Usage()
        self.llm_cost = 0.0
        self.gadget_cost = 0.0
        self.results: list[GadgetExecutionResult] = []
        self.started = time.perf_counter()


class Response:
    """One response in the making: its text, its prose, and its calls (started as they are parsed)."""

    __slots__ = ("calls", "cfg", "ctx", "emit", "finish", "n_calls", "parser", "prose", "raw", "usage")

    def __init__(
        self,
        cfg: RunConfig,
        calls: ResponseCalls,
        parser: GadgetCallParser | EmojiCallParser,
        ctx: ChunkContext | None,
        emit: bool,
    ) -> None:
        self.cfg = cfg
        self.calls = calls
        self.parser = parser
        self.ctx = ctx
        self.emit = emit
        """Whether events are wanted (``Agent.run`` needs only the result: it builds none)."""
        self.raw: list[str] = []
        """The response text, chunk by chunk (after raw-chunk interceptors)."""
        self.prose: list[str] = []
        """Text outside calls (after text interceptors): the run's output if this is the last response."""
        self.n_calls = 0
        self.usage: Usage | None = None
        """The usage the model reported (its last report), if any."""
        self.finish: str | None = None
        """The model's finish reason, if it gave one."""

    async def feed(self, chunk: LLMChunk) -> list[AgentEvent]:
        """A model chunk: note its usage and finish reason, and pass its text through the
        raw-chunk interceptor and the ``on_stream_chunk`` observer to :meth:`feed_text`."""
        if chunk.usage is not None:
            self.usage = chunk.usage
        if chunk.finish_reason is not None:
            self.finish = chunk.finish_reason
        text = chunk.text
        if not text:
            return []
        icp, obs = self.cfg.interceptors, self.cfg.observers
        if icp is not None and icp.intercept_raw_chunk is not None:
            changed = icp.intercept_raw_chunk(text, self.ctx)  # type: ignore[arg-type]
            if not changed:
                return []
            text = changed
        if obs is not None and obs.on_stream_chunk is not None:
            await call_observer(obs.on_stream_chunk, text, self.ctx)
        return await self.feed_text(text)

    async def feed_text(self, text: str) -> list[AgentEvent]:
        """Response text (a chunk, or a whole response a controller supplied) through the parser."""
        self.raw.append(text)
        return await self.handle(self.parser.feed(text))

    async def finalize(self) -> list[AgentEvent]:
        """The response ended: whatever the parser still holds (text, a call cut off)."""
        return await self.handle(self.parser.finalize())

    def clear(self) -> None:
        """Forget what streamed so far, in the parser too (the model failed and a controller
        supplies the response)."""
        self.parser.reset()
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


class ModelWait:
    """Lets a cancelled run stop while it waits for the model's next chunk (a stalled stream),
    not only when that chunk arrives: the abort cancels the wait itself.

    The loop brackets each wait with :meth:`waiting` and :meth:`done_waiting` (not a wrapper
    coroutine: one fewer coroutine, and no exception passing through compiled code, per chunk).
    """

    __slots__ = ("_interrupted", "_loop", "_task")

    def __init__(self, signal: AbortSignal) -> None:
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[Any] | None = None  # set only while waiting for a chunk
        self._interrupted = False
        signal.add_listener(self._on_abort)

    def detach(self, signal: AbortSignal) -> None:
        """The run is over: stop listening to its signal (which may outlive it)."""
        signal.remove_listener(self._on_abort)

    def waiting(self) -> None:
        """The current task now waits for a chunk: an abort cancels it."""
        self._task = asyncio.current_task(self._loop)  # the loop given: no get_running_loop()

    def done_waiting(self) -> None:
        """The wait is over (a chunk, the end, or an error)."""
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
