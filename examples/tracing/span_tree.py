"""Trace a run with OpenTelemetry and print its span tree (the SDK's in-memory exporter)."""

import asyncio

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from llmist import Agent, InstrumentationSettings, gadget
from llmist.testing import MockModel


@gadget
def fetch(url: str) -> str:
    """Fetch a page (pretend)."""
    return f"<html>{url}</html>"


exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))

# Two fetches run in parallel; the third waits for both (its span links to theirs).
calls = (
    "!!!GADGET_START:fetch:a\n!!!ARG:url\nhttps://a.example\n!!!GADGET_END\n"
    "!!!GADGET_START:fetch:b\n!!!ARG:url\nhttps://b.example\n!!!GADGET_END\n"
    "!!!GADGET_START:fetch:c:a,b\n!!!ARG:url\nhttps://c.example\n!!!GADGET_END"
)
agent = Agent(
    model=MockModel([calls, "Fetched all three."]),
    gadgets=[fetch],
    instrument=InstrumentationSettings(tracer_provider=provider),
)
asyncio.run(agent.run("Fetch the pages"))

spans = sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0)
root = next(s for s in spans if s.parent is None)
print(root.name, dict(root.attributes or {}))
for span in spans:
    if span is not root:
        attrs = span.attributes or {}
        links = [link.attributes["llmist.dependency"] for link in span.links if link.attributes]
        print("  ", span.name, attrs.get("gen_ai.tool.call.id", ""), "links:", links)
