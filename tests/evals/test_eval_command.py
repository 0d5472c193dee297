"""``llmist eval`` end to end, as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import llmist


def test_eval_with_the_mock_model_passes_every_case_and_writes_results(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    done = llmist("eval", "-m", "mock", "--out", str(out), "--by-category")
    assert done.returncode == 0, done.stderr
    assert "31/31 100%" in done.stdout and "26/26 100%" in done.stdout
    assert "output_viewer" in done.stdout
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 85 and all(r["passed"] for r in rows)


def test_eval_of_one_syntax_and_one_case(tmp_path: Path) -> None:
    done = llmist("eval", "-m", "mock", "--syntax", "emoji", "--case", "sum_list", "--runs", "2")
    assert done.returncode == 0, done.stderr
    assert "2/2 100%" in done.stdout and "block" not in done.stdout
    assert done.stderr.count("pass emoji sum_list") == 2


def test_compare_shows_earlier_results_side_by_side(tmp_path: Path) -> None:
    first = tmp_path / "a.jsonl"
    assert (
        llmist("eval", "-m", "mock", "--case", "add_numbers", "--label", "first", "--out", str(first)).returncode == 0
    )
    done = llmist("eval", "-m", "mock", "--case", "add_numbers", "--label", "second", "--compare", str(first))
    assert done.returncode == 0, done.stderr
    assert "first" in done.stdout and "second" in done.stdout


def _closed_port_url() -> str:
    """A server address nothing listens on: a model there fails every case, offline."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_min_success_fails_a_model_below_it(tmp_path: Path) -> None:
    env = {"LLAMACPP_BASE_URL": _closed_port_url()}
    done = llmist("eval", "-m", "llamacpp:none", "--case", "add_numbers", "--min-success", "0.5", env=env)
    assert done.returncode == 1
    assert "below --min-success 50%" in done.stderr


def test_a_yaml_suite_with_gadget_files(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(
        "from llmist import gadget\n\n\n@gadget(description='Add.')\n"
        "def add(a: int, b: int) -> str:\n    return str(a + b)\n"
    )
    (tmp_path / "cases.yaml").write_text(
        "gadgets: [tools.py]\ncases:\n  - name: two\n    prompt: 2+3?\n    answer: '5'\n"
    )
    done = llmist("eval", str(tmp_path / "cases.yaml"), "-m", "mock")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("0/1 0%") == 3  # no reference solution: the mock answers "Done."


def test_eval_without_a_model_says_what_to_give() -> None:
    done = llmist("eval")
    assert done.returncode == 2
    assert "give a model with -m MODEL" in done.stderr


def test_eval_local_says_what_chat_format_needs(capsys: pytest.CaptureFixture[str]) -> None:
    from llmist.evals.local import main

    assert main(["--syntax", "native", "--chat-format"]) == 2
    assert "--chat-format needs a llama.cpp chat format name" in capsys.readouterr().err
