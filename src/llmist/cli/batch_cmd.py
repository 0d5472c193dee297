"""``llmist batch TASKS.jsonl``: run the agent over every task, with a progress bar and a summary."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Awaitable, Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.progress import Task as RichTask
from rich.table import Table
from rich.text import Text

from llmist.agent import Agent
from llmist.batch import (
    BatchInputError,
    BatchRun,
    BatchSummary,
    RateLimit,
    Task,
    iter_batch,
    load_tasks,
    sigint_stops,
)
from llmist.cli._agent_options import GadgetOption, MaxCostOption, MaxIterationsOption, ProfileOption, SystemOption
from llmist.cli._common import CliError, fail, stderr, stdout
from llmist.cli._config import Config, load_config
from llmist.cli._mock_script import load_mock_script, mock_script_path
from llmist.cli.agent_cmd import build_agent
from llmist.gadgets import LlmistError
from llmist.providers import ProviderError

__all__ = ["ConfiguredAgent", "batch_command"]


class Backend(StrEnum):
    """Where the runs happen."""

    asyncio = "asyncio"
    ray = "ray"


class ConfiguredAgent:
    """Makes each task's agent from the CLI's configuration.

    It holds only the configuration, so Ray can send it to its workers; each process loads the
    gadgets once. A ``mock:SCRIPT.json`` model replays its script from the start for every task.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        """The merged configuration (model, gadgets, limits...)."""
        self._agent: Agent | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self._agent = None

    def __call__(self) -> Agent:
        """The agent of one task."""
        if self._agent is None:
            self._agent, _ = build_agent(self.config)
        script = mock_script_path(self.config["model"] or "")
        if script is None:
            return self._agent
        agent = copy.copy(self._agent)
        agent.model = load_mock_script(script, agent.gadgets, self.config["syntax"])
        return agent


_TasksArgument = Annotated[
    Path,
    typer.Argument(metavar="TASKS", help='JSONL file: one {"id", "prompt", "inputs"} object or prompt string a line.'),
]
_OutOption = Annotated[
    Path, typer.Option("--out", "-o", metavar="FILE", help="Results file (JSON lines); ids done there are skipped.")
]


def batch_command(
    tasks: _TasksArgument,
    model: Annotated[
        str | None, typer.Option("--model", "-m", metavar="MODEL", help="Model: 'sonnet', 'openai:gpt-4o', 'mock'.")
    ] = None,
    gadget: GadgetOption = None,
    out: _OutOption = Path("results.jsonl"),
    concurrency: Annotated[int, typer.Option(min=1, metavar="N", help="Most runs in flight at once.")] = 100,
    budget: Annotated[
        float | None, typer.Option(min=0, metavar="USD", help="Start no run once the batch spent this many USD.")
    ] = None,
    rpm: Annotated[
        int | None, typer.Option(min=1, metavar="N", help="Requests per minute allowed to the model (all runs).")
    ] = None,
    tpm: Annotated[
        int | None, typer.Option(min=1, metavar="N", help="Tokens per minute allowed to the model (all runs).")
    ] = None,
    backend: Annotated[Backend, typer.Option(help="asyncio (this process) or ray (a Ray cluster).")] = Backend.asyncio,
    address: Annotated[
        str | None, typer.Option(metavar="ADDRESS", help="With --backend ray: the cluster (default: a local one).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, metavar="N", help="With --backend ray: worker actors (default: CPUs).")
    ] = None,
    max_iterations: MaxIterationsOption = None,
    max_cost: MaxCostOption = None,
    system: SystemOption = None,
    profile: ProfileOption = None,
) -> None:
    """Run the agent over every task of TASKS, writing one result line per run to --out.

    Ctrl-C once stops starting runs (those in flight finish); twice cancels them. Run the same
    command again to do what is left: ids already done are skipped.
    """
    flags: dict[str, Any] = {"model": model, "gadgets": gadget or None, "max_iterations": max_iterations}
    _refuse_the_tasks_file_as_out(tasks, out)
    factory, task_list = _prepare(profile, flags | {"max_cost": max_cost, "system": system}, tasks)
    engine: Any = backend.value if backend is Backend.asyncio else _ray_backend(address, workers)
    limits = RateLimit(rpm, tpm) if rpm or tpm else None
    try:
        batch = iter_batch(
            factory, task_list, concurrency=concurrency, out=out, budget_usd=budget, rate_limits=limits, backend=engine
        )
        summary = asyncio.run(_run(batch, stderr))
    except BatchInputError as exc:  # the results file is not one (a directory, another file's lines)
        fail(str(exc))
    except (LlmistError, ProviderError, ImportError) as exc:
        fail(str(exc), code=1)
    _print_summary(stdout, summary)
    raise typer.Exit(_exit_code(summary))


def _refuse_the_tasks_file_as_out(tasks: Path, out: Path) -> None:
    """Results appended to the tasks file would corrupt it, and its task lines are no results."""
    if tasks.exists() and out.exists() and tasks.resolve() == out.resolve():
        fail(f"--out {out} is the tasks file; give the results another file (default: results.jsonl)")


def _prepare(profile: str | None, flags: dict[str, Any], tasks: Path) -> tuple[ConfiguredAgent, list[Task]]:
    """The agent factory and the tasks; a bad configuration, model, gadget file or task file ends the command."""
    try:
        factory = ConfiguredAgent(load_config(profile=profile, flags=flags))
        factory().system_prompt  # noqa: B018  (loads the gadgets and resolves the model now: a bad one fails here)
        return factory, load_tasks(tasks)
    except FileNotFoundError as exc:
        fail(f"tasks file not found: {exc.filename}")
    except (CliError, LlmistError, ProviderError, ValueError, ImportError) as exc:
        fail(str(exc))


def _ray_backend(address: str | None, workers: int | None) -> Any:
    """The Ray backend the flags describe (importing it needs no Ray yet: starting it does)."""
    from llmist.batch.ray_backend import RayBackend

    return RayBackend(address=address, workers=workers)


class _Counts(ProgressColumn):
    """Failed and running runs and the cost so far, read from the batch at each refresh."""

    def __init__(self, batch: BatchRun) -> None:
        super().__init__()
        self._batch = batch

    def render(self, task: RichTask) -> Text:
        b = self._batch
        return Text(f"failed {b.failed} · running {b.running} · ${b.cost:.4f}")


class PipeProgress:
    """Progress where no bar can be drawn (a pipe, a log file): a line on ``console`` at every
    tenth of the tasks done, and every ``every_s`` seconds while :meth:`tick` runs."""

    def __init__(self, batch: BatchRun, console: Console, every_s: float = 10.0) -> None:
        self._batch = batch
        self._console = console
        self._every_s = every_s
        self._began = time.monotonic()
        self._tenths = 0

    def line(self) -> str:
        """``batch: 30/100 done (30%), 2 failed, 4 running, $0.0123, 12s``."""
        b = self._batch
        done = b.skipped + b.succeeded + b.failed
        percent = 100 * done // b.total if b.total else 100
        elapsed = time.monotonic() - self._began
        counts = f"{b.failed} failed, {b.running} running, ${b.cost:.4f}, {elapsed:.0f}s"
        return f"batch: {done}/{b.total} done ({percent}%), {counts}"

    def result(self) -> None:
        """A run ended: print a line when the done count reached a new tenth of the tasks."""
        b = self._batch
        tenths = 10 * (b.skipped + b.succeeded + b.failed) // b.total if b.total else 10
        if tenths > self._tenths:
            self._tenths = tenths
            self._console.print(self.line(), highlight=False, soft_wrap=True)

    async def tick(self, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        """Print a line every ``every_s`` seconds until cancelled."""
        while True:
            await sleep(self._every_s)
            self._console.print(self.line(), highlight=False, soft_wrap=True)


async def _run(batch: BatchRun, console: Console) -> BatchSummary:
    """Iterate ``batch`` under a progress bar (done of total, failed, running, cost, time left), or
    with a progress line now and then when ``console`` is no terminal."""
    if not console.is_terminal:
        return await _run_in_a_pipe(batch, console)
    progress = Progress(
        TextColumn("[bold]batch"),
        BarColumn(),
        MofNCompleteColumn(),
        _Counts(batch),
        TimeRemainingColumn(),
        console=console,
    )
    with sigint_stops(batch), progress:
        bar = progress.add_task("batch", total=batch.total)
        async for _ in batch:
            progress.update(bar, completed=batch.skipped + batch.succeeded + batch.failed)
    assert batch.summary is not None
    return batch.summary


async def _run_in_a_pipe(batch: BatchRun, console: Console) -> BatchSummary:
    progress = PipeProgress(batch, console)
    ticker = asyncio.create_task(progress.tick())
    try:
        with sigint_stops(batch):
            async for _ in batch:
                progress.result()
    finally:
        ticker.cancel()
    assert batch.summary is not None
    return batch.summary


def _print_summary(console: Console, summary: BatchSummary) -> None:
    table = Table(title="Batch", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    rate = (summary.succeeded + summary.failed) / summary.duration_s if summary.duration_s > 0 else 0.0
    rows = [
        ("tasks", summary.total),
        ("already done (skipped)", summary.skipped),
        ("succeeded", summary.succeeded),
        ("failed", summary.failed),
        ("not started", summary.not_started),
        ("cost", f"${summary.cost:.4f}"),
        ("tokens in / out", f"{summary.usage.input_tokens} / {summary.usage.output_tokens}"),
        ("time", f"{summary.duration_s:.1f}s ({rate:.1f} runs/s)"),
        ("ended", summary.stop_reason),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
    console.print(summary.message, markup=False)


def _exit_code(summary: BatchSummary) -> int:
    """0: all done; 1: some failed; 3: the budget stopped it; 130: interrupted."""
    if summary.stop_reason in ("stopped", "cancelled"):
        return 130
    if summary.stop_reason == "budget":
        return 3
    return 1 if summary.failed else 0
