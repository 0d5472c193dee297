"""One graded run of one case, and its JSON-lines form (``--out results.jsonl``)."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CaseResult", "read_results", "write_results"]


@dataclass(slots=True)
class CaseResult:
    """The outcome of running one case once in one syntax."""

    model: str
    syntax: str
    case: str
    category: str
    run: int
    """1-based run number (``--runs N``)."""
    passed: bool
    failures: list[str]
    """Why the grader failed the run (empty when it passed)."""
    calls: int
    """Calls the model attempted: those run, and those the parser could not read."""
    malformed: int
    """Attempted calls that could not be read: stray markers in prose, unknown gadgets,
    unparseable parameters."""
    repairs: dict[str, int] = field(default_factory=dict)
    """Repairs the loop made, by kind (``AgentResult.repairs``)."""
    iterations: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    """USD (0 when the model's price is unknown, as for local models)."""
    latency_s: float = 0.0
    """Wall time of the run."""
    stop_reason: str = ""
    output: str = ""
    """The final answer."""

    def to_json(self) -> str:
        """One JSON line."""
        return json.dumps(dataclasses.asdict(self), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> CaseResult:
        """A result from a parsed JSON line (unknown keys are an error naming them)."""
        known = {f.name for f in dataclasses.fields(cls)}
        extra = sorted(set(data) - known)
        if extra:
            raise ValueError(f"unknown result fields {extra}; expected some of {sorted(known)}")
        return cls(**data)  # type: ignore[arg-type]


def write_results(path: str | Path, results: Iterable[CaseResult]) -> None:
    """Write ``results`` to ``path``, one JSON object per line.

    The lines go to a file beside ``path`` that replaces it once all are written: a write that
    fails half way (a full disk) leaves ``path`` as it was, never a partial file that a later
    ``--compare`` would read as a run of fewer cases."""
    target = Path(path)
    # Named by process (two evals writing one file each write their own, and the last rename
    # wins whole), and opened as ``open`` does, so the file gets the user's usual permissions.
    scratch = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with scratch.open("w", encoding="utf-8") as f:
            for r in results:
                f.write(r.to_json() + "\n")
        os.replace(scratch, target)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def read_results(path: str | Path) -> list[CaseResult]:
    """The results in a JSON-lines file :func:`write_results` wrote."""
    out: list[CaseResult] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(CaseResult.from_dict(json.loads(line)))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not an eval result line ({exc})") from None
    return out
