"""``llmist complete`` and ``llmist models`` through a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import llmist


def test_complete_streams_the_answer() -> None:
    proc = llmist("complete", "hello there", "-m", "mock")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "(mock) hello there\n"


def test_complete_reads_the_prompt_from_stdin_and_reports_usage(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": ["Paris."], "chunk_size": 2}), encoding="utf-8")
    proc = llmist("complete", "-", "-m", f"mock:{script}", "--usage", stdin="Capital of France?")
    assert proc.stdout == "Paris.\n"
    assert "tokens in /" in proc.stderr and "$0.000000" in proc.stderr


def test_complete_without_any_model_says_how_to_choose_one() -> None:
    proc = llmist("complete", "hi")
    assert proc.returncode == 2
    assert "No model given" in proc.stderr and "LLMIST_MODEL" in proc.stderr


def test_models_lists_the_registry_with_aliases_and_prices() -> None:
    proc = llmist("models", env={"COLUMNS": "160"})
    assert proc.returncode == 0, proc.stderr
    assert "Models (prices in USD per million tokens)" in proc.stdout
    assert "anthropic:claude-haiku-4-5" in proc.stdout
    assert "models. Use any as -m provider:model" in proc.stdout


def test_models_as_json_filtered_by_provider() -> None:
    proc = llmist("models", "--provider", "openai", "--json")
    rows = json.loads(proc.stdout)
    assert rows and all(r["model"].startswith("openai:") for r in rows)
    assert {"context_window", "input_price", "output_price", "aliases"} <= rows[0].keys()


def test_models_as_json_say_which_call_tools_natively() -> None:
    rows = json.loads(llmist("models", "--provider", "openai", "--json").stdout)
    assert {r["model"]: r["native_tools"] for r in rows}["openai:gpt-4o"] is True


def test_version_verbose_says_which_build_is_installed() -> None:
    from llmist import __version__
    from llmist.execution import executor
    from llmist.syntax import COMPILED

    proc = llmist("version", "--verbose")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == __version__ and lines[1].startswith("python ")
    assert lines[2].startswith("parser: compiled" if COMPILED else "parser: pure Python")
    loop_compiled = not str(executor.__file__).endswith(".py")
    assert lines[3].startswith("execution and agent loop: " + ("compiled" if loop_compiled else "pure Python"))
    assert llmist("version").stdout == f"{__version__}\n"
