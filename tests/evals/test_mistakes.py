"""The eval measures the mistakes small models really make: a scripted model makes each one."""

from __future__ import annotations

import pytest

from llmist.evals import BUILTIN_SUITE, CaseResult, count_stray_calls, run_case
from llmist.providers.base import ToolCall
from llmist.testing import MockModel, MockReply, block_call, tool_call

ADD = BUILTIN_SUITE.select(["add_numbers"]).cases[0]
GOOD = block_call("add", a=1234, b=5678)
ANSWER = "The result is 6912."


async def _run(*responses: str) -> CaseResult:
    return await run_case(ADD, "block", MockModel(list(responses)))


async def test_a_space_after_the_colon_is_still_a_call() -> None:
    result = await _run("!!!GADGET_START: add\n!!!ARG:a\n1234\n!!!ARG:b\n5678\n!!!GADGET_END", ANSWER)
    assert (result.passed, result.malformed) == (True, 0)


async def test_a_missing_end_marker_is_still_a_call() -> None:
    result = await _run("!!!GADGET_START:add\n!!!ARG:a\n1234\n!!!ARG:b\n5678\n", ANSWER)
    assert (result.passed, result.malformed) == (True, 0)


async def test_a_code_fence_around_the_block_is_still_a_call() -> None:
    result = await _run(f"```\n{GOOD}```", ANSWER)
    assert (result.passed, result.malformed) == (True, 0)


async def test_a_garbled_start_marker_counts_as_malformed() -> None:
    result = await _run("!!!GADGETSTART:add\n!!!ARG:a\n1234\n!!!GADGET_END")
    assert result.malformed == 1
    assert "no successful call add(a=1234, b=5678)" in result.failures


async def test_markers_with_a_wrong_count_of_marks_are_still_a_call_counted_as_repairs() -> None:
    result = await _run("!!GADGET_START:add\n!!ARG:a\n1234\n!!!!ARG:b\n5678\n!GADGET_END", ANSWER)
    assert (result.passed, result.malformed, result.repairs) == (True, 0, {"marker_spelling": 4})


async def test_a_value_fused_to_its_argument_line_is_still_a_call_counted_as_a_repair() -> None:
    result = await _run("!!!GADGET_START:add\n!!!ARG:a 1234\n!!!ARG:b=5678\n!!!GADGET_END", ANSWER)
    assert (result.passed, result.malformed, result.repairs) == (True, 0, {"fused_argument": 1})


async def test_an_invented_gadget_name_counts_as_malformed() -> None:
    result = await _run(block_call("addition", a=1234, b=5678), GOOD, ANSWER)
    assert (result.passed, result.malformed, result.calls) == (True, 1, 2)


async def test_a_tool_call_written_as_native_json_runs_and_counts_as_a_repair() -> None:
    native = '{"name": "add", "arguments": {"a": 1234, "b": 5678}}'
    result = await _run(native, ANSWER)
    assert (result.passed, result.malformed, result.calls, result.repairs) == (True, 0, 1, {"json_call": 1})


async def test_a_tool_call_written_as_json_for_no_gadget_counts_as_malformed() -> None:
    result = await _run('{"name": "addition", "arguments": {"a": 1234, "b": 5678}}')
    assert result.malformed == 1
    assert not result.passed


async def test_native_arguments_that_are_not_json_count_as_malformed_and_the_model_can_retry() -> None:
    broken = MockReply(tool_calls=[ToolCall("c1", "add", '{"a": 1234, "b": 5678')])
    fixed = MockReply(tool_calls=[tool_call("add", a=1234, b=5678)])
    result = await run_case(ADD, "native", MockModel([broken, fixed, ANSWER]))
    assert (result.passed, result.malformed, result.calls) == (True, 1, 2)


async def test_a_native_call_of_an_unknown_tool_counts_as_malformed() -> None:
    wrong = MockReply(tool_calls=[tool_call("addition", a=1234, b=5678)])
    result = await run_case(ADD, "native", MockModel([wrong, ANSWER]))
    assert (result.passed, result.malformed) == (False, 1)
    assert result.repairs == {"unknown_gadget": 1}


async def test_a_repeated_call_is_counted_as_another_call() -> None:
    result = await _run(GOOD, GOOD, ANSWER)
    assert (result.passed, result.calls, result.iterations) == (True, 2, 3)


async def test_an_answer_without_any_call_fails_for_the_missing_call() -> None:
    result = await _run(ANSWER)
    assert result.failures == ["no successful call add(a=1234, b=5678)"]


async def test_a_dependency_on_an_id_no_call_has_does_not_count_as_waiting() -> None:
    # The loop runs count_to without waiting for "first" (no call has that id): right values,
    # but the call the case asks for, one waiting for another, was never made.
    case = BUILTIN_SUITE.select(["counter_chain"]).cases[0]
    start = block_call("start_counter", name="laps")
    count = block_call("count_to", invocation_id="second", deps=["first"], name="laps", n=5)
    result = await run_case(case, "block", MockModel([start + count, "The counter laps is at 5."]))
    assert result.repairs == {"missing_dependency": 1}
    assert result.failures == ["no successful call count_to(name='laps', n=5) waiting for another call"]
    waited = block_call("count_to", invocation_id="second", deps=["gadget_1"], name="laps", n=5)
    result = await run_case(case, "block", MockModel([start + waited, "The counter laps is at 5."]))
    assert result.passed, result.failures


async def test_a_model_error_fails_the_run_and_names_the_error() -> None:
    result = await run_case(ADD, "block", MockModel([ConnectionError("server gone")]))
    assert result.failures == ["run failed: ConnectionError: server gone"]
    assert result.stop_reason == "error"


@pytest.mark.parametrize(
    ("prose", "expected"),
    [
        ("plain words", 0),
        ("!!GADGET_START:add and !!GADGET_START:sub", 2),
        ("!!!ARG:a\n1\n!!!GADGET_END", 1),
        ("\U0001f6e0\ufe0f[add 1 2 without end", 1),
        ("<tool_call>{}</tool_call>", 1),
    ],
)
def test_stray_calls_in_prose_are_counted(prose: str, expected: int) -> None:
    assert count_stray_calls(prose) == expected
