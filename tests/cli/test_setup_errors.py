"""The first errors a new user meets (issue 40): a model string that names no model, a provider
whose SDK is missing, a mock script that is not there, a results file that cannot be written.

Each ends the command before any work, with one or two lines naming the cause and the fix, no
traceback, and exit code 2 (a usage or setup error, as docs/cli.md's table says).
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from llmist._install import install_command

from .helpers import clean_env, llmist

pytestmark = pytest.mark.slow  # real subprocesses


def _closed_port_url() -> str:
    """An OpenAI address nothing listens on: were a model sent there, the run fails at once, offline."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def _setup_error(done: subprocess.CompletedProcess[str], *, lines: int = 1) -> str:
    """The error text of a command that must end with a setup error: exit 2, no traceback, no run."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert "Run summary" not in done.stdout
    assert len(done.stderr.strip().splitlines()) <= lines, done.stderr
    return done.stderr


_OPENAI_KEY_SET = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": _closed_port_url()}


@pytest.mark.parametrize("command", ["agent", "complete"])
def test_a_misspelt_alias_is_an_error_with_did_you_mean_not_a_request_to_openai(command: str) -> None:
    error = _setup_error(llmist(command, "hi", "-m", "sonet", env=_OPENAI_KEY_SET))
    assert error.startswith("error: Unknown model 'sonet'")
    assert "Did you mean 'sonnet'?" in error
    assert "openai connection failed" not in error


def test_a_misspelt_provider_prefix_is_an_error_with_did_you_mean() -> None:
    error = _setup_error(llmist("agent", "hi", "-m", "anthropc:claude-sonnet-4-5", env=_OPENAI_KEY_SET))
    assert "Unknown provider 'anthropc'" in error
    assert "Did you mean 'anthropic:claude-sonnet-4-5'?" in error


def test_a_misspelt_model_in_a_batch_fails_before_any_task(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('"hi"\n')
    out = tmp_path / "results.jsonl"
    error = _setup_error(llmist("batch", str(tasks), "-m", "sonet", "-o", str(out), env=_OPENAI_KEY_SET))
    assert "Did you mean 'sonnet'?" in error
    assert not out.exists()


def _without_anthropic(*argv: str, key: bool) -> subprocess.CompletedProcess[str]:
    """``llmist ARGV`` in a Python where ``import anthropic`` fails, as if its extra were not installed."""
    code = f"import sys; sys.modules['anthropic'] = None; sys.argv = {['llmist', *argv]!r}; "
    code += "from llmist.cli.main import main; main()"
    env = clean_env({"ANTHROPIC_API_KEY": "sk-test"} if key else None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("key", [True, False], ids=["key-set", "no-key"])
@pytest.mark.parametrize("command", ["agent", "complete"])
def test_a_missing_sdk_is_a_setup_error_with_the_install_command_on_its_own_line(command: str, key: bool) -> None:
    # Without the key too: no key would help while the package is missing, so the package comes first.
    error = _setup_error(_without_anthropic(command, "hi", "-m", "sonnet", key=key), lines=2)
    first, command_line = error.strip().splitlines()
    assert first.startswith("error: The 'anthropic' provider needs the 'anthropic' package, which is not installed.")
    assert command_line.strip() == install_command("anthropic")


@pytest.mark.parametrize("command", ["agent", "complete"])
def test_a_mock_script_that_does_not_exist_is_named_not_replaced_by_the_echo_model(
    tmp_path: Path, command: str
) -> None:
    error = _setup_error(llmist(command, "hi", "-m", "mock:scirpt", cwd=tmp_path))
    assert error.startswith("error: mock script not found: scirpt ")
    assert "(mock) hi" not in error


def test_a_mock_script_given_to_eval_is_refused() -> None:
    error = _setup_error(llmist("eval", "-m", "mock:script.json", "--case", "add_numbers"))
    assert "eval takes -m mock" in error


def _unwritable_folder(tmp_path: Path) -> Path:
    """A folder this user cannot write: a read-only one, or, for root (who writes anywhere a mode
    forbids), the read-only /sys of a container."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir(mode=0o555)
        return folder
    try:
        os.close(os.open("/sys/llmist-probe", os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError:
        return Path("/sys")
    os.unlink("/sys/llmist-probe")
    pytest.skip("no folder here is read-only to root")


@pytest.mark.parametrize(
    ("where", "reason"),
    [
        ("nodir/out.jsonl", "is in a folder that does not exist (nodir); create it first (mkdir -p nodir)"),
        ("afile/out.jsonl", "is under afile, which is a file, not a folder"),
        (".", "is a directory; give the path of a file"),
        ("READ-ONLY/out.jsonl", "cannot be written ("),
        ("n" * 300 + ".jsonl", "has a name (or folder name) too long for the file system; give a shorter one"),
    ],
)
def test_an_eval_results_file_that_cannot_be_written_ends_it_before_the_first_task(
    tmp_path: Path, where: str, reason: str
) -> None:
    (tmp_path / "afile").write_text("")
    where = where.replace("READ-ONLY", str(_unwritable_folder(tmp_path))) if "READ-ONLY" in where else where
    error = _setup_error(llmist("eval", "-m", "mock", "--case", "add_numbers", "-o", where, cwd=tmp_path))
    assert error.startswith(f"error: --out {where} {reason}")
    assert "pass block" not in error  # no task ran
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", *(["read-only"] if os.geteuid() else [])]


def test_a_batch_results_file_in_a_missing_folder_is_refused_by_the_same_check(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('"hi"\n')
    error = _setup_error(llmist("batch", str(tasks), "-m", "mock", "-o", "nodir/r.jsonl", cwd=tmp_path))
    assert error.startswith("error: results file nodir/r.jsonl is in a folder that does not exist (nodir)")


def test_an_eval_results_file_that_fails_at_the_end_keeps_the_table_and_says_so(tmp_path: Path) -> None:
    # The check passed, then the write fails (a file-size limit stands for a full disk): the runs'
    # table is still shown, and the error names the file, with no traceback.
    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))

    done = subprocess.run(
        [sys.executable, "-m", "llmist.cli", "eval", "-m", "mock", "--case", "add_numbers", "-o", "out.jsonl"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=90,
        preexec_fn=limit_file_size,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "1/1 100%" in done.stdout
    assert done.stderr.strip().splitlines()[-1].startswith("error: --out out.jsonl could not be written (")
