"""HookPresets: progress tracking, logging, timing, error logging, merging."""

from __future__ import annotations

import logging

import pytest

from llmist import Agent, HookPresets, Hooks, Observers, gadget
from llmist.agent import Progress
from llmist.gadgets import ExecutionContext
from llmist.providers.base import Usage
from llmist.testing import MockModel, block_call

from .conftest import boom


@gadget
def paid(ctx: ExecutionContext) -> str:
    """Costs money."""
    ctx.report_cost(0.002)
    return "paid"


class _Registry:
    def cost(self, model: str, usage: Usage, provider: str | None = None) -> float:
        return 0.001


SCRIPT = [block_call("paid"), "done"]


async def test_progress_tracking_sums_llm_and_gadget_costs() -> None:
    updates: list[Progress] = []
    hooks = HookPresets.progress_tracking(model_registry=_Registry(), on_progress=updates.append)
    await Agent(model=MockModel(SCRIPT), gadgets=[paid], hooks=hooks).run("q")
    last = updates[-1]
    assert (last.iterations, last.gadget_calls) == (2, 1)
    assert last.llm_cost == pytest.approx(0.002) and last.gadget_cost == pytest.approx(0.002)
    assert last.total_cost == pytest.approx(0.004)
    assert last.input_tokens > 0 and last.output_tokens > 0 and last.elapsed_s >= 0


async def test_logging_preset_logs_calls(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="llmist.agent"):
        await Agent(model=MockModel(SCRIPT), gadgets=[paid], hooks=HookPresets.logging()).run("q")
    assert "calling mock" in caplog.text and "gadget paid" in caplog.text


async def test_timing_preset_reports_each_step() -> None:
    labels: list[str] = []
    hooks = HookPresets.timing(on_timing=lambda label, ms: labels.append(label))
    await Agent(model=MockModel(SCRIPT), gadgets=[paid], hooks=hooks).run("q")
    assert labels[0] == "llm:1" and any(label.startswith("gadget:paid:") for label in labels) and "llm:2" in labels


async def test_error_logging_preset_logs_failures(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="llmist.agent"):
        model = MockModel([block_call("boom", reason="bad"), "ok"])
        await Agent(model=model, gadgets=[boom], hooks=HookPresets.error_logging()).run("q")
    assert "boom: bad" in caplog.text


async def test_merge_combines_presets_with_user_hooks() -> None:
    mine: list[int] = []
    updates: list[Progress] = []
    hooks = HookPresets.merge(
        HookPresets.progress_tracking(on_progress=updates.append),
        Hooks(observers=Observers(on_llm_call_start=lambda ctx: mine.append(ctx.iteration))),
    )
    await Agent(model=MockModel(SCRIPT), gadgets=[paid], hooks=hooks).run("q")
    assert mine == [1, 2] and updates[-1].gadget_cost == pytest.approx(0.002)
