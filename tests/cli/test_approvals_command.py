"""``llmist agent --session S`` with nobody to ask pauses (exit 3); ``llmist approvals``,
``approve`` and ``deny`` decide from another process; ``llmist agent --session S`` goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import llmist

pytestmark = pytest.mark.slow

PAUSING = {
    "turns": [
        [
            "I will write the note, log the date and list the folder.",
            {"gadget": "WriteFile", "id": "note", "params": {"path": "note.txt", "content": "hello\n"}},
            {"gadget": "RunCommand", "id": "log", "params": {"command": "echo ran >> log.txt"}},
            {"gadget": "ListDirectory", "id": "ls", "params": {"path": "."}},
        ],
        "Done.",  # reached only when nothing pauses (--yes)
    ]
}
FINISHING = {"turns": ["The note is written; the log was not touched."]}


def scripts(folder: Path) -> tuple[str, str]:
    (folder / "pause.json").write_text(json.dumps(PAUSING), encoding="utf-8")
    (folder / "finish.json").write_text(json.dumps(FINISHING), encoding="utf-8")
    return f"mock:{folder / 'pause.json'}", f"mock:{folder / 'finish.json'}"


def agent(folder: Path, model: str, *args: str, store: tuple[str, str] | None = None) -> object:
    where = store or ("--session-db", str(folder / "sessions.db"))
    return llmist("agent", *args, "-m", model, "--builtins", "--root", str(folder), "--session", "job", *where)


def test_without_a_terminal_a_call_that_needs_approval_pauses_the_run_with_exit_3(tmp_path: Path) -> None:
    pause, _ = scripts(tmp_path)
    proc = agent(tmp_path, pause, "Write a note.")
    assert proc.returncode == 3, proc.stderr  # type: ignore[attr-defined]
    out = proc.stdout  # type: ignore[attr-defined]
    assert "⏸ WriteFile (note) waits for approval: it writes 'note.txt'" in out
    assert "Session job: 2 calls wait for approval" in out and "llmist approve job ID" in out
    assert not (tmp_path / "note.txt").exists() and not (tmp_path / "log.txt").exists()


def test_json_lists_the_waiting_calls_as_events_and_in_run_end(tmp_path: Path) -> None:
    pause, _ = scripts(tmp_path)
    proc = agent(tmp_path, pause, "Write a note.", "--json")
    assert proc.returncode == 3  # type: ignore[attr-defined]
    lines = [json.loads(line) for line in proc.stdout.splitlines()]  # type: ignore[attr-defined]
    waiting = [line["invocation_id"] for line in lines if line["type"] == "gadget_pending"]
    assert waiting == ["note", "log"]
    end = lines[-1]
    assert end["type"] == "run_end" and end["stop_reason"] == "awaiting_approval"
    assert [(p["invocation_id"], p["gadget"], p["reason"].split(",")[0]) for p in end["pending"]] == [
        ("note", "WriteFile", "it writes 'note.txt'"),
        ("log", "RunCommand", "it runs a shell command"),
    ]


def test_decisions_from_other_processes_and_the_resume(tmp_path: Path) -> None:
    pause, finish = scripts(tmp_path)
    db = ["--session-db", str(tmp_path / "sessions.db")]
    assert agent(tmp_path, pause, "Write a note.").returncode == 3  # type: ignore[attr-defined]
    listed = llmist("approvals", "job", *db, "--json")
    assert [p["invocation_id"] for p in json.loads(listed.stdout)["pending"]] == ["note", "log"]
    approved = llmist("approve", "job", "note", "--edit", "path=greeting.txt", *db)
    assert approved.returncode == 0, approved.stderr
    assert "note (WriteFile) approved with edited parameters; resume with: llmist agent --session job" in " ".join(
        approved.stdout.split()
    )
    denied = llmist("deny", "job", "log", "--reason", "no commands today", *db)
    assert denied.returncode == 0, denied.stderr
    resumed = agent(tmp_path, finish)
    assert resumed.returncode == 0, resumed.stderr  # type: ignore[attr-defined]
    assert (tmp_path / "greeting.txt").read_text() == "hello\n" and not (tmp_path / "log.txt").exists()
    assert json.loads(llmist("approvals", "job", *db, "--json").stdout)["pending"] == []


def test_an_unknown_call_a_misspelt_edit_and_a_second_decision_are_clear_errors(tmp_path: Path) -> None:
    pause, _ = scripts(tmp_path)
    db = ["--session-db", str(tmp_path / "sessions.db")]
    assert agent(tmp_path, pause, "Write a note.").returncode == 3  # type: ignore[attr-defined]
    unknown = llmist("approve", "job", "nope", *db)
    assert unknown.returncode == 1
    assert "no call 'nope' waits for a decision; the calls that do: note, log" in " ".join(unknown.stderr.split())
    typo = llmist("approve", "job", "note", "--edit", "contnet=bye", *db)
    assert typo.returncode == 1
    assert "call 'note' (WriteFile) has no parameter 'contnet'; its parameters: path, content" in " ".join(
        typo.stderr.split()
    )
    assert llmist("deny", "job", "note", *db).returncode == 0
    twice = llmist("approve", "job", "note", *db)
    assert twice.returncode == 1
    assert "call 'note' was already decided (denied, at" in twice.stderr
    assert "the first decision stands" in " ".join(twice.stderr.split())


def test_a_resume_before_every_call_is_decided_pauses_again_without_a_model_call(tmp_path: Path) -> None:
    pause, finish = scripts(tmp_path)
    assert agent(tmp_path, pause, "Write a note.").returncode == 3  # type: ignore[attr-defined]
    assert llmist("approve", "job", "note", "--session-db", str(tmp_path / "sessions.db")).returncode == 0
    again = agent(tmp_path, finish)
    assert again.returncode == 3  # type: ignore[attr-defined]
    assert "log  RunCommand  needs approval" in again.stdout  # type: ignore[attr-defined]
    assert not (tmp_path / "note.txt").exists()


def test_yes_runs_the_calls_instead_of_pausing(tmp_path: Path) -> None:
    pause, _ = scripts(tmp_path)
    proc = agent(tmp_path, pause, "Write a note.", "--yes")
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert (tmp_path / "note.txt").exists() and (tmp_path / "log.txt").read_text() == "ran\n"


def test_a_session_in_postgresql_pauses_and_resumes(tmp_path: Path, postgres: object) -> None:
    pause, finish = scripts(tmp_path)
    url = postgres.new_database()  # type: ignore[attr-defined]
    store = ("--session-url", url)
    assert agent(tmp_path, pause, "Write a note.", store=store).returncode == 3  # type: ignore[attr-defined]
    assert llmist("approve", "job", "note", *store).returncode == 0
    assert llmist("approve", "job", "log", *store).returncode == 0
    resumed = agent(tmp_path, finish, store=store)
    assert resumed.returncode == 0, resumed.stderr  # type: ignore[attr-defined]
    assert (tmp_path / "note.txt").exists() and (tmp_path / "log.txt").read_text() == "ran\n"


def test_a_bad_session_url_in_the_config_names_the_file_key_expected_and_found(tmp_path: Path) -> None:
    (tmp_path / "llmist.toml").write_text('session_url = "postgresql://db.internal/agents"\n', encoding="utf-8")
    proc = llmist("agent", "hi", "-m", "mock", "--session", "s", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {tmp_path / 'llmist.toml'}: key 'session_url' must be a database URL")
    assert "name the driver: postgresql+asyncpg://..." in proc.stderr
    assert "got 'postgresql://db.internal/agents' (str)" in " ".join(proc.stderr.split())


@pytest.mark.parametrize("command", [["approvals", "job"], ["approve", "job", "w1"], ["deny", "job", "w1"]])
def test_a_database_that_refuses_the_connection_ends_the_command_with_its_error(command: list[str]) -> None:
    proc = llmist(*command, "--session-url", "postgresql+asyncpg://postgres@127.0.0.1:1/agents")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "cannot open the store: ConnectionRefusedError" in proc.stderr and "from --session-url" in proc.stderr
