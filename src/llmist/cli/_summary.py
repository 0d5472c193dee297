"""The tables that end ``llmist agent``'s terminal view: how the run ended, then each gadget's
calls; and what the view reads off a result (declined, a command's exit code)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from llmist._text import visible
from llmist.agent import AgentResult
from llmist.execution import GadgetExecutionResult

__all__ = ["declined", "exit_code", "print_summary"]

_EXIT_CODE = re.compile(r"^\[exit code (-?\d+)\]$", re.MULTILINE)
"""The line in which the built-in ``RunCommand`` reports how its command exited."""


def print_summary(
    console: Console,
    result: AgentResult | None,
    results: Sequence[GadgetExecutionResult],
    *,
    took: Mapping[int, float],
    elapsed: float,
    error: str | None = None,
) -> None:
    """Print how the run ended (``result``, or ``error`` when it failed), then each gadget's calls
    (``results``), with the time each call ran as the view measured it (``took``: ms by ``id()`` of
    the result)."""
    table = Table(title="Run summary", title_justify="left", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    if result is not None:
        reason = {
            "cancelled": "[yellow]cancelled[/]",
            "awaiting_approval": "[yellow]awaiting approval[/]",
        }.get(result.stop_reason, result.stop_reason)
        if result.tripwire is not None:
            reason = f"[red]guardrail[/] {escape(result.tripwire.name)}: {escape(result.tripwire.reason)}"
        table.add_row("stop reason", reason)
        if len(result.models) > 1 or result.fallbacks:
            table.add_row("models", _model_lines(result))
        table.add_row("iterations", str(result.iterations))
        table.add_row("tokens", _token_counts(result))
        table.add_row("cost", f"${result.cost:.4f} (model ${result.llm_cost:.4f}, gadgets ${result.gadget_cost:.4f})")
    else:
        table.add_row("stop reason", f"[red]error[/]: {escape(visible(error or 'unknown'))}")
    table.add_row("gadget calls", _call_counts(results))
    table.add_row("elapsed", f"{elapsed:.1f}s")
    console.print(table)
    if results:
        per = Table(title="Gadget calls", title_justify="left")
        for column in ("gadget", "calls", "failed", "declined", "time"):
            per.add_column(column, justify="left" if column == "gadget" else "right")
        calls, errors, refused, ms = Counter[str](), Counter[str](), Counter[str](), Counter[str]()
        for r in results:
            calls[r.gadget_name] += 1
            errors[r.gadget_name] += r.error is not None
            refused[r.gadget_name] += declined(r)
            ms[r.gadget_name] += int(took.get(id(r), r.execution_time_ms))
        for name in calls:
            per.add_row(Text(visible(name)), str(calls[name]), str(errors[name]), str(refused[name]), f"{ms[name]} ms")
        console.print(per)
    if result is not None and result.stop_reason == "task_complete" and result.output:
        console.print(Text.assemble(("Result: ", "bold green"), visible(str(result.output))))


def _token_counts(result: AgentResult) -> str:
    """The run's tokens in and out. A model that answered yet reported no tokens at all (a server
    that streams no usage: llama-cpp-python's own, some older Ollama and LM Studio builds) is
    said to have reported none: "0 in / 0 out" would read as a measurement."""
    usage = result.usage
    if result.iterations > 0 and usage.input_tokens == 0 and usage.output_tokens == 0:
        return "not reported by the server"
    return f"{usage.input_tokens:,} in / {usage.output_tokens:,} out"


def _model_lines(result: AgentResult) -> str:
    """One line per model that answered: responses, tokens, cost; then how many fallbacks."""
    lines = [
        f"{escape(name)}: {m.responses} response{'s' if m.responses != 1 else ''}, "
        f"{m.usage.input_tokens:,} in / {m.usage.output_tokens:,} out, ${m.cost:.4f}"
        for name, m in result.models.items()
    ]
    if result.fallbacks:
        lines.append(f"{len(result.fallbacks)} fallback{'s' if len(result.fallbacks) != 1 else ''}")
    return "\n".join(lines)


def declined(r: GadgetExecutionResult) -> bool:
    """Whether a controller (the approval prompt, say) declined the call: it did not run, and did
    not fail either. A call skipped because its dependency failed is not declined."""
    return r.status == "skipped" and r.skip is None


def _call_counts(results: Sequence[GadgetExecutionResult]) -> str:
    failed = sum(1 for r in results if r.error is not None)
    refused = sum(1 for r in results if declined(r))
    # A command that exited non-zero is a gadget call that worked, yet not a success to report as one.
    exited = sum(1 for r in results if r.error is None and (exit_code(r) or 0) != 0)
    counts = ((failed, "failed"), (refused, "declined"), (exited, "exited non-zero"))
    details = [f"{n} {what}" for n, what in counts if n]
    return f"{len(results)} ({', '.join(details)})" if details else str(len(results))


def exit_code(r: GadgetExecutionResult) -> int | None:
    """The exit code a ``RunCommand`` result reports (its ``[exit code N]`` line), else ``None``."""
    if r.gadget_name != "RunCommand" or r.result is None:
        return None
    found = _EXIT_CODE.findall(r.result)
    return int(found[-1]) if found else None
