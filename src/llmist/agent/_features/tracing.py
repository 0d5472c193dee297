"""Tracing a run with OpenTelemetry: one span around the run, child spans from its hooks.

The spans are made in :mod:`llmist.agent._features.spans`, imported only when a run is traced,
so an agent without ``instrument`` pays nothing for the feature (not even the import). Whether
a run is traced is decided when it starts: the agent's ``instrument``, else the global
:func:`llmist.instrument`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmist.agent._features import Feature
from llmist.agent.instrumentation import resolve

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents

__all__ = ["Tracing"]


class Tracing(Feature):
    """Tracing as a feature: a run's spans are its own, so its observers are added per run."""

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A traced run: its observers open and close the child spans, inside the run's span."""
        settings = resolve(run.spec.instrument)
        if settings is None:
            return events
        from llmist.agent._features.spans import RunTracer  # OpenTelemetry, only for traced runs

        tracer = RunTracer(settings, run.plan)
        run.add_hooks(self, tracer.hooks())
        return tracer.wrap(events, lambda: run.result)
