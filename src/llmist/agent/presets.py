"""Ready-made hook sets: progress tracking, logging, timing, error logging.

Combine presets with each other and with your own hooks using :meth:`HookPresets.merge`::

    hooks = HookPresets.merge(HookPresets.logging(), HookPresets.progress_tracking(on_progress=show), my_hooks)
"""

from __future__ import annotations

import logging as _logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from llmist.agent.hooks import (
    GadgetContext,
    Hooks,
    LLMCallContext,
    LLMCompleteContext,
    LLMErrorContext,
    Observers,
    merge_hooks,
)
from llmist.execution import GadgetExecutionResult
from llmist.providers.base import Usage

__all__ = ["CostModel", "HookPresets", "Progress"]

_log = _logging.getLogger("llmist.agent")


class CostModel(Protocol):
    """Anything that prices a model call from its usage (e.g. the providers' ``ModelRegistry``)."""

    def cost(self, model: str, usage: Usage, provider: str | None = None) -> float:
        """USD for ``usage`` on ``model`` (0 when the price is unknown)."""
        ...


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot of a run's progress, handed to ``on_progress``."""

    iterations: int
    """Model calls completed."""
    input_tokens: int
    output_tokens: int
    llm_cost: float
    """USD spent on model calls."""
    gadget_cost: float
    """USD reported by gadgets."""
    elapsed_s: float
    """Seconds since the first model call."""
    gadget_calls: int
    """Gadget calls finished."""

    @property
    def total_cost(self) -> float:
        """Model plus gadget cost, USD."""
        return self.llm_cost + self.gadget_cost


class HookPresets:
    """Factories of common :class:`~llmist.agent.hooks.Hooks` (each call builds a fresh set)."""

    @staticmethod
    def progress_tracking(
        model_registry: CostModel | None = None,
        on_progress: Callable[[Progress], Any] | None = None,
    ) -> Hooks:
        """Track iterations, tokens in/out, LLM + gadget cost and elapsed time; call
        ``on_progress(Progress)`` after every model call and every gadget call.

        Model cost comes from ``model_registry`` when given, else from the agent's own pricing.
        """
        state = {"iterations": 0, "in": 0, "out": 0, "llm": 0.0, "gadget": 0.0, "calls": 0}
        started: list[float] = []

        def snapshot() -> Progress:
            elapsed = time.perf_counter() - started[0] if started else 0.0
            return Progress(
                int(state["iterations"]), int(state["in"]), int(state["out"]),
                float(state["llm"]), float(state["gadget"]), elapsed, int(state["calls"]),
            )  # fmt: skip

        def on_start(ctx: LLMCallContext) -> None:
            if not started:
                started.append(time.perf_counter())

        def on_complete(ctx: LLMCompleteContext) -> None:
            state["iterations"] += 1
            state["in"] += ctx.usage.input_tokens
            state["out"] += ctx.usage.output_tokens
            cost = (
                model_registry.cost(ctx.model, ctx.usage, ctx.provider or None)
                if model_registry is not None
                else ctx.cost
            )
            state["llm"] += cost or 0.0
            if on_progress is not None:
                on_progress(snapshot())

        def on_gadget(result: GadgetExecutionResult) -> None:
            state["calls"] += 1
            state["gadget"] += result.cost
            if on_progress is not None:
                on_progress(snapshot())

        return Hooks(
            observers=Observers(
                on_llm_call_start=on_start, on_llm_call_complete=on_complete, on_gadget_complete=on_gadget
            )
        )

    @staticmethod
    def logging(level: int = _logging.INFO, logger: _logging.Logger | None = None) -> Hooks:
        """Log each model call and each gadget call (start and outcome) at ``level``."""
        log = logger or _log

        def llm_start(ctx: LLMCallContext) -> None:
            log.log(level, "iteration %d: calling %s (%d messages)", ctx.iteration, ctx.model, len(ctx.messages))

        def llm_done(ctx: LLMCompleteContext) -> None:
            u = ctx.usage
            log.log(level, "iteration %d: %s answered %d chars, %d tokens in / %d out", ctx.iteration, ctx.model,
                    len(ctx.text), u.input_tokens, u.output_tokens)  # fmt: skip

        def gadget_start(ctx: GadgetContext) -> None:
            log.log(level, "gadget %s (%s) starting with %s", ctx.gadget_name, ctx.invocation_id, ctx.parameters)

        def gadget_done(r: GadgetExecutionResult) -> None:
            outcome = f"error: {r.error}" if r.error is not None else f"{len(r.result or '')} chars"
            log.log(level, "gadget %s (%s) done in %.1f ms, %s", r.gadget_name, r.invocation_id,
                    r.execution_time_ms, outcome)  # fmt: skip

        return Hooks(
            observers=Observers(
                on_llm_call_start=llm_start,
                on_llm_call_complete=llm_done,
                on_gadget_start=gadget_start,
                on_gadget_complete=gadget_done,
            )
        )

    @staticmethod
    def timing(on_timing: Callable[[str, float], Any] | None = None, logger: _logging.Logger | None = None) -> Hooks:
        """Measure each model call and each gadget call; report ``(label, ms)`` to ``on_timing``
        (labels ``"llm:<iteration>"`` and ``"gadget:<name>:<id>"``), or log at DEBUG."""
        log = logger or _log
        starts: dict[int, float] = {}

        def report(label: str, ms: float) -> None:
            if on_timing is not None:
                on_timing(label, ms)
            else:
                log.debug("%s took %.2f ms", label, ms)

        def llm_start(ctx: LLMCallContext) -> None:
            starts[ctx.iteration] = time.perf_counter()

        def llm_done(ctx: LLMCompleteContext) -> None:
            t0 = starts.pop(ctx.iteration, None)
            if t0 is not None:
                report(f"llm:{ctx.iteration}", (time.perf_counter() - t0) * 1000)

        def gadget_done(r: GadgetExecutionResult) -> None:
            report(f"gadget:{r.gadget_name}:{r.invocation_id}", r.execution_time_ms)

        return Hooks(
            observers=Observers(
                on_llm_call_start=llm_start, on_llm_call_complete=llm_done, on_gadget_complete=gadget_done
            )
        )

    @staticmethod
    def error_logging(logger: _logging.Logger | None = None) -> Hooks:
        """Log model errors and failed gadget calls at ERROR / WARNING."""
        log = logger or _log

        def llm_error(ctx: LLMErrorContext) -> None:
            log.error("iteration %d: model %s failed: %s", ctx.iteration, ctx.model, ctx.error)

        def gadget_done(r: GadgetExecutionResult) -> None:
            if r.error is not None:
                log.warning("gadget %s (%s) failed: %s", r.gadget_name, r.invocation_id, r.error)

        return Hooks(observers=Observers(on_llm_call_error=llm_error, on_gadget_complete=gadget_done))

    @staticmethod
    def merge(*hook_sets: Hooks | None) -> Hooks:
        """Combine presets and user hooks in order (see :func:`~llmist.agent.hooks.merge_hooks`)."""
        return merge_hooks(*hook_sets)
