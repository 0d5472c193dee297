"""The grader names every reason a run failed."""

from __future__ import annotations

from llmist.evals import CallRecord, EvalCase, ExpectedCall, grade, normalize_answer

CASE = EvalCase("c", "single", "p", [], answer=("6912",), calls=(ExpectedCall("add", {"a": 1, "b": 2}),))


def _call(
    gadget: str = "add",
    ok: bool = True,
    iteration: int = 1,
    deps: tuple[str, ...] = (),
    call_id: str = "id",
    **params: object,
) -> CallRecord:
    return CallRecord(gadget, call_id, params or {"a": 1, "b": 2}, ok, None if ok else "boom", iteration, deps)


def test_a_right_answer_with_the_expected_call_passes() -> None:
    assert grade(CASE, "The sum is 6,912.", "no_calls", [_call()]) == []


def test_digit_group_commas_do_not_matter() -> None:
    assert normalize_answer("6,912 and 1,000,000") == "6912 and 1000000"


def test_a_missing_answer_string_is_named() -> None:
    assert grade(CASE, "no idea", "no_calls", [_call()]) == ["answer lacks '6912'"]


def test_a_failed_call_does_not_count_as_the_expected_one() -> None:
    assert grade(CASE, "6912", "no_calls", [_call(ok=False)]) == ["no successful call add(a=1, b=2)"]


def test_parameters_must_match() -> None:
    assert grade(CASE, "6912", "no_calls", [_call(a=1, b=3)]) == ["no successful call add(a=1, b=2)"]


def test_string_parameters_match_after_stripping() -> None:
    case = EvalCase("c", "single", "p", [], calls=(ExpectedCall("echo", {"text": "hi"}),))
    assert grade(case, "", "no_calls", [_call("echo", text="hi\n")]) == []


def test_calls_expected_together_must_come_in_one_response() -> None:
    case = EvalCase("c", "parallel", "p", [], same_response=True,
                    calls=(ExpectedCall("a"), ExpectedCall("b")))  # fmt: skip
    apart = [_call("a", iteration=1), _call("b", iteration=2)]
    assert grade(case, "", "no_calls", apart) == ["the expected calls came in different responses, not together"]
    assert grade(case, "", "no_calls", [_call("a"), _call("b")]) == []


def test_a_dependency_is_required_when_the_case_says_so() -> None:
    case = EvalCase("c", "dependency", "p", [], calls=(ExpectedCall("read", with_dependency=True),))
    assert grade(case, "", "no_calls", [_call("read")]) == ["no successful call read() waiting for another call"]
    save = _call("save", call_id="save")
    assert grade(case, "", "no_calls", [save, _call("read", deps=("save",))]) == []


def test_a_dependency_on_an_id_no_call_has_is_no_dependency() -> None:
    # The loop runs such a call without waiting (missing_dependency): it waited for nothing.
    case = EvalCase("c", "dependency", "p", [], calls=(ExpectedCall("read", with_dependency=True),))
    alone = [_call("save", call_id="gadget_1"), _call("read", deps=("first",), call_id="second")]
    assert grade(case, "", "no_calls", alone) == ["no successful call read() waiting for another call"]
    itself = [_call("read", deps=("second",), call_id="second")]
    assert grade(case, "", "no_calls", itself) == ["no successful call read() waiting for another call"]


def test_the_stop_reason_is_checked() -> None:
    case = EvalCase("c", "completion", "p", [], stop_reason="task_complete")
    assert grade(case, "", "no_calls", []) == ["stopped with 'no_calls', expected 'task_complete'"]


def test_a_check_function_tests_the_parameters() -> None:
    case = EvalCase("c", "multiline", "p", [], calls=(ExpectedCall("w", check=lambda p: "def" in str(p["code"])),))
    assert grade(case, "", "no_calls", [_call("w", code="x = 1")]) == ["no successful call w()"]
    assert grade(case, "", "no_calls", [_call("w", code="def f(): pass")]) == []
