"""Running a suite: each case, in each syntax, ``runs`` times, through a real ``Agent``.

Each run streams the agent's events to see what the model really wrote: its calls (with
their dependencies and the response they came in), their results, and its prose, where a
call the parser could not recognise shows up as stray marker text. Then it is graded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from llmist.agent import Agent, AgentResult, GadgetResultEvent, LLMResponseEndEvent
from llmist.evals.case import SYNTAXES, EvalCase, EvalSuite, SyntaxName
from llmist.evals.grader import CallRecord, grade
from llmist.evals.record import CaseResult
from llmist.providers.base import Provider
from llmist.providers.mock import estimate_tokens
from llmist.syntax import GadgetCallEvent, TextEvent

__all__ = ["ModelChoice", "count_stray_calls", "run_case", "run_suite"]

ModelChoice: TypeAlias = "str | Provider | Callable[[EvalCase, SyntaxName], str | Provider]"
"""The model under test: a model string, a provider, or a function giving one per case and
syntax (a scripted model per case)."""

# A start marker the parser did not turn into a call, in either syntax (or garbled: "!!GADGET_START",
# "GADGET_START :"), and a tool call written as native JSON or a chat template's tag.
_STRAY_START = re.compile(r"GADGET_START|\U0001f6e0\ufe0f?\[(?!/end\])|<tool_call>|\"arguments\"\s*:")
_STRAY_PART = re.compile(r"GADGET_END|!{1,3}ARG|\U0001f6e0\ufe0f?\[/end\]")
# Binding errors: what a model gets when the executor could not read its call at all.
_MALFORMED_ERRORS = (
    "Unknown gadget",
    "Could not parse",
    "Could not read the arguments",  # native: not a JSON object
    "Could not split",
    " positional arguments but takes",
)


def count_stray_calls(prose: str) -> int:
    """Calls a response's prose holds that the parser did not read: one per stray start marker,
    or one for stray argument or end markers without a start."""
    starts = len(_STRAY_START.findall(prose))
    return starts if starts else (1 if _STRAY_PART.search(prose) else 0)


@dataclass(slots=True)
class _Watch:
    """What one run's events showed."""

    iteration: int = 1
    deps: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)
    calls: list[CallRecord] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)
    stray: int = 0
    json: int = 0
    """Calls of this response the loop read from JSON text in its prose (not stray: repaired)."""

    def see(self, event: object) -> None:
        if isinstance(event, GadgetCallEvent):
            self.deps[event.call.invocation_id] = (event.call.dependencies, self.iteration)
            self.json += "json_call" in event.call.repairs
        elif isinstance(event, GadgetResultEvent):
            r = event.result
            deps, it = self.deps.get(r.invocation_id, ((), self.iteration))
            self.calls.append(CallRecord(r.gadget_name, r.invocation_id, r.parameters, r.ok, r.error, it, deps))
        elif isinstance(event, TextEvent):
            self.prose.append(event.content)
        elif isinstance(event, LLMResponseEndEvent):
            self.stray += max(0, count_stray_calls("".join(self.prose)) - self.json)
            self.prose.clear()
            self.json = 0
            self.iteration += 1


async def run_case(
    case: EvalCase,
    syntax: SyntaxName,
    model: ModelChoice,
    *,
    run: int = 1,
    agent_options: Mapping[str, Any] | None = None,
) -> CaseResult:
    """Run ``case`` once in ``syntax`` and grade it. A model or gadget error fails the run
    (with the error named) rather than the whole eval."""
    chosen = model(case, syntax) if callable(model) else model
    options = {**(agent_options or {}), **case.agent_options}
    agent: Agent[str] = Agent(
        model=chosen, gadgets=case.make_gadgets(), syntax=syntax, max_iterations=case.max_iterations, **options
    )
    watch = _Watch()
    started = time.perf_counter()
    stream = agent.stream(case.prompt)
    error: str | None = None
    try:
        async for event in stream:
            watch.see(event)
    except Exception as exc:  # the eval goes on: a failing model is a result, not a crash
        error = f"{type(exc).__name__}: {exc}"
    latency = time.perf_counter() - started
    return _record(case, syntax, run, _model_name(chosen), watch, stream.result, error, latency)


def _record(
    case: EvalCase,
    syntax: SyntaxName,
    run: int,
    model: str,
    watch: _Watch,
    result: AgentResult[Any] | None,
    error: str | None,
    latency: float,
) -> CaseResult:
    output = "" if result is None else str(result.output)
    stop = "error" if result is None else result.stop_reason
    failures = [f"run failed: {error}"] if error else grade(case, output, stop, watch.calls)
    malformed = watch.stray + sum(1 for c in watch.calls if c.error and c.error.startswith(_MALFORMED_ERRORS))
    repairs = getattr(result, "repairs", None) or {}
    usage_in, usage_out = _usage(result)
    return CaseResult(
        model=model,
        syntax=syntax,
        case=case.name,
        category=case.category,
        run=run,
        passed=not failures,
        failures=failures,
        calls=len(watch.calls) + watch.stray,
        malformed=malformed,
        repairs=dict(repairs),
        iterations=0 if result is None else result.iterations,
        input_tokens=usage_in,
        output_tokens=usage_out,
        cost=0.0 if result is None else result.cost,
        latency_s=latency,
        stop_reason=stop,
        output=output,
    )


def _usage(result: AgentResult[Any] | None) -> tuple[int, int]:
    """Tokens in and out: as the provider reported them, else estimated from the conversation
    (servers such as llama.cpp's report no usage when streaming): each model call read every
    message before its answer."""
    if result is None:
        return 0, 0
    if result.usage.total_tokens:
        return result.usage.input_tokens, result.usage.output_tokens
    tokens_in = tokens_out = seen = 0
    for m in result.messages:
        if m.role == "assistant":
            tokens_in += seen
            tokens_out += estimate_tokens(m.text)
        seen += estimate_tokens(m.text)
    return tokens_in, tokens_out


def _model_name(model: str | Provider) -> str:
    if isinstance(model, str):
        return model
    return str(getattr(model, "name", type(model).__name__))


async def run_suite(
    suite: EvalSuite,
    model: ModelChoice,
    *,
    syntaxes: Sequence[SyntaxName] = SYNTAXES,
    runs: int = 1,
    agent_options: Mapping[str, Any] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
    model_label: str | None = None,
) -> list[CaseResult]:
    """Every case of ``suite`` in each of ``syntaxes`` it supports (default: all three), ``runs`` times, one after
    another (a local model serves one request at a time). ``on_result`` sees each result as
    it comes; ``model_label`` names the model in the results (default: the model string or
    the provider's name)."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    results: list[CaseResult] = []
    for syntax in syntaxes:
        for case in suite.cases:
            if syntax not in case.syntaxes:
                continue
            for n in range(1, runs + 1):
                r = await run_case(case, syntax, model, run=n, agent_options=agent_options)
                if model_label is not None:
                    r.model = model_label
                results.append(r)
                if on_result is not None:
                    on_result(r)
    return results
