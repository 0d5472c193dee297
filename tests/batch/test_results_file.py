"""The results file: every line round-trips, and a file cut at any byte keeps every whole line."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from llmist.batch import ResultsFile, TaskResult
from llmist.providers.base import Usage

ids = st.text(min_size=1, max_size=12)
outputs = st.one_of(st.none(), st.text(max_size=40), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
results = st.builds(
    TaskResult,
    id=ids,
    output=outputs,
    stop_reason=st.sampled_from([None, "no_calls", "task_complete", "cancelled"]),
    usage=st.builds(Usage, st.integers(0, 10**6), st.integers(0, 10**6)),
    cost=st.floats(0, 100, allow_nan=False),
    error=st.one_of(st.none(), st.text(max_size=30)),
    duration_s=st.floats(0, 1000, allow_nan=False).map(lambda d: round(d, 6)),
)


@given(results)
def test_a_result_line_reads_back_as_the_same_result(result: TaskResult) -> None:
    line = result.to_json()
    assert "\n" not in line
    assert TaskResult.from_json(line) == result


@given(st.lists(results, min_size=1, max_size=8, unique_by=lambda r: r.id), st.data())
def test_a_file_cut_at_any_byte_keeps_every_whole_line_and_stays_appendable(
    written: list[TaskResult], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.jsonl"
        file = ResultsFile(path)
        for result in written:
            file.append(result)
        file.close()
        raw = path.read_bytes()
        cut = data.draw(st.integers(0, len(raw)))
        os.truncate(path, cut)
        whole = raw[:cut].count(b"\n")
        reopened = ResultsFile(path)
        assert set(reopened.done) == {r.id for r in written[:whole] if r.ok}
        reopened.append(written[0])
        reopened.close()
        assert [TaskResult.from_json(line) for line in path.read_text().split("\n")[:-1]] == [
            *written[:whole],
            written[0],
        ]
