"""A real model, end to end: Qwen2.5-Coder-0.5B-Instruct served by llama.cpp's OpenAI-compatible
server, reached through llmist's ``llamacpp:`` provider as a user reaches a local server.

Runs when an interpreter with ``llama-cpp-python[server]`` exists and the model is installed
(``make eval-setup`` makes ``.venv-eval`` and installs the model; ``make test`` does it under
CI=true; ``LLMIST_LOCAL_MODEL_PYTHON`` names another interpreter); otherwise every test here is
skipped with the reason and the command that fixes it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from llmist import Agent
from llmist.evals import BUILTIN_SUITE, run_suite, summarize
from llmist.evals.local import LlamaCppServer, missing_runtime
from llmist.evals.local_models import cached_model, eval_cache, local_model

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("LLMIST_LOCAL_MODEL_PYTHON") or str(ROOT / ".venv-eval" / "bin" / "python")
QWEN = local_model("qwen0.5b")
INSTALLED = (eval_cache() / "models" / QWEN.filename).is_file()  # its hash is checked before serving
NOT_INSTALLED = "Qwen2.5-Coder-0.5B is not installed: run `make eval-setup`"
MISSING = missing_runtime(PYTHON) or (None if INSTALLED else NOT_INSTALLED)
MODEL = f"llamacpp:{QWEN.alias}"

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.slow,
    pytest.mark.skipif(MISSING is not None, reason=f"real model not installed: {MISSING}"),
]


@pytest.fixture(scope="module")
def local_server() -> Iterator[LlamaCppServer]:
    model_file = cached_model(QWEN)
    assert model_file is not None
    before = os.environ.get("LLAMACPP_BASE_URL")
    with LlamaCppServer(model_file, python=PYTHON, n_ctx=4096, alias=QWEN.alias) as server:
        os.environ["LLAMACPP_BASE_URL"] = server.base_url
        try:
            yield server
        finally:
            if before is None:
                os.environ.pop("LLAMACPP_BASE_URL", None)
            else:
                os.environ["LLAMACPP_BASE_URL"] = before


async def test_the_local_model_answers_through_the_llamacpp_provider(local_server: LlamaCppServer) -> None:
    result = await Agent(model=MODEL, max_response_tokens=20).run("Say hello.")
    assert result.output.strip() != ""
    assert result.stop_reason == "no_calls"
    # llama-cpp-python's server streams no usage of its own; LlamaCppServer's launcher adds it.
    assert result.usage.input_tokens > 20 and 0 < result.usage.output_tokens <= 20


async def test_a_small_eval_runs_on_the_local_model_in_every_syntax(local_server: LlamaCppServer) -> None:
    suite = BUILTIN_SUITE.select(["add_numbers"])  # a few cases: CI runs these on two busy cores
    results = await run_suite(suite, MODEL, agent_options={"max_response_tokens": 200})
    assert len(results) == 3
    assert [r.failures for r in results if r.stop_reason == "error"] == []
    assert all(r.input_tokens > 0 for r in results)
    assert {s.syntax for s in summarize(results)} == {"block", "emoji", "native"}
