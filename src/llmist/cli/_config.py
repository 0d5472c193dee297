"""Configuration: defaults, the user's config file, the project's ``llmist.toml``, profiles,
environment variables and command-line flags, merged in that order, each value remembering
where it came from.

A file holds settings at top level, an optional default ``profile = "name"``, and named
profiles under ``[profiles.NAME]``::

    model = "sonnet"
    max_iterations = 8
    mcp_servers = ["python -m mcp_server_time"]

    [profiles.local]
    model = "ollama:qwen2.5:7b"
    syntax = "emoji"

API keys are never read from these files: providers take them from environment variables.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llmist._credentials import PROVIDER_KEYS
from llmist.agent.options import OPTIONS
from llmist.cli._common import CliError

__all__ = [
    "API_KEY_VARIABLES",
    "LOG_LEVELS",
    "SETTINGS",
    "Config",
    "ConfigError",
    "ConfigFile",
    "Setting",
    "agent_options",
    "find_project_config",
    "load_config",
    "user_config_path",
]

PROJECT_FILE = "llmist.toml"

API_KEY_VARIABLES = tuple(name for names in PROVIDER_KEYS.values() for name in names)
"""Environment variables providers read their keys from (shown, masked, by ``llmist config show``)."""


class ConfigError(CliError):
    """A configuration file or value is wrong; the message names the file, the key and what was expected."""


def _str(v: Any) -> str | None:
    return "a string" if not isinstance(v, str) else None


def _syntax(v: Any) -> str | None:
    return '"block", "emoji", "native" or "auto"' if v not in ("block", "emoji", "native", "auto") else None


def _pos_int(v: Any) -> str | None:
    return "a positive integer" if not (isinstance(v, int) and not isinstance(v, bool) and v > 0) else None


def _pos_num(v: Any) -> str | None:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
    return "a positive number" if not ok else None


def _bool(v: Any) -> str | None:
    return "true or false" if not isinstance(v, bool) else None


def _session_url(v: Any) -> str | None:
    expected = "a database URL with an asyncio driver, such as 'postgresql+asyncpg://user@host/db'"
    if not isinstance(v, str) or "://" not in v or not v.split("://", 1)[0].replace("+", "").isalnum():
        return expected
    scheme = v.split("://", 1)[0]
    if scheme in ("postgresql", "postgres"):
        return f"{expected} (name the driver: postgresql+asyncpg://...)"
    return None


LOG_LEVELS = ("trace", "debug", "info", "warning", "error", "critical")
"""The levels ``log_level`` takes (any case)."""


def _log_level(v: Any) -> str | None:
    ok = isinstance(v, str) and v.lower() in LOG_LEVELS
    return f"one of {', '.join(LOG_LEVELS)}" if not ok else None


def _str_list(v: Any) -> str | None:
    ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
    return "a list of strings (gadget files or modules)" if not ok else None


def _model_list(v: Any) -> str | None:
    ok = isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v)
    return "a list of model strings (models to fall back to, in order)" if not ok else None


def _pattern_list(v: Any) -> str | None:
    if not (isinstance(v, list) and all(isinstance(x, str) and x for x in v)):
        return "a list of regular expressions"
    for pattern in v:
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"a list of regular expressions; {pattern!r} is not one ({exc})"
    return None


def _variable_names(v: Any) -> str | None:
    ok = isinstance(v, list) and all(isinstance(x, str) and x and "=" not in x and "\0" not in x for x in v)
    return "a list of environment variable names or patterns ('OPENAI_API_KEY', 'AWS_*')" if not ok else None


def _path_patterns(v: Any) -> str | None:
    ok = isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v)
    return "a list of path patterns under root ('src/', 'docs/*.md')" if not ok else None


_MCP_TABLE_KEYS: dict[str, Callable[[Any], bool]] = {
    "command": lambda v: isinstance(v, str) and bool(v.strip()),
    "args": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "env": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
    "cwd": lambda v: isinstance(v, str),
    "url": lambda v: isinstance(v, str) and v.startswith(("http://", "https://")),
    "headers": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
    "tool_prefix": lambda v: isinstance(v, str),
}
_MCP_EXPECTED = (
    'a list of MCP servers, each a command line ("python -m mcp_server_time") or a table with '
    "command (+ args, env, cwd) or url (+ headers), and optionally tool_prefix"
)


def _mcp_servers(v: Any) -> str | None:
    if not isinstance(v, list):
        return _MCP_EXPECTED
    for n, item in enumerate(v):
        problem = _mcp_item(item)
        if problem is not None:
            return f"{_MCP_EXPECTED}; item {n} {problem}"
    return None


def _mcp_item(item: Any) -> str | None:
    if isinstance(item, str):
        return "is an empty command" if not item.strip() else None
    if not isinstance(item, dict):
        return f"is a {type(item).__name__}"
    unknown = sorted(set(item) - set(_MCP_TABLE_KEYS))
    if unknown:
        return f"has unknown key(s) {unknown}"
    if ("command" in item) == ("url" in item):
        return "needs exactly one of command and url"
    bad = [key for key, value in item.items() if not _MCP_TABLE_KEYS[key](value)]
    return f"has a wrong value for {bad[0]!r}" if bad else None


@dataclass(frozen=True, slots=True)
class _Key:
    check: Callable[[Any], str | None]
    default: Any
    help: str
    option: str | None = None
    """The ``Agent`` keyword the key's value is given to as it is (a flat option of
    ``llmist.agent.options.OPTIONS``, or one of ``Agent``'s own such as ``syntax``)."""
    differs: str | None = None
    """Why the default is not the option's, when it is not (a test holds every other to it)."""


def _option_key(name: str, check: Callable[[Any], str | None]) -> _Key:
    """The key of the agent option ``name``: its default and help are the option's declaration's."""
    option = OPTIONS[name]
    return _Key(check, option.default, option.help, option=name)


SETTINGS: dict[str, _Key] = {
    # No model is the environment's choice: the first provider whose key is set (Agent requires one).
    "model": _Key(_str, None, "model string: 'sonnet', 'openai:gpt-4o', 'ollama:qwen2.5:7b', 'mock'"),
    "syntax": _Key(_syntax, "block", "call syntax the model is taught", option="syntax"),
    "system": _option_key("system", _str),
    "max_iterations": _option_key("max_iterations", _pos_int),
    "max_cost": _option_key("max_cost", _pos_num),
    "max_tokens": _option_key("max_tokens", _pos_int),
    "gadgets": _Key(_str_list, [], "gadget files or modules to load"),
    "skills": _Key(_str_list, (), "folders of Agent Skills, each skill a folder with a SKILL.md", option="skills"),
    "builtins": _Key(_bool, False, "add the built-in file and command gadgets"),
    "allow_commands": _Key(_bool, True, "with builtins: include RunCommand"),
    "root": _Key(_str, ".", "sandbox root of the built-in gadgets"),
    "command_timeout": _Key(_pos_num, 30.0, "seconds before RunCommand kills a command"),
    "command_env_passthrough": _Key(_variable_names, [], "variables a command sees though hidden (API keys...)"),
    "command_hide_env": _Key(_variable_names, [], "more variables a command does not see (names or patterns)"),
    "mcp_servers": _Key(_mcp_servers, [], "MCP servers whose tools join the gadgets (commands or tables)"),
    "mcp_timeout": _Key(_pos_num, 30.0, "seconds an MCP server has to start and answer"),
    "fallback": _Key(_model_list, [], "models to fall back to, in order, when the model fails"),
    "deny": _Key(_pattern_list, [], "regular expressions no gadget parameter may match (the call is refused)"),
    "allow_paths": _Key(_path_patterns, [], "the only paths the file gadgets may use (patterns under root)"),
    "log_level": _Key(_log_level, "warning", "level of llmist's logs and gadget logs (trace ... critical)"),
    "log_file": _Key(_str, None, "write logs to this file instead of standard error"),
    "session_db": _Key(_str, None, "SQLite file of --session (default: $LLMIST_SESSION_DB, else the user data folder)"),
    "session_url": _Key(_session_url, None, "database of --session instead of a file: postgresql+asyncpg://..."),
    # llmist.web.DEFAULT_MAX_BODY_BYTES (not imported: the web extra may be missing; a test checks they agree)
    "max_body_bytes": _Key(_pos_int, 8 * 1024 * 1024, "llmist web: largest request body served (413 past it)"),
}
"""Every setting a config file, profile or flag may set: its check, default and meaning (an agent
option's from its declaration), and the ``Agent`` keyword it sets as it is."""

_FLAG_NAMES = {"mcp_servers": "--mcp", "allow_paths": "--allow-path"}
"""Settings whose command-line flag is not named after them."""
_PATH_KEYS = ("root", "log_file", "session_db")
_FOLDER_LIST_KEYS = ("skills",)
"""Lists of folders: a relative one is relative to the config file."""
_ENV_VARIABLES = {
    "model": "LLMIST_MODEL",
    "log_level": "LLMIST_LOG_LEVEL",
    "log_file": "LLMIST_LOG_FILE",
    "session_db": "LLMIST_SESSION_DB",
    "session_url": "LLMIST_SESSION_URL",
}
"""Settings an environment variable may set (above the files and profiles, below the flags)."""
_PATH_LIST_KEYS = ("gadgets",)


@dataclass(frozen=True, slots=True)
class Setting:
    """One merged value and where it came from."""

    value: Any
    source: str
    """``"default"``, a file (with ``[profiles.NAME]``), ``"env NAME"`` or ``"--flag"``."""


@dataclass(slots=True)
class ConfigFile:
    """One configuration file that was looked for."""

    path: Path
    role: str
    """``"user"`` or ``"project"``."""
    found: bool
    settings: dict[str, Any] = field(default_factory=dict)
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    profile: str | None = None
    """The file's default profile (``profile = "name"``)."""


@dataclass(slots=True)
class Config:
    """The merged configuration."""

    values: dict[str, Setting]
    files: list[ConfigFile]
    profile: Setting | None
    """The active profile and who chose it, or ``None``."""

    def __getitem__(self, key: str) -> Any:
        return self.values[key].value


def agent_options(config: Config) -> dict[str, Any]:
    """The configured values of the keys that set an ``Agent`` keyword as they are, by keyword."""
    return {key.option: config[name] for name, key in SETTINGS.items() if key.option is not None}


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """``$LLMIST_CONFIG``, else ``$XDG_CONFIG_HOME/llmist/config.toml``, else ``~/.config/llmist/config.toml``."""
    env = os.environ if env is None else env
    if env.get("LLMIST_CONFIG"):
        return Path(env["LLMIST_CONFIG"]).expanduser()
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "llmist" / "config.toml"


def find_project_config(start: Path) -> Path | None:
    """The nearest ``llmist.toml`` in ``start`` or one of its parents."""
    for directory in (start, *start.parents):
        candidate = directory / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def load_config(
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    profile: str | None = None,
    flags: Mapping[str, Any] | None = None,
    user_file: bool = True,
) -> Config:
    """Merge defaults < user file < project file < profile < environment < ``flags`` (``None`` values
    ignored). ``user_file=False`` and a ``cwd`` with no project file leave the files out."""
    env = os.environ if env is None else env
    cwd = (cwd or Path.cwd()).resolve()
    values = {k: Setting(spec.default, "default") for k, spec in SETTINGS.items()}
    files = [_read_user_file(env)] if user_file else []
    project = find_project_config(cwd)
    files.append(_read_file(project, "project") if project else ConfigFile(cwd / PROJECT_FILE, "project", False))
    for f in files:
        for key, value in f.settings.items():
            values[key] = Setting(value, _label(f))
    chosen = _choose_profile(files, env, profile)
    if chosen is not None:
        values.update(_profile_values(files, chosen))
    for key, variable in _ENV_VARIABLES.items():
        if env.get(variable):
            problem = SETTINGS[key].check(env[variable])
            if problem is not None:
                raise ConfigError(f"environment variable {variable} must be {problem}, got {env[variable]!r}")
            values[key] = Setting(env[variable], f"env {variable}")
    for key, value in (flags or {}).items():
        if value is not None:
            if key not in SETTINGS:
                raise KeyError(key)
            flag = _FLAG_NAMES.get(key) or "--" + key.replace("_", "-")
            problem = SETTINGS[key].check(value)
            if problem is not None:
                raise ConfigError(f"{flag} must be {problem}, got {value!r}")
            values[key] = Setting(value, flag)
    return Config(values, files, chosen)


def _profile_values(files: list[ConfigFile], chosen: Setting) -> dict[str, Setting]:
    """The settings of the chosen profile, from every file that defines it (later files win)."""
    name = chosen.value
    defined = [f for f in files if name in f.profiles]
    if not defined:
        known = sorted({p for f in files for p in f.profiles})
        raise ConfigError(
            f"profile {name!r} (chosen by {chosen.source}) is not defined; "
            f"defined profiles: {', '.join(known) or 'none'} (in {', '.join(str(f.path) for f in files)})"
        )
    return {
        key: Setting(value, f"{_label(f)} [profiles.{name}]")
        for f in defined
        for key, value in f.profiles[name].items()
    }


def _label(f: ConfigFile) -> str:
    return str(f.path)


def _choose_profile(files: list[ConfigFile], env: Mapping[str, str], flag: str | None) -> Setting | None:
    if flag:
        return Setting(flag, "--profile")
    if env.get("LLMIST_PROFILE"):
        return Setting(env["LLMIST_PROFILE"], "env LLMIST_PROFILE")
    for f in reversed(files):
        if f.profile:
            return Setting(f.profile, f"{f.path} (profile = ...)")
    return None


def _read_user_file(env: Mapping[str, str]) -> ConfigFile:
    """The user file; one that ``LLMIST_CONFIG`` names must exist (``/dev/null`` means none)."""
    path = user_config_path(env)
    if env.get("LLMIST_CONFIG"):
        if str(path) == os.devnull:
            return ConfigFile(path, "user", False)
        if not path.exists():
            raise ConfigError(
                f"LLMIST_CONFIG names {path}, which does not exist; create it, fix the path, "
                f"or set LLMIST_CONFIG={os.devnull} to use no user config file"
            )
    return _read_file(path, "user")


def _read_file(path: Path, role: str) -> ConfigFile:
    if not path.is_file():
        if role == "user" and path.exists():
            raise ConfigError(f"{path}: the user config path exists but is not a file")
        return ConfigFile(path, role, False)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} cannot be read: {exc}") from None
    out = ConfigFile(path, role, True)
    base = path.parent
    for key, value in data.items():
        if key == "profiles":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise ConfigError(
                    f"{path}: 'profiles' must hold tables such as [profiles.fast], got {type(value).__name__}"
                )
            out.profiles = {name: _settings(path, table, base, f"[profiles.{name}] ") for name, table in value.items()}
        elif key == "profile":
            if not isinstance(value, str):
                raise ConfigError(f"{path}: key 'profile' must be a profile name (a string), got {value!r}")
            out.profile = value
        else:
            out.settings.update(_settings(path, {key: value}, base, ""))
    return out


def _settings(path: Path, table: Mapping[str, Any], base: Path, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        spec = SETTINGS.get(key)
        if spec is None:
            hint = "" if where else ", 'profile', or [profiles.NAME] tables"
            raise ConfigError(f"{path}: {where}unknown key {key!r}; expected one of: {', '.join(SETTINGS)}{hint}")
        problem = spec.check(value)
        if problem is not None:
            raise ConfigError(f"{path}: {where}key {key!r} must be {problem}, got {value!r} ({type(value).__name__})")
        if key in _PATH_KEYS:
            value = str((base / value).resolve()) if not Path(value).is_absolute() else value
        elif key in _PATH_LIST_KEYS:
            value = [_file_or_module(base, v) for v in value]
        elif key in _FOLDER_LIST_KEYS:
            value = [str((base / v).resolve()) if not Path(v).is_absolute() else v for v in value]
        elif key == "mcp_servers":
            value = [_mcp_cwd(base, v) for v in value]
        out[key] = value
    return out


def _mcp_cwd(base: Path, item: Any) -> Any:
    """A server's relative ``cwd`` is relative to the config file, like gadget files."""
    if isinstance(item, dict) and "cwd" in item and not Path(item["cwd"]).is_absolute():
        return {**item, "cwd": str((base / item["cwd"]).resolve())}
    return item


def _file_or_module(base: Path, item: str) -> str:
    """Relative gadget files are relative to the config file; module names stay as they are."""
    if item.endswith(".py") or "/" in item or "\\" in item:
        return str((base / item).resolve()) if not Path(item).is_absolute() else item
    return item
