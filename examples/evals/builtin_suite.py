"""Run part of the built-in suite with the reference model (what `llmist eval -m mock` does)."""

import asyncio

from llmist.evals import BUILTIN_SUITE, reference_model, run_suite, summarize


async def main() -> None:
    suite = BUILTIN_SUITE.select(categories=["single", "parallel"])
    results = await run_suite(suite, reference_model, syntaxes=["block", "emoji"])
    for s in summarize(results):
        print(s.model, s.syntax, f"{s.passed}/{s.runs}", f"{s.success_rate:.0%}")
    assert all(r.passed for r in results)


if __name__ == "__main__":
    asyncio.run(main())
