"""Tool-use evals: how often does a task succeed on *this* model, in each call syntax?

::

    from llmist.evals import BUILTIN_SUITE, run_suite, summarize

    results = await run_suite(BUILTIN_SUITE, "llamacpp:smollm2", syntaxes=["block", "emoji"])
    for s in summarize(results):
        print(s.model, s.syntax, f"{s.success_rate:.0%}")

A suite is a list of :class:`EvalCase`: a prompt, gadgets, the answer and calls a correct
run has. The grader is deterministic (no model judges). ``llmist eval`` is the command line
over the same functions; see ``docs/evals.md``.
"""

from llmist.evals.builtin import BUILTIN_SUITE, builtin_suite
from llmist.evals.case import SYNTAXES, Call, EvalCase, EvalSuite, ExpectedCall, SyntaxName, Turn
from llmist.evals.grader import CallRecord, grade, normalize_answer
from llmist.evals.loading import load_suite
from llmist.evals.record import CaseResult, read_results, write_results
from llmist.evals.reference import reference_model
from llmist.evals.report import Summary, category_table, summarize, summary_table
from llmist.evals.runner import ModelChoice, count_stray_calls, run_case, run_suite

__all__ = [
    "BUILTIN_SUITE",
    "SYNTAXES",
    "Call",
    "CallRecord",
    "CaseResult",
    "EvalCase",
    "EvalSuite",
    "ExpectedCall",
    "ModelChoice",
    "Summary",
    "SyntaxName",
    "Turn",
    "builtin_suite",
    "category_table",
    "count_stray_calls",
    "grade",
    "load_suite",
    "normalize_answer",
    "read_results",
    "reference_model",
    "run_case",
    "run_suite",
    "summarize",
    "summary_table",
    "write_results",
]
