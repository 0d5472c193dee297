"""BFCL end to end on a real model (issue 39, item 6): benchmarks/bfcl.py runs a fixed 20 cases (4 per
category, the harness's fixed seed) on Qwen2.5-Coder-0.5B in the default syntax, and BFCL's checker
grades them. What is checked is the harness, not a score (a score threshold would flake): every case is
graded by the checker, none ends in a harness error, and the server stayed up.

Runs when ``bfcl-eval`` is installed here (``make bfcl-setup``), an interpreter with
``llama-cpp-python[server]`` exists and the model is installed (``make eval-setup``; ``make test``
does both under CI=true); otherwise skipped with the command that fixes it.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llmist.evals.local import SERVER_DIED, missing_runtime
from llmist.evals.local_models import eval_cache, local_model

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("LLMIST_LOCAL_MODEL_PYTHON") or str(ROOT / ".venv-eval" / "bin" / "python")
QWEN = local_model("qwen0.5b")
CATEGORIES = {"simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"}


def _missing() -> str | None:
    try:
        importlib.metadata.version("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        return "bfcl-eval is not installed: run `make bfcl-setup`"
    if not (eval_cache() / "models" / QWEN.filename).is_file():
        return "Qwen2.5-Coder-0.5B is not installed: run `make eval-setup`"
    return missing_runtime(PYTHON)


MISSING = _missing()

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.slow,
    pytest.mark.skipif(MISSING is not None, reason=f"BFCL smoke test cannot run: {MISSING}"),
]


@pytest.fixture(scope="module")
def twenty_cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The harness's run of 20 cases on the real model, and its ``--out`` file."""
    out = tmp_path_factory.mktemp("bfcl") / "bfcl.jsonl"
    # A response cap bounds CI's time if the model rambles; the harness's default is a default Agent's.
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bfcl.py"), "--model", "qwen0.5b", "--per-category", "4",
           "--max-response-tokens", "300", "--server-python", PYTHON, "--out", str(out)]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False), out


def test_twenty_bfcl_cases_are_graded_by_bfcls_checker(
    twenty_cases: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    run, out = twenty_cases
    assert run.returncode != SERVER_DIED, f"the model server died:\n{run.stderr[-3000:]}"
    assert run.returncode == 0, run.stderr[-3000:]
    cases = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(cases) == 20
    assert {c["category"] for c in cases} == CATEGORIES
    assert all(sum(c["category"] == k for c in cases) == 4 for k in CATEGORIES)
    assert [(c["id"], c["error"]) for c in cases if c["verdict"] == "error"] == []
    assert {c["verdict"] for c in cases} <= {"pass", "fail"}
    failed = [c for c in cases if c["verdict"] == "fail"]
    assert all(c["error_type"] for c in failed)  # each failure is the checker's, with its reason
    assert all(c["mode"] == "block" and c["seconds"] > 0 for c in cases)
    assert "| block | all | 20 |" in run.stdout


def test_a_replay_of_the_recorded_responses_gives_the_same_verdicts(
    twenty_cases: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """``--replay`` sends each recorded response again, whole, through a ``MockModel``: the calls read
    from one chunk must be those read from the server's stream, or the replay would mismeasure a change."""
    run, out = twenty_cases
    assert run.returncode == 0, run.stderr[-3000:]
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bfcl.py"), "--replay", str(out)]
    replayed = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert replayed.returncode == 0, replayed.stderr[-3000:]
    assert "0 verdict(s) changed" in replayed.stdout, replayed.stdout
    assert "| block | all | 20 |" in replayed.stdout
