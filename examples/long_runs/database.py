"""Sessions in a database server: SQLAlchemySession keeps the same conversations as
SQLiteSession, in PostgreSQL (``postgresql+asyncpg://user@host/db``) or any SQLAlchemy database
with an asyncio driver. Here SQLite through SQLAlchemy, so it runs anywhere (docs/sessions.md)."""

import asyncio
import tempfile
from pathlib import Path

from llmist import Agent, SQLAlchemySession
from llmist.testing import MockModel


async def main(folder: Path) -> None:
    url = f"sqlite+aiosqlite:///{folder / 'team.db'}"  # in production: "postgresql+asyncpg://app@db/agents"

    await Agent(model=MockModel(["Noted: the deploy is on Friday."]), session=SQLAlchemySession(url, "ops")).run(
        "Remember: we deploy on Friday."
    )

    model = MockModel(["On Friday."])
    result = await Agent(model=model, session=SQLAlchemySession(url, "ops")).run("When do we deploy?")
    print(result.output)  # On Friday.
    print(await SQLAlchemySession.list_ids(url))  # ['ops']


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
