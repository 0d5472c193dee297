"""Summaries of results per model and syntax, and the tables ``llmist eval`` prints."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich import box
from rich.table import Table

from llmist.evals.record import CaseResult

__all__ = ["Summary", "category_table", "summarize", "summary_table"]


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of one model in one syntax."""

    model: str
    syntax: str
    runs: int
    passed: int
    calls: int
    malformed: int
    repairs: int
    iterations: float
    """Mean model calls per run."""
    tokens: float
    """Mean tokens (in + out) per run."""
    cost: float
    """Total USD."""
    latency_s: float
    """Mean seconds per run."""

    @property
    def success_rate(self) -> float:
        """Share of runs that passed (0 to 1)."""
        return self.passed / self.runs if self.runs else 0.0

    @property
    def malformed_per_call(self) -> float:
        """Malformed calls per attempted call."""
        return self.malformed / self.calls if self.calls else 0.0


def summarize(results: Iterable[CaseResult]) -> list[Summary]:
    """One :class:`Summary` per (model, syntax), in order of first appearance."""
    groups: dict[tuple[str, str], list[CaseResult]] = {}
    for r in results:
        groups.setdefault((r.model, r.syntax), []).append(r)
    return [_summary(model, syntax, rs) for (model, syntax), rs in groups.items()]


def _summary(model: str, syntax: str, rs: Sequence[CaseResult]) -> Summary:
    n = len(rs)
    return Summary(
        model=model,
        syntax=syntax,
        runs=n,
        passed=sum(r.passed for r in rs),
        calls=sum(r.calls for r in rs),
        malformed=sum(r.malformed for r in rs),
        repairs=sum(sum(r.repairs.values()) for r in rs),
        iterations=sum(r.iterations for r in rs) / n,
        tokens=sum(r.input_tokens + r.output_tokens for r in rs) / n,
        cost=sum(r.cost for r in rs),
        latency_s=sum(r.latency_s for r in rs) / n,
    )


def summary_table(summaries: Sequence[Summary], *, title: str = "llmist eval") -> Table:
    """Models and syntaxes side by side: passed runs and success rate, malformed calls per
    attempted call, repairs made, and per run the mean model calls, tokens and seconds; total cost."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("model", no_wrap=True)
    table.add_column("syntax", no_wrap=True)
    for name in ("success", "bad/call", "repairs", "iters", "tokens", "cost", "secs"):
        table.add_column(name, justify="right", no_wrap=True)
    for s in summaries:
        table.add_row(
            s.model,
            s.syntax,
            f"{s.passed}/{s.runs} {s.success_rate:.0%}",
            f"{s.malformed_per_call:.2f}",
            str(s.repairs),
            f"{s.iterations:.1f}",
            f"{s.tokens:,.0f}",
            f"${s.cost:.4g}",
            f"{s.latency_s:.1f}",
        )
    return table


def category_table(results: Sequence[CaseResult]) -> Table:
    """Passed runs per category (rows) for each model and syntax (columns)."""
    columns = list(dict.fromkeys((r.model, r.syntax) for r in results))
    categories = list(dict.fromkeys(r.category for r in results))
    table = Table(title="by category", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("category")
    for model, syntax in columns:
        table.add_column(f"{model}\n{syntax}" if len({m for m, _ in columns}) > 1 else syntax, justify="right")
    for cat in categories:
        cells = []
        for col in columns:
            rs = [r for r in results if r.category == cat and (r.model, r.syntax) == col]
            cells.append(f"{sum(r.passed for r in rs)}/{len(rs)}" if rs else "-")
        table.add_row(cat, *cells)
    return table
