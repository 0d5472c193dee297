"""How a run is put together: the features together in one run, in their documented order, and
their hooks merged with the agent's (features' controllers first, their observers after)."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from llmist import Agent, InstrumentationSettings
from llmist.agent import (
    AssistantMessage,
    Controllers,
    Hooks,
    IterationContext,
    LLMCallContext,
    Observers,
    SlidingWindow,
    SubagentEvent,
)
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call

from .conftest import add


class Sum(BaseModel):
    total: int


class _ListSession:
    """A session kept in a list, that notes each save in ``log``."""

    session_id = "list"

    def __init__(self, log: list[str], stored: Sequence[Message] = ()) -> None:
        self.log = log
        self.stored = list(stored)

    async def load(self) -> list[Message]:
        return list(self.stored)

    async def save(self, messages: Sequence[Message]) -> None:
        self.log.append("session saved")
        self.stored = list(messages)

    async def flush(self) -> None:
        return None


async def test_every_feature_in_one_run() -> None:
    exporter = InMemorySpanExporter()
    tracer = TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(exporter))
    helper = Agent(model=MockModel(["4"]), name="Helper", description="adds in its head")
    session = _ListSession([])
    model = MockModel(
        [block_call("Helper", task="2 + 2"), block_call("add", a=2, b=2), block_call("FinalAnswer", total=4)]
    )
    agent = Agent(
        model=model, gadgets=[add], subagents=[helper], output_type=Sum, session=session,
        compaction=SlidingWindow(), instrument=InstrumentationSettings(tracer_provider=tracer),
    )  # fmt: skip
    stream = agent.stream("What is 2 + 2?")
    events = [event async for event in stream]
    assert stream.result is not None and stream.result.output == Sum(total=4)
    assert any(isinstance(e, SubagentEvent) for e in events)
    own = sum(m.usage.total_tokens for m in stream.result.messages if isinstance(m, AssistantMessage) and m.usage)
    assert stream.result.usage.total_tokens > own  # the helper's usage joined the run's
    assert [m.role for m in session.stored[:2]] == ["system", "user"]
    assert "invoke_agent llmist" in [s.name for s in exporter.get_finished_spans()]


async def test_a_features_controller_decides_before_the_agents_own() -> None:
    def talk(messages: Sequence[Message]) -> str:
        return "word " * 400 + block_call("add", a=len(messages), b=1)

    mine: list[int] = []

    def transform(ctx: LLMCallContext) -> None:
        mine.append(ctx.iteration)

    agent = Agent(
        model=MockModel(talk), gadgets=[add], context_window=2_000, max_iterations=8,
        compaction=SlidingWindow(keep_turns=1), hooks=Hooks(controllers=Controllers(transform_messages=transform)),
    )  # fmt: skip
    result = await agent.run("Talk.")
    compacted = [m for m in result.messages if "earlier turns" in m.text]
    assert compacted  # compaction replaced the conversation, so the agent's controller was not asked then
    assert 0 < len(mine) < result.iterations


async def test_the_agents_observers_watch_before_a_features() -> None:
    log: list[str] = []

    def watch(ctx: IterationContext) -> None:
        log.append("agent observed")

    agent = Agent(
        model=MockModel(["done"]), session=_ListSession(log), hooks=Hooks(observers=Observers(on_iteration=watch))
    )
    await agent.run("q")
    assert log == ["agent observed", "session saved"]


async def test_a_typed_run_with_a_session_continues_it_and_types_its_answer() -> None:
    log: list[str] = []
    earlier = [Message("system", "old prompt"), Message("user", "Remember 3."), Message("assistant", "Noted.")]
    model = MockModel([block_call("FinalAnswer", total=6)])
    agent = Agent(model=model, session=_ListSession(log, earlier), output_type=Sum)
    result = await agent.run("Double it.")
    assert result.output == Sum(total=6)
    assert [m.text for m in model.requests[0].messages[1:3]] == ["Remember 3.", "Noted."]
    assert "FinalAnswer" in model.requests[0].messages[-1].text  # the instruction joined this run's prompt
