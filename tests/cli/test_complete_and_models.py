"""``llmist complete`` and ``llmist models`` through a real subprocess."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.helpers import Terminal, llmist


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


def test_models_on_an_80_column_terminal_is_a_table_with_whole_ids() -> None:
    term = Terminal("models", columns=80)
    assert term.wait() == 0
    screen = term.text
    assert "Models (prices in USD per million tokens)" in screen
    assert re.search(r"anthropic:claude-sonnet-5-5 +sonnet", screen) and "…" not in screen
    assert "models: pass one as -m provider:model or by its alias." in screen
    assert max(len(line) for line in screen.splitlines()) <= 80


def test_models_in_a_pipe_are_tab_separated_lines_with_whole_ids() -> None:
    proc = llmist("models", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    header, *rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert header[:3] == ["model", "aliases", "context_window"]
    by_id = {row[0]: row for row in rows}
    assert by_id["anthropic:claude-sonnet-5-5"][1] == "sonnet"
    assert int(by_id["anthropic:claude-haiku-4-5"][2]) == 200_000
    assert all(len(row) == len(header) for row in rows)


def test_models_of_an_unknown_provider_is_an_error_listing_the_known_ones() -> None:
    proc = llmist("models", "--provider", "nope")
    assert proc.returncode == 2
    assert "unknown provider 'nope'; known providers: anthropic, gemini," in proc.stderr
    assert "ollama" in proc.stderr


def test_models_of_a_local_server_say_it_takes_any_model_name() -> None:
    proc = llmist("models", "--provider", "ollama")
    assert proc.returncode == 0
    assert "ollama:NAME takes any model the server has" in " ".join(proc.stderr.split())


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
