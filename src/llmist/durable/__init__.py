"""Durable agent runs on DBOS: a run that a crash, a deploy or a long wait for approval cannot lose.

Needs the ``durable`` extra (``pip install 'llmist[durable]'``, which installs ``dbos``).

- :class:`DBOSAgent` wraps an :class:`~llmist.Agent`: each run is a DBOS workflow with an id,
  each model response and each gadget call one of its steps. A process killed at any point
  leaves the run in DBOS's system database (SQLite for one machine, PostgreSQL for many); the
  next process that launches DBOS on that database finishes it, replaying the completed steps
  instead of doing them again.
- :class:`DurableClient` puts runs on a DBOSAgent's queue and gives decisions from a process
  that runs no agent (the command line, a web app).
- :func:`launch` starts DBOS on a system database URL, checked first.
- :class:`DurableRunEvent` opens each durable run's stream: its workflow id, and whether the
  run was recovered.

See ``docs/durable.md`` for what is durable and what is not.
"""

from __future__ import annotations

from llmist._install import install_command

try:
    import dbos  # noqa: F401  (only to fail here, with the fix, when the extra is missing)
except ImportError as error:
    raise ImportError(
        "llmist.durable runs agents on DBOS, which is not installed: "
        f"pip install 'llmist[durable]' (here: {install_command('durable')})"
    ) from error

from llmist.durable.agent import DBOSAgent, DurableStream, launch
from llmist.durable.client import DurableClient
from llmist.durable.config import DurableConfigError, system_database_url
from llmist.durable.events import DurableRunEvent

__all__ = [
    "DBOSAgent",
    "DurableClient",
    "DurableConfigError",
    "DurableRunEvent",
    "DurableStream",
    "launch",
    "system_database_url",
]
