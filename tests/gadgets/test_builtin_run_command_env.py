"""A command does not see llmist's own credentials: the variables every provider reads its key
from, ``LLMIST_WEB_TOKEN``, and what the user hides; ``env_passthrough`` lets chosen ones through,
and the approval's reason says what the command sees. Checked with a real ``env``."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from tests.cli.helpers import llmist

from llmist.gadgets import approval_reason
from llmist.gadgets.builtins import RunCommand, builtin_gadgets
from llmist.providers import OpenAIProvider
from llmist.testing import atest_gadget

CREDENTIALS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "HF_TOKEN",
    "OLLAMA_API_KEY",
    "VLLM_API_KEY",
    "LMSTUDIO_API_KEY",
    "LLAMACPP_API_KEY",
    "LLMIST_WEB_TOKEN",
)


@pytest.fixture
def secrets_set(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Every credential set to a value of its own, and one ordinary variable."""
    values = {name: f"secret-{name.lower()}-value" for name in CREDENTIALS}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LLMIST_TEST_ORDINARY", "ordinary-value")
    return values


async def _env(gadget: RunCommand) -> str:
    out = await atest_gadget(gadget, {"command": "env"})
    assert out.result is not None, out.error
    return out.result


async def test_a_command_sees_none_of_llmists_credentials(tmp_path: Path, secrets_set: dict[str, str]) -> None:
    seen = await _env(RunCommand(tmp_path))
    for name, value in secrets_set.items():
        assert value not in seen, f"{name} reached the command"
        assert f"{name}=" not in seen
    assert "LLMIST_TEST_ORDINARY=ordinary-value" in seen


async def test_chosen_credentials_are_passed_through(tmp_path: Path, secrets_set: dict[str, str]) -> None:
    seen = await _env(RunCommand(tmp_path, env_passthrough=["OPENAI_API_KEY", "HF_*"]))
    assert f"OPENAI_API_KEY={secrets_set['OPENAI_API_KEY']}" in seen
    assert f"HF_TOKEN={secrets_set['HF_TOKEN']}" in seen
    assert secrets_set["ANTHROPIC_API_KEY"] not in seen


async def test_the_user_hides_more_variables_by_name_or_pattern(
    tmp_path: Path, secrets_set: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    monkeypatch.setenv("DB_PASSWORD", "db-secret")
    monkeypatch.setenv("ÄPFEL_SCHLÜSSEL", "unicode-secret")
    monkeypatch.setenv("aws_lowercase", "not-matched")
    gadget = RunCommand(tmp_path, hide_env=["AWS_*", "DB_PASSWORD", "ÄPFEL_SCHLÜSSEL"])
    seen = await _env(gadget)
    assert "aws-secret" not in seen and "db-secret" not in seen and "unicode-secret" not in seen
    assert "aws_lowercase=not-matched" in seen  # names are case-sensitive, as POSIX has them
    assert "LLMIST_TEST_ORDINARY=ordinary-value" in seen


async def test_a_key_variable_a_provider_was_built_with_is_hidden_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The core suites also run in the compiled build's venv, which has no SDK; the pure build's
    # suite, which has them all, runs this.
    pytest.importorskip("openai", reason="the openai provider needs its SDK (pure build's suite)")
    monkeypatch.setenv("LLMIST_TEST_CORP_LLM_KEY", "corp-secret")
    OpenAIProvider(api_key_env="LLMIST_TEST_CORP_LLM_KEY", base_url="http://127.0.0.1:9/v1")
    assert "corp-secret" not in await _env(RunCommand(tmp_path))


async def test_passing_everything_through_is_possible(tmp_path: Path, secrets_set: dict[str, str]) -> None:
    seen = await _env(RunCommand(tmp_path, env_passthrough=["*"]))
    assert all(value in seen for value in secrets_set.values())


def test_every_key_variable_the_providers_name_is_hidden() -> None:
    # The providers' sources, read as a new provider's author would write one: any string that
    # names a key or token variable must be among those a command does not see.
    providers = Path(__file__).resolve().parents[2] / "src" / "llmist" / "providers"
    named = {
        node.value
        for path in providers.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"[A-Z][A-Z0-9_]*_(API_KEY|TOKEN|AUTH_TOKEN)", node.value)
    }
    environ = dict.fromkeys(named | {"LLMIST_WEB_TOKEN"}, "x")
    assert set(RunCommand(".").hidden_variables(environ)) == set(environ)


def test_the_approval_says_what_the_command_sees(tmp_path: Path, secrets_set: dict[str, str]) -> None:
    reason = approval_reason(RunCommand(tmp_path), {"command": "env"})
    assert reason is not None
    assert reason.startswith("it runs a shell command, with this process's environment but not ")
    assert "OPENAI_API_KEY" in reason and "LLMIST_WEB_TOKEN" in reason
    passed = approval_reason(RunCommand(tmp_path, env_passthrough=["OPENAI_API_KEY"]), {"command": "env"})
    assert passed is not None and passed.endswith("; it sees OPENAI_API_KEY")
    assert "not ANTHROPIC_API_KEY" in passed


def test_the_approval_without_any_credential_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    reason = approval_reason(RunCommand(tmp_path), {"command": "ls"})
    assert reason == "it runs a shell command, with this process's environment"


def test_builtin_gadgets_pass_the_options_on(tmp_path: Path, secrets_set: dict[str, str]) -> None:
    (command,) = [g for g in builtin_gadgets(tmp_path, env_passthrough=["HF_TOKEN"]) if isinstance(g, RunCommand)]
    assert "HF_TOKEN" not in command.hidden_variables()
    assert "OPENAI_API_KEY" in command.hidden_variables()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"env_passthrough": "OPENAI_API_KEY"}, TypeError, "takes a list of variable names, not one string"),
        ({"hide_env": ["A=B"]}, ValueError, "'A=B' is not an environment variable name"),
        ({"hide_env": [""]}, ValueError, "'' is not an environment variable name"),
        ({"env_passthrough": ["X\0Y"]}, ValueError, "is not an environment variable name"),
        ({"env_passthrough": [3]}, ValueError, "3 is not an environment variable name"),
    ],
)
def test_a_wrong_variable_list_is_refused_by_name(
    tmp_path: Path, options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        RunCommand(tmp_path, **options)  # type: ignore[arg-type]


@pytest.mark.slow
def test_llmist_agent_takes_both_lists_from_its_config_file(tmp_path: Path) -> None:
    (tmp_path / "llmist.toml").write_text(
        'command_env_passthrough = ["OPENAI_API_KEY"]\ncommand_hide_env = ["LLMIST_TEST_DB_*"]\n', encoding="utf-8"
    )
    script = tmp_path / "script.json"
    turns = [[{"gadget": "RunCommand", "id": "env", "params": {"command": "env > seen.txt"}}], "done"]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    env = {
        "OPENAI_API_KEY": "sk-passed-through",
        "ANTHROPIC_API_KEY": "sk-kept-hidden",
        "LLMIST_TEST_DB_PASSWORD": "db-kept-hidden",
        "LLMIST_TEST_ORDINARY": "ordinary-value",
    }
    proc = llmist("agent", "go", "-m", f"mock:{script}", "--builtins", "--root", ".", "--yes", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    seen = (tmp_path / "seen.txt").read_text(encoding="utf-8")
    assert "OPENAI_API_KEY=sk-passed-through" in seen
    assert "LLMIST_TEST_ORDINARY=ordinary-value" in seen
    assert "sk-kept-hidden" not in seen and "db-kept-hidden" not in seen
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "llmist.toml").write_text('command_hide_env = ["A=B"]\n', encoding="utf-8")
    refused = llmist("agent", "go", "-m", f"mock:{script}", "--builtins", "--root", ".", "--yes", cwd=bad)
    assert refused.returncode != 0
    assert "command_hide_env" in refused.stderr and "environment variable names" in refused.stderr


async def test_a_command_sees_exactly_the_environment_run_command_gives(
    tmp_path: Path, secrets_set: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing added on the way (the launcher's Python sets LC_CTYPE in a C locale), nothing lost.
    monkeypatch.setenv("LANG", "C")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    monkeypatch.setenv("LLMIST_TEST_UNICODE", "héllo 🛠️ wörld")
    gadget = RunCommand(tmp_path)
    out = await atest_gadget(gadget, {"command": "env -0 > env.bin"})
    assert out.error is None
    pairs = (tmp_path / "env.bin").read_bytes().decode("utf-8", "surrogateescape").split("\0")
    seen = dict(pair.split("=", 1) for pair in pairs if pair)
    del seen["LLMIST_COMMAND_ID"]
    expected = gadget.environment()
    for set_by_the_shell in ("PWD", "OLDPWD", "SHLVL", "_"):
        seen.pop(set_by_the_shell, None)
        expected.pop(set_by_the_shell, None)
    assert seen == expected
