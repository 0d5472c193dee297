"""What ``llmist agent``'s terminal view tells a person is true: run as a person runs it, under a
pseudo-terminal (or piped to a file), with the scripted model and the built-in gadgets."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.helpers import DEMO_SCRIPT, ROOT, Terminal, clean_env

pytestmark = pytest.mark.slow

_PROMPT = "[A]ll from now on:"


def _script(tmp_path: Path, turns: list[object], **options: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns, **options}), encoding="utf-8")
    return path


def _agent(script: Path, root: Path, *extra: str) -> list[str]:
    return ["agent", "go", "-m", f"mock:{script}", "--builtins", "--root", str(root), *extra]


def _colour_env() -> dict[str, str]:
    """A user's environment that neither asks for nor forbids colour (no NO_COLOR, FORCE_COLOR)."""
    env = clean_env()
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        env.pop(name, None)
    return env


def test_a_call_waiting_on_a_dependency_shows_waiting_without_a_timer_until_it_starts(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        [
            [
                {"gadget": "RunCommand", "id": "slow", "params": {"command": "sleep 2"}},
                {"gadget": "ListDirectory", "id": "after", "deps": ["slow"], "params": {}},
            ],
            "done",
        ],
    )
    term = Terminal(*_agent(script, tmp_path, "--yes"))
    term.expect("ListDirectory (after) waiting for slow")
    assert term.wait(60) == 0
    screen = term.text
    finished = screen.index("✓ RunCommand (slow)")
    # While "slow" ran, "after" was waiting: it had no "running" and no timer before slow ended.
    assert "(after) running" not in screen[:finished]
    assert "RunCommand (slow) running" in screen[:finished]


def test_a_call_waiting_for_approval_starts_its_timer_when_approved(tmp_path: Path) -> None:
    script = _script(
        tmp_path, [[{"gadget": "WriteFile", "id": "w", "params": {"path": "a.txt", "content": "A"}}], "done"]
    )
    term = Terminal(*_agent(script, tmp_path))
    term.expect(_PROMPT)
    time.sleep(2.5)  # the person takes their time: that is not the write's time
    term.type("y\n")
    assert term.wait(60) == 0
    took = re.search(r"✓ WriteFile \(w\) ([\d,]+) ms", term.text)
    assert took is not None, term.text
    assert int(took.group(1).replace(",", "")) < 2500
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "A"


def test_a_command_that_exits_non_zero_shows_its_exit_code_and_a_failed_mark(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        [
            [
                {"gadget": "RunCommand", "id": "bad", "params": {"command": "echo oops; exit 2"}},
                {"gadget": "RunCommand", "id": "good", "deps": ["bad"], "params": {"command": "echo fine"}},
            ],
            "done",
        ],
    )
    term = Terminal(*_agent(script, tmp_path, "--yes"))
    assert term.wait(60) == 0
    screen = term.text
    assert re.search(r"✗ RunCommand \(bad\) exit code 2 [\d,]+ ms", screen), screen
    assert "✓ RunCommand (bad)" not in screen
    assert re.search(r"✓ RunCommand \(good\) exit code 0 [\d,]+ ms", screen), screen
    assert "gadget calls │ 2 (1 exited non-zero)" in screen  # the summary does not call it a success either


def test_a_call_cancelled_by_ctrl_c_shows_the_time_it_ran(tmp_path: Path) -> None:
    script = _script(tmp_path, [[{"gadget": "RunCommand", "id": "slow", "params": {"command": "sleep 60"}}], "never"])
    term = Terminal(*_agent(script, tmp_path, "--yes"))
    term.expect("RunCommand (slow) running 3.")  # it has run for nearly three seconds (2.95 shows 3.0)
    term.interrupt()
    assert term.wait(30) == 130
    took = re.search(r"✗ RunCommand \(slow\) ([\d,]+) ms", term.text)
    assert took is not None, term.text
    assert int(took.group(1).replace(",", "")) >= 2900  # not "0 ms"
    summary = term.text[term.text.index("Gadget calls") :]
    assert re.search(r"RunCommand .* (\d{4,}) ms", summary), summary


def test_a_new_call_is_never_printed_on_the_line_of_an_open_approval_prompt(tmp_path: Path) -> None:
    # The second call is parsed while the first one's question is open.
    script = _script(
        tmp_path,
        [
            [
                "Writing two files.",
                {"gadget": "WriteFile", "id": "one", "params": {"path": "a.txt", "content": "A"}},
                "And the second one now.",
                {"gadget": "WriteFile", "id": "two", "params": {"path": "b.txt", "content": "B"}},
            ],
            "done",
        ],
        chunk_size=8,
        delay_s=0.01,
    )
    term = Terminal(*_agent(script, tmp_path))
    term.expect(_PROMPT)
    time.sleep(1.5)  # the rest of the response streams meanwhile
    term.type("y\n")
    term.expect(lambda screen: screen.count(_PROMPT) == 2)
    term.type("y\n")
    assert term.wait(60) == 0
    prompt_lines = [line for line in term.text.splitlines() if _PROMPT in line]
    assert len(prompt_lines) == 2
    for line in prompt_lines:
        assert line.split(_PROMPT, 1)[1].strip() == "y", line  # only the answer typed
    assert term.text.index("▶ WriteFile (two)") > term.text.index(_PROMPT)
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "B"


def test_the_agent_piped_to_a_file_writes_no_escape_codes(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w", encoding="utf-8") as f:
        proc = subprocess.run(
            [sys.executable, "-m", "llmist.cli", *_agent(DEMO_SCRIPT, tmp_path, "--yes")],
            stdout=f, stderr=subprocess.PIPE, text=True, env=_colour_env(), timeout=90,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "Run summary" in text and "\x1b" not in text


def test_make_demo_piped_to_a_file_writes_no_escape_codes(tmp_path: Path) -> None:
    out = tmp_path / "demo.txt"
    with out.open("w", encoding="utf-8") as f:
        proc = subprocess.run(
            ["bash", str(ROOT / "examples" / "demo.sh"), str(Path(sys.executable).parent)],
            stdout=f, stderr=subprocess.PIPE, text=True, env=_colour_env(), timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "== Block syntax" in text and "\x1b" not in text


def test_no_color_in_a_terminal_means_no_colour_codes(tmp_path: Path) -> None:
    script = _script(tmp_path, [[{"gadget": "ListDirectory", "id": "ls", "params": {}}], "done"])
    coloured = Terminal(*_agent(script, tmp_path, "--yes"))
    assert coloured.wait(60) == 0
    plain = Terminal(*_agent(script, tmp_path, "--yes"), env={"NO_COLOR": "1"})
    assert plain.wait(60) == 0
    colour = re.compile(rb"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|9[0-7]|38;5;\d+)(?:;[0-9;]*)?m")
    assert colour.search(coloured.raw)  # the check can see colour
    assert not colour.search(plain.raw)
    assert "✓ ListDirectory (ls)" in plain.text


def test_a_response_cut_off_in_its_end_marker_writes_no_marker_fragment(tmp_path: Path) -> None:
    cut = "Saving it.\n!!!GADGET_START:WriteFile:w\n!!!ARG:path\nnotes.md\n!!!ARG:content\n- one\n- two\n!!!GADGET_"
    script = _script(tmp_path, [cut, "done"])
    term = Terminal(*_agent(script, tmp_path, "--yes"))
    assert term.wait(60) == 0
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "- one\n- two"
    assert "!!!GADGET_" not in term.text


def test_the_cut_off_transcript_of_make_demo_shows_no_marker_fragment() -> None:
    transcript = ROOT / "examples" / "transcripts" / "block-malformed.txt"
    proc = subprocess.run(
        [sys.executable, "-m", "llmist.cli", "parse", str(transcript), "--chunk", "7", "--json"],
        capture_output=True, text=True, env=clean_env(), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line)["call"] for line in proc.stdout.splitlines() if '"gadget_call"' in line]
    notes = calls[-1]
    assert (
        notes["invocation_id"] == "notes" and notes["parameters"]["content"] == "- timeout raised to 30\n- retries: 3"
    )
    assert notes["repairs"] == ["missing_end"]
    # The bundled transcript itself still ends in the cut-off marker.
    assert transcript.read_text(encoding="utf-8").rstrip("\n").endswith("!!!GADGET_")


def test_ctrl_c_at_an_open_approval_prompt_ends_its_line_and_keeps_prose_whole(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        [
            [
                {"gadget": "WriteFile", "id": "one", "params": {"path": "a.txt", "content": "A"}},
                "And the second one now, after some prose.",
                {"gadget": "WriteFile", "id": "two", "params": {"path": "b.txt", "content": "B"}},
            ],
            "never",
        ],
        chunk_size=8,
        delay_s=0.01,
    )
    term = Terminal(*_agent(script, tmp_path))
    term.expect(_PROMPT)
    time.sleep(1.5)  # the prose and the second call arrive while the question is open
    term.interrupt()
    assert term.wait(30) == 130
    lines = term.text.splitlines()
    (prompt,) = [line for line in lines if _PROMPT in line]
    assert prompt.split(_PROMPT, 1)[1].strip() == ""  # nothing was printed after the question
    assert "And the second one now, after some prose." in lines  # one line, not cut at the question
    assert "✗ WriteFile (one) (cancelled before it started)" in term.text
    assert not (tmp_path / "a.txt").exists()


def test_a_call_that_reuses_an_earlier_calls_id_is_timed_on_its_own(tmp_path: Path) -> None:
    # Models reuse ids across responses: the second "w" must not inherit the first one's start.
    script = _script(
        tmp_path,
        [
            [{"gadget": "ListDirectory", "id": "w", "params": {}}],
            [
                {"gadget": "RunCommand", "id": "slow", "params": {"command": "sleep 60"}},
                {"gadget": "ReadFile", "id": "w", "deps": ["slow"], "params": {"path": "notes.txt"}},
            ],
            "never",
        ],
    )
    term = Terminal(*_agent(script, tmp_path, "--yes"))
    term.expect("ReadFile (w) waiting for slow")
    term.expect("RunCommand (slow) running 1.")
    term.interrupt()
    assert term.wait(30) == 130
    assert "✗ ReadFile (w) (cancelled before it started)" in term.text
