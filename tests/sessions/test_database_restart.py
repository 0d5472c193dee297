"""PostgreSQL going away in the middle of a run: the run fails with a clear error (at the step
after a save failed, or at its end, where it waits for its last write), and what was saved
before stays saved."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from llmist import Agent, gadget
from llmist.agent import GadgetResultMessage, SessionError
from llmist.agent.sqlalchemy_session import SQLAlchemySession
from llmist.testing import MockModel, block_call

pytestmark = pytest.mark.slow


async def test_a_database_restarted_mid_run_fails_the_run_and_keeps_what_was_saved(postgres: Any) -> None:
    url = postgres.new_database()
    session = SQLAlchemySession(url, "job")

    @gadget
    async def step(n: int) -> str:
        """Do step n (step 3 stops the database, once the earlier steps are stored)."""
        if n == 3:
            await session.flush()
            await asyncio.to_thread(postgres.stop)
        return f"step {n} done"

    model = MockModel([block_call("step", n=n) for n in range(1, 6)] + ["all done"])
    agent = Agent(model=model, gadgets=[step], session=session, max_iterations=10)
    try:
        with pytest.raises(
            SessionError, match=r"SQLAlchemySession\('postgresql\+asyncpg://.*', 'job'\): the database failed"
        ):
            await agent.run("Do the five steps.")
    finally:
        await asyncio.to_thread(postgres.start)
    stored = await SQLAlchemySession(url, "job").load()
    steps = [m.parameters["n"] for m in stored if isinstance(m, GadgetResultMessage) and m.parameters]
    assert steps == [1, 2]
