"""Calls that fail go back to the model with what to fix; its corrected retry succeeds."""

from __future__ import annotations

from llmist import Agent
from llmist.testing import MockModel, block_call

from .conftest import add, boom


async def _run_with_retry(bad_call: str) -> tuple[list[str | None], str, MockModel]:
    model = MockModel([bad_call, block_call("add", a=2, b=3), "5"])
    result = await Agent(model=model, gadgets=[add, boom]).run("2+3")
    errors = [r.error for r in result.gadget_results]
    return errors, model.requests[1].messages[-1].text, model


async def test_parse_error_is_fed_back_and_the_retry_succeeds() -> None:
    bad = "!!!GADGET_START:add\n!!!ARG:a\n2\n!!!ARG:a\n3\n!!!GADGET_END\n"
    errors, fed_back, model = await _run_with_retry(bad)
    assert errors[0] is not None and "Duplicate pointer" in errors[0]
    assert errors[1] is None
    assert fed_back.startswith("Error in add") and "Duplicate pointer" in fed_back
    model.assert_complete()


async def test_validation_error_is_fed_back_and_the_retry_succeeds() -> None:
    errors, fed_back, _ = await _run_with_retry(block_call("add", a="two", b=3))
    assert errors[0] is not None and "a" in errors[0]
    assert errors[1] is None
    assert "Error in add" in fed_back and "Send the call again, changed where the error says what was wrong" in fed_back


async def test_gadget_exception_is_fed_back_and_the_retry_succeeds() -> None:
    errors, fed_back, _ = await _run_with_retry(block_call("boom", reason="nope"))
    assert errors[0] is not None and "boom: nope" in errors[0]
    assert errors[1] is None
    assert "Error in boom" in fed_back and "boom: nope" in fed_back


async def test_unknown_gadget_lists_the_available_ones() -> None:
    errors, fed_back, _ = await _run_with_retry(block_call("ad", a=1, b=2))
    assert errors[0] is not None and "add" in errors[0]
    assert "Unknown gadget" in fed_back


async def test_max_gadgets_per_response_reports_calls_not_run() -> None:
    text = "".join(block_call("add", invocation_id=f"c{i}", a=i, b=0) for i in range(4))
    model = MockModel([text, "ok"])
    result = await Agent(model=model, gadgets=[add], max_gadgets_per_response=2).run("q")
    ran = [r for r in result.gadget_results if r.error is None]
    not_run = [r for r in result.gadget_results if r.error is not None]
    assert len(ran) == 2 and {r.invocation_id for r in not_run} == {"c2", "c3"}
    assert all("at most 2 gadget calls" in (r.error or "") for r in not_run)
    fed = [m.text for m in model.requests[1].messages if m.role == "gadget_result"]
    assert len(fed) == 4 and "Not run" in fed[3]


async def test_failed_dependency_skips_the_dependent_call() -> None:
    text = block_call("boom", invocation_id="b", reason="x")
    text += block_call("add", invocation_id="s", deps=["b"], a=1, b=1)
    model = MockModel([text, "ok"])
    result = await Agent(model=model, gadgets=[add, boom]).run("q")
    skipped = [r for r in result.gadget_results if r.skip is not None]
    assert [r.invocation_id for r in skipped] == ["s"]
    fed = model.requests[1].messages[-1].text
    assert "Skipped" in fed and "'b'" in fed
