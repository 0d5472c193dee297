"""Every run of a batch gets its line, whatever text it ends with: a lone surrogate is written as
U+FFFD (the rule for all text leaving the process), and a line that cannot be written at all
counts as a failed task, never as a silent loss."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings

from llmist import Agent
from llmist.batch import ResultsFile, TaskResult, arun_batch
from llmist.providers.base import Message, Usage
from llmist.testing import MockModel
from tests.strategies import any_text, replaced


def _echo(messages: Sequence[Message]) -> str:
    return "echo " + next(m.text for m in messages if m.role == "user")


async def test_a_run_whose_output_holds_a_lone_surrogate_is_written(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    agent = Agent(model=MockModel(_echo))
    summary = await arun_batch(agent, ["one", "two \ud800", "three"], out=out, handle_sigint=False)
    rows = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert set(rows) == {"0", "1", "2"}
    assert rows["1"]["output"] == "echo two \ufffd"
    assert summary.succeeded == 3 and summary.failed == 0


_FULL_DISK = """
import asyncio, json, resource, signal, sys
from llmist import Agent
from llmist.batch import arun_batch
from llmist.testing import MockModel
from tests.strategies import any_text, replaced

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the size limit, a write fails (EFBIG) instead
resource.setrlimit(resource.RLIMIT_FSIZE, (400, 400))
agent = Agent(model=MockModel(lambda messages: "x" * 150))
summary = asyncio.run(arun_batch(agent, ["a", "b", "c"], out=sys.argv[1], concurrency=1, handle_sigint=False))
print(json.dumps({"succeeded": summary.succeeded, "failed": summary.failed, "message": summary.message}))
"""


def test_a_line_that_cannot_be_written_counts_as_a_failed_task(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK, str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    text = out.read_text(encoding="utf-8")
    written = text.count("\n")
    assert written < 3 and text.endswith("\n")  # no partial line left behind
    assert all(json.loads(line)["output"] == "x" * 150 for line in text.splitlines())
    assert summary["succeeded"] == written and summary["failed"] == 3 - written
    assert "could not be written" in proc.stderr


@settings(deadline=None)  # file I/O: slow on a busy machine
@given(any_text, any_text)
def test_any_text_is_written_as_a_line_that_reads_back_cleaned(output: str, error: str) -> None:
    result = TaskResult("id", output, None, Usage(), 0.0, error, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        file = ResultsFile(Path(tmp) / "r.jsonl")
        file.append(result)
        file.close()
        (line,) = (Path(tmp) / "r.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    back = TaskResult.from_json(line)
    assert (back.output, back.error) == (replaced(output), replaced(error))
