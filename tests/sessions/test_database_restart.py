"""PostgreSQL going away in the middle of a run (issue 40): a restart of a few seconds, or
connections the server ends, are retried and the run completes with its conversation stored
whole; a database that stays away fails the run with a clear error once the retries are spent,
and what was saved before stays saved."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from llmist import Agent, gadget
from llmist.agent import GadgetResultMessage, SessionError, SessionRetry
from llmist.agent.sqlalchemy_session import SQLAlchemySession
from llmist.testing import MockModel, block_call

pytestmark = pytest.mark.slow

_HANG_S = 120.0
"""Only to detect a hang: nothing here should come near it."""


class _Retries(logging.Handler):
    """Counts the stores' retry warnings, and lets a thread wait for the first."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "the connection dropped" in message and "retrying in" in message:
            self.messages.append(message)
            self.seen.set()


@pytest.fixture
def retries() -> Iterator[_Retries]:
    handler = _Retries()
    logger = logging.getLogger("llmist.agent.sessions")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _steps(messages: list[Any]) -> list[int]:
    return [m.parameters["n"] for m in messages if isinstance(m, GadgetResultMessage) and m.parameters]


def _five_steps(step: Any, session: SQLAlchemySession) -> Agent:
    model = MockModel([block_call("step", n=n) for n in range(1, 6)] + ["all done"])
    return Agent(model=model, gadgets=[step], session=session, max_iterations=10)


async def test_a_run_survives_a_database_restart_and_stores_its_conversation_whole(
    postgres: Any, retries: _Retries
) -> None:
    url = postgres.new_database()
    session = SQLAlchemySession(url, "job")
    restarted = threading.Event()

    def restart_once_a_write_has_failed() -> None:
        retries.seen.wait(_HANG_S)
        postgres.start()
        restarted.set()

    restarter = threading.Thread(target=restart_once_a_write_has_failed, daemon=True)

    @gadget
    async def step(n: int) -> str:
        """Do step n (step 3 stops the database; it comes back once a write has failed)."""
        if n == 3:
            await session.flush()
            await asyncio.to_thread(postgres.stop)
            restarter.start()
        return f"step {n} done"

    try:
        result = await asyncio.wait_for(_five_steps(step, session).run("Do the five steps."), _HANG_S)
    finally:
        retries.seen.set()  # the server comes back whatever happened (the fixture serves later tests)
        if restarter.ident is not None:  # started
            restarter.join(_HANG_S)
    assert restarted.is_set() and retries.messages, "the database was never down during a write"
    assert result.output == "all done"
    stored = await SQLAlchemySession(url, "job").load()
    assert _steps(stored) == [1, 2, 3, 4, 5]
    assert [m.text for m in stored[-1:]] == ["all done"]


async def test_connections_the_server_ends_are_retried_on_new_ones(postgres: Any, retries: _Retries) -> None:
    url = postgres.new_database()
    engine = create_async_engine(url)  # a pool: its idle connection is the one the server ends
    killer = create_async_engine(url, poolclass=NullPool)
    session = SQLAlchemySession(engine, "job")

    @gadget
    async def step(n: int) -> str:
        """Do step n (steps 2 and 4 end every other connection to the database first)."""
        if n in (2, 4):
            await session.flush()
            async with killer.begin() as conn:
                ended = await conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                )
                assert ended.fetchall(), "no connection of the session's pool to end"
        return f"step {n} done"

    try:
        result = await asyncio.wait_for(_five_steps(step, session).run("Do the five steps."), _HANG_S)
    finally:
        await engine.dispose()
        await killer.dispose()
    assert result.output == "all done"
    # Each of the two kills drops the connection under a transaction. asyncpg words it as
    # the race between its reader and the next statement goes ("connection is closed", or
    # "another operation is in progress"), so the count is checked, not the wording.
    assert len(retries.messages) >= 2, retries.messages
    assert all(m.startswith(f"{session!r}: the connection dropped (") for m in retries.messages), retries.messages
    assert _steps(await SQLAlchemySession(url, "job").load()) == [1, 2, 3, 4, 5]


async def test_a_database_that_stays_away_fails_the_run_and_keeps_what_was_saved(
    postgres: Any, retries: _Retries
) -> None:
    url = postgres.new_database()
    session = SQLAlchemySession(url, "job", retry=SessionRetry(max_attempts=3, base_delay=0.01))

    @gadget
    async def step(n: int) -> str:
        """Do step n (step 3 stops the database, once the earlier steps are stored)."""
        if n == 3:
            await session.flush()
            await asyncio.to_thread(postgres.stop)
        return f"step {n} done"

    try:
        with pytest.raises(SessionError) as caught:
            await asyncio.wait_for(_five_steps(step, session).run("Do the five steps."), _HANG_S)
    finally:
        await asyncio.to_thread(postgres.start)
    message = str(caught.value)
    assert message.startswith("SQLAlchemySession('postgresql+asyncpg://")
    assert "'job'): the database failed: ConnectionRefusedError" in message
    assert "(the connection dropped; gave up after 3 attempts over" in message
    assert len(retries.messages) == 2
    assert _steps(await SQLAlchemySession(url, "job").load()) == [1, 2]


async def test_an_sql_error_is_not_retried(postgres: Any, retries: _Retries) -> None:
    url = postgres.new_database()
    session = SQLAlchemySession(url, "job")
    await session.load()  # the tables exist
    setup = create_async_engine(url, poolclass=NullPool)
    try:
        async with setup.begin() as conn:  # a value the store's column cannot take
            await conn.execute(text("ALTER TABLE llmist_messages ADD CONSTRAINT short CHECK (length(body) < 10)"))
    finally:
        await setup.dispose()
    with pytest.raises(SessionError, match=r"'job'\): the database failed: CheckViolationError: new row"):
        await Agent(model=MockModel(["a long enough answer"]), session=session).run("hi")
    assert retries.messages == []


async def test_a_database_never_reached_fails_after_two_attempts(retries: _Retries) -> None:
    session = SQLAlchemySession("postgresql+asyncpg://nobody@127.0.0.1:9/nowhere", "job")  # the discard port
    with pytest.raises(SessionError, match=r"cannot open the store: .*gave up after 2 attempts"):
        await asyncio.wait_for(session.load(), _HANG_S)
    assert len(retries.messages) == 1
