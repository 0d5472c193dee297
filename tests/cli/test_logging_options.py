"""``--log-level`` / ``--log-file``, their environment variables and config keys, for llmist's own
loggers and every gadget's logger."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from llmist.cli.main import hoist_global_options

from .helpers import llmist

CHATTY = """
from llmist import ExecutionContext, gadget


@gadget(description="Logs at every level")
def chatty(x: int, ctx: ExecutionContext) -> str:
    ctx.logger.trace("trace line")
    ctx.logger.debug("debug line")
    ctx.logger.info("info line")
    return "ok"
"""


def _run(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "g.py").write_text(CHATTY)
    return llmist("gadget", "run", "g.py:chatty", "-p", "x=1", *options, cwd=tmp_path, env=env)


def test_the_default_level_shows_no_debug_lines(tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "debug line" not in done.stderr and "info line" not in done.stderr


def test_log_level_after_the_command_reaches_the_gadget_logger(tmp_path: Path) -> None:
    done = _run(tmp_path, "--log-level", "debug")
    assert done.returncode == 0, done.stderr
    assert "DEBUG llmist.gadget.chatty: debug line" in done.stderr
    assert "trace line" not in done.stderr


def test_trace_shows_everything(tmp_path: Path) -> None:
    assert "TRACE llmist.gadget.chatty: trace line" in _run(tmp_path, "--log-level", "TRACE").stderr


def test_log_file_takes_the_lines_off_standard_error(tmp_path: Path) -> None:
    done = _run(tmp_path, "--log-level=info", "--log-file", str(tmp_path / "run.log"))
    assert "info line" not in done.stderr
    assert "INFO llmist.gadget.chatty: info line" in (tmp_path / "run.log").read_text()


def test_the_environment_sets_the_level_and_the_flag_wins(tmp_path: Path) -> None:
    assert "debug line" in _run(tmp_path, env={"LLMIST_LOG_LEVEL": "debug"}).stderr
    assert "debug line" not in _run(tmp_path, "--log-level", "error", env={"LLMIST_LOG_LEVEL": "debug"}).stderr


def test_the_config_file_sets_the_level_and_the_environment_wins(tmp_path: Path) -> None:
    (tmp_path / "llmist.toml").write_text('log_level = "info"\nlog_file = "from-config.log"\n')
    _run(tmp_path)
    assert "info line" in (tmp_path / "from-config.log").read_text()
    _run(tmp_path, env={"LLMIST_LOG_FILE": str(tmp_path / "from-env.log")})
    assert "info line" in (tmp_path / "from-env.log").read_text()


def test_a_wrong_level_is_refused_with_the_valid_ones(tmp_path: Path) -> None:
    done = _run(tmp_path, "--log-level", "loud")
    assert done.returncode == 2
    assert "trace, debug, info, warning, error, critical" in done.stderr


def test_a_wrong_level_in_the_environment_names_the_variable(tmp_path: Path) -> None:
    done = _run(tmp_path, env={"LLMIST_LOG_LEVEL": "loud"})
    assert done.returncode == 2
    assert "LLMIST_LOG_LEVEL must be one of trace" in done.stderr


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["agent", "x", "--log-level", "debug"], ["--log-level", "debug", "agent", "x"]),
        (["agent", "--log-file=a.log", "x"], ["--log-file=a.log", "agent", "x"]),
        (["agent", "--", "--log-level", "debug"], ["agent", "--", "--log-level", "debug"]),
    ],
)
def test_global_options_may_follow_the_command(argv: list[str], expected: list[str]) -> None:
    assert hoist_global_options(argv) == expected


def test_a_log_file_in_a_missing_folder_is_one_line_naming_it(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "llmist.log"
    done = _run(tmp_path, "--log-file", str(target))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"error: log file {target} (from --log-file) cannot be created: its folder {target.parent} "
        "does not exist; create it or log elsewhere"
    )


def test_a_log_file_that_is_a_directory_is_one_line_naming_where_it_was_set(tmp_path: Path) -> None:
    done = _run(tmp_path, env={"LLMIST_LOG_FILE": str(tmp_path)})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"error: log file {tmp_path} (from env LLMIST_LOG_FILE) is a directory; give the path of a file"
    )
