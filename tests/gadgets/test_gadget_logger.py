"""``ctx.logger``: stdlib logging with a ``trace`` level and structured fields."""

from __future__ import annotations

import logging

import pytest

from llmist import Agent, ExecutionContext, gadget
from llmist.gadgets import TRACE
from llmist.testing import MockModel, block_call


@gadget(description="Logs at every level")
def chatty(item_id: int, ctx: ExecutionContext) -> str:
    ctx.logger.trace("tracing %s", "detail")
    ctx.logger.debug("Processing item", {"item_id": item_id, "name": "clash"})
    ctx.logger.info("mapping %(count)d items", {"count": 3})
    return "ok"


def _run(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    caplog.set_level(TRACE, logger="llmist.gadget.chatty")
    Agent(model=MockModel([block_call("chatty", item_id=7), "done"]), gadgets=[chatty]).run_sync("go")
    return [r for r in caplog.records if r.name == "llmist.gadget.chatty"]


def test_trace_logs_below_debug_under_its_own_level_name(caplog: pytest.LogCaptureFixture) -> None:
    first = _run(caplog)[0]
    assert (first.levelno, first.levelname, first.getMessage()) == (TRACE, "TRACE", "tracing detail")
    assert TRACE < logging.DEBUG


def test_a_dict_argument_becomes_record_attributes(caplog: pytest.LogCaptureFixture) -> None:
    record = _run(caplog)[1]
    assert record.getMessage() == "Processing item"
    assert record.item_id == 7
    assert record.field_name == "clash"  # 'name' is the logger's name: the field does not overwrite it
    assert record.name == "llmist.gadget.chatty"


def test_mapping_formatting_keeps_its_stdlib_meaning(caplog: pytest.LogCaptureFixture) -> None:
    assert _run(caplog)[2].getMessage() == "mapping 3 items"


def test_every_record_names_the_gadget_and_the_call(caplog: pytest.LogCaptureFixture) -> None:
    tags = {(r.gadget, r.invocation_id) for r in _run(caplog)}
    assert len(tags) == 1
    gadget_name, invocation_id = tags.pop()
    assert gadget_name == "chatty" and invocation_id.startswith("gadget_")
