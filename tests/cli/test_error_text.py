"""Error messages reach the terminal as written: square brackets are text, never Rich markup."""

from __future__ import annotations

from pathlib import Path

from .helpers import llmist

BOOM = """
from llmist import gadget


@gadget(description="Always fails")
def boom(x: int) -> str:
    raise RuntimeError("bad input [/x] see [bold]docs[/bold] and llmist[anthropic]")
"""


def test_a_gadget_error_with_brackets_is_printed_as_written(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text(BOOM)
    done = llmist("gadget", "run", "g.py:boom", "-p", "x=1", cwd=tmp_path)
    assert done.returncode == 1
    assert "MarkupError" not in done.stderr and "Traceback" not in done.stderr
    assert "bad input [/x] see [bold]docs[/bold] and llmist[anthropic]" in done.stderr


def test_a_config_error_keeps_the_table_names_it_shows(tmp_path: Path) -> None:
    config = tmp_path / "llmist.toml"
    config.write_text('profiles = "fast"\n')
    done = llmist("complete", "hi", "-m", "mock", env={"LLMIST_CONFIG": str(config)})
    assert done.returncode == 2
    assert "such as [profiles.fast]" in done.stderr


def test_an_unknown_provider_error_keeps_its_brackets(tmp_path: Path) -> None:
    done = llmist("complete", "hi", "-m", "nosuch[x]:model")
    assert done.returncode == 2
    assert "nosuch[x]" in done.stderr


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_local_server_that_is_not_running_is_named_with_its_variable_after_one_retry() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    done = llmist("complete", "hi", "-m", "ollama:qwen2.5:7b", env={"OLLAMA_BASE_URL": url})
    assert done.returncode == 1
    error = done.stderr.strip().splitlines()[-1]
    assert f"nothing listens at {url} (connection refused)" in error
    assert "set OLLAMA_BASE_URL to the address it listens on" in error
    assert "attempt 1 of 2" in done.stderr and "attempt 2 of" not in done.stderr
