"""``llmist agent``, run as a person runs it: through a subprocess, and under a pseudo-terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.helpers import DEMO_SCRIPT, ROOT, Terminal, clean_env, llmist


def _script(tmp_path: Path, turns: list[object], **options: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns, **options}), encoding="utf-8")
    return path


def _demo_args(root: Path, *extra: str) -> list[str]:
    return [
        "agent",
        "Write a word-count script",
        "-m",
        f"mock:{DEMO_SCRIPT}",
        "--builtins",
        "--root",
        str(root),
        *extra,
    ]


def test_the_demo_task_runs_end_to_end_with_yes(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path, "--yes"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "▶ WriteFile (script)" in out
    assert "NameError: name 'Counter' is not defined" in out
    assert "▶ EditFile (fix)" in out and "✓ EditFile (fix)" in out
    assert "▶ RunCommand (run2) after fix" in out
    assert "stop reason  │ no_calls" in out
    assert "gadget calls │ 7" in out
    assert (tmp_path / "report.txt").read_text(encoding="utf-8").startswith("16 words, 8 different")


def test_long_values_and_results_are_folded(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path, "--yes"))
    assert "… 4 more lines (140 characters) folded" in proc.stdout


def test_without_a_terminal_and_without_yes_writes_are_declined(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "WriteFile declined: it needs approval; run with --yes to allow it" in proc.stdout
    assert not (tmp_path / "stats.py").exists()
    assert "✓ ReadFile" not in proc.stdout  # report.txt was never written
    assert "✗ ReadFile (report)" in proc.stdout


def test_json_lines_carry_every_event_and_the_result(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path, "--yes", "--json"))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    types = {r["type"] for r in records}
    assert {"text", "gadget_call", "gadget_result", "llm_response_end", "run_end"} <= types
    calls = [r["call"]["invocation_id"] for r in records if r["type"] == "gadget_call"]
    assert calls == ["poem", "script", "run1", "fix", "run2", "report", "ls"]
    end = records[-1]
    assert end["type"] == "run_end" and end["stop_reason"] == "no_calls" and end["gadget_calls"] == 7
    assert "16 words" in end["output"]


def test_emoji_syntax_runs_the_same_script(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path, "--yes", "--syntax", "emoji", "--json"))
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = [r["result"]["error"] for r in results if r["type"] == "gadget_result" and r["result"]["error"]]
    assert errors == []
    ran = [r["result"]["gadget_name"] for r in results if r["type"] == "gadget_result"]
    assert "EditFile" in ran  # every scripted call is written so that it parses back
    assert (tmp_path / "report.txt").exists()


def test_native_syntax_runs_the_same_script_as_tool_calls(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path, "--yes", "--syntax", "native", "--json"))
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    calls = [r["call"] for r in results if r["type"] == "gadget_call"]
    assert calls and all(c["syntax"] == "native" for c in calls)
    assert [r["result"]["error"] for r in results if r["type"] == "gadget_result" and r["result"]["error"]] == []
    assert (tmp_path / "report.txt").exists()


def test_gadgets_from_a_file(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from llmist import gadget\n\n@gadget(description='Add two numbers')\n"
        "def add(a: int, b: int) -> str:\n    return str(a + b)\n",
        encoding="utf-8",
    )
    script = _script(tmp_path, [[{"gadget": "add", "params": {"a": 2, "b": 3}}], "It is 5."])
    proc = llmist("agent", "2+3?", "-m", f"mock:{script}", "-g", str(tools))
    assert proc.returncode == 0, proc.stderr
    assert "✓ add (gadget_" in proc.stdout and "    5\n" in proc.stdout
    assert "It is 5." in proc.stdout


def test_a_bad_model_fails_before_the_run_with_a_clear_message() -> None:
    proc = llmist("agent", "hi", "-m", "nosuchmodel")
    assert proc.returncode == 2
    assert "error: Unknown model 'nosuchmodel'" in proc.stderr


def test_a_missing_gadget_file_is_named() -> None:
    proc = llmist("agent", "hi", "-m", "mock", "-g", "missing_tools.py")
    assert proc.returncode == 2
    assert "error: no such gadget file: missing_tools.py" in proc.stderr


def test_live_view_under_a_terminal(tmp_path: Path) -> None:
    term = Terminal(*_demo_args(tmp_path, "--yes"))
    assert term.wait(60) == 0
    screen = term.text
    assert "llmist agent · model mock:" in screen
    assert "▶ RunCommand (run1) after poem, script" in screen
    assert "✓ ListDirectory (ls)" in screen
    assert "Run summary" in screen and "Gadget calls" in screen
    assert "iteration " in screen and "tokens " in screen and "elapsed " in screen  # the live status line


def test_approval_prompt_in_a_terminal(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        [
            [{"gadget": "WriteFile", "id": "w", "params": {"path": "a.txt", "content": "A"}}],
            [{"gadget": "WriteFile", "id": "w2", "params": {"path": "b.txt", "content": "B"}}],
            "done",
        ],
    )
    term = Terminal("agent", "write", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path))
    term.expect("[a]lways for this gadget")
    assert "Allow WriteFile (w)?" in term.text and "path: a.txt" in term.text
    term.type("n\n")
    term.expect(lambda s: s.count("[a]lways for this gadget") == 2)
    term.type("y\n")
    assert term.wait(30) == 0
    assert not (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "B"
    assert "Not run: the user declined this WriteFile call" in term.text


def test_ctrl_c_cancels_running_gadgets_and_prints_what_was_done(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        [
            [
                {"gadget": "ListDirectory", "id": "ls", "params": {}},
                {
                    "gadget": "RunCommand",
                    "id": "slow",
                    "deps": ["ls"],
                    "params": {"command": "echo $$ > shell.pid; sleep 60"},
                },
            ],
            "never reached",
        ],
    )
    term = Terminal("agent", "go", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path), "--yes")
    term.expect("RunCommand (slow) running")
    pid_file = tmp_path / "shell.pid"
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.05)
    started = time.monotonic()
    term.interrupt()
    code = term.wait(20)
    assert time.monotonic() - started < 10
    assert code == 130
    screen = term.text
    assert "Cancelling: running gadgets are being stopped" in screen
    assert "cancelled" in screen and "✓ ListDirectory (ls)" in screen
    assert "never reached" not in screen
    pid = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the command's shell is still running after Ctrl-C")


def test_a_gadget_question_is_asked_in_the_terminal(tmp_path: Path) -> None:
    tools = tmp_path / "ask.py"
    tools.write_text(
        "from llmist import HumanInputRequired, gadget\n\n@gadget(description='Ask the user for a colour')\n"
        "def colour() -> str:\n    raise HumanInputRequired('Which colour?')\n",
        encoding="utf-8",
    )
    script = _script(tmp_path, [[{"gadget": "colour", "params": {}}], "Noted."])
    term = Terminal("agent", "pick", "-m", f"mock:{script}", "-g", str(tools))
    term.expect("answer:")
    assert "? Which colour?" in term.text
    term.type("teal\n")
    assert term.wait(30) == 0
    assert "✓ colour" in term.text and "    teal" in term.text


def test_without_a_terminal_a_gadget_question_is_an_error(tmp_path: Path) -> None:
    tools = tmp_path / "ask.py"
    tools.write_text(
        "from llmist import HumanInputRequired, gadget\n\n@gadget(description='Ask the user for a colour')\n"
        "def colour() -> str:\n    raise HumanInputRequired('Which colour?')\n",
        encoding="utf-8",
    )
    script = _script(tmp_path, [[{"gadget": "colour", "params": {}}], "Noted."])
    proc = llmist("agent", "pick", "-m", f"mock:{script}", "-g", str(tools))
    assert proc.returncode == 0, proc.stderr
    flat = " ".join(proc.stdout.split())
    assert "✗ colour" in flat and "nobody can answer (the session is not interactive)" in flat


@pytest.fixture(scope="module")
def demo() -> subprocess.CompletedProcess[str]:
    """``make demo``'s script, run once: its output."""
    return subprocess.run(
        ["bash", str(ROOT / "examples" / "demo.sh"), str(Path(sys.executable).parent)],
        capture_output=True, text=True, env=clean_env(), timeout=120,
    )  # fmt: skip


def test_make_demo_script_shows_the_whole_loop(demo: subprocess.CompletedProcess[str]) -> None:
    proc = demo
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "The model below is SCRIPTED" in out and "-m sonnet" in out
    assert "✓ EditFile (fix)" in out and "Run summary" in out and "report.txt" in out


def test_make_demo_streaming_section_prints_the_answer_once(
    demo: subprocess.CompletedProcess[str],
) -> None:
    proc = demo
    assert proc.stdout.count("Paris has 2.1M people, Lyon 0.5M.") == 1


def test_a_declined_call_shows_as_declined_in_the_log_and_the_summary(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "✓ WriteFile" not in proc.stdout
    assert "⊘ WriteFile (script) declined" in proc.stdout
    summary = proc.stdout[proc.stdout.index("Run summary") :]
    assert "declined)" in summary.split("gadget calls")[1].splitlines()[0]
    header = summary.split("Gadget calls")[1].splitlines()[2]
    assert "declined" in header


def test_a_declined_call_shows_as_declined_in_json_lines(tmp_path: Path) -> None:
    proc = llmist(*_demo_args(tmp_path, "--json"))
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    results = [r["result"] for r in records if r["type"] == "gadget_result"]
    writes = [r for r in results if r["gadget_name"] == "WriteFile"]
    assert writes and all(r["status"] == "skipped" for r in writes)
    end = records[-1]
    assert end["type"] == "run_end" and end["declined_calls"] == sum(r["status"] == "skipped" for r in results)
