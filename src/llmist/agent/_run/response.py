"""One response of a run in the making: its parser events turned into agent events and
started calls, and the wait for the model's next chunk.

Kept apart from :mod:`llmist.agent._run.loop` (whose steps are async generators, which mypyc cannot
compile) so the compiled build compiles these per-chunk paths.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any, Final, assert_never

from llmist.agent._run.calls import ResponseCalls
from llmist.agent._run.degeneration import DegenerationWatch
from llmist.agent._run.hooks import RunHooks
from llmist.agent._run.plan import CallParser, RunPlan
from llmist.agent._run.state import RunState
from llmist.agent.conversation import cut_off_message, looped_call_message
from llmist.agent.events import AgentEvent, LLMResponseEndEvent, ReasoningEvent, build_result_event
from llmist.agent.hooks import ChunkContext, call_observer
from llmist.agent.prompt import COPIED_LINE_MAX
from llmist.agent.repairs import opens_like_result
from llmist.gadgets import AbortSignal
from llmist.providers.base import LLMChunk, ToolCall, Usage
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, ParsedCall, SyntaxEvent, TextEvent, native_call
from llmist.syntax.writing import EMOJI_END, EMOJI_START

__all__ = ["ModelWait", "Response"]

_WATCH_FROM: Final = 256  # Final: inlined by the compiled build (read on every chunk)
"""Characters of a response before the degeneration watch starts: a loop needs 16 lines of 8
characters or more (144 characters) before it is one, and most responses are shorter than this,
so they cost nothing (issue 39: the watch cost a one-call run 5 % more instructions)."""

_CAPPED_FINISH: Final = frozenset({"length", "max_tokens"})
"""Finish reasons of a response that reached its token limit: OpenAI's API and the llama.cpp
servers say ``length``, Anthropic ``max_tokens``, Gemini ``MAX_TOKENS`` (read in lower case)."""

_NOTHING_YET: list[str] = []
"""The prose after a call before any came (shared, never changed: the first prose replaces it)."""

_RESULT_OPENING: Final = 200
"""Characters of prose after a call within which a made-up result shows (its opening, "The
result of add is", is on the first line and shorter)."""


class Response:
    """One response in the making: its text, its prose, and its calls (started as they are parsed)."""

    __slots__ = (
        "_after",
        "_after_call",
        "_capped",
        "_cut_chunk",
        "_first",
        "_lines",
        "_loop",
        "_watch",
        "calls",
        "cfg",
        "cost",
        "ctx",
        "ended",
        "finish",
        "hooks",
        "invented",
        "n_calls",
        "parser",
        "prose",
        "raw",
        "synthetic",
        "text_calls",
        "tool_calls",
        "usage",
    )

    def __init__(
        self, cfg: RunPlan, hooks: RunHooks, calls: ResponseCalls, parser: CallParser, ctx: ChunkContext
    ) -> None:
        self.cfg = cfg
        self.hooks = hooks
        """``cfg``'s hooks with the run's own (``llmist.agent._run.hooks``)."""
        self.calls = calls
        self.parser = parser
        self.ctx = ctx
        self.synthetic: str | None = None
        """The response a controller supplied instead of the model's (``SkipLLMCall``, ``Recover``)."""
        self.raw: list[str] = []
        """The response text, chunk by chunk (after raw-chunk interceptors)."""
        self.prose: list[str] = []
        """Text outside calls (after text interceptors): the run's output if this is the last response."""
        self.n_calls = 0
        self.usage: Usage | None = None
        """The usage the model reported (its last report), if any."""
        self.finish: str | None = None
        """The model's finish reason, if it gave one."""
        self.cost = 0.0
        """USD of this response (set when it ends; 0 without usage or a price)."""
        self.tool_calls: list[ToolCall] = []
        """The native tool calls the model made (``syntax="native"``), in order."""
        self.text_calls: list[ParsedCall] = []
        """Tool calls the model wrote as JSON text in its prose (the ``json_call`` repair)."""
        self._watch = _CopyWatch()
        self._loop: DegenerationWatch | None = None
        """Reads the response for a loop: its calls from the first, its lines once it is
        :data:`_WATCH_FROM` characters long."""
        self._lines = False
        """Whether :attr:`_loop` reads the lines yet."""
        self._first: ParsedCall | None = None
        """The response's first call, until the watch is made (most responses make one call)."""
        self._cut_chunk = -1
        """Where the text of the chunk that completed a repeated call starts (-1: none did)."""
        self._capped = False
        """The stream ended at the response's token limit (read at :meth:`finalize`): a call the
        parser completes only then was cut off inside, and is not run."""
        self.ended = False
        """The response ended before the model stopped (it copied the prompt, wrote a result
        itself, or degenerated): the loop reads no more of its stream."""
        self.invented = False
        """It ended at a result the model wrote after its call (``invented_result``, counted by
        the loop as it drops that result from the conversation)."""
        self._after: list[str] | None = None
        """The prose since the response's last call, while it may still open like a result (text
        syntaxes); ``None`` once it cannot."""
        self._after_call: list[str] | None = None if cfg.syntax == "native" else _NOTHING_YET
        """What :attr:`_after` becomes at each call: a native call's result comes from the API."""

    @property
    def copied(self) -> str | None:
        """The line of the prompt the model went on to write in its prose (the ``copied_prompt``
        repair): the response ends there, and what follows it is dropped."""
        return self._watch.copied

    async def feed(self, chunk: LLMChunk) -> list[AgentEvent]:
        """A model chunk: note its usage and finish reason, and pass its text through the
        raw-chunk interceptor and the ``on_stream_chunk`` observer to :meth:`feed_text`. Its
        reasoning, if any, becomes a ``ReasoningEvent`` and goes no further; its native tool calls
        start at once, after its text."""
        if chunk.usage is not None:
            self.usage = chunk.usage
        if chunk.finish_reason is not None:
            self.finish = chunk.finish_reason
        text = chunk.text
        if chunk.reasoning or chunk.tool_calls:  # rare: kept off the common path (one coroutine per chunk)
            return await self._feed_parts(chunk)
        if not text:
            return []
        icp, obs = self.hooks.interceptors, self.hooks.observers
        if icp is not None and icp.intercept_raw_chunk is not None:
            changed = icp.intercept_raw_chunk(text, self.ctx)
            if not changed:
                return []
            text = changed
        if obs is not None and obs.on_stream_chunk is not None:
            await call_observer(obs.on_stream_chunk, text, self.ctx)
        return await self.feed_text(text)

    async def _feed_parts(self, chunk: LLMChunk) -> list[AgentEvent]:
        """A chunk with reasoning or native tool calls: the reasoning, the text, then the calls."""
        events: list[AgentEvent] = [ReasoningEvent(chunk.reasoning)] if chunk.reasoning else []
        if chunk.text:
            events.extend(await self.feed(LLMChunk(text=chunk.text)))
        if chunk.tool_calls and not self.ended:
            self.tool_calls.extend(chunk.tool_calls)
            calls = [
                GadgetCallEvent(native_call(c.name, c.arguments, c.id, ids=self.calls.ids)) for c in chunk.tool_calls
            ]
            events.extend(await self.handle(calls))
            if self.ended:  # a repeated call ended the response: the calls from it on were not made
                made = {ev.call.invocation_id for ev in events if isinstance(ev, GadgetCallEvent)}
                cut = [c for c in chunk.tool_calls if c.id not in made]
                self.tool_calls = [c for c in self.tool_calls if c not in cut]
        return events

    async def feed_text(self, text: str) -> list[AgentEvent]:
        """Response text (a chunk, or a whole response a controller supplied) through the parser;
        a chunk that completes a loop of repeated lines only up to where the repeats start."""
        self.raw.append(text)
        self._watch.chunk(text)
        if not self._lines and self._watch.text_size < _WATCH_FROM:
            return await self.handle(self.parser.feed(text))
        loop = self._loop or self._new_watch()
        if loop.text(text) if self._lines else self._start_lines(loop, text):
            keep = loop.cut_at - self._watch.chunk_at  # the repeats may start in this chunk
            events = await self.handle(self.parser.feed(text[:keep])) if keep > 0 else []
            if not self.ended:
                await self._degenerate(len(text) - max(keep, 0))
            return events
        return await self.handle(self.parser.feed(text))

    async def finalize(self) -> list[AgentEvent]:
        """The response ended: whatever the parser still holds (text, a call cut off), then the
        native tool calls the model wrote as JSON text in its prose."""
        if self.ended:  # what the parser still holds came after the copy, or is the loop
            events = await self._looped_call(self.parser.finalize())
        else:
            self._capped = self.finish in _CAPPED_FINISH
            events = await self.handle(self.parser.finalize())
            if self.cfg.prompt_lines and self._watch.copies("\n", self.cfg.prompt_lines):  # the last line
                await self._cut()
        found = self.calls.repairs.text_calls("".join(self.prose)) if self.prose else None
        if found:
            cut_chunk = self._cut_chunk
            self._first = None
            if self._loop is not None:
                self._loop.calls_read_again()
            made = await self.handle([GadgetCallEvent(c) for c in found])
            events.extend(made)
            self._cut_chunk = cut_chunk  # the stream had ended: a repeat found here cuts no text
            # A repeated call ended the response: it and the calls after it were not made.
            ids = {ev.call.invocation_id for ev in made if isinstance(ev, GadgetCallEvent)}
            self.text_calls = [c for c in found if c.invocation_id in ids]
        return events

    async def end(self, st: RunState) -> list[AgentEvent]:
        """The response ended: the parser's last events, no more calls, the usage and cost
        added to the run's totals ``st``, and the ``LLMResponseEndEvent``."""
        events = await self.finalize()
        self.calls.close_response()
        usage = self.usage
        if usage is not None:
            self.cost = self.cfg.cost_of(usage)
            st.usage = st.usage + usage
            st.llm_cost += self.cost
        model = None if self.synthetic is not None else self.cfg.model_ref
        if model is not None:
            by_model = st.models.get(model)
            if by_model is None:
                by_model = st.model_usage(model)
            by_model.add(st.iteration, usage, self.cost)
        events.append(LLMResponseEndEvent(self.finish, usage, model))
        return events

    def clear(self) -> None:
        """Forget what streamed so far, in the parser too (the model failed and a controller
        supplies the response)."""
        self.parser.reset()
        self.raw.clear()
        self.prose.clear()
        self.tool_calls.clear()
        self.text_calls = []
        self._watch = _CopyWatch()
        self._loop = None
        self._lines = False
        self._first = None
        self._cut_chunk = -1
        self._capped = False
        self.ended = False
        self.invented = False
        self._after = None

    def text(self) -> str:
        """The response as the conversation keeps it: as the model wrote it, up to the line of
        the prompt it went on to copy (the copy stays out: a model that sees itself copy copies
        more)."""
        raw = "".join(self.raw)
        watch = self._watch
        if watch.copied is not None:
            cut = raw.find(watch.copied, watch.after_call)
            if cut >= 0:
                return raw[:cut].rstrip()
        loop = self._loop
        if loop is not None and loop.cut_at >= 0:  # the repeats stay out (a model that sees itself loop loops more)
            return raw[: loop.cut_at].rstrip()
        if self._cut_chunk >= 0:
            return self._without_open_call(raw[: self._cut_chunk]).rstrip()
        return raw

    def _without_open_call(self, text: str) -> str:
        """``text`` without a call it ends inside of (text syntaxes): the repeated call it
        ended on was cut off there."""
        syntax = self.cfg.syntax
        if syntax == "native":
            return text
        start, end = (EMOJI_START, EMOJI_END) if syntax == "emoji" else (self.cfg.markers.start, self.cfg.markers.end)
        opened = text.rfind(start)
        return text[:opened] if opened > text.rfind(end) else text

    def restart(self, cfg: RunPlan, hooks: RunHooks, parser: CallParser, kept: int) -> None:
        """The model failed and the next one (``cfg`` with ``hooks``, read with ``parser``) starts the response
        over: what streamed is forgotten; the ``kept`` calls it had made count as its calls."""
        self.cfg = cfg
        self.hooks = hooks
        self.parser = parser
        self.clear()
        self.n_calls = kept
        self.usage = None
        self.finish = None

    async def handle(self, events: Iterable[SyntaxEvent]) -> list[AgentEvent]:
        """Apply hooks to parser events, start each call at once, and add results finished so far."""
        out: list[AgentEvent] = []
        lines = self.cfg.prompt_lines
        for ev in events:
            if isinstance(ev, TextEvent):
                text = self._text(ev)
                if text is not None:
                    out.append(text)
                    if (lines and self._watch.copies(text.content, lines)) or (
                        self._after is not None and self._invents(text.content)
                    ):
                        if not self.invented:
                            await self._cut()
                        # What follows is not run: the example's call of a copy, calls made from
                        # a made-up result.
                        break
            elif isinstance(ev, GadgetCallEvent):
                if self._loops(ev.call):
                    if not self.ended:  # else the text calls read at the end: the text stays
                        self._cut_chunk = self._watch.chunk_at
                        await self._degenerate()
                    break  # it, and the calls after it, are not run
                self._watch.call()
                self._after = self._after_call  # the prose after it may open like a result
                out.extend(await self._call(ev))
            elif isinstance(ev, ArgsPartialEvent):
                obs = self.hooks.observers
                if obs is not None and obs.on_args_partial is not None:
                    await call_observer(obs.on_args_partial, ev)
                out.append(ev)
            else:
                assert_never(ev)
        for r in self.calls.take_ready():
            out.append(await self.calls.finished(r))
        return out

    def _text(self, ev: TextEvent) -> TextEvent | None:
        """Prose outside calls, after the text interceptor (``None``: it dropped the text)."""
        icp = self.hooks.interceptors
        if icp is not None and icp.intercept_text_chunk is not None:
            content = icp.intercept_text_chunk(ev.content, self.ctx)
            if not content:
                return None
            ev = TextEvent(content)
        self.prose.append(ev.content)
        return ev

    def _invents(self, text: str) -> bool:
        """Whether ``text``, more prose after the last call, makes that prose open like a result
        the model wrote itself: the response then ends there."""
        after = self._after
        if after is None or after is _NOTHING_YET:
            self._after = after = []
        after.append(text)
        stretch = "".join(after)
        if opens_like_result(stretch):
            self.ended = self.invented = True
            return True
        # A result opens on its first line ("Result: 7", "The output is 7"): once that line is
        # written (or it grew long), the prose is the model's own.
        if "\n" in stretch.lstrip() or len(stretch) > _RESULT_OPENING:
            self._after = None
        return False

    def _loops(self, call: ParsedCall) -> bool:
        """Whether ``call`` makes the response a loop (the same call a third time)."""
        loop = self._loop
        if loop is None:
            if self._first is None:
                self._first = call
                return False
            loop = self._new_watch()
        return loop.call(call)

    def _new_watch(self) -> DegenerationWatch:
        """The response's degeneration watch, made at its second call or first line read."""
        loop = self._loop = _degeneration_watch(self.cfg)
        if self._first is not None:
            loop.call(self._first)
        return loop

    def _start_lines(self, loop: DegenerationWatch, text: str) -> bool:
        """The response reached :data:`_WATCH_FROM` characters with ``text``: the watch reads its
        lines from the start; whether they end the response."""
        self._lines = True
        return loop.text("".join(self.raw[:-1])) or loop.text(text)

    async def _degenerate(self, unread: int = 0) -> None:
        """The response became a loop (:class:`DegenerationWatch`): it ends there, its prose
        before the repeats kept, and a ``degenerate_response`` repair is counted (natively, a
        result written after a call written as JSON: ``invented_result``, the result dropped). The last
        ``unread`` characters of the text never reached the parser."""
        self.ended = True
        loop = self._loop
        assert loop is not None
        if loop.cut_at >= 0 and self.prose:
            # The prose ends with the repeats too (unless they were in a call): it is cut at
            # their second copy, found from where their text starts in the response's text.
            prose = "".join(self.prose)
            repeated = self._watch.text_size - unread - loop.cut_at  # of the text the parser read
            at = max(0, len(prose) - repeated)
            first = loop.first_line
            second = prose.find(first, at) if first else -1
            self.prose = [prose[: second if second >= 0 else at]]
        if loop.invented:  # natively: a result written after a call written as JSON
            detail = f"dropped the result the model wrote itself: {loop.first_line[:80]!r}; the response ended there"
            await self.calls.note_repair("invented_result", detail)
        else:
            await self.calls.note_repair("degenerate_response", f"the response ended early: {loop.found}")

    async def _looped_call(self, held: Iterable[SyntaxEvent]) -> list[AgentEvent]:
        """The events of the call the response ended inside of, when the degeneration watch
        ended it on lines repeating in that call (``held``: what the parser still held): the call
        is answered with an error, not run, as a call the token limit cut off is, so that the
        model hears why and can send it again; the run goes on. Nothing else that was held is
        read: it came after a copy of the prompt, a result the model wrote, or a repeated call."""
        loop = self._loop
        if loop is None or loop.cut_at < 0 or loop.invented or loop.found is None:
            return []
        for ev in held:
            if isinstance(ev, GadgetCallEvent) and "missing_end" in ev.call.repairs:
                self.n_calls += 1
                error = looped_call_message(ev.call.gadget_name, loop.found)
                return [ev, await self.calls.finished(self.calls.refuse(ev.call, self.n_calls, error))]
        return []

    async def _cut(self) -> None:
        """The prose line just read copies the prompt: the response ends before it."""
        self.ended = True
        watch = self._watch
        copied = watch.copied or ""
        prose = "".join(self.prose)
        self.prose = [prose[: watch.copied_at]]
        detail = f"the response went on with a line of the prompt: {copied[:80]!r}"
        await self.calls.note_repair("copied_prompt", detail)

    async def _call(self, ev: GadgetCallEvent) -> list[AgentEvent]:
        """Start a parsed call: its event (the call as the loop's repairs read it, which is what
        runs and what its result names), then the events of results known at once (a call not
        run)."""
        if self.calls.kept:  # the response started over on another model: a kept call's repeat
            answer = self.calls.kept_answer(ev.call)
            if answer is not None:
                return [ev, build_result_event(answer)]
        self.n_calls += 1
        if self._capped and "missing_end" in ev.call.repairs:
            # The token limit ended the response inside this call: its last value is whatever
            # arrived (half a file's content, ``city=Par``). Run, it would write that; answered
            # with an error, the model sends it again whole.
            cut = self.calls.refuse(ev.call, self.n_calls, cut_off_message(ev.call.gadget_name))
            return [ev, await self.calls.finished(cut)]
        parts = self.calls.repairs.split(ev.call)
        if parts is None:
            return await self._admitted(ev, ev.call)
        events: list[AgentEvent] = []
        for index, part in enumerate(parts):  # numbered or repeated parameters: a call a number or line
            if index:
                self.n_calls += 1
            events += await self._admitted(ev, part)
        return events

    async def _admitted(self, ev: GadgetCallEvent, call: ParsedCall) -> list[AgentEvent]:
        """The events of ``call`` (``ev``'s call, or a part of it) once admitted: the call as the
        loop's repairs read it, then the results known at once (a call not run)."""
        admitted, known = await self.calls.admit(call, self.n_calls)
        shown = ev if admitted is ev.call else GadgetCallEvent(admitted)
        return [shown, *[await self.calls.finished(r) for r in known]]


def _degeneration_watch(cfg: RunPlan) -> DegenerationWatch:
    """A watch for a response in ``cfg``'s syntax: marker lines skipped (text syntaxes), calls
    written as JSON text read (native)."""
    if cfg.syntax == "native":
        return DegenerationWatch(names=list(cfg.by_name))
    m = cfg.markers
    if cfg.syntax == "block":
        return DegenerationWatch((m.start, m.end, m.arg), ends=(m.end,), arg=m.arg)
    return DegenerationWatch(_EMOJI_MARKERS, ends=_EMOJI_ENDS)


_EMOJI_MARKERS = (EMOJI_START, "\U0001f6e0[")
"""How the emoji syntax's marker lines start (the marker without its variation selector too: the
parser takes it)."""

_EMOJI_ENDS = (EMOJI_END, "\U0001f6e0[/end]")
"""How the emoji syntax's end marker lines start (the marker without its variation selector too)."""


class _CopyWatch:
    """Reads a response's prose line by line for a line of the prompt (the ``copied_prompt``
    repair), and remembers where the copy starts. Each character is looked at once: a line is
    kept only up to the longest a prompt line can be."""

    __slots__ = (
        "_line",
        "_line_at",
        "_line_size",
        "_prose_size",
        "after_call",
        "chunk_at",
        "copied",
        "copied_at",
        "text_size",
    )

    def __init__(self) -> None:
        self.copied: str | None = None
        """The prompt's line the prose repeated, once it did."""
        self.copied_at = 0
        """Where that line starts in the prose."""
        self._line: list[str] = []
        """The prose line being written: since the last newline, or the last call."""
        self._line_size = 0
        self._line_at = 0
        """Where that line starts in the prose."""
        self._prose_size = 0
        self.text_size = 0
        """How much of the response's text was read."""
        self.chunk_at = 0
        """How much of the response's text came before the chunk being read."""
        self.after_call = 0
        """That, when the response's last call was read: a copied line is in the text after it."""

    def chunk(self, text: str) -> None:
        """The next chunk of the response's text is being read."""
        self.chunk_at = self.text_size
        self.text_size += len(text)

    def call(self) -> None:
        """A call was read: the prose after it starts a line of its own."""
        self._line.clear()
        self._line_size = 0
        self._line_at = self._prose_size
        self.after_call = self.chunk_at

    def copies(self, text: str, lines: frozenset[str]) -> bool:
        """Whether ``text``, the next prose, completes a line that is one of ``lines`` (noted in
        :attr:`copied`)."""
        at = self._prose_size
        self._prose_size += len(text)
        pieces = text.split("\n")
        if len(pieces) == 1:
            if self._line_size <= COPIED_LINE_MAX:
                self._line.append(text)
                self._line_size += len(text)
            return False
        start, whole = self._line_at, self._line_size <= COPIED_LINE_MAX
        for k, piece in enumerate(pieces[:-1]):
            line = "".join(self._line) + piece if k == 0 else piece
            if (k > 0 or whole) and line.strip() in lines:
                self.copied, self.copied_at = line.strip(), start
                return True
            at += len(piece) + 1
            start = at
        self._line = [pieces[-1]]
        self._line_size = len(pieces[-1])
        self._line_at = start
        return False


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
