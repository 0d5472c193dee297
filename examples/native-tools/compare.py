"""Compare the syntaxes on one suite: block, emoji and native side by side."""

import asyncio

from llmist.evals import BUILTIN_SUITE, reference_model, run_suite, summarize


async def main() -> None:
    suite = BUILTIN_SUITE.select(categories=["single", "parallel", "validation"])
    results = await run_suite(suite, reference_model, syntaxes=["block", "emoji", "native"])
    for s in summarize(results):
        print(f"{s.syntax:<7} {s.passed}/{s.runs}")
    assert {s.syntax for s in summarize(results)} == {"block", "emoji", "native"}


if __name__ == "__main__":
    asyncio.run(main())
