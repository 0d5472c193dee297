"""The configuration of durable runs: the system database URL, checked before DBOS sees it."""

from __future__ import annotations

from llmist.errors import LlmistError

__all__ = ["DurableConfigError", "system_database_url"]

_SCHEMES = ("sqlite:///", "postgresql://", "postgresql+psycopg://", "postgres://")


class DurableConfigError(LlmistError, ValueError):
    """A durable run's configuration is wrong: a database URL DBOS cannot use, a workflow name
    used twice."""


def system_database_url(url: str) -> str:
    """``url`` checked as a DBOS system database URL: ``sqlite:///path/to/file.sqlite`` for one
    machine, ``postgresql://user:password@host:port/database`` for many.

    Raises:
        DurableConfigError: naming the URL and the forms expected.
    """
    if not isinstance(url, str) or not url.startswith(_SCHEMES):
        raise DurableConfigError(
            f"not a DBOS system database URL: {url!r}; expected sqlite:///path/to/file.sqlite "
            "(one machine) or postgresql://user:password@host:port/database (several)"
        )
    if url.startswith("sqlite:///") and len(url) == len("sqlite:///"):
        raise DurableConfigError(f"the SQLite URL {url!r} names no file; expected sqlite:///path/to/file.sqlite")
    return "postgresql://" + url.removeprefix("postgres://") if url.startswith("postgres://") else url
