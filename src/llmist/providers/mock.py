"""MockModel: a scripted, offline model for tests, demos and benchmarks.

It implements the :class:`~llmist.providers.base.Provider` protocol, so any agent runs with it
exactly as with a real model. Each model call takes the next scripted response::

    model = MockModel(["!!!GADGET_START:add\\n!!!ARG:a\\n2\\n!!!ARG:b\\n3\\n!!!GADGET_END", "5"])

or asks a function of the conversation (sync or async), so a test can react to gadget results::

    model = MockModel(lambda messages: "done" if "5" in messages[-1].text else "...")

A :class:`MockReply` scripts native tool calls (for ``Agent(syntax="native")``): its text
streams first, then each call arrives whole, as a provider's tool-calling API delivers it::

    model = MockModel([MockReply(tool_calls=[ToolCall("call_1", "add", '{"a": 2, "b": 3}')]), "5"])

It also scripts a stream that breaks after some text (``MockReply("Hel", error=...)``).

Responses stream in chunks (``chunk_size``, explicit boundaries, or a chunker function) with an
optional delay per chunk, so tests reproduce how a small local model's ragged streaming splits
markers. Every request is recorded; :meth:`MockModel.assert_complete` fails when scripted turns
were left unused.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from llmist.providers.base import LLMChunk, LLMRequest, Message, ToolCall, Usage
from llmist.providers.registry import register_provider

__all__ = ["MockModel", "MockModelExhausted", "MockReply", "MockResponder", "MockSplit", "estimate_tokens"]


@dataclass(frozen=True, slots=True)
class MockReply:
    """A scripted response with native tool calls: ``text`` streams first, then ``tool_calls``;
    with ``error``, the stream then breaks with that error instead of finishing."""

    text: str = ""
    tool_calls: Sequence[ToolCall] = ()
    error: BaseException | None = None
    """Raised after the text and calls, in place of the final chunk (a stream that broke
    mid-way: ``StreamInterruptedError``, say), to test what happens then."""


MockResponder: TypeAlias = Callable[[Sequence[Message]], "str | MockReply | Awaitable[str | MockReply]"]
"""A function of the conversation that returns (or resolves to) the next response."""

MockSplit: TypeAlias = "int | Sequence[int] | Callable[[str], Iterable[str]]"
"""How a response is cut into chunks: a chunk size, explicit cut offsets, or a chunker function."""


class MockModelExhausted(AssertionError):
    """The agent asked a :class:`MockModel` for more responses than were scripted."""


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters per token), at least 1 for non-empty text."""
    return (len(text) + 3) // 4


class MockModel:
    """A scripted model that streams canned responses (see the module docstring).

    Args:
        responses: One entry per model call: a string, a :class:`MockReply` (text and native
            tool calls), or an exception instance to raise (to test error handling); or a
            function of the conversation returning the next one.
        chunk_size: Characters per streamed chunk; ``None`` sends each response as one chunk.
        split: Instead of ``chunk_size``: explicit cut offsets (``[3, 10]`` gives
            ``text[:3], text[3:10], text[10:]``) or a function returning the chunks.
        delay_s: Seconds to sleep before each chunk (simulates a slow model).
        finish_reason: Reported on the final chunk.
        name: Provider id reported to hooks and in logs.
        vision: Whether the model takes images (a test of a text-only model sets ``False``).
        thinking: Reasoning text per model call (the i-th call streams ``thinking[i]`` as reasoning
            before its text, and counts it as reasoning tokens), as a reasoning model sends it.
    """

    offline: bool = True
    """Marks a test double: :func:`llmist.testing.block_real_models` lets it through."""

    def __init__(
        self,
        responses: Sequence[str | MockReply | BaseException] | MockResponder,
        *,
        chunk_size: int | None = None,
        split: Sequence[int] | Callable[[str], Iterable[str]] | None = None,
        delay_s: float = 0.0,
        finish_reason: str = "stop",
        name: str = "mock",
        thinking: Sequence[str] = (),
        vision: bool = True,
    ) -> None:
        if chunk_size is not None and chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        if chunk_size is not None and split is not None:
            raise ValueError("pass chunk_size or split, not both")
        self.name = name
        self._script: list[str | MockReply | BaseException] | None = None
        self._responder: MockResponder | None = None
        if callable(responses):
            self._responder = responses
        else:
            self._script = list(responses)
        self._chunk_size = chunk_size
        self._split = split
        self._delay_s = delay_s
        self._finish_reason = finish_reason
        self._thinking = tuple(thinking)
        self.vision = vision
        """Whether the model takes images (read by ``llmist.providers.vision.sees_images``)."""
        self.requests: list[LLMRequest] = []
        """Every request received, in order (messages as sent)."""
        self.responses: list[str] = []
        """Every response text streamed, in order."""
        self._last_input: tuple[Sequence[Message], int] = ((), 0)

    @property
    def calls(self) -> int:
        """How many times the model was called."""
        return len(self.requests)

    @property
    def remaining(self) -> int:
        """Scripted responses not used yet (0 for a function-driven model)."""
        return 0 if self._script is None else len(self._script) - len(self.requests)

    def assert_complete(self) -> None:
        """Fail when scripted responses were left unused (the run stopped earlier than scripted)."""
        if self.remaining > 0:
            assert self._script is not None
            unused = self._script[len(self.requests) :]
            raise AssertionError(
                f"MockModel: {len(unused)} scripted response(s) never requested "
                f"(model called {len(self.requests)} of {len(self._script)} times); first unused: {unused[0]!r}"
            )

    def reset(self) -> None:
        """Forget recorded requests so the script can run again from the start."""
        self.requests.clear()
        self.responses.clear()

    def _next_text(self, request: LLMRequest) -> str | MockReply | Awaitable[str | MockReply]:
        """The next response: a ``str`` or :class:`MockReply`, or an awaitable of one (from an
        async responder)."""
        turn = len(self.requests)
        self.requests.append(request)
        if self._responder is not None:
            return self._responder(request.messages)
        assert self._script is not None
        if turn >= len(self._script):
            raise MockModelExhausted(
                f"MockModel: the agent made model call #{turn + 1} but only {len(self._script)} "
                f"response(s) were scripted; add a response or check why the loop did not stop"
            )
        item = self._script[turn]
        if isinstance(item, BaseException):
            raise item
        return item

    def _input_tokens(self, messages: Sequence[Message]) -> int:
        """Token estimate of ``messages``; a conversation that grew since the last call only costs its new part."""
        prev, total = self._last_input
        n = len(prev)
        if n and len(messages) >= n and messages[n - 1] is prev[-1] and messages[0] is prev[0]:
            total += sum(estimate_tokens(m.text) for m in messages[n:])
        else:
            total = sum(estimate_tokens(m.text) for m in messages)
        self._last_input = (messages, total)
        return total

    def _chunks(self, text: str) -> Iterable[str]:
        if self._split is not None:
            if callable(self._split):
                return [c for c in self._split(text) if c]
            cuts = [0, *sorted(self._split), len(text)]
            return [text[a:b] for a, b in itertools.pairwise(cuts) if b > a]
        size = self._chunk_size
        if size is None or size >= len(text):
            return (text,) if text else ()
        return [text[i : i + size] for i in range(0, len(text), size)]

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        """Stream the next scripted response in chunks; the last chunk carries usage."""
        reply = self._next_text(request)
        calls: Sequence[ToolCall] = ()
        error: BaseException | None = None
        if type(reply) is str:  # the common case first: plain text needs no other check
            text = reply
        else:
            if inspect.isawaitable(reply):
                reply = await reply
            if isinstance(reply, MockReply):
                text, calls, error = reply.text, reply.tool_calls, reply.error
            elif isinstance(reply, str):
                text = reply
            else:
                raise TypeError(f"MockModel responder must return str or MockReply, got {type(reply).__name__}")
        self.responses.append(text)
        turn = len(self.requests) - 1
        thought = self._thinking[turn] if turn < len(self._thinking) else ""
        if thought:
            yield LLMChunk(reasoning=thought)
        delay = self._delay_s
        for chunk in self._chunks(text):
            if delay:
                await asyncio.sleep(delay)
            yield LLMChunk(text=chunk)
        for call in calls:
            if delay:
                await asyncio.sleep(delay)
            yield LLMChunk(tool_calls=(call,))
        if error is not None:
            raise error
        reasoning = estimate_tokens(thought)
        usage = Usage(
            input_tokens=self._input_tokens(request.messages),
            output_tokens=estimate_tokens(text) + reasoning + (_call_tokens(calls) if calls else 0),
            reasoning_tokens=reasoning,
        )
        finish = "tool_calls" if calls and self._finish_reason == "stop" else self._finish_reason
        yield LLMChunk(usage=usage, finish_reason=finish)


def _call_tokens(calls: Sequence[ToolCall]) -> int:
    """Output tokens of native calls: their names and arguments as the model wrote them."""
    return sum(estimate_tokens(c.name + c.arguments) for c in calls)


def _echo(messages: Sequence[Message]) -> str:
    last_user = next((m.text for m in reversed(messages) if m.role == "user"), "")
    return f"(mock) {last_user}"


def _default_mock() -> MockModel:
    """What ``model="mock"`` gets: a model that echoes the last user message (never calls gadgets)."""
    return MockModel(_echo)


register_provider("mock", _default_mock)
