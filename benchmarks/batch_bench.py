"""Batch runs: thousands of agent runs at once on one machine, against a model with real latency.

Each run of the workload makes four model calls: three rounds of one ``add`` gadget call, then
the answer. Every model call waits ~300 ms for its first token, then streams ~50 tokens/s in
chunks of 5 tokens (4 chunks, 100 ms apart): 0.6 s per call, 2.4 s of model time per run, so a
run is almost all waiting and concurrency is what buys throughput.

Cells, each in its own process (so peak RSS is the cell's own):

- ``llmist``: ``llmist.batch.arun_batch`` (results file included) over a streaming test provider
  with the latency above; ``add`` is an ``async def`` gadget.
- ``pydantic-ai``: its ``FunctionModel`` sleeping the same 0.6 s per call (not streamed: it
  pays no chunk handling), ``asyncio.gather`` of ``agent.run`` under a semaphore; async tool.
- ``smolagents``: ``ToolCallingAgent`` with a fake ``Model.generate`` sleeping 0.6 s, one agent
  per run on a thread pool of ``concurrency`` threads (ends through its ``final_answer`` tool:
  also four model calls).

Per cell: throughput (runs/s over the wall time of ``2 x concurrency`` runs), peak RSS, and the
event-loop lag (how late a 10 ms ``asyncio.sleep`` wakes up, sampled all through the batch;
for the thread pool, how late a 10 ms ``time.sleep`` of a monitor thread wakes up).

    python benchmarks/batch_bench.py                      # the matrix (llmist + the two peers)
    python benchmarks/batch_bench.py --levels 100 1000    # fewer levels
    python benchmarks/batch_bench.py --cell llmist --concurrency 1000   # one cell, one JSON line

The peers run under the anchors' virtual environment (``../shared/bench/agents/setup_venv.sh``,
default ``~/.cache/agent-anchors-venv``; ``--peers-python`` to point elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

FIRST_TOKEN_S = 0.3
"""Wait before a response's first chunk."""
CHUNKS = 4
"""Chunks per response (5 tokens each)."""
CHUNK_GAP_S = 0.1
"""Seconds between chunks: 5 tokens at 50 tokens/s."""
CALL_S = FIRST_TOKEN_S + (CHUNKS - 1) * CHUNK_GAP_S
"""Model time of one call, for the peers that take a response whole."""
ROUNDS = 3
"""Gadget rounds per run before the answer."""
LAG_TICK_S = 0.01
PEERS_PYTHON = Path.home() / ".cache" / "agent-anchors-venv" / "bin" / "python"


def peak_rss_mb() -> float:
    """The process's peak resident set size, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def lag_stats(lags: list[float]) -> dict[str, float]:
    """p50/p99/max of the lag samples, in ms."""
    if not lags:
        return {"lag_p50_ms": float("nan"), "lag_p99_ms": float("nan"), "lag_max_ms": float("nan")}
    ordered = sorted(lags)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {
        "lag_p50_ms": round(statistics.median(ordered) * 1000, 2),
        "lag_p99_ms": round(p99 * 1000, 2),
        "lag_max_ms": round(ordered[-1] * 1000, 2),
    }


async def loop_lag(lags: list[float], done: asyncio.Event) -> None:
    """Sample how late a 10 ms sleep wakes up on this loop until ``done``."""
    while not done.is_set():
        start = time.perf_counter()
        await asyncio.sleep(LAG_TICK_S)
        lags.append(time.perf_counter() - start - LAG_TICK_S)


def thread_lag(lags: list[float], done: threading.Event) -> None:
    """Sample how late a 10 ms sleep of this thread wakes up until ``done`` (GIL and scheduler)."""
    while not done.is_set():
        start = time.perf_counter()
        time.sleep(LAG_TICK_S)
        lags.append(time.perf_counter() - start - LAG_TICK_S)


# --- llmist ---------------------------------------------------------------------------------


def run_llmist(concurrency: int, runs: int) -> dict[str, Any]:
    """The llmist cell: ``arun_batch`` over the latency model."""
    from llmist import Agent, gadget
    from llmist.batch import arun_batch
    from llmist.providers.base import LLMChunk, LLMRequest, Usage
    from llmist.testing import block_call

    @gadget(description="Add two integers")
    async def add(a: int, b: int) -> str:
        return str(a + b)

    class LatencyModel:
        """Streams like a hosted model: first token after 300 ms, then 50 tokens/s in chunks."""

        name = "latency"
        model = "latency"
        offline = True

        async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
            rounds = sum(1 for m in request.messages if m.role == "gadget_result")
            text = block_call("add", a=rounds, b=1) if rounds < ROUNDS else f"The answer is {rounds + 1}."
            size = -(-len(text) // CHUNKS)
            await asyncio.sleep(FIRST_TOKEN_S)
            for i in range(CHUNKS):
                if i:
                    await asyncio.sleep(CHUNK_GAP_S)
                yield LLMChunk(text[i * size : (i + 1) * size])
            yield LLMChunk("", usage=Usage(50, 20), finish_reason="stop")

    agent = Agent(model=LatencyModel(), gadgets=[add], max_iterations=ROUNDS + 2)

    async def main() -> dict[str, Any]:
        lags: list[float] = []
        done = asyncio.Event()
        monitor = asyncio.create_task(loop_lag(lags, done))
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            summary = await arun_batch(
                agent, [f"task {n}" for n in range(runs)], concurrency=concurrency, out=Path(tmp) / "r.jsonl"
            )
            wall = time.perf_counter() - start
        done.set()
        await monitor
        assert summary.succeeded == runs, summary
        return {"wall_s": wall, **lag_stats(lags)}

    return asyncio.run(main())


# --- pydantic-ai ----------------------------------------------------------------------------


def run_pydantic_ai(concurrency: int, runs: int) -> dict[str, Any]:
    """The pydantic-ai cell: ``FunctionModel`` with the same latency, gather under a semaphore."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage

    usage = RequestUsage(input_tokens=50, output_tokens=20)

    async def model_fn(messages: list[Any], info: AgentInfo) -> ModelResponse:
        rounds = sum(1 for m in messages if any(isinstance(p, ToolReturnPart) for p in m.parts))
        await asyncio.sleep(CALL_S)
        if rounds >= ROUNDS:
            return ModelResponse(parts=[TextPart(f"The answer is {rounds + 1}.")], usage=usage)
        return ModelResponse(parts=[ToolCallPart("add", {"a": rounds, "b": 1}, tool_call_id=f"c{rounds}")], usage=usage)

    agent = Agent(FunctionModel(model_fn, model_name="latency"), instructions="You add numbers.")

    @agent.tool_plain
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    async def main() -> dict[str, Any]:
        lags: list[float] = []
        done = asyncio.Event()
        monitor = asyncio.create_task(loop_lag(lags, done))
        slots = asyncio.Semaphore(concurrency)

        async def one(n: int) -> str:
            async with slots:
                return (await agent.run(f"task {n}")).output

        start = time.perf_counter()
        outputs = await asyncio.gather(*(one(n) for n in range(runs)))
        wall = time.perf_counter() - start
        done.set()
        await monitor
        assert all(o == "The answer is 4." for o in outputs), outputs[:3]
        return {"wall_s": wall, **lag_stats(lags)}

    return asyncio.run(main())


# --- smolagents -----------------------------------------------------------------------------


def run_smolagents(concurrency: int, runs: int) -> dict[str, Any]:
    """The smolagents cell: one ``ToolCallingAgent`` per run on a pool of ``concurrency`` threads."""
    from concurrent.futures import ThreadPoolExecutor

    from smolagents import ToolCallingAgent, tool
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model
    from smolagents.monitoring import LogLevel

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: first integer
            b: second integer
        """
        return a + b

    def role(m: Any) -> Any:
        return m.role if isinstance(m, ChatMessage) else m.get("role")

    class LatencyModel(Model):  # type: ignore[misc]
        def generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> ChatMessage:
            rounds = sum(1 for m in messages if role(m) == MessageRole.TOOL_RESPONSE)
            time.sleep(CALL_S)
            name, arguments = ("final_answer", {"answer": "4"}) if rounds >= ROUNDS else ("add", {"a": rounds, "b": 1})
            call = ChatMessageToolCall(
                function=ChatMessageToolCallFunction(name=name, arguments=arguments), id=f"c{rounds}", type="function"
            )
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])

    def one(n: int) -> Any:
        agent = ToolCallingAgent(
            tools=[add], model=LatencyModel(model_id="latency"), verbosity_level=LogLevel.OFF, max_steps=ROUNDS + 3
        )
        return agent.run(f"task {n}")

    lags: list[float] = []
    done = threading.Event()
    monitor = threading.Thread(target=thread_lag, args=(lags, done))
    monitor.start()
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        outputs = list(pool.map(one, range(runs)))
    wall = time.perf_counter() - start
    done.set()
    monitor.join()
    assert all(str(o) == "4" for o in outputs), outputs[:3]
    return {"wall_s": wall, **lag_stats(lags)}


CELLS: dict[str, Callable[[int, int], dict[str, Any]]] = {
    "llmist": run_llmist,
    "pydantic-ai": run_pydantic_ai,
    "smolagents": run_smolagents,
}


def run_cell(name: str, concurrency: int, runs: int) -> dict[str, Any]:
    """One cell in this process: its figures as a dict (printed as a JSON line by ``--cell``)."""
    rss_before = peak_rss_mb()
    figures = CELLS[name](concurrency, runs)
    return {
        "lib": name,
        "concurrency": concurrency,
        "runs": runs,
        "runs_per_s": round(runs / figures["wall_s"], 1),
        "ideal_runs_per_s": round(concurrency / ((ROUNDS + 1) * CALL_S), 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "rss_before_mb": round(rss_before, 1),
        **{k: round(v, 2) if isinstance(v, float) else v for k, v in figures.items()},
        "python": platform.python_version(),
    }


def spawn(name: str, concurrency: int, runs: int, python: str, timeout: float) -> dict[str, Any]:
    """Run one cell in a fresh process; a timeout or crash is reported as such."""
    command = [python, __file__, "--cell", name, "--concurrency", str(concurrency), "--runs", str(runs)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"lib": name, "concurrency": concurrency, "runs": runs, "error": f"did not finish in {timeout:.0f}s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"lib": name, "concurrency": concurrency, "runs": runs, "error": f"exit {done.returncode}: {tail[0]}"}
    record: dict[str, Any] = json.loads(lines[-1])
    return record


def table(records: list[dict[str, Any]]) -> str:
    """The records as a markdown table."""
    head = "| library | concurrency | runs | runs/s (ideal) | peak RSS MB | loop lag p50 / p99 / max ms |"
    rows = [head, "|---|---:|---:|---:|---:|---:|"]
    for r in records:
        if "error" in r:
            rows.append(f"| {r['lib']} | {r['concurrency']} | {r['runs']} | {r['error']} | | |")
            continue
        lag = f"{r['lag_p50_ms']} / {r['lag_p99_ms']} / {r['lag_max_ms']}"
        rate = f"{r['runs_per_s']} ({r['ideal_runs_per_s']})"
        rows.append(f"| {r['lib']} | {r['concurrency']} | {r['runs']} | {rate} | {r['peak_rss_mb']} | {lag} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cell", choices=sorted(CELLS), help="run one cell here and print its JSON line")
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--runs", type=int, help="runs per cell (default: 2 x concurrency)")
    parser.add_argument("--levels", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--libs", nargs="+", default=list(CELLS), choices=list(CELLS))
    parser.add_argument("--peers-python", default=str(PEERS_PYTHON), help="python of the peers' venv")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per cell")
    parser.add_argument("--out", help="append the JSON lines to this file")
    args = parser.parse_args()
    if args.cell:
        print(json.dumps(run_cell(args.cell, args.concurrency, args.runs or 2 * args.concurrency)), flush=True)
        return
    records = []
    for level in args.levels:
        for lib in args.libs:
            python = sys.executable if lib == "llmist" else args.peers_python
            record = spawn(lib, level, args.runs or 2 * level, python, args.timeout)
            print(json.dumps(record), file=sys.stderr, flush=True)
            records.append(record)
            if args.out:
                with open(args.out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(record) + "\n")
    print(table(records))
    print(
        f"\nmachine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; python {platform.python_version()}"
    )


if __name__ == "__main__":
    main()
