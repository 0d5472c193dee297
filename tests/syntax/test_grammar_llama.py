"""The call grammars checked by llama.cpp itself (llama-cpp-python's GBNF parser and grammar
sampler): every grammar generated for many schemas parses, and the calls llmist's writer writes
for valid parameters are allowed token by token, then the end of the answer.

Needs ``.venv-eval`` (llama-cpp-python) and an installed Qwen model for its vocabulary
(``make eval-setup``); skipped with that command otherwise.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from llmist.evals.local import missing_runtime
from llmist.evals.local_models import eval_cache, local_model
from llmist.syntax.grammar import GrammarTool, block_grammar, emoji_grammar
from llmist.syntax.writing import write_block_call
from tests.syntax.test_grammar import _NAMES, ADD, TOOLS, _blockable, _schemas

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("LLMIST_LOCAL_MODEL_PYTHON") or str(ROOT / ".venv-eval" / "bin" / "python")
VOCAB = eval_cache() / "models" / local_model("qwen0.5b").filename
MISSING = missing_runtime(PYTHON) or (None if VOCAB.is_file() else "no Qwen model installed")

READ_ADD = dataclasses.replace(ADD, aliases=("sum",), repeats=True)
"""``add`` with the forms the agent reads as one meaning: the name ``sum``, its parameters again."""
ADD_ONCE = "!!!ARG:a\n1\n!!!ARG:b\n2\n"
ADD_TWICE = ADD_ONCE * 2
ADD_NUMBERED = "!!!ARG:a1\n1\n!!!ARG:b1\n2\n!!!ARG:a2\n3\n!!!ARG:b2\n4\n"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(MISSING is not None, reason=f"llama-cpp-python needed: {MISSING}; run `make eval-setup`"),
]


def _check(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """llama.cpp's verdict on each ``{"grammar", "text"}`` case (one subprocess for all)."""
    script = Path(__file__).with_name("_llama_grammar_check.py")
    lines = "".join(json.dumps(c) + "\n" for c in cases)
    done = subprocess.run(
        [PYTHON, str(script), str(VOCAB)], input=lines, capture_output=True, text=True, timeout=600, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_generated_grammars_parse_and_accept_the_writers_calls() -> None:
    cases: list[dict[str, Any]] = [
        {"grammar": block_grammar(TOOLS), "text": "No tool fits, sorry."},
        {"grammar": emoji_grammar(TOOLS), "text": '🛠️[add a=1 b=2 note="x y"]\n🛠️[/end]'},
        {"grammar": block_grammar([READ_ADD]), "text": "!!!GADGET_START:sum\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END"},
        {"grammar": block_grammar([READ_ADD]), "text": "!!!GADGET_START:add\n" + ADD_TWICE + "!!!GADGET_END"},
        {"grammar": block_grammar([READ_ADD]), "text": "!!!GADGET_START:add\n" + ADD_NUMBERED + "!!!GADGET_END"},
        # Calls left open: closed by the next call's start (after a blank line) and by the end.
        {"grammar": block_grammar([ADD], open_ends=True), "text": ("!!!GADGET_START:add\n" + ADD_ONCE + "\n") * 2},
    ]

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
    @given(_schemas(), _NAMES)
    def collect(case: Any, name: str) -> None:
        schema, params = case
        tool = GrammarTool(name, schema)
        text = "Here.\n" + write_block_call(name, params) if _blockable(params) else None
        if text is not None and "\x00" in text:
            # llama.cpp matches a token's text as a C string, which a NUL ends: such an answer
            # cannot be checked token by token here (the GBNF matcher of test_grammar.py takes it).
            text = None
        cases.append({"grammar": block_grammar([tool]), "text": text})
        read = GrammarTool(name, schema, aliases=(f"{name}x",), repeats=True)  # the forms the agent reads too
        cases.append({"grammar": block_grammar([read], open_ends=True), "text": text})
        cases.append({"grammar": emoji_grammar([tool]), "text": None})

    collect()
    verdicts = _check(cases)
    assert len(verdicts) == len(cases)
    for case, verdict in zip(cases, verdicts, strict=True):
        assert verdict["parsed"], case["grammar"]
        assert verdict["accepted"] in (None, True), (case["text"], case["grammar"])
