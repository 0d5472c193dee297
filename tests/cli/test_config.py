"""Configuration: files, profiles, environment and flags merged in order, each value with its source."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from llmist.cli._config import ConfigError, load_config, user_config_path
from tests.cli.helpers import llmist


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj" / "sub").mkdir(parents=True)
    return tmp_path / "proj"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    user = tmp_path / "user.toml"
    if not user.exists():
        user.write_text("", encoding="utf-8")
    return {"LLMIST_CONFIG": str(user), **extra}


def test_defaults_when_no_file_exists(tmp_path: Path, project: Path) -> None:
    config = load_config(cwd=project, env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert config["syntax"] == "block" and config["max_iterations"] == 10
    assert config.values["model"].source == "default"
    assert [f.found for f in config.files] == [False, False]


def test_project_file_overrides_user_file_and_flags_override_both(tmp_path: Path, project: Path) -> None:
    (tmp_path / "user.toml").write_text('model = "haiku"\nmax_iterations = 4\nsyntax = "emoji"\n', encoding="utf-8")
    (project / "llmist.toml").write_text('model = "sonnet"\n', encoding="utf-8")
    config = load_config(cwd=project / "sub", env=_env(tmp_path), flags={"syntax": "block", "model": None})
    assert (config["model"], config.values["model"].source) == ("sonnet", str(project / "llmist.toml"))
    assert (config["max_iterations"], config.values["max_iterations"].source) == (4, str(tmp_path / "user.toml"))
    assert (config["syntax"], config.values["syntax"].source) == ("block", "--syntax")


def test_profile_chosen_by_flag_env_or_file(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text(
        'profile = "fast"\n[profiles.fast]\nmax_iterations = 2\n[profiles.local]\nmodel = "ollama:qwen2.5:7b"\n',
        encoding="utf-8",
    )
    by_file = load_config(cwd=project, env=_env(tmp_path))
    assert by_file["max_iterations"] == 2
    assert by_file.values["max_iterations"].source == f"{project / 'llmist.toml'} [profiles.fast]"
    by_env = load_config(cwd=project, env=_env(tmp_path, LLMIST_PROFILE="local"))
    assert by_env["model"] == "ollama:qwen2.5:7b" and by_env.profile is not None
    assert by_env.profile.source == "env LLMIST_PROFILE"
    by_flag = load_config(cwd=project, env=_env(tmp_path, LLMIST_PROFILE="local"), profile="fast")
    assert by_flag["model"] is None and by_flag["max_iterations"] == 2


def test_env_model_beats_files(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text('model = "sonnet"\n', encoding="utf-8")
    config = load_config(cwd=project, env=_env(tmp_path, LLMIST_MODEL="gpt-4o"))
    assert (config["model"], config.values["model"].source) == ("gpt-4o", "env LLMIST_MODEL")


def test_gadget_files_and_root_are_relative_to_their_config_file(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text('gadgets = ["tools.py", "my_pkg.tools"]\nroot = "work"\n', encoding="utf-8")
    config = load_config(cwd=project / "sub", env=_env(tmp_path))
    assert config["gadgets"] == [str(project / "tools.py"), "my_pkg.tools"]
    assert config["root"] == str(project / "work")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('max_iterations = "ten"\n', "key 'max_iterations' must be a positive integer, got 'ten' (str)"),
        ('syntax = "xml"\n', 'key \'syntax\' must be "block", "emoji", "native" or "auto", got \'xml\' (str)'),
        ('modle = "sonnet"\n', "unknown key 'modle'; expected one of: model, syntax"),
        ("[profiles.x]\nbuiltins = 1\n", "[profiles.x] key 'builtins' must be true or false, got 1 (int)"),
        ("model = \n", "is not valid TOML: Invalid value (at line 1, column 9)"),
        ('gadgets = "tools.py"\n', "key 'gadgets' must be a list of strings"),
    ],
)
def test_bad_config_names_the_file_the_key_and_what_was_expected(
    tmp_path: Path, project: Path, text: str, message: str
) -> None:
    (project / "llmist.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=project, env=_env(tmp_path))
    assert str(caught.value).startswith(str(project / "llmist.toml"))
    assert message in str(caught.value)


def test_an_undefined_profile_lists_the_defined_ones(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text("[profiles.fast]\nmax_iterations = 2\n", encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"profile 'slow' \(chosen by --profile\) is not defined; defined profiles: fast"
    ):
        load_config(cwd=project, env=_env(tmp_path), profile="slow")


def test_user_config_location() -> None:
    assert user_config_path({"LLMIST_CONFIG": "/x/c.toml"}) == Path("/x/c.toml")
    assert user_config_path({"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/llmist/config.toml")
    assert user_config_path({}) == Path.home() / ".config" / "llmist" / "config.toml"


def test_config_show_prints_values_and_sources(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text('model = "sonnet"\n[profiles.fast]\nmax_iterations = 2\n', encoding="utf-8")
    proc = llmist(
        "config",
        "show",
        "--profile",
        "fast",
        cwd=project,
        env={"LLMIST_CONFIG": os.devnull, "OPENAI_API_KEY": "sk-secret", "COLUMNS": "160"},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "profile: fast (from --profile)" in out
    # Columns as wide as their longest entry: the spaces are not the point.
    assert re.search(r"│ max_iterations +│ 2", out) and "[profiles.fast]" in out
    assert re.search(r"│ model +│ sonnet", out)
    assert re.search(r"OPENAI_API_KEY +│ set", out) and "sk-secret" not in out


def test_config_show_json(tmp_path: Path, project: Path) -> None:
    proc = llmist("config", "show", "--json", cwd=project, env={"LLMIST_CONFIG": os.devnull})
    record = json.loads(proc.stdout)
    assert record["settings"]["syntax"] == {"value": "block", "source": "default"}
    assert record["files"][0] == {"role": "user", "path": os.devnull, "found": False}


def test_agent_uses_the_project_profile(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text('[profiles.demo]\nmodel = "mock"\nmax_iterations = 3\n', encoding="utf-8")
    proc = llmist("agent", "ping", "-P", "demo", cwd=project, env={"LLMIST_CONFIG": os.devnull})
    assert proc.returncode == 0, proc.stderr
    assert "model mock · up to 3 iterations" in proc.stdout and "(mock) ping" in proc.stdout


def test_agent_reports_bad_config_and_exits_2(tmp_path: Path, project: Path) -> None:
    (project / "llmist.toml").write_text("max_iterations = 0\n", encoding="utf-8")
    proc = llmist("agent", "ping", cwd=project, env={"LLMIST_CONFIG": os.devnull})
    assert proc.returncode == 2
    assert "llmist.toml: key 'max_iterations' must be a positive integer, got 0 (int)" in proc.stderr


def test_a_user_config_that_llmist_config_names_must_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent.toml"
    proc = llmist("agent", "ping", "-m", "mock", env={"LLMIST_CONFIG": str(missing)})
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: LLMIST_CONFIG names {missing}, which does not exist;")
    assert f"LLMIST_CONFIG={os.devnull}" in proc.stderr
