"""Summaries per model and syntax, JSON lines, and the tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from llmist.evals import CaseResult, category_table, read_results, summarize, summary_table, write_results


def _result(syntax: str, passed: bool, **kw: object) -> CaseResult:
    base: dict[str, object] = dict(model="m", syntax=syntax, case="c", category="single", run=1, passed=passed,
                                   failures=[] if passed else ["x"], calls=2, malformed=1,
                                   repairs={"unknown_gadget": 1}, iterations=2, input_tokens=100,
                                   output_tokens=20, cost=0.5, latency_s=1.0)  # fmt: skip
    base.update(kw)
    return CaseResult(**base)  # type: ignore[arg-type]


def test_a_summary_gives_success_rate_and_malformed_per_call() -> None:
    [block, emoji] = summarize([_result("block", True), _result("block", False), _result("emoji", True)])
    assert (block.syntax, block.passed, block.runs, block.success_rate) == ("block", 1, 2, 0.5)
    assert block.malformed_per_call == 0.5
    assert (block.repairs, block.tokens, block.cost) == (2, 120, 1.0)
    assert emoji.success_rate == 1.0


def test_results_survive_a_round_trip_through_json_lines(tmp_path: Path) -> None:
    results = [_result("block", True), _result("emoji", False)]
    write_results(tmp_path / "r.jsonl", results)
    assert read_results(tmp_path / "r.jsonl") == results


def test_a_line_that_is_not_a_result_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text('{"model": "m", "colour": 1}\n')
    try:
        read_results(tmp_path / "r.jsonl")
    except ValueError as exc:
        assert "r.jsonl:1" in str(exc) and "colour" in str(exc)
    else:
        raise AssertionError("no error")


def test_the_tables_show_each_model_and_syntax() -> None:
    console = Console(width=120, record=True)
    results = [_result("block", True), _result("emoji", False, model="other")]
    console.print(summary_table(summarize(results)))
    console.print(category_table(results))
    text = console.export_text()
    assert "1/1 100%" in text and "0/1 0%" in text and "other" in text


def test_a_write_that_fails_half_way_leaves_the_earlier_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    earlier = [_result("block", True)]
    write_results(path, earlier)

    def failing() -> Iterator[CaseResult]:
        yield _result("emoji", True)
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_results(path, failing())
    assert read_results(path) == earlier
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]  # no scratch file left behind
