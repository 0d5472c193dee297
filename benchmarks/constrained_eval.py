"""The built-in eval with and without grammar-constrained calls (``Agent(constrained=...)``), paired:
each case runs without, then with, so a run cut short still compares like with like.

Run it against a llama.cpp server that ``llmist.evals.local`` starts (it sets ``LLAMACPP_BASE_URL``
and ``LLMIST_LOCAL_MODEL``)::

    flock /tmp/llm-model.lock .venv-eval/bin/python -m llmist.evals.local --model qwen1.5b \\
        --run .venv-eval/bin/python benchmarks/constrained_eval.py block

Prints each case's result in both modes, and the running totals (passed, calls the parser could
not read, completion tokens and seconds per case) after each case.

``constrained_eval.py block on`` (or ``off``) runs one mode alone, every case's prompt new to the
server as in the eval itself: paired, the second run of a case reads the first one's cached
prompt, which changes the model's numbers slightly and so, now and then, its answer.
"""

from __future__ import annotations

import asyncio
import os
import sys

from llmist.evals import BUILTIN_SUITE
from llmist.evals.runner import run_case

MODES = ("off", "on")


async def main(syntax: str, modes: tuple[str, ...] = MODES) -> None:
    """Run every case of the built-in suite that supports ``syntax`` in ``modes``, printing as it goes."""
    model = f"llamacpp:{os.environ['LLMIST_LOCAL_MODEL']}"
    # Per mode: passed, cases, malformed calls, completion tokens, seconds.
    tally = {mode: [0.0] * 5 for mode in modes}
    for case in BUILTIN_SUITE.cases:
        if syntax not in case.syntaxes:
            continue
        for mode in modes:
            r = await run_case(case, syntax, model, agent_options={"constrained": mode == "on"})  # type: ignore[arg-type]
            for i, value in enumerate((r.passed, 1, r.malformed, r.output_tokens, r.latency_s)):
                tally[mode][i] += value
            verdict = "PASS" if r.passed else "FAIL"
            why = "; ".join(r.failures)[:150]
            print(
                f"  {mode:3} {case.name:28} {verdict} {r.latency_s:5.1f}s malformed={r.malformed} "
                f"out={r.output_tokens} {why}",
                flush=True,
            )
        for mode, (passed, n, malformed, tokens, seconds) in tally.items():
            print(
                f"SO FAR {syntax} constrained={mode}: {passed:.0f}/{n:.0f} passed, malformed {malformed:.0f}, "
                f"out tokens/case {tokens / n:.0f}, s/case {seconds / n:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    chosen = tuple(sys.argv[2:]) or MODES
    if not set(chosen) <= set(MODES):
        sys.exit(f"modes are {' and '.join(MODES)}, got {' '.join(chosen)}")
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "block", chosen))
