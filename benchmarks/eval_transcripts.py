"""The built-in eval on a local model, as ``make eval-local`` runs it, also writing what the model saw and wrote.

Same models, server and agent options as ``python -m llmist.evals.local --model KEY`` (run from
``.venv-eval``), through :func:`llmist.evals.run_suite` with the model wrapped in a recorder that
appends every request's new messages and every response (its text and native tool calls) to
``--transcript``: the failures a prompt or loop change could address are read there.

    .venv-eval/bin/python benchmarks/eval_transcripts.py --model qwen1.5b --syntax block \\
        --out b.jsonl --transcript b.txt [--category validation] [--case add_numbers]

``PYTHONPATH=<a checkout>/src`` runs another commit's code against the same model (the step
rows of benchmarks/RESULTS.md). A server that dies stops the script with its last log lines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO

from llmist.evals import BUILTIN_SUITE, CaseResult, EvalCase, run_suite, summarize, write_results
from llmist.evals.local import LlamaCppServer, ServerDied
from llmist.evals.local_models import install_model, local_model
from llmist.providers import resolve_model
from llmist.providers.base import LLMChunk, LLMRequest, Message, Provider

QUICK = ("add_numbers", "multiply_decimal", "count_poem_lines", "register_ada", "weather_two_cities",
         "note_roundtrip", "meeting_iso_date", "stock_retry", "log_error", "finish_product")  # fmt: skip
"""One case of each category of the built-in suite (``--quick``), for a machine too busy for all 31."""


class Recorder:
    """A provider that passes every request to ``inner`` and writes the conversation to ``log``."""

    def __init__(self, inner: Provider, model: str, log: TextIO) -> None:
        self.inner, self.model, self.log = inner, model, log
        self.name = inner.name
        # Requests carry the call grammar only through a provider that says how it sends one.
        self.grammar_field = getattr(inner, "grammar_field", None)
        self.seen = 0

    def start(self, case: EvalCase, syntax: str) -> None:
        self.log.write(f"\n######## {syntax} {case.name}\n")
        self.seen = 0

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        for m in request.messages[self.seen :]:
            self.log.write(_show(m))
        text: list[str] = []
        calls: list[str] = []
        async for chunk in self.inner.stream(request):
            text.append(chunk.text)
            calls += [f"  <tool_call {c.name} {c.arguments}>" for c in chunk.tool_calls]
            yield chunk
        self.log.write(f"--- model\n{''.join(text)}\n" + "".join(f"{c}\n" for c in calls))
        self.seen = len(request.messages) + 1


def _show(m: Message) -> str:
    if m.role == "system":
        return f"--- system ({len(m.text)} chars)\n{m.text}\n"
    calls = "".join(f"  <tool_call {c.name} {c.arguments}>\n" for c in m.tool_calls)
    answers = f" (answers {m.tool_call_id})" if m.tool_call_id else ""
    return f"--- {m.role}{answers}\n{m.text}\n{calls}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="qwen1.5b", help="qwen1.5b, qwen0.5b or smollm2")
    ap.add_argument("--syntax", choices=["block", "emoji", "native"], action="append", required=True)
    ap.add_argument("--out", required=True, help="results, one JSON line per run")
    ap.add_argument("--transcript", required=True, help="every request's new messages and every response")
    ap.add_argument("--prompt", choices=["full", "compact"], default="full")
    ap.add_argument("--few-shot", type=int, default=0)
    ap.add_argument("--max-response-tokens", type=int, help="each response's cap (default: the Agent's, as the eval)")
    ap.add_argument("--category", action="append", default=[])
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--constrained", action="store_true", help="grammar-constrained calls (Agent(constrained=True))")
    ap.add_argument("--threads", type=int, help="the server's threads (default: every core)")
    ap.add_argument("--quick", action="store_true", help="one case per category: " + ", ".join(QUICK))
    args = ap.parse_args()
    model = local_model(args.model)
    path = install_model(model)
    with (
        open(args.transcript, "w", encoding="utf-8") as log,
        LlamaCppServer(path, alias=model.alias, n_threads=args.threads) as server,
    ):
        os.environ["LLAMACPP_BASE_URL"] = server.base_url
        deaths: list[ServerDied] = []
        server.watch(deaths.append)
        results = asyncio.run(_run(args, f"llamacpp:{model.alias}", model.label, log))
        if deaths or not server.alive:
            sys.exit(f"the model server died; no score:\n{deaths[0] if deaths else server.died()}")
    write_results(args.out, results)
    for s in summarize(results):
        print(f"{s.syntax}: {s.passed}/{s.runs}, repairs {s.repairs}, iterations {s.iterations:.1f}, "
              f"tokens/task {s.tokens:,.0f}, secs/task {s.latency_s:.1f}")  # fmt: skip


async def _run(args: argparse.Namespace, name: str, label: str, log: TextIO) -> list[CaseResult]:
    provider, model_name = resolve_model(name)
    recorder = Recorder(provider, model_name, log)

    def choose(case: EvalCase, syntax: str) -> Provider:
        recorder.start(case, syntax)
        return recorder

    done: list[CaseResult] = []

    def graded(r: CaseResult) -> None:
        done.append(r)
        write_results(args.out, done)  # after every case: a run stopped early keeps what it measured
        log.write(f"=== {r.case} passed={r.passed} repairs={r.repairs} {r.failures}\n")
        log.flush()
        mark = "pass" if r.passed else "FAIL"
        print(f"{mark} {r.syntax:<6} {r.case} ({r.latency_s:.1f}s) {'; '.join(r.failures)}", file=sys.stderr)

    options: dict[str, Any] = {
        "prompt_style": args.prompt,
        "few_shot": args.few_shot,
        "strict": args.strict,
        "constrained": args.constrained,
    }
    if args.max_response_tokens is not None:
        options["max_response_tokens"] = args.max_response_tokens
    suite = BUILTIN_SUITE.select([*args.case, *(QUICK if args.quick else ())], args.category)
    return await run_suite(
        suite, choose, syntaxes=args.syntax, agent_options=options, on_result=graded, model_label=label
    )


if __name__ == "__main__":
    main()
