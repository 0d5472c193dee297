"""The built-in suite: enough cases, every category the issue names, and each case solvable."""

from __future__ import annotations

import pytest

from llmist.evals import BUILTIN_SUITE, EvalCase, reference_model, run_case

CATEGORIES = {"single", "coercion", "multiline", "nested", "parallel", "dependency", "validation", "fails_once",
              "output_viewer", "completion"}  # fmt: skip
RUNS = [(case, syntax) for case in BUILTIN_SUITE.cases for syntax in case.syntaxes]


def test_the_builtin_suite_has_at_least_thirty_cases() -> None:
    assert len(BUILTIN_SUITE.cases) >= 30


def test_the_builtin_suite_covers_every_category() -> None:
    assert {c.category for c in BUILTIN_SUITE.cases} == CATEGORIES


def test_most_cases_run_in_every_syntax() -> None:
    every = [c for c in BUILTIN_SUITE.cases if set(c.syntaxes) == {"block", "emoji", "native"}]
    assert len(every) >= 25


def test_only_the_dependency_cases_skip_the_native_syntax() -> None:
    skipped = {c.category for c in BUILTIN_SUITE.cases if "native" not in c.syntaxes}
    assert skipped == {"dependency"}


@pytest.mark.parametrize(("case", "syntax"), RUNS, ids=[f"{c.name}-{s}" for c, s in RUNS])
async def test_each_case_passes_with_its_reference_solution(case: EvalCase, syntax: str) -> None:
    result = await run_case(case, syntax, reference_model)  # type: ignore[arg-type]
    assert result.failures == []
    assert result.malformed == 0


async def test_a_wrong_answer_fails_the_case() -> None:
    case = BUILTIN_SUITE.select(["add_numbers"]).cases[0]
    from llmist.testing import MockModel, block_call

    model = MockModel([block_call("add", a=1234, b=5678), "It is 7000."])
    result = await run_case(case, "block", model)
    assert result.failures == ["answer lacks '6912'"]
