"""Shared test settings: hypothesis runs the same examples on every machine and every run; a
real PostgreSQL server for the tests that need one."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.postgres import INSTALL, PostgresServer, find_bin_dir, postgres_server

# Derandomized, so a run that passed once passes again and CI cannot fail on a new example
# found by chance; explore with HYPOTHESIS_PROFILE=explore while developing. No deadline: it is
# a wall-clock limit on each example, and on a shared machine busy with a model server an
# example of the compaction properties took 258 ms against the default 200 ms and failed.
settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session (Debian's package; skips naming the install
    command when it is missing). Each test takes a database of its own: ``new_database()``."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip(f"PostgreSQL is not installed: run `{INSTALL}` as root (.ci/run does)")
    with postgres_server(bin_dir) as server:
        yield server


class _CurrentStderr:
    """A stream that writes to whatever ``sys.stderr`` is when it writes."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        with contextlib.suppress(ValueError):  # pytest closed the capture it had in place
            sys.stderr.flush()


@pytest.fixture(autouse=True)
def _dbos_logs_to_the_current_stderr() -> None:
    """DBOS's console log handler keeps the ``sys.stderr`` of the moment it was made, in a test
    run pytest's capture of one test, closed after it: the next ``DBOS(config)`` flushes it and
    fails (``I/O operation on closed file``). It writes to the current one instead."""
    if "dbos" not in sys.modules:
        return
    for handler in logging.getLogger("dbos").handlers:
        if type(handler) is logging.StreamHandler and not isinstance(handler.stream, _CurrentStderr):
            handler.stream = _CurrentStderr()
