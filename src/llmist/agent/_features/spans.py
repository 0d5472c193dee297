"""OpenTelemetry spans of one run, made from the loop's hooks (imported only when tracing is on:
see :mod:`llmist.agent._features.tracing`).

One ``invoke_agent`` span per run; its children are a ``chat`` span per model call (with
fallback models, one per model asked), an ``execute_tool`` span per gadget call and a
``guardrail`` span per guardrail check. Every child names the run span as its parent
explicitly rather than through the ambient context, because gadgets run in parallel tasks and
worker threads where the ambient context is not the run's. A call's dependencies become links to
their spans. Attribute names follow the OpenTelemetry GenAI semantic conventions.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Link, Span, Status, StatusCode

from llmist.agent._run.plan import RunPlan
from llmist.agent.guardrails import GuardrailRecord
from llmist.agent.hooks import GadgetContext, Hooks, LLMCallContext, LLMCompleteContext, LLMErrorContext, Observers
from llmist.agent.instrumentation import InstrumentationSettings
from llmist.agent.result import AgentResult
from llmist.execution import GadgetExecutionResult, GadgetSkip

__all__ = ["RunTracer"]


class RunTracer:
    """The spans of one run; :meth:`hooks` feeds them, :meth:`wrap` opens and closes the run span."""

    def __init__(self, settings: InstrumentationSettings, cfg: RunPlan) -> None:
        provider = settings.tracer_provider
        self._tracer = provider.get_tracer("llmist") if provider is not None else trace.get_tracer("llmist")
        self._content = settings.include_content
        self._model = cfg.model_name
        self._provider = cfg.provider_name
        self._syntax = cfg.syntax
        self._run: Span | None = None
        self._run_ctx: Any = None
        self._chat: Span | None = None
        self._gadgets: dict[str, Span] = {}

    def hooks(self) -> Hooks:
        """Observers that open and close the child spans."""
        return Hooks(
            observers=Observers(
                on_llm_call_start=self._chat_start,
                on_llm_call_complete=self._chat_end,
                on_llm_call_error=self._chat_error,
                on_gadget_start=self._gadget_start,
                on_gadget_complete=self._gadget_end,
                on_gadget_skipped=self._gadget_skipped,
                on_guardrail=self._guardrail,
            )
        )

    async def wrap(
        self, events: AsyncGenerator[Any, None], result: Callable[[], AgentResult[Any] | None]
    ) -> AsyncGenerator[Any, None]:
        """``events`` inside the run span, which ends with the run's totals (or its error)."""
        self._run = self._tracer.start_span(
            "invoke_agent llmist", kind=trace.SpanKind.INTERNAL, attributes=self._common("invoke_agent")
        )
        self._run_ctx = trace.set_span_in_context(self._run)
        try:
            async for event in events:
                yield event
        except GeneratorExit:  # the caller stopped reading: not a failure of the run
            raise
        except BaseException as exc:
            self._fail(self._run, exc)
            raise
        finally:
            await events.aclose()
            self._close_run(result())

    def _common(self, operation: str) -> dict[str, Any]:
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.request.model": self._model,
            "llmist.syntax": self._syntax,
        }
        if self._provider:
            attrs["gen_ai.provider.name"] = self._provider
        return attrs

    def _close_run(self, result: AgentResult[Any] | None) -> None:
        run = self._run
        assert run is not None
        for span in [self._chat, *self._gadgets.values()]:
            if span is not None and span.is_recording():
                span.end()
        if result is not None:
            run.set_attribute("gen_ai.usage.input_tokens", result.usage.input_tokens)
            run.set_attribute("gen_ai.usage.output_tokens", result.usage.output_tokens)
            run.set_attribute("llmist.cost_usd", result.cost)
            run.set_attribute("llmist.iterations", result.iterations)
            run.set_attribute("llmist.stop_reason", result.stop_reason)
            if result.fallbacks:
                run.set_attribute("llmist.models", list(result.models))
                run.set_attribute("llmist.fallbacks", len(result.fallbacks))
            if result.tripwire is not None:
                run.set_attribute("llmist.guardrail.tripwire", result.tripwire.name)
            if self._content and isinstance(result.output, str):
                run.set_attribute("gen_ai.output.messages", _messages_json([("assistant", result.output)]))
        run.end()

    # --- model calls --------------------------------------------------------------------

    def _chat_start(self, ctx: LLMCallContext) -> None:
        attrs = self._common("chat")
        attrs["llmist.iteration"] = ctx.iteration
        attrs["gen_ai.request.model"] = ctx.model  # with fallback models: the one asked now
        if ctx.provider:
            attrs["gen_ai.provider.name"] = ctx.provider
        if self._content:
            attrs["gen_ai.input.messages"] = _messages_json([(m.role, m.text) for m in ctx.messages])
        self._chat = self._tracer.start_span(
            f"chat {ctx.model}", context=self._run_ctx, kind=trace.SpanKind.CLIENT, attributes=attrs
        )

    def _chat_end(self, ctx: LLMCompleteContext) -> None:
        span, self._chat = self._chat, None
        if span is None:
            return
        span.set_attribute("gen_ai.usage.input_tokens", ctx.usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", ctx.usage.output_tokens)
        span.set_attribute("llmist.cost_usd", ctx.cost)
        span.set_attribute("gen_ai.response.model", ctx.model)
        if ctx.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [ctx.finish_reason])
        if self._content:
            span.set_attribute("gen_ai.output.messages", _messages_json([("assistant", ctx.text)]))
        span.end()

    def _chat_error(self, ctx: LLMErrorContext) -> None:
        span, self._chat = self._chat, None
        if span is not None:
            self._fail(span, ctx.error)
            span.end()

    # --- gadget calls -------------------------------------------------------------------

    def _gadget_start(self, ctx: GadgetContext) -> None:
        self._open_gadget(ctx.gadget_name, ctx.invocation_id, ctx.dependencies, ctx.parameters)

    def _open_gadget(self, name: str, call_id: str, deps: tuple[str, ...], params: dict[str, Any]) -> Span:
        attrs = self._common("execute_tool")
        attrs.update({"gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id, "llmist.invocation_id": call_id})
        attrs["llmist.dependencies"] = list(deps)
        if self._content:
            attrs["gen_ai.tool.call.arguments"] = json.dumps(params, default=str)
        links = [
            Link(self._gadgets[d].get_span_context(), {"llmist.dependency": d}) for d in deps if d in self._gadgets
        ]
        span = self._tracer.start_span(
            f"execute_tool {name}", context=self._run_ctx, kind=trace.SpanKind.INTERNAL, attributes=attrs, links=links
        )
        self._gadgets[call_id] = span
        return span

    def _gadget_end(self, result: GadgetExecutionResult) -> None:
        span = self._gadgets.get(result.invocation_id)
        if span is None or not span.is_recording():
            # A call that failed validation never started: its span covers only the failure.
            span = self._open_gadget(result.gadget_name, result.invocation_id, (), result.parameters)
        span.set_attribute("llmist.cost_usd", result.cost)
        if result.error is not None:
            span.set_status(Status(StatusCode.ERROR, result.error))
            span.set_attribute("error.type", "GadgetError")
        elif self._content and result.result is not None:
            span.set_attribute("gen_ai.tool.call.result", result.result)
        span.end()

    def _gadget_skipped(self, skip: GadgetSkip) -> None:
        span = self._open_gadget(skip.gadget_name, skip.invocation_id, (skip.failed_dependency,), skip.parameters)
        span.set_attribute("llmist.skipped", True)
        span.set_status(Status(StatusCode.ERROR, f"dependency {skip.failed_dependency} failed"))
        span.end()

    # --- guardrails ---------------------------------------------------------------------

    def _guardrail(self, record: GuardrailRecord) -> None:
        """A check's span, covering the time it took (it is reported once it ended)."""
        attrs = self._common("guardrail")
        attrs.update(
            {
                "llmist.guardrail.name": record.name,
                "llmist.guardrail.kind": record.kind,
                "llmist.guardrail.outcome": record.outcome,
                "llmist.iteration": record.iteration,
            }
        )
        if record.reason:
            attrs["llmist.guardrail.reason"] = record.reason
        if record.invocation_id is not None:
            attrs["llmist.invocation_id"] = record.invocation_id
        end = time.time_ns()
        span = self._tracer.start_span(
            f"guardrail {record.name}",
            context=self._run_ctx,
            kind=trace.SpanKind.INTERNAL,
            attributes=attrs,
            start_time=end - int(record.duration_ms * 1e6),
        )
        if record.outcome == "tripwire":
            span.set_status(Status(StatusCode.ERROR, record.reason))
            span.set_attribute("error.type", "GuardrailTripwire")
        span.end(end_time=end)

    @staticmethod
    def _fail(span: Span, exc: BaseException) -> None:
        if isinstance(exc, Exception):
            span.record_exception(exc)
        span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
        span.set_attribute("error.type", type(exc).__name__)


def _messages_json(messages: list[tuple[str, str]]) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]} for role, text in messages])
