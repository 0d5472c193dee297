"""``llmist batch`` end to end: a real subprocess, a scripted model, a gadget file, a results file."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path

import pytest

from llmist import Agent
from tests.cli.helpers import ROOT, Terminal, llmist, one_error_line

TOOLS = ROOT / "examples" / "cli" / "tools.py"
SCRIPT = ROOT / "examples" / "cli" / "add-script.json"


def write_tasks(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"t{n}", "prompt": f"add {n}"}) + "\n" for n in range(count)))
    return path


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_batch_runs_every_task_with_the_gadgets_and_prints_a_summary(tmp_path: Path) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 5), tmp_path / "results.jsonl"
    done = llmist(
        "batch", str(tasks), "-m", f"mock:{SCRIPT}", "-g", str(TOOLS), "--out", str(out), "--concurrency", "2"
    )
    assert done.returncode == 0, done.stderr
    assert sorted(str(r["id"]) for r in rows(out)) == [f"t{n}" for n in range(5)]
    assert {r["output"] for r in rows(out)} == {"2 + 3 = 5."}
    assert "succeeded" in done.stdout and "Every task ran" in done.stdout


@pytest.mark.slow
def test_batch_run_again_skips_what_is_done(tmp_path: Path) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 3), tmp_path / "results.jsonl"
    llmist("batch", str(tasks), "-m", "mock", "--out", str(out))
    again = llmist("batch", str(tasks), "-m", "mock", "--out", str(out))
    assert again.returncode == 0
    assert len(rows(out)) == 3
    assert re.search(r"already done \(skipped\)\W+3\b", again.stdout)


@pytest.mark.slow
def test_batch_stopped_by_the_budget_exits_3_and_says_so(tmp_path: Path) -> None:
    tools = tmp_path / "costly.py"
    tools.write_text(
        "from llmist import GadgetResult, gadget\n\n"
        "@gadget(description='Add two integers')\n"
        "def add(a: int, b: int) -> GadgetResult:\n"
        "    return GadgetResult(str(a + b), cost=0.5)\n"
    )
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 10), tmp_path / "results.jsonl"
    args = ["-m", f"mock:{SCRIPT}", "-g", str(tools), "--out", str(out), "--concurrency", "1", "--budget", "1"]
    done = llmist("batch", str(tasks), *args)
    assert done.returncode == 3, done.stderr
    assert "Stopped by the budget" in done.stdout and len(rows(out)) == 2


@pytest.mark.slow
def test_a_bad_tasks_file_names_its_line(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "a", "prompt": "ok"}\n{"id": "b"}\n')
    done = llmist("batch", str(tasks), "-m", "mock", "--out", str(tmp_path / "r.jsonl"))
    assert done.returncode == 2
    assert "tasks.jsonl:2: a task needs a string 'prompt'" in done.stderr


@pytest.mark.slow
def test_ctrl_c_stops_starting_runs_and_leaves_a_valid_file(tmp_path: Path) -> None:
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"delay_s": 0.05, "chunk_size": 2, "turns": ["a slow answer, one chunk at a time"]}))
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 200), tmp_path / "results.jsonl"
    term = Terminal("batch", str(tasks), "-m", f"mock:{script}", "--out", str(out), "--concurrency", "4")
    term.expect(re.compile(r"\b[1-9]\d*/200").search)
    term.interrupt()
    assert term.wait(60) == 130
    written = rows(out)
    assert 1 <= len(written) < 200 and all(r["error"] is None for r in written)
    assert "not started" in term.text and "Interrupted (stopped)" in term.text


@pytest.mark.slow
def test_ctrl_c_twice_cancels_the_runs_in_flight(tmp_path: Path) -> None:
    script = tmp_path / "slow.json"
    script.write_text(
        json.dumps({"delay_s": 0.2, "chunk_size": 1, "turns": ["a very slow answer, one letter at a time"]})
    )
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 200), tmp_path / "results.jsonl"
    term = Terminal("batch", str(tasks), "-m", f"mock:{script}", "--out", str(out), "--concurrency", "4")
    term.expect("running")
    term.interrupt()
    term.expect("stopping")
    term.interrupt()
    assert term.wait(60) == 130
    written = rows(out)
    assert len(written) == 4 and all(r["stop_reason"] == "cancelled" for r in written)
    assert "Interrupted (cancelled)" in term.text


@pytest.mark.slow
def test_the_progress_bar_shows_done_failed_running_and_cost(tmp_path: Path) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 20), tmp_path / "results.jsonl"
    term = Terminal("batch", str(tasks), "-m", f"mock:{SCRIPT}", "-g", str(TOOLS), "--out", str(out))
    term.expect("20/20")
    assert term.wait() == 0
    assert "failed 0" in term.text and "running" in term.text and "$0.0000" in term.text


@pytest.mark.slow
def test_batch_on_ray_writes_the_same_results(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    tasks = write_tasks(tmp_path / "tasks.jsonl", 6)
    common = ["-m", f"mock:{SCRIPT}", "-g", str(TOOLS)]
    local = llmist("batch", str(tasks), *common, "--out", str(tmp_path / "local.jsonl"))
    remote = llmist(
        "batch", str(tasks), *common, "--out", str(tmp_path / "ray.jsonl"), "--backend", "ray", "--workers", "2"
    )
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    same = [{k: v for k, v in r.items() if k != "duration_s"} for r in rows(tmp_path / "local.jsonl")]
    other = [{k: v for k, v in r.items() if k != "duration_s"} for r in rows(tmp_path / "ray.jsonl")]
    assert sorted(same, key=str) == sorted(other, key=str)


@pytest.mark.slow
def test_the_tasks_file_given_as_out_is_refused(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", 3)
    before = tasks.read_text()
    line = one_error_line(llmist("batch", str(tasks), "-m", "mock", "--out", str(tasks)))
    assert line == f"error: --out {tasks} is the tasks file; give the results another file (default: results.jsonl)"
    assert tasks.read_text() == before


@pytest.mark.slow
def test_a_file_of_tasks_is_not_taken_for_results_already_done(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", 3)
    copy = tmp_path / "copy.jsonl"
    copy.write_text(tasks.read_text())
    line = one_error_line(llmist("batch", str(tasks), "-m", "mock", "--out", str(copy)))
    assert line.startswith(f"error: {copy}:1: not a result line (no 'output', 'stop_reason'")


@pytest.mark.slow
def test_an_out_that_is_a_directory_is_one_line_naming_it(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", 3)
    line = one_error_line(llmist("batch", str(tasks), "-m", "mock", "--out", str(tmp_path)))
    assert line == f"error: results file {tmp_path} is a directory; give the path of a file"


@pytest.mark.slow
def test_a_results_file_that_is_not_utf8_is_one_line_naming_it(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path / "tasks.jsonl", 3)
    binary = tmp_path / "results.jsonl"
    binary.write_bytes(b'{"id": "x"}\n\xff\xfe\x00binary\n')
    line = one_error_line(llmist("batch", str(tasks), "-m", "mock", "--out", str(binary)))
    assert line.startswith(f"error: {binary}:2: not UTF-8 text (byte 0xff)") and "use another --out file" in line


@pytest.mark.slow
def test_a_budget_of_zero_starts_no_run(tmp_path: Path) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 5), tmp_path / "results.jsonl"
    done = llmist("batch", str(tasks), "-m", f"mock:{SCRIPT}", "-g", str(TOOLS), "--out", str(out), "--budget", "0")
    assert done.returncode == 3, done.stderr
    assert "Stopped by the budget: $0.0000 spent of $0.0000; 5 task(s) not started" in " ".join(done.stdout.split())
    assert not out.exists() or rows(out) == []


@pytest.mark.slow
def test_a_piped_batch_prints_a_progress_line_at_each_tenth(tmp_path: Path) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 20), tmp_path / "results.jsonl"
    done = llmist("batch", str(tasks), "-m", "mock", "--out", str(out), "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stderr.splitlines() if line.startswith("batch: ")]
    assert [line.split(" done")[0] for line in progress] == [f"batch: {n}/20" for n in range(2, 21, 2)]
    assert progress[-1].startswith("batch: 20/20 done (100%), 0 failed, 0 running, $0.0000, ")


async def test_a_piped_batch_prints_a_progress_line_every_interval(tmp_path: Path) -> None:
    from rich.console import Console

    from llmist.batch import iter_batch
    from llmist.cli.batch_cmd import PipeProgress
    from llmist.testing import MockModel

    buffer = io.StringIO()
    batch = iter_batch(Agent(model=MockModel(["ok"])), ["a", "b"], out=tmp_path / "r.jsonl")
    progress = PipeProgress(batch, Console(file=buffer, width=200), every_s=10.0)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await progress.tick(sleep)
    assert waits == [10.0, 10.0, 10.0]
    assert buffer.getvalue().splitlines()[0].startswith("batch: 0/2 done (0%), 0 failed, 0 running, $0.0000, ")
    assert len(buffer.getvalue().splitlines()) == 2
