"""benchmarks/bfcl.py without a model: BFCL's cases prepared as BFCL prepares them, names mapped back,
and verdicts given by BFCL's own checker as its eval runner gives them.

Needs the pinned ``bfcl-eval`` (``make bfcl-setup``); skipped with that command otherwise.
"""

from __future__ import annotations

import copy
import importlib.metadata
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
try:
    importlib.metadata.version("bfcl-eval")
    MISSING = None
except importlib.metadata.PackageNotFoundError:
    MISSING = "bfcl-eval is not installed: run `make bfcl-setup`"

pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

if MISSING is None:
    sys.path.insert(0, str(BENCHMARKS))
    import bfcl
    from _bfcl_package import load_bfcl


@pytest.fixture(scope="module")
def package() -> Any:
    return load_bfcl()


def first_choice(answer: list[dict[str, dict[str, list[Any]]]]) -> list[dict[str, Any]]:
    """A call list made of each parameter's first possible value (skipping "", an optional one left out)."""
    calls = []
    for call in answer:
        ((name, params),) = call.items()
        calls.append({name: {p: values[0] for p, values in params.items() if values[0] != ""}})
    return calls


def test_a_dotted_name_becomes_a_tool_name_and_maps_back(package: Any) -> None:
    (case,) = bfcl.load_cases(package, ["simple_python"], None, ["simple_python_1"])
    assert case.tools[0]["function"]["name"] == "math_factorial"
    assert case.names == {"math_factorial": "math.factorial"}
    assert case.functions[0]["description"].endswith("Note that the provided function is in Python 3 syntax.")


def test_the_same_sample_every_time(package: Any) -> None:
    first = [c.id for c in bfcl.load_cases(package, bfcl.CATEGORIES, 4, [])]
    again = [c.id for c in bfcl.load_cases(package, bfcl.CATEGORIES, 4, [])]
    assert first == again and len(first) == 20


def test_the_checker_passes_an_answer_and_fails_a_wrong_value(package: Any) -> None:
    cases = bfcl.load_cases(package, ["simple_python", "parallel_multiple"], 3, [])
    for case in cases:
        right = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=first_choice(case.answer))
        bfcl.grade(package, case, right)
        assert right.verdict == "pass", (case.id, right.error)
    case = cases[0]
    calls = first_choice(case.answer)
    ((name, params),) = calls[0].items()
    calls[0] = {name: {**params, "unexpected_parameter": 1}}
    wrong = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=calls)
    bfcl.grade(package, case, wrong)
    assert wrong.verdict == "fail" and wrong.error_type


def test_irrelevance_passes_without_a_call_and_fails_with_one(package: Any) -> None:
    (case,) = bfcl.load_cases(package, ["irrelevance"], 1, [])
    silent = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=[])
    undecodable = bfcl.Outcome(case.id, case.category, "bfcl-prompt", "m", verdict="graded", decode_error="x")
    name = case.functions[0]["name"]
    called = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=[{name: {}}])
    # A call llmist refused to run (a made-up gadget) was written all the same: BFCL's decoder
    # would read it in prompt mode, so it fails the case too.
    refused = bfcl.Outcome(
        case.id, case.category, "block", "m", verdict="graded", decoded=[],
        rejected=[{"gadget": "fastest_route", "parameters": {}, "error": "Unknown gadget 'fastest_route'."}],
    )  # fmt: skip
    for out in (silent, undecodable, called, refused):
        bfcl.grade(package, case, out)
    assert (silent.verdict, undecodable.verdict, called.verdict, refused.verdict) == ("pass", "pass", "fail", "fail")


def test_a_harness_error_stays_an_error(package: Any) -> None:
    (case,) = bfcl.load_cases(package, ["simple_python"], 1, [])
    out = bfcl.Outcome(case.id, case.category, "block", "m", error=["ConnectionError: refused"])
    bfcl.grade(package, case, out)
    assert out.verdict == "error"


def test_a_default_is_described_not_filled_in() -> None:
    schema = {"type": "object", "properties": {"unit": {"type": "string", "description": "Unit.", "default": "km"}}}
    converted = bfcl._gadget_schema(schema)
    assert converted["properties"]["unit"] == {"type": "string", "description": 'Unit. Default: "km".'}
    assert schema["properties"]["unit"]["default"] == "km"  # the case's own schema is left as it was


def test_unknown_ids_are_named(package: Any) -> None:
    with pytest.raises(ValueError, match="simple_python_9999"):
        bfcl.load_cases(package, ["simple_python"], None, ["simple_python_9999"])


def test_relevance_passes_with_a_call_and_fails_without_one(package: Any) -> None:
    (case,) = bfcl.load_cases(package, ["live_relevance"], 1, [])
    assert case.answer is None
    name = case.functions[0]["name"]
    called = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=[{name: {}}])
    refused = bfcl.Outcome(
        case.id, case.category, "block", "m", verdict="graded", decoded=[],
        rejected=[{"gadget": name, "parameters": {}, "error": "Missing required parameter."}],
    )  # fmt: skip
    silent = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=[])
    for out in (called, refused, silent):
        bfcl.grade(package, case, out)
    assert (called.verdict, refused.verdict, silent.verdict) == ("pass", "pass", "fail")
    assert silent.error_type == "relevance_error:decoder_failed"


def test_a_live_case_keeps_its_system_message_and_earlier_exchange(package: Any) -> None:
    import asyncio

    from llmist.testing import MockModel

    cases = bfcl.load_cases(package, ["live_irrelevance"], None, [])
    case = next(c for c in cases if [m["role"] for m in c.messages] == ["system", "user", "assistant", "user"])
    model = MockModel(["No function fits."])
    out = bfcl.Outcome(case.id, case.category, "block", "m")
    asyncio.run(bfcl.run_llmist(case, "block", model, None, out))
    (request,) = model.requests
    system, *rest = request.messages
    assert system.role == "system" and case.messages[0]["content"] in str(system.content)
    assert [(m.role, m.content) for m in rest] == [(m["role"], m["content"]) for m in case.messages[1:]]
    prompt = package.system_prompt(copy.deepcopy(case.messages), case.functions, case.id)
    assert prompt[0]["role"] == "system" and case.messages[0]["content"] in prompt[0]["content"]
    assert prompt[1:] == case.messages[1:]


def test_the_live_categories_load_and_the_checker_passes_their_answers(package: Any) -> None:
    cases = bfcl.load_cases(package, ["live_simple", "live_multiple", "live_parallel_multiple"], 3, [])
    assert len(cases) == 9
    for case in cases:
        right = bfcl.Outcome(case.id, case.category, "block", "m", verdict="graded", decoded=first_choice(case.answer))
        bfcl.grade(package, case, right)
        assert right.verdict == "pass", (case.id, right.error)
