"""``llmist agent --mcp`` and the ``mcp_servers`` config section: MCP tools from the command line."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from llmist.cli._config import ConfigError, load_config
from tests.cli.helpers import llmist

TIME_SERVER = f"{shlex.quote(sys.executable)} -m mcp_server_time --local-timezone UTC"


def _script(tmp_path: Path, gadget: str) -> Path:
    path = tmp_path / "script.json"
    turns = [[{"gadget": gadget, "params": {"timezone": "Asia/Tokyo"}}], "done"]
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path


def _results(stdout: str) -> list[dict[str, object]]:
    events = [json.loads(line) for line in stdout.splitlines()]
    return [e["result"] for e in events if e["type"] == "gadget_result"]


@pytest.mark.slow
def test_mcp_flag_runs_the_server_command_and_its_tools_answer(tmp_path: Path) -> None:
    script = _script(tmp_path, "get_current_time")
    proc = llmist("agent", "time?", "-m", f"mock:{script}", "--mcp", TIME_SERVER, "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (result,) = _results(proc.stdout)
    assert json.loads(str(result["result"]))["timezone"] == "Asia/Tokyo"


@pytest.mark.slow
def test_config_file_mcp_servers_table_with_tool_prefix(tmp_path: Path) -> None:
    (tmp_path / "llmist.toml").write_text(
        "[[mcp_servers]]\n"
        f"command = {json.dumps(sys.executable)}\n"
        'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]\n'
        'tool_prefix = "time_"\n',
        encoding="utf-8",
    )
    script = _script(tmp_path, "time_get_current_time")
    proc = llmist("agent", "time?", "-m", f"mock:{script}", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (result,) = _results(proc.stdout)
    assert result["error"] is None


def test_mcp_flag_values_are_remembered_with_their_source(tmp_path: Path) -> None:
    config = load_config(cwd=tmp_path, env={"LLMIST_CONFIG": os.devnull}, flags={"mcp_servers": ["a b"]})
    assert (config["mcp_servers"], config.values["mcp_servers"].source) == (["a b"], "--mcp")


def test_a_wrong_mcp_servers_entry_names_file_key_expected_and_found(tmp_path: Path) -> None:
    path = tmp_path / "llmist.toml"
    path.write_text('[[mcp_servers]]\ncomand = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(cwd=tmp_path, env={"LLMIST_CONFIG": os.devnull})
    message = str(info.value)
    assert str(path) in message
    assert "key 'mcp_servers' must be a list of MCP servers" in message
    assert "item 0 has unknown key(s) ['comand']" in message
    assert "got [{'comand': 'x'}]" in message


def test_a_relative_server_cwd_is_relative_to_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "llmist.toml").write_text('[[mcp_servers]]\ncommand = "srv"\ncwd = "tools"\n', encoding="utf-8")
    config = load_config(cwd=tmp_path, env={"LLMIST_CONFIG": os.devnull})
    assert config["mcp_servers"] == [{"command": "srv", "cwd": str((tmp_path / "tools").resolve())}]


def test_the_toml_sample_of_docs_mcp_md_loads(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")
    (sample,) = re.findall(r"```toml\n(.*?)```", doc, re.DOTALL)
    (tmp_path / "llmist.toml").write_text(sample, encoding="utf-8")
    config = load_config(cwd=tmp_path, env={"LLMIST_CONFIG": os.devnull})
    commands, git, http = config["mcp_servers"]
    assert commands == "python -m mcp_server_time"
    assert (git["tool_prefix"], git["cwd"]) == ("git_", str(tmp_path.resolve()))
    assert http["url"] == "http://127.0.0.1:8000/mcp"


def test_mcp_serve_names_a_missing_gadget_file(tmp_path: Path) -> None:
    proc = llmist("mcp", "serve", str(tmp_path / "nope.py"))
    assert proc.returncode == 2
    assert f"no such gadget file: {tmp_path / 'nope.py'}" in proc.stderr
