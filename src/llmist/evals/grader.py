"""The deterministic grader: a run passes when its answer and its calls are what the case expects.

No model judges: the final answer must contain the expected strings, and each expected call
must match a successful call of the run. Every reason a run failed is named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llmist.evals.case import EvalCase, ExpectedCall

__all__ = ["CallRecord", "grade", "normalize_answer"]

_DIGIT_GROUP = re.compile(r"(?<=\d),(?=\d{3}\b)")


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call a run made, as the grader and the report see it."""

    gadget: str
    invocation_id: str
    parameters: Mapping[str, Any]
    """Validated parameters (the raw ones when validation failed)."""
    ok: bool
    error: str | None
    iteration: int
    """The model response (1-based) that wrote the call."""
    dependencies: tuple[str, ...] = ()


def normalize_answer(text: str) -> str:
    """``text`` lower-cased, with digit-group commas removed (``6,912`` reads ``6912``)."""
    return _DIGIT_GROUP.sub("", text).lower()


def grade(case: EvalCase, output: str, stop_reason: str, calls: Sequence[CallRecord]) -> list[str]:
    """Why the run failed (an empty list: it passed)."""
    failures: list[str] = []
    said = normalize_answer(output)
    failures += [f"answer lacks {want!r}" for want in case.answer if normalize_answer(want) not in said]
    matched: list[CallRecord] = []
    ids = {c.invocation_id for c in calls}
    for want in case.calls:
        hit = next((c for c in calls if _matches(want, c, ids)), None)
        if hit is None:
            failures.append(f"no successful call {_describe(want)}")
        else:
            matched.append(hit)
    if case.same_response and len({c.iteration for c in matched}) > 1:
        failures.append("the expected calls came in different responses, not together")
    if case.stop_reason is not None and stop_reason != case.stop_reason:
        failures.append(f"stopped with {stop_reason!r}, expected {case.stop_reason!r}")
    return failures


def _matches(want: ExpectedCall, call: CallRecord, ids: set[str]) -> bool:
    """Whether ``call`` is the call ``want`` describes; ``ids``: every call's id in the run."""
    if not call.ok or call.gadget != want.gadget:
        return False
    # A dependency counts only when it names a call the run made: a call that waits for an id
    # no call has runs without waiting (the missing_dependency repair), so it waited for nothing.
    if want.with_dependency and not any(d in ids and d != call.invocation_id for d in call.dependencies):
        return False
    if any(_norm(call.parameters.get(k)) != _norm(v) for k, v in want.params.items()):
        return False
    return want.check is None or want.check(call.parameters)


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    return value


def _describe(want: ExpectedCall) -> str:
    params = ", ".join(f"{k}={v!r}" for k, v in want.params.items())
    dep = " waiting for another call" if want.with_dependency else ""
    return f"{want.gadget}({params}){dep}"
