"""Instrument every agent at once, recording message contents too."""

import asyncio

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import llmist
from llmist.testing import MockModel

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)  # in a real program: your OTLP exporter's provider

llmist.instrument(llmist.InstrumentationSettings(include_content=True))
asyncio.run(llmist.Agent(model=MockModel(["Hello!"])).run("Say hello"))
llmist.instrument(False)  # back to untraced agents

chat = next(s for s in exporter.get_finished_spans() if s.name.startswith("chat"))
print(chat.attributes["gen_ai.output.messages"] if chat.attributes else None)
