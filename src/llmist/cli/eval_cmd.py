"""``llmist eval [SUITE] -m MODEL``: how often tasks succeed on a model, per call syntax."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from llmist._files import unwritable_reason
from llmist.cli._common import CliError, fail, stderr, stdout
from llmist.cli._loader import load_gadgets
from llmist.cli._mock_script import mock_script_path

__all__ = ["eval_command"]


class PromptChoice(StrEnum):
    """A system prompt style."""

    full = "full"
    compact = "compact"


class EvalSyntax(StrEnum):
    """The syntaxes to evaluate."""

    block = "block"
    emoji = "emoji"
    native = "native"
    all = "all"


_Suite = Annotated[
    str | None,
    typer.Argument(
        metavar="SUITE", help="'builtin' (default), a .yaml file of cases, a .py file or module with SUITE."
    ),
]
_Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        metavar="MODEL",
        help="Model: 'llamacpp:NAME', 'ollama:qwen2.5:0.5b', 'openai:gpt-4o-mini'... "
        "'mock' replays each case's reference solution (checks the harness).",
    ),
]
_Compare = Annotated[
    list[str] | None,
    typer.Option("--compare", metavar="RESULTS.jsonl", help="Earlier --out files to show side by side (repeatable)."),
]
_Gadgets = Annotated[
    list[str] | None,
    typer.Option("--gadget", "-g", metavar="FILE", help="Gadget file or module for a YAML suite (repeatable)."),
]
_MaxTokens = Annotated[
    int | None, typer.Option(min=1, metavar="N", help="Cap on each response's length (small local models ramble).")
]
_Prompt = Annotated[
    PromptChoice, typer.Option("--prompt", help="System prompt style: full, or compact for small models.")
]
_FewShot = Annotated[
    int,
    typer.Option(
        "--few-shot", min=0, metavar="N", help="Example exchanges before each task (from the gadgets' examples)."
    ),
]
_MinSuccess = Annotated[
    float | None,
    typer.Option(min=0, max=1, metavar="RATE", help="Exit 1 when the best syntax's success rate is below this."),
]


def eval_command(
    suite: _Suite = None,
    model: _Model = None,
    syntax: Annotated[EvalSyntax, typer.Option(help="Call syntax to evaluate.")] = EvalSyntax.all,
    runs: Annotated[int, typer.Option(min=1, metavar="N", help="Runs of each case per syntax.")] = 1,
    out: Annotated[
        str | None, typer.Option("--out", "-o", metavar="FILE", help="Write every run as a JSON line to this file.")
    ] = None,
    compare: _Compare = None,
    case: Annotated[
        list[str] | None, typer.Option("--case", metavar="NAME", help="Only this case (repeatable).")
    ] = None,
    category: Annotated[
        list[str] | None, typer.Option("--category", metavar="NAME", help="Only this category (repeatable).")
    ] = None,
    gadget: _Gadgets = None,
    label: Annotated[
        str | None, typer.Option(metavar="NAME", help="Name of the model in results and tables (default: -m).")
    ] = None,
    max_response_tokens: _MaxTokens = None,
    prompt: _Prompt = PromptChoice.full,
    few_shot: _FewShot = 0,
    strict: Annotated[bool, typer.Option("--strict", help="Turn the loop's repairs into errors.")] = False,
    by_category: Annotated[bool, typer.Option("--by-category", help="Also print passes per category.")] = False,
    min_success: _MinSuccess = None,
) -> None:
    """Run a tool-use eval: each task in each syntax, graded by its answer and calls; prints a table."""
    from llmist.evals import read_results, write_results

    if model is None and not compare:
        fail("give a model with -m MODEL (or earlier results with --compare FILE)")
    if model is not None and mock_script_path(model) is not None:  # else the mock provider would echo, silently
        fail(f"-m {model}: eval takes -m mock (each case's reference solution), not a mock script")
    problem = unwritable_reason(out) if out is not None and model is not None else None
    if problem is not None:  # found now, not after the last task: the results would be lost
        fail(f"--out {out} {problem}")
    options: dict[str, Any] = {"prompt_style": prompt.value, "few_shot": few_shot, "strict": strict}
    if max_response_tokens is not None:
        options["max_response_tokens"] = max_response_tokens
    try:
        earlier = [r for path in compare or () for r in read_results(path)]
        fresh = _run(suite, model, syntax, runs, case, category, gadget, label, options) if model else []
    except (CliError, ValueError, ImportError, OSError) as exc:
        fail(str(exc))
    try:
        if out is not None and fresh:
            write_results(out, fresh)
    except OSError as exc:  # checked before the first task, yet a disk can fill or a folder go since
        _report(earlier, fresh, by_category, None)
        fail(f"--out {out} could not be written ({exc.strerror or exc}); the table above is what the runs gave", code=1)
    _report(earlier, fresh, by_category, min_success)


def _report(earlier: list[Any], fresh: list[Any], by_category: bool, min_success: float | None) -> None:
    """Print the tables; exit 1 when the best fresh syntax is below ``min_success``."""
    from llmist.evals import summarize, summary_table

    results = [*earlier, *fresh]
    # Piped into a file or a report, the table keeps its width instead of a terminal's default 80.
    out = stdout if stdout.is_terminal else Console(width=140, highlight=False)
    out.print(summary_table(summarize(results)))
    if by_category:
        from llmist.evals import category_table

        out.print(category_table(results))
    if min_success is not None:
        best = max((s.success_rate for s in summarize(fresh or results)), default=0.0)
        if best < min_success:
            stderr.print(f"best success rate {best:.0%} is below --min-success {min_success:.0%}")
            raise typer.Exit(1)


def _run(
    suite_source: str | None,
    model: str,
    syntax: EvalSyntax,
    runs: int,
    cases: list[str] | None,
    categories: list[str] | None,
    gadget_sources: list[str] | None,
    label: str | None,
    options: dict[str, Any],
) -> list[Any]:
    """Load the suite, run it on ``model`` and return the results (progress on stderr)."""
    from llmist.evals import SYNTAXES, CaseResult, load_suite, reference_model, run_suite

    gadgets = [g for source in gadget_sources or () for g in load_gadgets(source)]
    suite = load_suite(suite_source, gadgets=gadgets, gadget_loader=load_gadgets).select(cases or (), categories or ())
    syntaxes = SYNTAXES if syntax is EvalSyntax.all else (syntax.value,)

    def progress(r: CaseResult) -> None:
        mark = ("pass", "green") if r.passed else ("FAIL", "red")
        why = f"  {'; '.join(r.failures)}" if r.failures else ""
        stderr.print(Text.assemble(mark, f" {r.syntax:<5} {r.case} ({r.latency_s:.1f}s){why}"), soft_wrap=True)

    chosen: Any = reference_model if model == "mock" else model
    return asyncio.run(
        run_suite(
            suite,
            chosen,
            syntaxes=syntaxes,  # type: ignore[arg-type]
            runs=runs,
            agent_options=options,
            on_result=progress,
            model_label=label or model,
        )
    )
