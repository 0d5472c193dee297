"""llmist.batch on the asyncio backend: results file, resume, concurrency, 429s, budget, stop and cancel."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from llmist import Agent
from llmist.batch import BatchInputError, RateLimit, Task, TaskResult, arun_batch, iter_batch, run_batch
from llmist.providers import RateLimitError, RetryPolicy
from llmist.providers._common import ReliableProvider
from llmist.providers.base import LLMChunk, LLMRequest, Usage
from llmist.testing import MockModel

from .scripted import TASK_COST, Script, prompts, scripted_agent

FAST_RETRY = RetryPolicy(max_attempts=10, base_delay=0.005, max_delay=0.05)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_each_task_gets_one_result_line_with_every_field(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    summary = await arun_batch(scripted_agent(), prompts(3), out=out, handle_sigint=False)
    rows = sorted(lines(out), key=lambda r: str(r["id"]))
    assert [r["id"] for r in rows] == ["0", "1", "2"]
    assert [r["output"] for r in rows] == ["sum 1", "sum 2", "sum 3"]
    assert set(rows[0]) == {"id", "output", "stop_reason", "usage", "cost", "error", "duration_s"}
    assert rows[0]["stop_reason"] == "no_calls" and rows[0]["error"] is None
    assert rows[0]["cost"] == pytest.approx(TASK_COST)
    assert summary.succeeded == 3 and summary.stop_reason == "completed"


async def test_a_rerun_with_the_same_file_skips_the_ids_already_done(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    await arun_batch(scripted_agent(), prompts(5)[:3], out=out, handle_sigint=False)
    script = Script()
    summary = await arun_batch(scripted_agent(script), prompts(5), out=out, handle_sigint=False)
    assert summary.skipped == 3 and summary.succeeded == 2
    assert sorted(t for _, t in script.requests if t == "first") == ["first", "first"]
    assert sorted(str(r["id"]) for r in lines(out)) == ["0", "1", "2", "3", "4"]


async def test_a_batch_with_every_task_done_says_there_was_nothing_to_do(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    await arun_batch(scripted_agent(), prompts(2), out=out, handle_sigint=False)
    again = await arun_batch(scripted_agent(), prompts(2), out=out, handle_sigint=False)
    assert again.skipped == 2 and again.message.startswith("Nothing to do")


async def test_failed_tasks_are_written_and_run_again_next_time(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    broken = Agent(model=MockModel([RuntimeError("model down")]))
    first = await arun_batch(broken, [Task("a", "hi")], out=out, handle_sigint=False)
    assert first.failed == 1 and "RuntimeError: model down" in str(lines(out)[0]["error"])
    second = await arun_batch(Agent(model="mock"), [Task("a", "hi")], out=out, handle_sigint=False)
    assert second.skipped == 0 and second.succeeded == 1
    assert [r["error"] is None for r in lines(out)] == [False, True]


async def test_a_partial_last_line_left_by_a_crash_is_cut_off(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    await arun_batch(Agent(model="mock"), ["one"], out=out, handle_sigint=False)
    with out.open("a") as f:
        f.write('{"id": "1", "outp')
    await arun_batch(Agent(model="mock"), ["one", "two"], out=out, handle_sigint=False)
    assert [r["id"] for r in lines(out)] == ["0", "1"]


def test_a_results_file_that_is_not_one_says_which_line(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    out.write_text("not json\n")
    with pytest.raises(BatchInputError, match=r"results.jsonl:1: not a result line"):
        run_batch(Agent(model="mock"), ["x"], out=out)


@pytest.mark.slow
async def test_a_thousand_tasks_with_429s_all_succeed_within_the_concurrency(tmp_path: Path) -> None:
    script = Script(fail_every=13, pause_s=0.01)
    out = tmp_path / "results.jsonl"
    summary = await arun_batch(
        scripted_agent(script), prompts(1000), out=out, concurrency=100, retry=FAST_RETRY, handle_sigint=False
    )
    assert summary.succeeded == 1000 and summary.failed == 0
    assert sorted(int(str(r["id"])) for r in lines(out)) == list(range(1000))
    assert all(r["output"] == f"sum {int(str(r['id'])) + 1}" for r in lines(out))
    assert sum(1 for _, kind in script.requests if kind == "429") >= 100
    assert script.most_active <= 100


async def test_a_429_pauses_every_run_not_only_the_one_that_got_it(tmp_path: Path) -> None:
    script = Script(fail_every=7, pause_s=0.03)
    await arun_batch(
        scripted_agent(script),
        prompts(60),
        out=tmp_path / "r.jsonl",
        concurrency=30,
        retry=FAST_RETRY,
        handle_sigint=False,
    )
    limited = [t for t, kind in script.requests if kind == "429"]
    started_during_a_pause = [t for t, _ in script.requests for at in limited if at < t < at + 0.03 - 1e-3]
    assert limited and started_during_a_pause == []


async def test_requests_per_minute_hold_across_all_runs(tmp_path: Path) -> None:
    script = Script()
    limit = RateLimit(requests_per_minute=10, window_s=0.2)
    await arun_batch(
        scripted_agent(script), prompts(15), out=tmp_path / "r.jsonl", rate_limits={"mock": limit}, handle_sigint=False
    )
    times = sorted(t for t, _ in script.requests)
    assert len(times) == 30
    assert max(sum(1 for u in times if t <= u < t + 0.2 - 2e-3) for t in times) <= 10
    assert times[-1] - times[0] >= 0.4


async def test_tokens_per_minute_hold_across_all_runs(tmp_path: Path) -> None:
    script = Script()
    out = tmp_path / "r.jsonl"
    per_window = 2000
    limit = RateLimit(tokens_per_minute=per_window, window_s=0.2)
    await arun_batch(scripted_agent(script), prompts(12), out=out, rate_limits=limit, handle_sigint=False)
    used = sum(int(str(r["usage"]["input_tokens"])) + int(str(r["usage"]["output_tokens"])) for r in lines(out))
    times = sorted(t for t, _ in script.requests)
    assert used > 3 * per_window  # three windows' worth at least: the last requests wait two windows
    assert times[-1] - times[0] >= 0.2 * (used // per_window - 1)


async def test_the_budget_stops_new_runs_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    summary = await arun_batch(
        scripted_agent(delay_s=0.001), prompts(50), out=out, concurrency=4, budget_usd=0.1, handle_sigint=False
    )
    assert summary.stop_reason == "budget"
    assert 10 <= summary.succeeded <= 13 and summary.not_started == 50 - summary.succeeded
    assert "budget" in summary.message and "not started" in summary.message
    assert len(lines(out)) == summary.succeeded


async def test_a_budget_of_zero_starts_no_run(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    summary = await arun_batch(scripted_agent(), prompts(5), out=out, concurrency=4, budget_usd=0, handle_sigint=False)
    assert (summary.stop_reason, summary.succeeded, summary.not_started, summary.cost) == ("budget", 0, 5, 0.0)
    assert not out.exists() or out.read_text() == ""


async def test_stop_lets_the_runs_in_flight_finish_and_starts_no_more(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    batch = iter_batch(scripted_agent(delay_s=0.002), prompts(40), out=out, concurrency=5)
    async for _ in batch:
        batch.stop()
    assert batch.summary is not None and batch.summary.stop_reason == "stopped"
    assert batch.summary.succeeded == 5 and batch.summary.not_started == 35
    assert all(r["error"] is None for r in lines(out))


async def test_cancel_ends_the_runs_in_flight_and_writes_them_as_cancelled(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    hang = asyncio.Event()

    async def slow(messages: object) -> str:
        await hang.wait()
        return "never"

    batch = iter_batch(Agent(model=MockModel(slow)), prompts(10), out=out, concurrency=3)
    results: list[TaskResult] = []

    async def consume() -> None:
        async for result in batch:
            results.append(result)

    consumer = asyncio.create_task(consume())
    while batch.running < 3:
        await asyncio.sleep(0)
    batch.cancel()
    await consumer
    assert batch.summary is not None and batch.summary.stop_reason == "cancelled"
    assert len(results) == 3 and all(r.stop_reason == "cancelled" and r.error for r in results)
    assert len(lines(out)) == 3


async def test_results_come_as_runs_finish(tmp_path: Path) -> None:
    gates = {n: asyncio.Event() for n in range(3)}

    async def respond(messages: list[object]) -> str:
        n = int(str(getattr(messages[-1], "text")).split()[-1])  # noqa: B009
        await gates[n].wait()
        return f"done {n}"

    batch = iter_batch(Agent(model=MockModel(respond)), prompts(3), out=tmp_path / "r.jsonl")
    order: list[str] = []
    gates[2].set()
    async for result in batch:
        order.append(result.id)
        if result.id != "0":
            gates[int(result.id) - 1].set()
    assert order == ["2", "1", "0"]


async def test_a_factory_gets_each_task_with_its_inputs(tmp_path: Path) -> None:
    seen: list[tuple[str, object]] = []

    def make(task: Task) -> Agent:
        seen.append((task.id, task.inputs.get("lang")))
        return Agent(model="mock", system=f"Answer in {task.inputs.get('lang')}")

    tasks = [
        {"id": "a", "prompt": "hi", "inputs": {"lang": "fr"}},
        {"id": "b", "prompt": "yo", "inputs": {"lang": "de"}},
    ]
    await arun_batch(make, tasks, out=tmp_path / "r.jsonl", handle_sigint=False)
    assert sorted(seen) == [("a", "fr"), ("b", "de")]


async def test_a_structured_output_is_written_as_json(tmp_path: Path) -> None:
    class Answer(BaseModel):
        value: int

    from llmist.testing import block_call

    model = MockModel(lambda messages: block_call("FinalAnswer", value=7))
    agent = Agent(model=model, output_type=Answer)
    out = tmp_path / "r.jsonl"
    await arun_batch(agent, ["seven?"], out=out, handle_sigint=False)
    assert lines(out)[0]["output"] == {"value": 7}


def test_tasks_with_one_id_twice_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BatchInputError, match=r"unique.*'a'"):
        run_batch(Agent(model="mock"), [Task("a", "x"), Task("a", "y")], out=tmp_path / "r.jsonl")


def test_a_task_without_a_prompt_is_refused_naming_what_is_expected(tmp_path: Path) -> None:
    with pytest.raises(BatchInputError, match=r"needs a string 'prompt'"):
        run_batch(Agent(model="mock"), [{"id": "a"}], out=tmp_path / "r.jsonl")


def test_run_batch_runs_without_an_event_loop(tmp_path: Path) -> None:
    summary = run_batch(Agent(model="mock"), ["a", "b"], out=tmp_path / "r.jsonl")
    assert summary.succeeded == 2 and summary.out == tmp_path / "r.jsonl"


class _FlakyProvider(ReliableProvider):
    """An SDK-style provider (own retry policy) whose first ``failures`` attempts get a 429."""

    name = "flaky"

    def __init__(self, failures: int) -> None:
        super().__init__(retry=RetryPolicy(max_attempts=5, base_delay=0.001))
        self.failures = failures
        self.attempts: list[float] = []
        """One entry per attempt (a list, so the batch's copy of the provider shares it)."""

    async def _stream_once(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        self.attempts.append(time.monotonic())
        if len(self.attempts) <= self.failures:
            raise RateLimitError("slow down", provider="flaky", status_code=429, retry_after=0.001)
        yield LLMChunk("fine", usage=Usage(1, 1), finish_reason="stop")


async def test_the_batch_policy_replaces_a_providers_own_retries(tmp_path: Path) -> None:
    provider = _FlakyProvider(failures=100)
    policy = RetryPolicy(max_attempts=3, base_delay=0.001)
    summary = await arun_batch(
        Agent(model=provider), ["x"], out=tmp_path / "r.jsonl", retry=policy, handle_sigint=False
    )
    assert summary.failed == 1 and len(provider.attempts) == 3
    assert provider.retry.max_attempts == 5  # the caller's provider is left as it was


async def test_a_provider_retried_by_the_batch_succeeds_after_429s(tmp_path: Path) -> None:
    provider = _FlakyProvider(failures=2)
    summary = await arun_batch(
        Agent(model=provider), ["x"], out=tmp_path / "r.jsonl", retry=FAST_RETRY, handle_sigint=False
    )
    assert summary.succeeded == 1 and len(provider.attempts) == 3
