"""test_gadget runs a gadget through the agent's executor: timeouts and output limits apply."""

from __future__ import annotations

import threading
import time

from llmist import gadget, test_gadget
from llmist.gadgets import GadgetMedia, GadgetResult
from llmist.testing import atest_gadget

_released = threading.Event()


@gadget(timeout_s=0.2)
def slow() -> str:
    """Wait up to five seconds (released at the end of the test)."""
    _released.wait(5.0)
    return "finished"


@gadget(timeout_s=0.2)
async def slow_async() -> str:
    """Sleep five seconds."""
    import asyncio

    await asyncio.sleep(5.0)
    return "finished"


@gadget
def big(size: int) -> str:
    """Return ``size`` characters."""
    return "x" * size


def test_timeout_s_stops_a_sync_gadget() -> None:
    started = time.monotonic()
    try:
        outcome = test_gadget(slow, {})
    finally:
        _released.set()
    assert outcome.result is None
    assert outcome.error is not None and "timed out" in outcome.error.lower() and "0.2" in outcome.error
    assert time.monotonic() - started < 4.0  # well under the gadget's own five seconds


async def test_timeout_s_stops_an_async_gadget() -> None:
    outcome = await atest_gadget(slow_async, {})
    assert outcome.error is not None and "timed out" in outcome.error.lower()


def test_output_over_the_limit_is_stored_and_replaced_by_a_notice() -> None:
    outcome = test_gadget(big, {"size": 500}, output_limit=100)
    assert outcome.result is not None and len(outcome.result) < 500
    assert "GadgetOutputViewer" in outcome.result


def test_output_limit_none_returns_the_whole_output() -> None:
    assert test_gadget(big, {"size": 500}, output_limit=None).result == "x" * 500


def test_invalid_parameters_are_reported_without_running() -> None:
    outcome = test_gadget(big, {"size": "many"})
    assert outcome.validated_params is None
    assert outcome.error is not None and "size" in outcome.error


def test_the_media_a_gadget_returns_are_in_the_result() -> None:
    @gadget
    def chart() -> GadgetResult:
        """A chart."""
        return GadgetResult("the chart", media=[GadgetMedia(b"\x89PNG\r\n\x1a\n", "image/png", "chart.png")])

    outcome = test_gadget(chart, {})
    assert outcome.result == "the chart"
    assert [(m.name, m.media_type) for m in outcome.media] == [("chart.png", "image/png")]
