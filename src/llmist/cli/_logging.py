"""Where the command line sends logs: ``--log-level`` / ``--log-file``, their environment
variables and config keys, with the usual precedence (flag > environment > profile > project
file > user file > default).

One handler on the ``llmist`` logger serves every ``llmist.*`` logger, gadget loggers
(``llmist.gadget.<Name>``) included, since they all propagate to it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from llmist.cli._config import LOG_LEVELS, ConfigError, Setting, load_config
from llmist.gadgets import TRACE

__all__ = ["configure_logging", "log_settings"]

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_HANDLER_NAME = "llmist-cli"


def log_settings(level: str | None, file: str | None) -> tuple[Setting, Setting]:
    """The level and the file in force, each with where it came from.

    A configuration file this command cannot read does not stop logging: its error is the
    command's to report (most commands load the configuration too), so the flags and the
    environment still apply.
    """
    flags = {"log_level": level, "log_file": file}
    try:
        config = load_config(flags=flags)
    except ConfigError:
        config = load_config(cwd=Path(os.sep), env=_log_variables(), flags=flags, user_file=False)
    return config.values["log_level"], config.values["log_file"]


def _log_variables() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in ("LLMIST_LOG_LEVEL", "LLMIST_LOG_FILE")}


def configure_logging(level: str, file: Setting) -> None:
    """Send ``llmist`` logs at ``level`` and above to the file ``file`` names (``log_file`` and where
    it was set), or to standard error when it names none.

    A file that cannot be opened (its folder is missing, it is a directory, it may not be written)
    raises :class:`ConfigError` naming it and where it was set.
    """
    name = level.lower()
    if name not in LOG_LEVELS:  # the flag and the config are checked before: a safety net
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, got {level!r}")
    root = logging.getLogger("llmist")
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
        old.close()
    handler = _file_handler(file.value, file.source) if file.value else logging.StreamHandler()
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(handler)
    root.setLevel(TRACE if name == "trace" else getattr(logging, name.upper()))


def _file_handler(path: str, source: str) -> logging.Handler:
    try:
        return logging.FileHandler(path, encoding="utf-8")
    except IsADirectoryError:
        problem = "is a directory; give the path of a file"
    except FileNotFoundError:
        problem = f"cannot be created: its folder {Path(path).parent} does not exist; create it or log elsewhere"
    except OSError as exc:
        problem = f"cannot be opened ({exc.strerror or exc}); give a file you can write"
    raise ConfigError(f"log file {path} (from {source}) {problem}")
