"""OpenTelemetry tracing: the span tree of a run, GenAI attributes, contents opt-in, errors."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import llmist
from llmist import Agent, InstrumentationSettings
from llmist.testing import MockModel
from tests.agent.conftest import Echo, add, boom

PARALLEL_THEN_DEPENDENT = (
    "!!!GADGET_START:add:a\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END\n"
    "!!!GADGET_START:Echo:b\n!!!ARG:text\nsecret words\n!!!GADGET_END\n"
    "!!!GADGET_START:add:c:a,b\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!GADGET_END"
)


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exp = InMemorySpanExporter()
    yield exp
    exp.clear()


def settings(exporter: InMemorySpanExporter, *, include_content: bool = False) -> InstrumentationSettings:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return InstrumentationSettings(include_content=include_content, tracer_provider=provider)


def by_name(spans: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


async def traced_run(
    exporter: InMemorySpanExporter, responses: list[str], *, include_content: bool = False
) -> tuple[ReadableSpan, ...]:
    agent = Agent(
        model=MockModel(responses),
        gadgets=[add, Echo, boom],
        instrument=settings(exporter, include_content=include_content),
    )
    await agent.run("Add things up")
    return exporter.get_finished_spans()


async def test_gadget_and_model_spans_are_children_of_the_run_span(exporter: InMemorySpanExporter) -> None:
    spans = await traced_run(exporter, [PARALLEL_THEN_DEPENDENT, "done"])
    (run,) = by_name(spans, "invoke_agent llmist")
    children = [s for s in spans if s is not run]
    assert sorted(s.name for s in children) == [
        "chat mock",
        "chat mock",
        "execute_tool Echo",
        "execute_tool add",
        "execute_tool add",
    ]
    assert run.parent is None
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in children)
    assert all(s.context.trace_id == run.context.trace_id for s in children)


async def test_dependencies_become_span_links(exporter: InMemorySpanExporter) -> None:
    spans = await traced_run(exporter, [PARALLEL_THEN_DEPENDENT, "done"])
    ids = {
        s.attributes["gen_ai.tool.call.id"]: s for s in spans if s.attributes and "gen_ai.tool.call.id" in s.attributes
    }
    dependent = ids["c"]
    assert {link.context.span_id for link in dependent.links} == {ids["a"].context.span_id, ids["b"].context.span_id}
    assert dependent.attributes is not None and dependent.attributes["llmist.dependencies"] == ("a", "b")


async def test_spans_carry_the_genai_attributes(exporter: InMemorySpanExporter) -> None:
    spans = await traced_run(exporter, [PARALLEL_THEN_DEPENDENT, "done"])
    (run,) = by_name(spans, "invoke_agent llmist")
    chat = by_name(spans, "chat mock")[0]
    tool = by_name(spans, "execute_tool Echo")[0]
    assert run.attributes is not None and chat.attributes is not None and tool.attributes is not None
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "mock"
    assert chat.attributes["gen_ai.provider.name"] == "mock"
    assert {"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "llmist.cost_usd"} <= set(chat.attributes)
    assert run.attributes["llmist.syntax"] == "block"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "Echo"
    assert tool.attributes["gen_ai.tool.call.id"] == "b"
    assert tool.attributes["llmist.invocation_id"] == "b"


async def test_contents_are_not_recorded_by_default(exporter: InMemorySpanExporter) -> None:
    spans = await traced_run(exporter, [PARALLEL_THEN_DEPENDENT, "done"])
    for span in spans:
        assert span.attributes is not None
        assert not any("secret words" in str(v) or "Add things up" in str(v) for v in span.attributes.values())


async def test_contents_are_recorded_when_opted_in(exporter: InMemorySpanExporter) -> None:
    spans = await traced_run(exporter, [PARALLEL_THEN_DEPENDENT, "done"], include_content=True)
    tool = by_name(spans, "execute_tool Echo")[0]
    chat = by_name(spans, "chat mock")[0]
    assert tool.attributes is not None and chat.attributes is not None
    assert "secret words" in str(tool.attributes["gen_ai.tool.call.arguments"])
    assert tool.attributes["gen_ai.tool.call.result"] == "secret words"
    assert "Add things up" in str(chat.attributes["gen_ai.input.messages"])
    assert "secret words" in str(chat.attributes["gen_ai.output.messages"])


async def test_a_failing_gadget_has_an_error_span(exporter: InMemorySpanExporter) -> None:
    spans = await traced_run(exporter, ["!!!GADGET_START:boom\n!!!ARG:reason\nbad luck\n!!!GADGET_END", "done"])
    (failed,) = by_name(spans, "execute_tool boom")
    assert failed.status.status_code is StatusCode.ERROR
    assert "bad luck" in (failed.status.description or "")
    (run,) = by_name(spans, "invoke_agent llmist")
    assert run.status.status_code is not StatusCode.ERROR


async def test_global_instrument_traces_agents_without_their_own_setting(exporter: InMemorySpanExporter) -> None:
    llmist.instrument(settings(exporter))
    try:
        await Agent(model=MockModel(["hello"])).run("hi")
    finally:
        llmist.instrument(False)
    await Agent(model=MockModel(["hello"])).run("hi")
    assert [s.name for s in exporter.get_finished_spans()] == ["chat mock", "invoke_agent llmist"]


_UNTRACED_RUN = """
import sys, llmist
from llmist.testing import MockModel

def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b

call = "!!!GADGET_START:add\\n!!!ARG:a\\n1\\n!!!ARG:b\\n2\\n!!!GADGET_END"
result = llmist.Agent(model=MockModel([call, "ok"]), gadgets=[add]).run_sync("go")
print(result.output, result.gadget_results[0].result)
print(any(m.split(".")[0] == "opentelemetry" for m in sys.modules))
"""


@pytest.mark.slow
def test_an_uninstrumented_run_imports_nothing_from_opentelemetry() -> None:
    run = subprocess.run([sys.executable, "-c", _UNTRACED_RUN], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["ok", "3", "False"]


async def test_a_failing_model_call_has_an_error_chat_span_and_run_span(exporter: InMemorySpanExporter) -> None:
    agent = Agent(model=MockModel([RuntimeError("provider down")]), instrument=settings(exporter))
    with pytest.raises(RuntimeError, match="provider down"):
        await agent.run("hi")
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat mock", "invoke_agent llmist"]
    assert all(s.status.status_code is StatusCode.ERROR for s in spans)


async def test_a_reader_that_stops_early_does_not_fail_the_run_span(exporter: InMemorySpanExporter) -> None:
    agent = Agent(model=MockModel(["hello there"], chunk_size=2), instrument=settings(exporter))
    stream = agent.stream("hi")
    async for _ in stream:
        break
    await stream.aclose()
    (run,) = by_name(exporter.get_finished_spans(), "invoke_agent llmist")
    assert run.status.status_code is not StatusCode.ERROR


async def test_each_guardrail_check_is_a_span_and_a_tripwire_is_an_error(exporter: InMemorySpanExporter) -> None:
    from llmist.agent.guardrails import Refuse, Tripwire, output_guardrail, tool_call_guardrail

    no_add = tool_call_guardrail(name="no_add")(lambda guarded: Refuse("no adding"))
    rude = output_guardrail(name="rude")(lambda guarded: Tripwire("rude answer"))
    agent = Agent(
        model=MockModel(["!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END", "you fool"]),
        gadgets=[add],
        guardrails=[no_add, rude],
        instrument=settings(exporter),
    )
    await agent.run("q")
    spans = exporter.get_finished_spans()
    (run,) = by_name(spans, "invoke_agent llmist")
    (refused,) = by_name(spans, "guardrail no_add")
    (tripped,) = by_name(spans, "guardrail rude")
    assert refused.parent is not None and refused.parent.span_id == run.context.span_id
    assert refused.attributes is not None and refused.attributes["llmist.guardrail.outcome"] == "refuse"
    assert refused.attributes["llmist.guardrail.kind"] == "tool_call"
    assert tripped.status.status_code == StatusCode.ERROR and tripped.status.description == "rude answer"
    assert run.attributes is not None
    assert (run.attributes["llmist.stop_reason"], run.attributes["llmist.guardrail.tripwire"]) == ("guardrail", "rude")


async def test_with_fallback_models_each_model_asked_has_its_chat_span(exporter: InMemorySpanExporter) -> None:
    from llmist.providers import ProviderServerError

    down = MockModel([ProviderServerError("HTTP 503: down", provider="mock", status_code=503)], name="first")
    agent = Agent(model=[down, MockModel(["hi"], name="second")], instrument=settings(exporter))
    await agent.run("q")
    spans = exporter.get_finished_spans()
    (failed,) = by_name(spans, "chat first")
    (answered,) = by_name(spans, "chat second")
    assert failed.status.status_code == StatusCode.ERROR
    assert answered.attributes is not None and answered.attributes["gen_ai.response.model"] == "second"
    (run,) = by_name(spans, "invoke_agent llmist")
    assert run.attributes is not None
    assert (list(run.attributes["llmist.models"]), run.attributes["llmist.fallbacks"]) == (["second"], 1)
